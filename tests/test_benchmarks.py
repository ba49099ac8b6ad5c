"""`make bench` cannot rot: every benchmark runs here with tiny counts (a smoke run)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import engine
from benchmarks import run
from benchmarks.engine_bench import GAMES


def _figures(cell: Any) -> list[float]:
    return cell["runs"] if isinstance(cell, dict) else []


def test_a_smoke_run_prints_every_table_and_writes_the_results(
    tmp_path: pathlib.Path, capsys: Any
) -> None:
    results = tmp_path / "bench.json"
    assert run.main(["--smoke", "--results", str(results)]) == 0
    printed = capsys.readouterr().out
    body = json.loads(results.read_text())
    assert body["settings"]["smoke"] is True
    assert {"nproc", "cpu_model", "python"} <= set(body["machine"])
    tables = {t["name"]: t for t in body["tables"]}
    assert set(tables) == {
        "engine_games",
        "engine_calls",
        "token_sizes",
        "token_times",
        "json_mapping",
        "handlers",
        "service",
        "service_ratios",
        "targets",
    }
    for table in tables.values():
        assert table["title"] in printed
        assert table["rows"], table["name"]
        for row in table["rows"]:
            assert len(row) == len(table["columns"])
            assert all(value > 0 for cell in row for value in _figures(cell)), row
    # Every game of the table that the engine has is measured.
    measured = {row[0] for row in tables["engine_games"]["rows"]}
    assert {label for label, name, _ in GAMES if name in engine.GAMES} >= measured
    assert "Scopa, 2 players, to 11" in measured
    if "tressette" in engine.GAMES:
        assert {"Tressette, 2 players", "Tressette, 4 players"} <= measured
    # No call failed, and the ratios are there.
    assert not any("ERRORS" in note for note in tables["service"]["notes"])
    assert len(tables["service_ratios"]["rows"]) == 9  # 4 targets, 4 cold rows, the calibration
