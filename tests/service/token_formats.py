"""A state token of each released token format, kept in tests/service/tokens.

``format-N.json`` holds one token of format N, the test key that sealed it,
how it was made, and what a server of today must do with it: open it (the
status and state it holds) or refuse it with the reason the docs give
(tests/service/test_token_formats.py). A token format, once released, is kept
here for good: a new format adds a file, and an old format's expectation
changes only when the server stops opening it, as the CHANGELOG says.

    python -m tests.service.token_formats     # writes the file of today's format, if missing

Format 1 (0.1.0) was sealed by that release's own code; later files by this
module, through the server's handlers.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mazzo.engine import dump_state
from mazzo.service.handlers import EngineHandlers
from mazzo.service.metrics import Metrics
from mazzo.service.state_token import FORMAT_VERSION, StateSealer
from mazzo.service.trust import game_id_text, load_record
from mazzo.v1 import engine_pb2 as pb

FOLDER = Path(__file__).resolve().with_name("tokens")
KEY_ID = "fixture"
#: The test key every kept token is sealed under ("mazzo token fixture key of 0.1.0").
KEY = bytes.fromhex("6d617a7a6f20746f6b656e2066697874757265206b6579206f6620302e312e30")
SEED = 42


def path_of(version: int) -> Path:
    return FOLDER / f"format-{version}.json"


def fixtures() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(FOLDER.glob("format-*.json"))]


def handlers_for(fixture: dict[str, Any]) -> EngineHandlers:
    """Handlers of a server whose state key is the fixture's."""
    return EngineHandlers(
        StateSealer([(fixture["key_id"], bytes.fromhex(fixture["key"]))]), Metrics()
    )


def token_of(fixture: dict[str, Any]) -> bytes:
    return base64.b64decode(fixture["token"])


def opened(token: bytes, keys: Sequence[tuple[str, bytes]]) -> dict[str, Any]:
    """What a token holds as today's server reads it: the game's id (as statuses write
    it), its ply and the engine's state bytes."""
    state, game_id, ply = load_record(StateSealer(list(keys)).open(token))
    return {"game_id": game_id_text(game_id), "ply": ply, "state": dump_state(state).hex()}


def current() -> dict[str, Any]:
    """A token of today's format: a 2-player Scopa game, seed 42, after its first legal move."""
    handlers = EngineHandlers(StateSealer([(KEY_ID, KEY)]), Metrics())
    started = handlers.new_game(pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), seed=SEED))
    move = handlers.legal_moves(pb.LegalMovesRequest(state=started.state)).moves[0]
    played = handlers.play(pb.PlayRequest(state=started.state, move=move))
    token = played.state
    return {
        "format": FORMAT_VERSION,
        "made_by": (
            f"the server's handlers at format {FORMAT_VERSION} (tests/service/token_formats.py): "
            f"NewGame of 2-player Scopa, seed {SEED}, then Play of its first legal move "
            f"({move.seat}:{move.card})"
        ),
        "key_id": KEY_ID,
        "key": KEY.hex(),
        "token": base64.b64encode(token).decode(),
        "expected": {"opens": opened(token, [(KEY_ID, KEY)])},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Keep a state token of today's format.")
    parser.add_argument("--force", action="store_true", help="write the file again if it exists")
    args = parser.parse_args(argv)
    path = path_of(FORMAT_VERSION)
    if path.exists() and not args.force:
        print(f"{path.name} exists: a released format's token is kept as it was")
        return 0
    path.write_text(json.dumps(current(), indent=1) + "\n")
    print(f"wrote {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
