"""Seal a state token under the tests' fixed key: a fixture of the current token format.

    python tools/seal_token.py                           # 2-player Scopa, seed 7, one move in
    python tools/seal_token.py --game tressette --players 4 --seed 3 --plies 5

Prints the token in base64, as REST carries it (gRPC carries its bytes). The
token is a real one: a game dealt and played by the server's own handlers,
sealed in the format this checkout seals (``FORMAT_VERSION``), under the key
the tests use (key id ``k1``, the bytes 0 to 31): never a secret, so never a
key to deploy. A committed fixture made with it shows that a later release
still opens the tokens of this one.
"""

from __future__ import annotations

import argparse
import base64
import sys
from collections.abc import Sequence

from mazzo.service.handlers import EngineHandlers
from mazzo.service.metrics import Metrics
from mazzo.service.state_token import StateSealer
from mazzo.v1 import engine_pb2 as pb

#: The tests' key (tests/service/support.py's KEYS): public, for fixtures only.
FIXTURE_KEYS: tuple[tuple[str, bytes], ...] = (("k1", bytes(range(32))),)
GAMES = ("scopa", "tressette")


def seal_fixture(
    game: str = "scopa",
    players: int = 2,
    seed: int = 7,
    plies: int = 1,
    keys: Sequence[tuple[str, bytes]] = FIXTURE_KEYS,
) -> bytes:
    """The token of a seeded game after ``plies`` moves (each the first legal one)."""
    handlers = EngineHandlers(StateSealer(list(keys)), Metrics())
    options = (
        {"scopa": pb.ScopaOptions()} if game == "scopa" else {"tressette": pb.TressetteOptions()}
    )
    token = handlers.new_game(pb.NewGameRequest(players=players, seed=seed, **options)).state
    for _ in range(plies):
        move = handlers.legal_moves(pb.LegalMovesRequest(state=token)).moves[0]
        token = handlers.play(pb.PlayRequest(state=token, move=move)).state
    return token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/seal_token.py", description=__doc__)
    parser.add_argument("--game", choices=GAMES, default="scopa")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--plies", type=int, default=1, help="moves played before sealing")
    args = parser.parse_args(argv)
    token = seal_fixture(args.game, args.players, args.seed, args.plies)
    print(base64.b64encode(token).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
