"""The kept results (benchmarks/results): one small summary a run, never a log.

Every file there is a summary with the fields benchmarks.summaries names, the
whole under a megabyte; every result file the docs name is there; and the tool
that turned the earlier files (every match's counts) into summaries keeps what
they measured, and the comparisons the record quotes across two of them.
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

import pytest

from benchmarks import summaries
from benchmarks.summaries import RESULTS, missing_fields, paired, pooled, summarised

ROOT = pathlib.Path(__file__).resolve().parent.parent
KEPT = sorted(RESULTS.glob("*.json"))
#: The kept results' bound, all files together.
MEGABYTE = 1_000_000
DOCS = [
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "README.md",
    ROOT / "benchmarks" / "RESULTS.md",
]
#: A result file's name (a glob allowed): an arena run's, a load test's, a benchmark run's.
_RESULT_FILE = re.compile(r"((?:arena|loadtest)-[\w.*-]+\.json|\d{4}-\d{2}-\d{2}-[\w.*-]+\.json)")


def test_the_kept_results_stay_under_a_megabyte() -> None:
    assert len(KEPT) > 100
    assert sum(path.stat().st_size for path in KEPT) < MEGABYTE


@pytest.mark.parametrize("path", KEPT, ids=lambda path: path.name)
def test_every_kept_result_is_a_summary_with_its_fields_and_no_match(path: pathlib.Path) -> None:
    body = json.loads(path.read_text())
    assert missing_fields(body) == []
    assert body["command"].startswith(("python -m benchmarks.", "make "))
    text = json.dumps(body)
    assert "pairs_raw" not in text and "a_side" not in text  # a match's counts


def _named_results(text: str) -> set[str]:
    """The kept result files a text names: paths (globs allowed) and, in
    backquotes, an arena run's ``COMMIT-NAME`` (not what a run writes,
    ``latest.json`` and ``arena-latest.json``)."""
    text = " ".join(text.split())
    paths = [path for path in _RESULT_FILE.findall(text) if not path.endswith("latest.json")]
    short = re.findall(r"`([0-9a-f]{7}-[a-z0-9.*-]+)`", text)
    return set(paths) | {f"arena-*-{name}.json" for name in short}


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.name)
def test_every_result_file_the_docs_name_is_kept(doc: pathlib.Path) -> None:
    gone = [name for name in _named_results(doc.read_text()) if not list(RESULTS.glob(name))]
    assert gone == []


def test_the_check_of_named_results_finds_what_it_looks_for() -> None:
    names = _named_results(
        "see `benchmarks/results/arena-2026-12-06-1891222-*.json` and\n"
        "`7431094-scopa-expert-greedy-100ms`, not `1891222` nor `COMMIT-NAME`;"
        " [x](../benchmarks/results/2026-12-01-7be7748.json), arena-latest.json"
    )
    assert names == {
        "arena-2026-12-06-1891222-*.json",
        "arena-*-7431094-scopa-expert-greedy-100ms.json",
        "2026-12-01-7be7748.json",
    }


# ---------------------------------------------------------------- the earlier form


def _match(won: bool, points: tuple[float, float], side: int) -> dict[str, Any]:
    return {"a_side": side, "a_won": won, "hands": 2, "points": list(points), "seconds": [0, 0]}


def _earlier(pairs: list[list[dict[str, Any]]], seed: int = 6001) -> dict[str, Any]:
    """A result file of the earlier form, of one row of ``pairs``."""
    row = {"row": "scopa:expert-pimc", "game": "Scopa, 2 players", "a": "expert", "b": "pimc"}
    row |= {"matches": 2 * len(pairs), "hands": 4 * len(pairs), "a_win_rate": 0.5}
    row |= {"a_win_rate_95": [0.4, 0.6], "a_minus_b_points_per_hand": 0.1}
    row |= {"a_minus_b_points_per_hand_95": [0, 0.2], "a_ms_per_move": 2.0}
    row |= {"b_ms_per_move": 1.0, "a_simulations_per_second": 9000.0}
    settings = {"smoke": False, "pairs": len(pairs), "budget_ms": 2.5, "simulations": 0}
    settings |= {"target": None, "seed": seed, "pimc_worlds_depth": [12, 3], "workers": 2}
    settings |= {"search": {"STOP_Z": 1.5}, "rows": ["scopa:expert-pimc"]}
    settings |= {"summaries": [row], "pairs_raw": {"scopa:expert-pimc": pairs}}
    machine = {"git_commit": "1234567", "nproc": 2}
    when = "2026-12-06T05:44:24Z"
    return {"measured_at": when, "machine": machine, "settings": settings, "tables": []}


WON = [[_match(True, (3, 1), 0), _match(True, (2, 2), 1)]] * 3
LOST = [[_match(False, (1, 3), 0), _match(True, (2, 2), 1)]] * 3


def test_an_earlier_result_becomes_its_summary_without_its_matches() -> None:
    body = summarised(_earlier(WON), "arena-2026-12-06-abcdef1-x.json", {})
    assert missing_fields(body) == []
    assert body["kind"] == "arena" and body["commit"] == "abcdef1"  # the commit its name gives
    assert body["command"] == (
        "python -m benchmarks.arena --rows scopa:expert-pimc --pairs 3 --budget-ms 2.5"
        " --seed 6001 --pimc 12x3 --search STOP_Z=1.5 --workers 2"
    )
    (row,) = body["rows"]
    assert row["seeds"] == [6001, 6003] and row["matches"] == 6
    assert not {"pairs_raw", "summaries", "rows"} & set(body["settings"])
    assert summarised(body, "arena-2026-12-06-abcdef1-x.json", {}) is body  # a summary stays


def test_the_comparisons_the_record_quotes_are_worked_out_as_the_logs_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compared = (
        ("arena-won.json", "paired", ("arena-lost.json",)),
        ("arena-won.json", "pooled", ("arena-lost.json",)),
    )
    monkeypatch.setattr(summaries, "COMPARED", compared)
    body = summarised(_earlier(WON), "arena-won.json", {"arena-lost.json": LOST})
    (row,) = body["rows"]
    # Each pair: both matches won against one, +0.5 points a hand against -0.5.
    assert row["paired"]["with"] == ["arena-lost.json"]
    assert row["paired"]["a_win_rate_difference"] == pytest.approx(0.5)
    assert row["paired"]["a_minus_b_points_per_hand_difference"] == pytest.approx(1.0)
    assert row["pooled"]["matches"] == 12
    assert row["pooled"]["a_win_rate"] == pytest.approx(0.75)
    with pytest.raises(SystemExit, match="arena-lost.json"):
        summarised(_earlier(WON), "arena-won.json", {})


def test_paired_runs_are_on_the_same_deals_and_pooled_ones_add_up() -> None:
    figures = paired(WON + LOST, LOST + LOST)
    assert figures["a_win_rate_difference"] == pytest.approx(0.25)
    low, high = figures["a_win_rate_difference_95"]
    assert low < 0.25 < high
    with pytest.raises(ValueError, match="not the same deals"):
        paired(WON, WON + LOST)
    assert pooled([WON, LOST])["a_win_rate_95"][0] < 0.75


def test_a_summary_says_which_fields_it_lacks() -> None:
    body = summarised(_earlier(WON), "arena-x.json", {})
    del body["command"]
    del body["rows"][0]["seeds"]
    assert missing_fields(body) == ["command", "rows[0].seeds"]
    assert "a kind of arena, bench, loadtest" in missing_fields({"kind": "chess"})


def test_the_tool_prints_the_paired_figures_of_two_matches_logs(
    tmp_path: pathlib.Path, capsys: Any
) -> None:
    logs = []
    for name, pairs in (("won", WON), ("lost", LOST)):
        logs.append(tmp_path / f"{name}.json")
        logs[-1].write_text(json.dumps({"command": "x", "pairs": {"scopa:expert-pimc": pairs}}))
    assert summaries.main(["--paired", *map(str, logs)]) == 0
    assert json.loads(capsys.readouterr().out)["a_win_rate_difference"] == pytest.approx(0.5)
