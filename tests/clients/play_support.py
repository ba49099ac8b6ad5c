"""Shared by the tests of `mazzo play`: run it, read what it printed, check it with the API."""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from mazzo_client import MazzoClient, pb
from mazzo_client.play import main
from mazzo_client.play.record import load

SERVER_STATUS = re.compile(r"^Server status: game over, scores ([\d ]+), winning side (\d+)", re.M)
MATCH = re.compile(r"^Match: (.*) \(playing to (\d+)\)$", re.M)
FINAL = re.compile(r"^Game over\. .* Final score: (.*)\.$", re.M)


@dataclass
class Run:
    code: int
    out: str

    @property
    def server_scores(self) -> list[int]:
        match = SERVER_STATUS.search(self.out)
        assert match, self.out[-2000:]
        return [int(s) for s in match[1].split()]


def play(*args: str, answers: str = "1\n" * 3000, columns: int | None = None) -> Run:
    """`mazzo play ARGS` in this process, its input from a pipe of ``answers``, its
    output as wide as ``columns`` ($COLUMNS; None: unbounded, as into a file). The
    test's own $COLUMNS never counts: pytest-xdist's workers set one."""
    out = io.StringIO()
    width = {} if columns is None else {"COLUMNS": str(columns)}
    with mock.patch.dict(os.environ, width):
        if columns is None:
            os.environ.pop("COLUMNS", None)
        code = main(["play", *args], stdin=io.StringIO(answers), stdout=out)
    return Run(code, out.getvalue())


def a_card_not_held(out: str, hand_label: str = "Your hand") -> str:
    """The first card, by suit then rank, that the first ``hand_label: ...`` line of
    ``out`` does not hold."""
    hand = re.search(rf"^{re.escape(hand_label)}: (.*)\.$", out, re.M)
    assert hand, out[-1500:]
    held = set(re.findall(r"\[(\w+)\]", hand[1]))
    return next(f"{r}{s}" for s in "DCSB" for r in range(1, 11) if f"{r}{s}" not in held)


def scores_said(text: str) -> list[int]:
    """The numbers of a ``you 11, seat 1 7`` score line, side by side."""
    return [int(n) for n in re.findall(r"(?:^|, )[^,]*? (\d+)(?=,|$)", text)]


def replayed_scores(target: str, record_path: Path) -> list[int]:
    """The final scores the server gives the recorded moves, played by this test's
    own client with each seat's credential."""
    record = load(record_path)
    with MazzoClient(target, timeout=60) as mazzo:
        request = record.request
        game = request.WhichOneof("game")
        started = mazzo.new_game(
            request.players,
            options=getattr(request, game) if game else None,
            seed=request.seed,
        )
        credentials = {c.seat: c.credential for c in started.seat_credentials}
        state, status = started.state, started.status
        for move in record.moves:
            played = mazzo.play(state, move, credential=credentials[move.seat])
            state, status = played.state, played.status
        assert status.game_over
        return list(status.scores)


def assert_consistent_ending(run: Run) -> None:
    """The last hand's match line, the Game over line and the server's status agree."""
    assert run.code == 0, run.out[-3000:]
    final = FINAL.findall(run.out)
    matches = MATCH.findall(run.out)
    assert len(final) == 1 and matches, run.out[-3000:]
    assert scores_said(final[0]) == run.server_scores
    assert scores_said(matches[-1][0]) == run.server_scores
    assert max(run.server_scores) >= int(matches[-1][1])


__all__ = [
    "Run",
    "a_card_not_held",
    "assert_consistent_ending",
    "pb",
    "play",
    "replayed_scores",
    "scores_said",
]
