"""`make bench` cannot rot: every benchmark runs here with tiny counts (a smoke run).

The smoke run checks the shape of the results, never what was measured: this
suite runs on shared, busy machines, where a figure (and above all the
difference of two figures, such as the server CPU over the baseline) may come
out anything, negative included.
"""

from __future__ import annotations

import json
import math
import pathlib
from typing import Any

import pytest

import mazzo.engine
from benchmarks import run, service_profile
from benchmarks.engine_bench import GAMES
from benchmarks.stats import Figure
from benchmarks.summaries import missing_fields

TABLES = {
    "engine_games",
    "engine_calls",
    "token_sizes",
    "token_times",
    "token_formats",
    "json_mapping",
    "json_requests",
    "handlers",
    "service",
    "service_ratios",
    "targets",
}


def _is_figure(cell: Any) -> bool:
    return isinstance(cell, dict) and "runs" in cell


def _check_figure(cell: dict[str, Any], repeats: int) -> None:
    """A figure: ``repeats`` finite runs and their median, min and max."""
    runs = cell["runs"]
    assert len(runs) == repeats, cell
    assert all(isinstance(value, int | float) and math.isfinite(value) for value in runs), cell
    assert cell["min"] == min(runs) and cell["max"] == max(runs), cell
    assert cell["min"] <= cell["median"] <= cell["max"], cell
    assert isinstance(cell["unit"], str)


def _check_cell(cell: Any, repeats: int) -> None:
    if _is_figure(cell):
        _check_figure(cell, repeats)
    elif isinstance(cell, float):
        assert math.isfinite(cell)
    else:
        # A label, a count, or None where a row has nothing to compare with.
        assert cell is None or isinstance(cell, str | int), cell


def test_a_smoke_run_prints_every_table_and_writes_the_results(
    tmp_path: pathlib.Path, capsys: Any
) -> None:
    results = tmp_path / "bench.json"
    assert run.main(["--smoke", "--results", str(results)]) == 0
    printed = capsys.readouterr().out
    body = json.loads(results.read_text())
    assert body["settings"]["smoke"] is True
    assert {"nproc", "cpu_model", "python"} <= set(body["machine"])
    # Every benchmark repeats its measures the same number of times in a smoke run.
    (repeats,) = {chosen["repeats"] for _, chosen in run.SETTINGS.values()}
    assert all(body["settings"][name]["repeats"] == repeats for name in run.SETTINGS)
    tables = {t["name"]: t for t in body["tables"]}
    assert set(tables) == TABLES
    for table in tables.values():
        assert table["title"] in printed
        assert table["columns"] and all(isinstance(c, str) for c in table["columns"])
        assert table["rows"], table["name"]
        for row in table["rows"]:
            assert len(row) == len(table["columns"]), (table["name"], row)
            assert isinstance(row[0], str), row  # every row is labelled
            for cell in row:
                _check_cell(cell, repeats)
    # Every game of the table that the engine has is measured.
    measured = {row[0] for row in tables["engine_games"]["rows"]}
    assert {label for label, name, _ in GAMES if name in mazzo.engine.GAMES} >= measured
    assert "Scopa, 2 players, to 11" in measured
    if "tressette" in mazzo.engine.GAMES:
        assert {"Tressette, 2 players", "Tressette, 4 players"} <= measured
    # Format 3 is measured beside format 2 for every game the token benchmark measures.
    labels = [row[0] for row in tables["token_times"]["rows"]]
    assert [row[0] for row in tables["token_formats"]["rows"]] == labels
    # No call failed, and the ratios are there.
    assert not any("ERRORS" in note for note in tables["service"]["notes"])
    assert len(tables["service_ratios"]["rows"]) == 9  # 4 targets, 4 cold rows, the calibration


def test_the_profile_shares_out_the_server_cpu_of_each_call_among_its_pieces() -> None:
    targets = ("grpc_echo_validate", "grpc_validate", "rest_play")
    table = service_profile.run(repeats=1, seconds=0.2, targets=targets)
    # A label may name a piece at two places (resolve alone in gRPC's Validate and
    # inside apply in REST's Play, both three deep): its cells are merged.
    rows: dict[str, dict[str, Any]] = {}
    for label, *cells in table.rows:
        merged = rows.setdefault(label, dict.fromkeys(targets))
        for target, cell in zip(targets, cells, strict=True):
            if cell is not None:
                merged[target] = cell
    # The echo runs no handler; Validate runs its handler inside the interceptor and
    # the method; REST's Play inside the route, with the JSON mapping around it.
    in_grpc = rows["    the handler (itself)"]
    assert in_grpc["grpc_echo_validate"] is None and in_grpc["grpc_validate"] is not None
    assert rows["      resolve the move"]["grpc_validate"] is not None
    in_rest = rows["  the handler (itself)"]
    assert in_rest["rest_play"] is not None and in_rest["grpc_validate"] is None
    assert rows["    apply the move"]["rest_play"] is not None
    assert rows["  parse the request"]["rest_play"] is not None
    assert rows["gRPC metrics interceptor (count, time)"]["rest_play"] is None
    # Each column's pieces, and what no timer covers, add up to its server CPU per call.
    for target in targets:
        cells = [row[target] for label, row in rows.items() if label != "server CPU per call"]
        pieces = sum(cell.median for cell in cells if isinstance(cell, Figure))
        total = rows["server CPU per call"][target]
        assert isinstance(total, Figure) and pieces == pytest.approx(total.median)


def test_the_profile_writes_its_table_as_a_run_summary_the_report_reads(tmp_path) -> None:
    results = tmp_path / "profile.json"
    argv = ["--repeats", "1", "--seconds", "0.2", "--targets", "grpc_echo_validate"]
    assert service_profile.main([*argv, "--results", str(results)]) == 0
    body = json.loads(results.read_text())
    assert missing_fields(body) == []
    assert body["settings"]["service_profile"]["targets"] == ["grpc_echo_validate"]
    assert body["tables"][0]["rows"]
