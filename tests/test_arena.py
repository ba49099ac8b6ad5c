"""`make arena` cannot rot: a smoke run with tiny counts, checked for its structure only."""

from __future__ import annotations

import argparse
import json
import pathlib
from typing import Any

import pytest

from benchmarks import arena
from mazzo.engine.players import world_search


def test_a_smoke_arena_prints_every_row_and_writes_its_results(
    tmp_path: pathlib.Path, capsys: Any
) -> None:
    results, log = tmp_path / "arena.json", tmp_path / "matches.json"
    rows = [
        "scopa:greedy-random",
        "scopone:expert-greedy",
        "tressette4:random-expert",
        "scopa3:expert-random",
    ]
    argv = ["--smoke", "--rows", *rows, "--results", str(results), "--matches-log", str(log)]
    assert arena.main(argv) == 0
    printed = capsys.readouterr().out
    body = json.loads(results.read_text())
    assert body["settings"]["smoke"] is True
    assert body["command"] == "python -m benchmarks.arena " + " ".join(argv)
    assert [summary["row"] for summary in body["rows"]] == rows
    tables = {t["name"]: t for t in body["tables"]}
    assert set(tables) == {"arena", "playout_speed", "last_round", "retry_cost"}
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
    assert {row[0] for row in tables["playout_speed"]["rows"]} == {
        label for label, _, _ in arena.SETUPS.values()
    }
    # One duplicate set a row: the same seed, A on each side in turn.
    sides = {"scopa3:expert-random": 3}
    for summary in body["rows"]:
        assert summary["matches"] == sides.get(summary["row"], 2)
        assert summary["seeds"] == [1, 1]
        assert 0 <= summary["a_win_rate"] <= 1
        assert summary["hands"] >= summary["matches"]
    # The summary keeps no match; the log, outside the kept results, every one.
    assert "a_side" not in json.dumps(body)
    logged = json.loads(log.read_text())
    assert logged["command"] == body["command"]
    for row, pair in logged["pairs"].items():
        assert len(pair) == 1 and len(pair[0]) == sides.get(row, 2)
        assert [match["a_side"] for match in pair[0]] == list(range(sides.get(row, 2)))
    labels = [label for label, _, _ in arena.SETUPS.values()]
    assert [row[0] for row in tables["retry_cost"]["rows"]] == labels
    for _, choices, simulations, *percentiles in tables["retry_cost"]["rows"]:
        assert choices > 0 and simulations >= 1
        assert percentiles == sorted(percentiles)  # median, 90th, 99th, worst
    (last_round,) = tables["last_round"]["rows"]
    assert last_round[0] == 2  # last rounds, each played by both searches
    assert last_round[3] + last_round[4] <= 2  # better, worse
    assert "| game | A | B |" in printed  # the Markdown table for docs/bots.md


def test_the_retry_cost_table_of_a_table_without_a_choice_shows_no_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(arena, "first_hand", lambda name, rules, seed: iter(()))
    table = arena.retry_cost_table(hands=1, budget_ms=2.0)
    assert [row[1:] for row in table.rows] == [[0, None, None, None, None, None]] * len(
        arena.SETUPS
    )
    assert "-" in table.render()


def test_a_row_names_a_setup_and_two_players() -> None:
    row = arena.Row.parse("tressette2:expert-greedy")
    assert (row.setup, row.first, row.second) == ("tressette2", "expert", "greedy")
    for bad in ("chess:expert-greedy", "scopa:expert", "scopa:oracle-greedy"):
        with pytest.raises(argparse.ArgumentTypeError, match=bad):
            arena.Row.parse(bad)


def test_the_pimc_baseline_plays_in_the_arena_with_the_worlds_and_depth_asked(
    tmp_path: pathlib.Path,
) -> None:
    results = tmp_path / "arena.json"
    rows = ["scopa:pimc-greedy", "tressette4:greedy-pimc"]
    argv = ["--smoke", "--rows", *rows, "--pimc", "2x3", "--results", str(results)]
    assert arena.main(argv) == 0
    body = json.loads(results.read_text())
    assert body["settings"]["pimc_worlds_depth"] == [2, 3]
    assert [s["row"] for s in body["rows"]] == rows
    with pytest.raises(argparse.ArgumentTypeError, match="WORLDSxDEPTH"):
        arena._worlds_by_depth("12by5")


def test_the_per_match_log_is_never_written_among_the_kept_results(capsys: Any) -> None:
    kept = arena.RESULTS.parent / "matches.json"
    with pytest.raises(SystemExit):
        arena.main(["--smoke", "--rows", "scopa:greedy-random", "--matches-log", str(kept)])
    assert "keeps summaries only" in capsys.readouterr().err
    assert not kept.exists()


def test_overruns_are_summarised_by_their_worst_and_percentiles() -> None:
    # 1000 timed moves of player A, of which four overran the budget.
    matches = [
        {"decisions": [600, 10], "overruns_ms": [[30.0, 2.0], []]},
        {"decisions": [400, 10], "overruns_ms": [[6.0, 0.7], []]},
    ]
    a = arena.overrun_summary(matches, 0)
    assert a == {
        "decisions": 1000,
        "max_ms": 30.0,
        "p99_ms": 0.0,  # fewer than 1% of the moves overran
        "p999_ms": 6.0,
        "over_1ms": 3,
        "over_5ms": 2,
        "over_20ms": 1,
    }
    assert arena.overrun_summary(matches, 1)["max_ms"] == 0.0


def test_the_world_searchs_settings_are_set_for_a_run(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(world_search, "STOP_Z", world_search.STOP_Z)
    monkeypatch.setattr(world_search, "EVALUATION", world_search.EVALUATION)
    results = tmp_path / "arena.json"
    argv = ["--smoke", "--rows", "scopa:expert-greedy", "--results", str(results)]
    assert arena.main([*argv, "--search", "STOP_Z=2.5", "--search", "quiescence=2"]) == 0
    assert world_search.STOP_Z == 2.5
    assert world_search.EVALUATION.quiescence == 2
    body = json.loads(results.read_text())
    assert body["settings"]["search"] == {"STOP_Z": 2.5, "quiescence": 2}
    for bad in (["--search", "NOT_THERE=1"], ["--search", "STOP_Z=one"]):
        with pytest.raises(SystemExit):
            arena.main([*argv, *bad])
