// Whole games through the client against a live Mazzo REST gateway, whose
// root URL is in MAZZO_URL (tests/clients/test_typescript_client.py starts
// the server and runs these with node's test runner).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  MazzoClient,
  MazzoError,
  NewGameRequestSchema,
  idempotencyKey,
  type NewGameInit,
  type PlayResponse,
} from "../src/index.js";

const url = process.env.MAZZO_URL;
if (!url) {
  throw new Error("MAZZO_URL is not set: the root URL of a running Mazzo REST gateway");
}
const mazzo = new MazzoClient(url, { headers: { "x-client": "typescript-test" } });

async function refusal(call: Promise<unknown>): Promise<MazzoError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof MazzoError, `not a MazzoError: ${error}`);
    return error;
  }
  assert.fail("the call was not refused");
}

/** Plays the first legal move until the game is over; returns the last answer. */
async function playToTheEnd(state: Uint8Array): Promise<{ last: PlayResponse; plies: number }> {
  for (let plies = 1; ; plies++) {
    const legal = await mazzo.legalMoves(state);
    assert.ok(legal.moves.length > 0);
    const check = await mazzo.validate(state, legal.moves[0]);
    assert.equal(check.legal, true, check.message);
    const played = await mazzo.play(state, legal.moves[0]);
    assert.notDeepEqual(played.state, state);
    state = played.state;
    if (played.status?.gameOver) {
      return { last: played, plies };
    }
  }
}

test("the catalog lists every game", async () => {
  const games = (await mazzo.catalog()).games.map((game) => game.name);
  assert.deepEqual(games, ["scopa", "tressette", "briscola"]);
});

test("a Scopa game plays to its end and refuses moves after it", async () => {
  const game = await mazzo.newGame({
    players: 2,
    seed: 42n,
    game: { case: "scopa", value: { target: 11 } },
  });
  assert.equal(game.seed, 42n);
  assert.equal(game.status?.seatToPlay, 0);
  const { last, plies } = await playToTheEnd(game.state);
  assert.ok(plies >= 36, `only ${plies} plies`);
  assert.ok(Math.max(...(last.status?.scores ?? [])) >= 11);
  assert.ok(last.events.some((event) => event.kind.case === "gameOver"));
  const over = await refusal(mazzo.legalMoves(last.state));
  assert.equal(over.status, 400);
  assert.equal(over.code, "FAILED_PRECONDITION");
  assert.equal(over.reason, "GAME_OVER");
  const view = await mazzo.view(last.state, 1);
  assert.equal(view.view?.status?.gameOver, true);
});

test("a Tressette game plays to its end", async () => {
  const game = await mazzo.newGame({ players: 2, game: { case: "tressette", value: { target: 11 } } });
  const { last, plies } = await playToTheEnd(game.state);
  assert.equal(last.status?.game, "tressette");
  assert.ok(plies >= 40, `only ${plies} plies`);
});

test("a Briscola game plays to its end, its view with the trumps", async () => {
  const game = await mazzo.newGame({ players: 2, game: { case: "briscola", value: { target: 1 } } });
  const turned = game.events.find((event) => event.kind.case === "trumpTurnedUp");
  assert.ok(turned);
  const view = await mazzo.view(game.state, 0);
  assert.equal(view.view?.game.case, "briscola");
  assert.equal(view.view?.stockSize, 34);
  const { last, plies } = await playToTheEnd(game.state);
  assert.equal(last.status?.game, "briscola");
  assert.ok(plies >= 40 && plies % 40 === 0, `${plies} plies`); // a tied hand deals again
});

test("a move out of turn is a MazzoError with the reason and its metadata", async () => {
  const game = await mazzo.newGame({ players: 2, seed: 42n, game: { case: "scopa", value: {} } });
  const error = await refusal(mazzo.play(game.state, { seat: 1, card: "10D" }));
  assert.equal(error.status, 400);
  assert.equal(error.code, "FAILED_PRECONDITION");
  assert.equal(error.reason, "NOT_YOUR_TURN");
  assert.deepEqual(error.metadata, { seatToPlay: "0" });
});

test("an illegal move is explained by validate, without a new state", async () => {
  const game = await mazzo.newGame({ players: 2, seed: 42n, game: { case: "scopa", value: {} } });
  const played = await mazzo.play(game.state, { seat: 0, card: "9C" });
  const check = await mazzo.validate(played.state, { seat: 1, card: "10D", take: ["8B"] });
  assert.equal(check.legal, false);
  assert.equal(check.reason, "MUST_TAKE_SAME_RANK");
});

