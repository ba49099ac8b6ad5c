/**
 * The TypeScript client of Mazzo over its REST gateway: fetch and the proto3
 * JSON mapping, for browsers, React Native and Node 20+.
 *
 * Requests and responses are the messages generated from the proto by
 * protoc-gen-es (re-exported from "./gen/mazzo/v1/engine_pb.js"), so every
 * field the API has, today and after a regeneration, is typed here without
 * being spelled out by this wrapper.
 */
import {
  create,
  fromJson,
  toJson,
  type DescMessage,
  type JsonValue,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";

import {
  AdvanceRequestSchema,
  AdvanceResponseSchema,
  GetCatalogResponseSchema,
  LegalMovesRequestSchema,
  LegalMovesResponseSchema,
  MoveSchema,
  NewGameRequestSchema,
  NewGameResponseSchema,
  PlayRequestSchema,
  PlayResponseSchema,
  SuggestRequestSchema,
  SuggestResponseSchema,
  ValidateRequestSchema,
  ValidateResponseSchema,
  ViewRequestSchema,
  ViewResponseSchema,
  type AdvanceResponse,
  type GetCatalogResponse,
  type LegalMovesResponse,
  type Move,
  type NewGameRequest,
  type NewGameResponse,
  type PlayResponse,
  type SuggestResponse,
  type ValidateResponse,
  type ViewResponse,
} from "./gen/mazzo/v1/engine_pb.js";

export * from "./gen/mazzo/v1/engine_pb.js";

/** A move as the caller writes it: `{ seat: 0, card: "9C", take: ["9S"] }`. */
export type MoveInit = MessageInitShape<typeof MoveSchema>;
/** The request's oneof `game`, as the caller writes it: `{ case: "briscola", value: {} }`. */
type GameInit = NonNullable<MessageInitShape<typeof NewGameRequestSchema>["game"]>;
/**
 * A game's options by the game's own key, as the REST body writes them:
 * `{ briscola: { target: 1 } }`. The keys are the cases of NewGameRequest's
 * oneof `game`, read from the generated types: a new game needs no change here.
 */
export type GameKeys = {
  [Game in GameInit as Game["case"] extends string ? Game["case"] : never]?: Game["value"];
};
/**
 * A NewGame request: `{ players: 2, briscola: { target: 1 } }`, or with the
 * oneof spelled out, `{ players: 2, game: { case: "briscola", value: { target: 1 } } }`.
 */
export type NewGameInit = MessageInitShape<typeof NewGameRequestSchema> & GameKeys;

/** Options of one call. */
export interface CallOptions {
  /** Headers sent with this call, after the client's (an authorization token, a request id). */
  headers?: Record<string, string>;
  /** Give up after this many milliseconds (the client's timeout when left out). */
  timeoutMs?: number;
  /** Abort the call from outside (a screen that closes). */
  signal?: AbortSignal;
}

/** Options of a call made for one seat. */
export interface SeatOptions extends CallOptions {
  /**
   * The seat's credential (NewGame's `seatCredentials`): the call is scoped to
   * that seat (its view, its moves, its own and the public events). Needed on a
   * server that requires seat credentials; see docs/security.md.
   */
  seatCredential?: string;
}

/** Options of Validate. */
export interface ValidateOptions extends SeatOptions {
  /** Compare-and-set: the ply the caller believes the state is at (ABORTED otherwise). */
  expectedPly?: number;
}

/** Options of Play. */
export interface PlayOptions extends ValidateOptions {
  /** Answer only the events this seat may see (implied by `seatCredential`). */
  eventsSeat?: number;
  /**
   * Safe retries: 16 or more random bytes (see `idempotencyKey()`) chosen for
   * this one move and sent again only to retry it: the retry answers alike,
   * the same cards dealt and the same computer moves.
   */
  idempotencyKey?: Uint8Array;
}

/** Options of Advance: as Play's (the credential only scopes the events). */
export type AdvanceOptions = PlayOptions;

/** Options of View. */
export interface ViewOptions extends SeatOptions {
  /** The public view, for spectators: no hand, no hidden card, no credential needed. */
  spectator?: boolean;
}

/** A fresh idempotency key for one move: 16 random bytes. */
export function idempotencyKey(): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(16));
}

/** Options of Suggest: the computer player that chooses, and how long it thinks. */
export interface SuggestOptions extends SeatOptions {
  /** "random", "greedy", "intermediate" or "expert" (the default). */
  level?: string;
  /** Milliseconds the player may think (the server's default and cap apply). */
  budgetMs?: number;
  /** Seeds the player's choices. */
  seed?: bigint;
  /**
   * At most this many simulations: worlds searched (expert at a Scopa table
   * of two and in Scopone), else play-outs of simulated deals.
   */
  simulations?: number;
}

