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
  GetCatalogResponseSchema,
  LegalMovesRequestSchema,
  LegalMovesResponseSchema,
  MoveSchema,
  NewGameRequestSchema,
  NewGameResponseSchema,
  PlayRequestSchema,
  PlayResponseSchema,
  ValidateRequestSchema,
  ValidateResponseSchema,
  ViewRequestSchema,
  ViewResponseSchema,
  type GetCatalogResponse,
  type LegalMovesResponse,
  type Move,
  type NewGameResponse,
  type PlayResponse,
  type ValidateResponse,
  type ViewResponse,
} from "./gen/mazzo/v1/engine_pb.js";

export * from "./gen/mazzo/v1/engine_pb.js";

/** A move as the caller writes it: `{ seat: 0, card: "9C", take: ["9S"] }`. */
export type MoveInit = MessageInitShape<typeof MoveSchema>;
/** A NewGame request: `{ players: 2, game: { case: "scopa", value: { target: 11 } } }`. */
export type NewGameInit = MessageInitShape<typeof NewGameRequestSchema>;

/** Options of one call. */
export interface CallOptions {
  /** Headers sent with this call, after the client's (an authorization token, a request id). */
  headers?: Record<string, string>;
  /** Give up after this many milliseconds (the client's timeout when left out). */
  timeoutMs?: number;
  /** Abort the call from outside (a screen that closes). */
  signal?: AbortSignal;
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

  /** Shuffle (or take explicit decks) and deal. */
  newGame(request: NewGameInit, options?: CallOptions): Promise<NewGameResponse> {
    const body = toJson(NewGameRequestSchema, create(NewGameRequestSchema, request));
    return this.call("POST", "/v1/games", body, NewGameResponseSchema, options);
  }

  /** Check and apply a move: the new state, the events and the status. */
  play(state: Uint8Array, move: MoveInit | Move, options?: CallOptions): Promise<PlayResponse> {
    const body = toJson(PlayRequestSchema, create(PlayRequestSchema, { state, move }));
    return this.call("POST", "/v1/games:play", body, PlayResponseSchema, options);
  }

  /** Whether a move is legal and, if not, the reason (no new state). */
  validate(
    state: Uint8Array,
    move: MoveInit | Move,
    options?: CallOptions,
  ): Promise<ValidateResponse> {
    const body = toJson(ValidateRequestSchema, create(ValidateRequestSchema, { state, move }));
    return this.call("POST", "/v1/games:validate", body, ValidateResponseSchema, options);
  }

  /** Every legal move of the seat to play. */
  legalMoves(state: Uint8Array, options?: CallOptions): Promise<LegalMovesResponse> {
    const body = toJson(LegalMovesRequestSchema, create(LegalMovesRequestSchema, { state }));
    return this.call("POST", "/v1/games:legalMoves", body, LegalMovesResponseSchema, options);
  }

  /** What one seat may see. */
  view(state: Uint8Array, seat: number, options?: CallOptions): Promise<ViewResponse> {
    const body = toJson(ViewRequestSchema, create(ViewRequestSchema, { state, seat }));
    return this.call("POST", "/v1/games:view", body, ViewResponseSchema, options);
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