test("a state that is not a token is refused as INVALID_ARGUMENT", async () => {
  const error = await refusal(mazzo.legalMoves(new Uint8Array([1, 2, 3])));
  assert.equal(error.status, 400);
  assert.equal(error.code, "INVALID_ARGUMENT");
  assert.notEqual(error.reason, "");
});

test("a call with no answer in time is a DEADLINE_EXCEEDED MazzoError", async () => {
  const silent: typeof fetch = (_input, init) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => reject(new Error("aborted")));
    });
  const slow = new MazzoClient(url, { fetch: silent, timeoutMs: 50 });
  const error = await refusal(slow.catalog());
  assert.equal(error.code, "DEADLINE_EXCEEDED");
  assert.equal(error.status, 0);
});

/** The credential NewGame issued for `seat`. */
function credentialOf(game: { seatCredentials: { seat: number; credential: string }[] }, seat: number): string {
  const found = game.seatCredentials.find((entry) => entry.seat === seat);
  assert.ok(found, `no credential for seat ${seat}`);
  return found.credential;
}

test("a game against a bot with seat credentials: each seat sees only its own cards", async () => {
  const game = await mazzo.newGame({
    players: 2,
    eventsSeat: 0,
    game: { case: "tressette", value: { target: 11 } },
  });
  assert.equal(game.seatCredentials.length, 2);
  const human = credentialOf(game, 0);
  const bot = credentialOf(game, 1);
  // NewGame asked for seat 0's events: no card dealt to seat 1 is in the answer.
  assert.ok(game.events.every((event) => event.visibleTo === undefined || event.visibleTo === 0));
  let state = game.state;
  let status: typeof game.status = game.status;
  for (let plies = 0; !status?.gameOver; plies++) {
    assert.ok(plies < 200, "the game did not end");
    const seat = status?.seatToPlay ?? -1;
    const ply = status?.ply ?? -1;
    let played: PlayResponse;
    if (seat === 0) {
      const legal = await mazzo.legalMoves(state, { seatCredential: human });
      const check = await mazzo.validate(state, legal.moves[0], { seatCredential: human, expectedPly: ply });
      assert.equal(check.legal, true, check.message);
      played = await mazzo.play(state, legal.moves[0], { seatCredential: human, expectedPly: ply });
    } else {
      const suggestion = await mazzo.suggest(state, seat, {
        level: "greedy",
        budgetMs: 5,
        seed: 7n,
        seatCredential: bot,
      });
      assert.equal(suggestion.level, "greedy");
      assert.ok(suggestion.move);
      played = await mazzo.play(state, suggestion.move, { eventsSeat: 0, expectedPly: ply });
    }
    assert.ok(played.events.every((event) => event.visibleTo === undefined || event.visibleTo === 0));
    assert.equal(played.status?.ply, ply + 1);
    state = played.state;
    status = played.status;
  }
  const view = await mazzo.view(state, 0, { seatCredential: human });
  assert.equal(view.view?.status?.gameOver, true);
});

test("a seat credential scopes calls to its seat and expectedPly refuses a stale state", async () => {
  const game = await mazzo.newGame({ players: 2, seed: 42n, game: { case: "scopa", value: {} } });
  const other = credentialOf(game, 1);
  const asOther = await refusal(mazzo.view(game.state, 0, { seatCredential: other }));
  assert.equal(asOther.status, 403);
  assert.equal(asOther.reason, "SEAT_NOT_PERMITTED");
  const wrongSeat = await refusal(mazzo.legalMoves(game.state, { seatCredential: other }));
  assert.equal(wrongSeat.status, 403);
  const stale = await refusal(mazzo.play(game.state, { seat: 0, card: "9C" }, { expectedPly: 3 }));
  assert.equal(stale.status, 409);
  assert.equal(stale.reason, "STATE_VERSION_MISMATCH");
  const staleCheck = await refusal(mazzo.validate(game.state, { seat: 0, card: "9C" }, { expectedPly: 1 }));
  assert.equal(staleCheck.reason, "STATE_VERSION_MISMATCH");
  const forged = await refusal(mazzo.view(game.state, 1, { seatCredential: "not-a-credential" }));
  assert.equal(forged.status, 403);
});

