"""`make arena` cannot rot: a smoke run with tiny counts, checked for its structure only."""

from __future__ import annotations

import argparse
import json
import pathlib
from typing import Any

import pytest

from benchmarks import arena


def test_a_smoke_arena_prints_every_row_and_writes_its_results(
    tmp_path: pathlib.Path, capsys: Any
) -> None:
    results = tmp_path / "arena.json"
    rows = [
        "scopa:greedy-random",
        "scopone:expert-greedy",
        "tressette4:random-expert",
        "scopa3:expert-random",
    ]
    assert arena.main(["--smoke", "--rows", *rows, "--results", str(results)]) == 0
    printed = capsys.readouterr().out
    body = json.loads(results.read_text())
    assert body["settings"]["smoke"] is True
    assert body["settings"]["rows"] == rows
    tables = {t["name"]: t for t in body["tables"]}
    assert set(tables) == {"arena", "expert_speed", "last_round"}
    for table in tables.values():
        assert table["title"] in printed
        for row in table["rows"]:
            assert len(row) == len(table["columns"])
    assert [row[:3] for row in tables["arena"]["rows"]] == [
        ["Scopa, 2 players", "greedy", "random"],
        ["Scopone scientifico", "expert", "greedy"],
        ["Tressette, 4 players", "random", "expert"],
        ["Scopa, 3 players (A against two B)", "expert", "random"],
    ]
    assert {row[0] for row in tables["expert_speed"]["rows"]} == {
        label for label, _, _ in arena.SETUPS.values()
    }
    # One duplicate set a row: the same seed, A on each side in turn.
    sides = {"scopa3:expert-random": 3}
    for summary in body["settings"]["summaries"]:
        assert summary["matches"] == sides.get(summary["row"], 2)
        assert 0 <= summary["a_win_rate"] <= 1
        assert summary["hands"] >= summary["matches"]
    for row, pair in body["settings"]["pairs_raw"].items():
        assert len(pair) == 1 and len(pair[0]) == sides.get(row, 2)
        assert [match["a_side"] for match in pair[0]] == list(range(sides.get(row, 2)))
    (last_round,) = tables["last_round"]["rows"]
    assert last_round[0] == 2  # last rounds, each played by both searches
    assert last_round[3] + last_round[4] <= 2  # better, worse
    assert "| game | A | B |" in printed  # the Markdown table for docs/bots.md


def test_a_row_names_a_setup_and_two_players() -> None:
    row = arena.Row.parse("tressette2:expert-greedy")
    assert (row.setup, row.first, row.second) == ("tressette2", "expert", "greedy")
    for bad in ("chess:expert-greedy", "scopa:expert", "scopa:oracle-greedy"):
        with pytest.raises(argparse.ArgumentTypeError, match=bad):
            arena.Row.parse(bad)