export interface ClientOptions {
  /** The fetch to use: the global one by default. */
  fetch?: typeof fetch;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** Default timeout of each call in milliseconds (10 s). */
  timeoutMs?: number;
}

/**
 * A refused call. `status` is the HTTP status, `code` the gRPC status name
 * (`FAILED_PRECONDITION`...), `reason` the stable reason of the
 * google.rpc.ErrorInfo (`NOT_YOUR_TURN`...; empty when the answer carries
 * none), `metadata` its details (`{ seatToPlay: "1" }`).
 */
export class MazzoError extends Error {
  override readonly name = "MazzoError";

  constructor(
    readonly status: number,
    readonly code: string,
    readonly reason: string,
    message: string,
    readonly metadata: Record<string, string> = {},
  ) {
    super(reason ? `${code} ${reason}: ${message}` : `${code}: ${message}`);
  }
}

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";

interface ErrorEnvelope {
  error?: {
    code?: number;
    status?: string;
    message?: string;
    details?: { "@type"?: string; reason?: string; metadata?: Record<string, string> }[];
  };
}

/** The AIP-193 envelope `{"error": {...}}` of a refused call, as a MazzoError. */
export function errorFromEnvelope(status: number, body: unknown): MazzoError {
  const error = (body as ErrorEnvelope | null)?.error;
  if (typeof error !== "object" || error === null) {
    return new MazzoError(status, "UNKNOWN", "", `HTTP ${status} without an error envelope`);
  }
  const info = (error.details ?? []).find((detail) => detail["@type"] === ERROR_INFO);
  return new MazzoError(
    status,
    error.status ?? "UNKNOWN",
    info?.reason ?? "",
    error.message ?? "",
    info?.metadata ?? {},
  );
}

/** NewGameRequest's oneof `game`: a field per game, named as the game. */
const GAME_ONEOF = NewGameRequestSchema.oneofs.find((oneof) => oneof.localName === "game")!;
/** The keys a NewGame request may have: its fields, its oneof and a message's own `$typeName`. */
const NEW_GAME_KEYS = new Set([
  ...NewGameRequestSchema.fields.map((field) => field.localName),
  GAME_ONEOF.localName,
  "$typeName",
]);

/**
 * The NewGame request of `init`: a game's own key (`briscola: {...}`) names the
 * game as the oneof would; a key that is no field of NewGameRequest, or a second
 * game, is refused (TypeError) rather than dropped.
 */
export function newGameRequest(init: NewGameInit): NewGameRequest {
  const fields: Record<string, unknown> = { ...init };
  const games = GAME_ONEOF.fields
    .filter((field) => fields[field.localName] !== undefined)
    .map((field) => ({ case: field.localName, value: fields[field.localName] }));
  for (const field of GAME_ONEOF.fields) delete fields[field.localName];
  if (init.game?.case !== undefined) games.push(init.game);
  if (games.length > 1) {
    throw new TypeError(`newGame: one game's options, not ${games.map((game) => game.case).join(" and ")}`);
  }
  const unknown = Object.keys(fields).filter((key) => !NEW_GAME_KEYS.has(key));
  if (unknown.length > 0) {
    throw new TypeError(`newGame: ${unknown.join(", ")}: no field of NewGameRequest`);
  }
  const request = { ...fields, game: games[0] } as MessageInitShape<typeof NewGameRequestSchema>;
  return create(NewGameRequestSchema, request);
}

/** Responses are read leniently: a newer server may send fields this client does not know. */
const READ = { ignoreUnknownFields: true };