test("suggest answers a legal move at the level asked, the same for the same seed", async () => {
  const game = await mazzo.newGame({ players: 2, seed: 5n, game: { case: "scopa", value: {} } });
  // Bounded by its simulations, not by time: the same answer on a busy machine.
  const options = { level: "expert", budgetMs: 60_000, simulations: 4, seed: 11n };
  const first = await mazzo.suggest(game.state, 0, options);
  const again = await mazzo.suggest(game.state, 0, { ...options, seatCredential: credentialOf(game, 0) });
  assert.equal(first.level, "expert");
  assert.ok(first.simulations > 0 && first.simulations <= 4, `${first.simulations} simulations`);
  assert.deepEqual(again.move, first.move);
  assert.ok(first.move);
  const check = await mazzo.validate(game.state, first.move);
  assert.equal(check.legal, true, check.message);
  const notYours = await refusal(mazzo.suggest(game.state, 0, { seatCredential: credentialOf(game, 1) }));
  assert.equal(notYours.status, 403);
});

test("a single-player game: computer seats, one Play per move, retries alike", async () => {
  const game = await mazzo.newGame({
    players: 2,
    game: { case: "scopa", value: {} },
    computers: [{ seat: 1, level: "greedy" }],
    clock: { moveSeconds: 600 },
  });
  assert.deepEqual(game.status?.computerSeats, [1]);
  assert.ok(game.status?.deadline, "a clocked game has a deadline");
  const seatCredential = game.seatCredentials[0].credential;
  let state = game.state;
  let status: typeof game.status = game.status;
  while (!status?.gameOver) {
    assert.equal(status?.seatToPlay, 0);
    const { moves } = await mazzo.legalMoves(state, { seatCredential });
    const key = idempotencyKey();
    const played = await mazzo.play(state, moves[0], { seatCredential, idempotencyKey: key });
    const again = await mazzo.play(state, moves[0], { seatCredential, idempotencyKey: key });
    assert.deepEqual(
      again.events.map((event) => event.kind),
      played.events.map((event) => event.kind),
    );
    state = played.state;
    status = played.status;
  }
  const advanced = await mazzo.advance(state);
  assert.deepEqual(advanced.state, state);
  const { view } = await mazzo.view(state, 0, { spectator: true });
  assert.equal(view?.spectator, true);
  assert.deepEqual(view?.hand, []);
  const computer = game.seatCredentials[1].credential;
  const { moves } = await mazzo.legalMoves(game.state, { seatCredential });
  const refused = await refusal(
    mazzo.play(game.state, { ...moves[0], seat: 1 }, { seatCredential: computer }),
  );
  assert.equal(refused.reason, "COMPUTER_SEAT");
});

/** Every game of the proto, by its key: the cases of NewGameRequest's oneof `game`. */
const GAME_KEYS = NewGameRequestSchema.oneofs.find((oneof) => oneof.localName === "game")!.fields.map(
  (field) => field.localName,
);

test("a game's own key starts that game, for every game of the proto", async () => {
  assert.ok(GAME_KEYS.includes("briscola") && GAME_KEYS.length >= 3, GAME_KEYS.join());
  for (const key of GAME_KEYS) {
    const request: Record<string, unknown> = { players: 2, [key]: {} };
    const game = await mazzo.newGame(request as NewGameInit);
    assert.equal(game.status?.game, key);
  }
  const briscola = await mazzo.newGame({ players: 2, briscola: { target: 2 } });
  assert.equal(briscola.status?.game, "briscola");
  assert.equal(briscola.status?.target, 2);
});

test("newGame refuses a key that is no field of the request, and two games, before calling", async () => {
  let calls = 0;
  const counting: typeof fetch = (input, init) => {
    calls++;
    return fetch(input, init);
  };
  const client = new MazzoClient(url, { fetch: counting });
  const unknown = { players: 2, brisco: {} } as unknown as NewGameInit;
  await assert.rejects(client.newGame(unknown), { name: "TypeError", message: /brisco/ });
  const snake = { players: 2, scopa: {}, first_dealer: 1 } as unknown as NewGameInit;
  await assert.rejects(client.newGame(snake), { name: "TypeError", message: /first_dealer/ });
  const two = { players: 2, briscola: {}, game: { case: "scopa", value: {} } } as NewGameInit;
  await assert.rejects(client.newGame(two), { name: "TypeError", message: /briscola and scopa/ });
  assert.equal(calls, 0);
});
