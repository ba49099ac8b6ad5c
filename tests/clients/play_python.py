"""Play one whole game with mazzo_client, sync then asyncio, and print what happened.

Run by tests/clients/test_python_client.py with the python of a fresh virtual
environment, from outside the repository: it may import only mazzo_client.
Usage: python play_python.py HOST:PORT
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys

from mazzo_client import AsyncMazzoClient, MazzoClient, MazzoError, move, pb


def refusal(error: MazzoError) -> dict[str, object]:
    return {"code": error.code.name, "reason": error.reason, "metadata": error.metadata}


def play_sync(target: str) -> dict[str, object]:
    with MazzoClient(target, metadata=[("x-caller", "fresh-venv")]) as mazzo:
        games = [game.name for game in mazzo.catalog().games]
        game = mazzo.new_game(players=2, scopa=pb.ScopaOptions(target=11), seed=42)
        state, plies, out_of_turn = game.state, 0, None
        while True:
            legal = mazzo.legal_moves(state, timeout=30)
            if plies == 0:
                try:
                    mazzo.play(state, move(1 - legal.seat, "1D"))
                except MazzoError as error:
                    out_of_turn = refusal(error)
            played = mazzo.play(state, legal.moves[0], metadata=[("x-ply", str(plies))])
            state, plies = played.state, plies + 1
            if played.status.game_over:
                break
        try:
            mazzo.legal_moves(state)
            after_the_end = None
        except MazzoError as error:
            after_the_end = refusal(error)
        view = mazzo.view(state, 0).view
        return {
            "games": games,
            "plies": plies,
            "scores": list(played.status.scores),
            "winning_side": played.status.winning_side,
            "out_of_turn": out_of_turn,
            "after_the_end": after_the_end,
            "view_status_game_over": view.status.game_over,
        }


async def play_async(target: str) -> dict[str, object]:
    async with AsyncMazzoClient(target) as mazzo:
        game = await mazzo.new_game(players=2, tressette=pb.TressetteOptions(target=11), seed=7)
        state, plies = game.state, 0
        while True:
            legal = await mazzo.legal_moves(state)
            check = await mazzo.validate(state, legal.moves[0])
            assert check.legal, check
            played = await mazzo.play(state, legal.moves[0])
            state, plies = played.state, plies + 1
            if played.status.game_over:
                break
        try:
            await mazzo.play(state, move(0, "1D"))
            after_the_end = None
        except MazzoError as error:
            after_the_end = refusal(error)
        return {
            "game": played.status.game,
            "plies": plies,
            "scores": list(played.status.scores),
            "after_the_end": after_the_end,
        }


def main() -> None:
    target = sys.argv[1]
    print(
        json.dumps(
            {
                "client_file": importlib.util.find_spec("mazzo_client").origin,  # type: ignore[union-attr]
                "server_importable": any(
                    importlib.util.find_spec(name) is not None
                    for name in ("mazzo", "engine", "service")
                ),
                "sync": play_sync(target),
                "async": asyncio.run(play_async(target)),
            }
        )
    )


if __name__ == "__main__":
    main()