export class MazzoClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;

  /** `baseUrl` is the gateway's root, for example `http://127.0.0.1:8080`. */
  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.headers = options.headers ?? {};
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** The games, their player counts, options, variants and card faces. */
  catalog(options?: CallOptions): Promise<GetCatalogResponse> {
    return this.call("GET", "/v1/catalog", undefined, GetCatalogResponseSchema, options);
  }

  /**
   * Shuffle (or take explicit decks) and deal the game the request names, by
   * its own key (`briscola: { target: 1 }`) or by the oneof `game`. A key that is
   * no field of NewGameRequest, or a second game, is refused with a TypeError.
   * Ask `eventsSeat` in the request to receive only the events that seat may see.
   */
  async newGame(request: NewGameInit, options?: CallOptions): Promise<NewGameResponse> {
    const body = toJson(NewGameRequestSchema, newGameRequest(request));
    return this.call("POST", "/v1/games", body, NewGameResponseSchema, options);
  }

  /**
   * Check and apply a move, then the computer seats' (NewGame's `computers`)
   * up to a person's turn: the new state, every event in order, the status.
   */
  play(state: Uint8Array, move: MoveInit | Move, options: PlayOptions = {}): Promise<PlayResponse> {
    const { seatCredential, expectedPly, eventsSeat, idempotencyKey } = options;
    const request = create(PlayRequestSchema, {
      state,
      move,
      seatCredential,
      expectedPly,
      eventsSeat,
      idempotencyKey,
    });
    const body = toJson(PlayRequestSchema, request);
    return this.call("POST", "/v1/games:play", body, PlayResponseSchema, options);
  }

  /**
   * Move the game on without a person: the computer seats, and a seat whose
   * clock ran out. The same state when there is nothing to do.
   */
  advance(state: Uint8Array, options: AdvanceOptions = {}): Promise<AdvanceResponse> {
    const { seatCredential, expectedPly, eventsSeat, idempotencyKey } = options;
    const request = create(AdvanceRequestSchema, {
      state,
      seatCredential,
      expectedPly,
      eventsSeat,
      idempotencyKey,
    });
    const body = toJson(AdvanceRequestSchema, request);
    return this.call("POST", "/v1/games:advance", body, AdvanceResponseSchema, options);
  }

  /** Whether a move is legal and, if not, the reason (no new state). */
  validate(
    state: Uint8Array,
    move: MoveInit | Move,
    options: ValidateOptions = {},
  ): Promise<ValidateResponse> {
    const { seatCredential, expectedPly } = options;
    const request = create(ValidateRequestSchema, { state, move, seatCredential, expectedPly });
    const body = toJson(ValidateRequestSchema, request);
    return this.call("POST", "/v1/games:validate", body, ValidateResponseSchema, options);
  }

  /** Every legal move of the seat to play. */
  legalMoves(state: Uint8Array, options: SeatOptions = {}): Promise<LegalMovesResponse> {
    const request = create(LegalMovesRequestSchema, { state, seatCredential: options.seatCredential });
    const body = toJson(LegalMovesRequestSchema, request);
    return this.call("POST", "/v1/games:legalMoves", body, LegalMovesResponseSchema, options);
  }

  /** What one seat may see; with `spectator`, the public view. */
  view(state: Uint8Array, seat: number, options: ViewOptions = {}): Promise<ViewResponse> {
    const { seatCredential, spectator } = options;
    const request = create(ViewRequestSchema, { state, seat, seatCredential, spectator });
    const body = toJson(ViewRequestSchema, request);
    return this.call("POST", "/v1/games:view", body, ViewResponseSchema, options);
  }

  /** The move a computer player (docs/bots.md) chooses for the seat to play. */
  suggest(state: Uint8Array, seat: number, options: SuggestOptions = {}): Promise<SuggestResponse> {
    const { level, budgetMs, seed, simulations, seatCredential } = options;
    const request = create(SuggestRequestSchema, {
      state,
      seat,
      level,
      budgetMs,
      seed,
      simulations,
      seatCredential,
    });
    const body = toJson(SuggestRequestSchema, request);
    return this.call("POST", "/v1/games:suggest", body, SuggestResponseSchema, options);
  }

  private async call<Desc extends DescMessage>(
    method: "GET" | "POST",
    path: string,
    body: JsonValue | undefined,
    schema: Desc,
    options: CallOptions = {},
  ): Promise<MessageShape<Desc>> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), options.timeoutMs ?? this.timeoutMs);
    const forward = () => abort.abort();
    options.signal?.addEventListener("abort", forward);
    try {
      const response = await this.send(method, path, body, options, abort.signal);
      const json = await response.json().catch(() => undefined);
      if (!response.ok) {
        throw errorFromEnvelope(response.status, json);
      }
      if (json === undefined) {
        throw new MazzoError(response.status, "UNKNOWN", "", "the answer is not JSON");
      }
      return fromJson(schema, json as JsonValue, READ);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", forward);
    }
  }

  private async send(
    method: "GET" | "POST",
    path: string,
    body: JsonValue | undefined,
    options: CallOptions,
    signal: AbortSignal,
  ): Promise<Response> {
    const headers: Record<string, string> = { ...this.headers, ...options.headers };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
    }
    try {
      return await this.fetch(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // No answer at all: cancelled by the caller, out of time, or no server to be reached.
      const code = options.signal?.aborted
        ? "CANCELLED"
        : signal.aborted
          ? "DEADLINE_EXCEEDED"
          : "UNAVAILABLE";
      throw new MazzoError(0, code, "", message);
    }
  }
}
