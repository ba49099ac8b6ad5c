// A clock that runs out, through the client against a live Mazzo REST gateway
// (MAZZO_URL; tests/clients/test_typescript_client.py starts it). The server's
// own clock: the test polls Advance until the seat's second has passed.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ForfeitReason, MazzoClient, type AdvanceResponse } from "../src/index.js";

const url = process.env.MAZZO_URL;
if (!url) {
  throw new Error("MAZZO_URL is not set: the root URL of a running Mazzo REST gateway");
}
const mazzo = new MazzoClient(url);

/** Generous: the clock runs out after a second. */
const GIVE_UP_MS = 60_000;

test("a forfeit on time is told by its events: the forfeit, then the game's end", async () => {
  const game = await mazzo.newGame({
    players: 2,
    game: { case: "scopa", value: {} },
    computers: [{ seat: 1, level: "random" }],
    clock: { moveSeconds: 1, onTimeout: "forfeit" },
  });
  const giveUp = Date.now() + GIVE_UP_MS;
  let advanced: AdvanceResponse;
  do {
    // Polling for the condition (the deadline passed), not waiting a fixed time.
    await new Promise((resolve) => setTimeout(resolve, 100));
    advanced = await mazzo.advance(game.state);
  } while (!advanced.status?.gameOver && Date.now() < giveUp);
  assert.equal(advanced.status?.forfeitedSide, 0);
  const [forfeit, over] = advanced.events.map((event) => event.kind);
  assert.equal(advanced.events.length, 2);
  assert.equal(forfeit.case, "forfeit");
  assert.equal(forfeit.value.seat, 0);
  assert.equal(forfeit.value.side, 0);
  assert.equal(forfeit.value.reason, ForfeitReason.TIME_EXPIRED);
  assert.equal(over.case, "gameOver");
  assert.equal(over.value.winningSide, 1);
  assert.deepEqual(over.value.scores, advanced.status?.scores);
});
