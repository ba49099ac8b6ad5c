"""The results kept in benchmarks/results: one small summary a run.

A run of the arena (`make arena`) or of the benchmarks (`make bench`) keeps
what it measured, never its logs: the command, the commit and the seeds
reproduce every match. Every summary holds

* ``kind``: ``arena``, ``bench`` or ``loadtest`` (a load test's medians, kept
  by hand from ``make loadtest``);
* ``command``: the command that ran, to run again at ``commit``;
* ``commit``: the commit the figures measured;
* ``measured_at`` and ``machine``: when, and on what;

and by kind: an arena run, its ``settings`` and one summary a row (its seeds,
matches and hands, A's win rate and points a hand over B's with their 95%
intervals, each player's CPU a move, simulations a second and overruns), and
the tables it printed; a benchmark run, its settings and tables (each figure
its runs' median, min and max). ``python -m benchmarks.arena
--matches-log PATH`` writes the per-match log elsewhere, for research.

    python -m benchmarks.summaries benchmarks/results/*.json   # each file as its summary

turns result files of the earlier, longer form (with every pair's matches)
into their summaries, in place; a summary stays as it is.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import shlex
import sys
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.stats import Pairs, interval, pair_margins, pair_win_rates, write_results

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
#: What every summary holds, and what each row of an arena run's holds.
FIELDS = ("kind", "command", "commit", "measured_at", "machine")
KIND_FIELDS = {
    "arena": ("settings", "rows", "tables"),
    "bench": ("settings", "tables"),
    "loadtest": ("medians", "runs"),
}
ROW_FIELDS = (
    "row",
    "seeds",
    "matches",
    "hands",
    "a_win_rate",
    "a_win_rate_95",
    "a_minus_b_points_per_hand",
    "a_minus_b_points_per_hand_95",
    "a_ms_per_move",
    "b_ms_per_move",
    "a_simulations_per_second",
)
#: The per-match log of the earlier form, and what the settings repeated of the rows.
_LOGS = ("pairs_raw", "summaries", "rows")
#: The arena's --pimc when a run did not set it.
_PIMC_DEFAULT = [12, 5]
#: The first hands of the two retry-cost runs kept, which did not record them
#: (docs/api.md: ``--retry-cost 10``).
_RETRY_COST_HANDS = 10
_NAMED_COMMIT = re.compile(r"\d{4}-\d{2}-\d{2}-([0-9a-f]{7})\b")
#: The comparisons of two kept runs that the record quotes (benchmarks/RESULTS.md,
#: docs/bots.md), worked out from the runs' per-match logs as they were dropped,
#: and kept in the first run's row: ``paired``, A's wins and points a hand less
#: the other run's on the same pairs; ``pooled``, A's wins over the runs together.
COMPARED: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    (f"arena-{first}.json", how, tuple(f"arena-{other}.json" for other in others))
    for first, how, others in (
        # What the plays are worth: read, against not read, on the same pairs.
        (
            "2026-12-06-1891222-scopa-expert-greedy-100ms",
            "paired",
            ("2026-12-06-7431094-scopa-expert-greedy-100ms",),
        ),
        (
            "2026-12-06-1891222-scopa-expert-greedy-100ms-seeds6151",
            "paired",
            ("2026-12-06-c3ef739-scopa-expert-greedy-100ms-seeds6151",),
        ),
        (
            "2026-12-06-1891222-scopa-expert-greedy-20ms",
            "paired",
            ("2026-12-06-7431094-scopa-expert-greedy-20ms",),
        ),
        (
            "2026-12-06-1891222-scopa-expert-greedy-20worlds",
            "paired",
            ("2026-12-06-bd2dd99-scopa-expert-greedy-20worlds-not-inferred",),
        ),
        (
            "2026-12-06-1891222-scopa-expert-pimc-2.5ms",
            "paired",
            ("2026-12-06-bd2dd99-scopa-expert-pimc-2.5ms-not-inferred",),
        ),
        (
            "2026-12-06-1891222-scopa-expert-pimc-20worlds",
            "paired",
            ("2026-12-06-1891222-scopa-expert-pimc-20worlds-not-inferred",),
        ),
        *(
            (
                f"2026-12-06-1891222-{variant}-expert-greedy-20worlds",
                "paired",
                (f"2026-12-06-bd2dd99-{variant}-expert-greedy-20worlds-not-inferred",),
            )
            for variant in ("escoba", "quindici", "assi", "cirulla", "re-bello", "napola")
        ),
        (
            "2026-12-06-bd2dd99-scopa-expert-greedy-100ms",
            "paired",
            ("2026-12-06-7431094-scopa-expert-greedy-100ms",),
        ),
        (
            "2026-12-06-bd2dd99-scopa-expert-greedy-20worlds-inferred",
            "paired",
            ("2026-12-06-bd2dd99-scopa-expert-greedy-20worlds-not-inferred",),
        ),
        (
            "2026-12-06-bd2dd99-scopa-expert-pimc-2.5ms",
            "paired",
            ("2026-12-06-bd2dd99-scopa-expert-pimc-2.5ms-not-inferred",),
        ),
        (
            "2026-12-07-883a707-cirulla-expert-greedy-20worlds",
            "paired",
            ("2026-12-06-1891222-cirulla-expert-greedy-20worlds",),
        ),
        # One change at a time on the same deals.
        (
            "2026-12-06-2a7474d-scopa-expert-greedy-100ms-depth5",
            "paired",
            ("2026-12-06-7431094-scopa-expert-greedy-100ms",),
        ),
        (
            "2026-12-06-2a7474d-scopa-expert-pimc-2ms-depth4",
            "paired",
            ("2026-12-06-7431094-scopa-expert-pimc-2ms",),
        ),
        (
            "2026-12-06-3321b22-scopa-expert-pimc-2ms-even",
            "paired",
            ("2026-12-06-3321b22-scopa-expert-pimc-2ms-independent",),
        ),
        (
            "2026-12-06-be1da81-scopone-expert-pimc-6worlds-even",
            "paired",
            ("2026-12-06-cbcb803-scopone-expert-pimc-6worlds-independent",),
        ),
        (
            "2026-12-06-3321b22-tressette4-worldsearch-pimc-6worlds-even",
            "paired",
            ("2026-12-06-3321b22-tressette4-worldsearch-pimc-6worlds-independent",),
        ),
        (
            "2026-12-06-3c23dc9-scopa-expert-pimc-2ms-independent",
            "paired",
            ("2026-12-06-3c23dc9-scopa-expert-pimc-2ms-rerun",),
        ),
        (
            "2026-12-07-670326d-scopa-expert-pimc-20ms",
            "paired",
            ("2026-12-06-1891222-scopa-expert-pimc-2.5ms",),
        ),
        (
            "2026-12-07-cb655bd-scopa-ismcts-pimc-2.5ms",
            "paired",
            ("2026-12-06-1891222-scopa-expert-pimc-2.5ms",),
        ),
        (
            "2026-12-07-cb655bd-scopa-ismcts-pimc-20ms",
            "paired",
            ("2026-12-07-670326d-scopa-expert-pimc-20ms",),
        ),
        (
            "2026-12-02-0bb04b9-briscola2-expert-greedy",
            "paired",
            ("2026-12-02-299dc33-briscola2-expert-greedy",),
        ),
        (
            "2026-12-02-99eaa24-briscola2-expert-greedy",
            "paired",
            ("2026-12-02-b0d3f5e-briscola2-expert-greedy-same-run",),
        ),
        (
            "2026-12-02-99eaa24-briscola2-expert-greedy-seeds151",
            "paired",
            ("2026-12-02-b0d3f5e-briscola2-expert-greedy-seeds151",),
        ),
        # The same player on more deals.
        (
            "2026-12-06-1891222-scopa-expert-greedy-100ms-seeds6151",
            "pooled",
            ("2026-12-06-1891222-scopa-expert-greedy-100ms",),
        ),
        (
            "2026-12-06-c3ef739-scopa-expert-greedy-100ms-seeds6151",
            "pooled",
            (
                "2026-12-06-7431094-scopa-expert-greedy-100ms",
                "2026-12-02-55a4a30-search-scopa-greedy-100ms-seeds3001",
            ),
        ),
        (
            "2026-12-02-99eaa24-briscola2-expert-greedy-seeds151",
            "pooled",
            ("2026-12-02-99eaa24-briscola2-expert-greedy",),
        ),
        (
            "2026-12-02-6614bda-search-scopone-pimc-6worlds-seeds4151",
            "pooled",
            ("2026-12-02-6614bda-search-scopone-pimc-6worlds-seeds4001",),
        ),
        (
            "2026-12-02-8ad8d2e-search-c-mix-g100b",
            "pooled",
            ("2026-12-02-86e9b4a-search-p-mix-g100",),
        ),
    )
)


def command_line(module: str, argv: Sequence[str]) -> str:
    """The command ``python -m module argv...``, quoted for a shell."""
    return " ".join(["python", "-m", module, *map(shlex.quote, argv)])


def run_summary(
    kind: str,
    command: str,
    machine: dict[str, Any],
    settings: dict[str, Any],
    tables: list[dict[str, Any]],
    rows: list[dict[str, Any]] | None = None,
    measured_at: str | None = None,
    commit: str | None = None,
) -> dict[str, Any]:
    """A run's summary (tables as JSON; ``rows`` for an arena run)."""
    body: dict[str, Any] = {
        "kind": kind,
        "command": command,
        "commit": commit or machine.get("git_commit"),
        "measured_at": measured_at or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine,
        "settings": settings,
    }
    if rows is not None:
        body["rows"] = rows
    body["tables"] = tables
    return body


def missing_fields(body: dict[str, Any]) -> list[str]:
    """The fields a summary lacks (a row's as ``rows[i].field``)."""
    kind = str(body.get("kind"))
    wanted = (*FIELDS, *KIND_FIELDS.get(kind, ()))
    missing = [name for name in wanted if body.get(name) is None]
    if kind not in KIND_FIELDS:
        missing.append(f"a kind of {', '.join(KIND_FIELDS)}")
    for index, row in enumerate(body.get("rows") or []):
        missing += [f"rows[{index}].{name}" for name in ROW_FIELDS if name not in row]
    return missing


# ---------------------------------------------------------------- the earlier form


def summarised(body: dict[str, Any], name: str, logs: dict[str, Pairs]) -> dict[str, Any]:
    """The summary of a result file named ``name``, of the earlier form or a summary;
    ``logs`` holds the pairs of the other runs it is compared with, by file name."""
    if "kind" in body:
        return body
    if "what" in body:  # a load test's record, kept by hand
        return _loadtest(body)
    settings = dict(body["settings"])
    commit = _named_commit(name) or body["machine"].get("git_commit")
    if "pairs" not in settings:
        command = _bench_command(settings)
        return run_summary(
            "bench",
            command,
            body["machine"],
            settings,
            body["tables"],
            None,
            body["measured_at"],
            commit,
        )
    seeds = [settings["seed"], settings["seed"] + settings["pairs"] - 1]
    rows = [_with_seeds(row, seeds) for row in settings["summaries"]]
    for first, how, others in COMPARED:
        if first == name:
            (row,) = rows
            (mine,) = settings["pairs_raw"].values()
            runs = [_logged(logs, other) for other in others]
            if how == "paired":
                (other,) = runs
                row[how] = {"with": list(others), **paired(mine, other)}
            else:
                row[how] = {"with": list(others), **pooled([mine, *runs])}
    command = _arena_command(settings, body["tables"])
    for log in _LOGS:
        settings.pop(log, None)
    return run_summary(
        "arena",
        command,
        body["machine"],
        settings,
        body["tables"],
        rows,
        body["measured_at"],
        commit,
    )


def _with_seeds(row: dict[str, Any], seeds: list[int]) -> dict[str, Any]:
    """An earlier row's summary with its seeds, where the arena's puts them."""
    ordered = dict(row)
    rest = {key: ordered.pop(key) for key in list(ordered)[list(ordered).index("b") + 1 :]}
    return {**ordered, "seeds": seeds, **rest}


def _logged(logs: dict[str, Pairs], name: str) -> Pairs:
    if name not in logs:
        raise SystemExit(f"{name}: its per-match log is needed, and gone")
    return logs[name]


def paired(pairs: Pairs, others: Pairs) -> dict[str, Any]:
    """A's wins and points a hand less ``others``' on the same duplicate pairs,
    each with its 95% interval (wins as a share of the matches)."""
    if len(pairs) != len(others):
        raise ValueError(f"{len(pairs)} pairs against {len(others)}: not the same deals")
    wins = [a - b for a, b in zip(pair_win_rates(pairs), pair_win_rates(others), strict=True)]
    margins = [a - b for a, b in zip(pair_margins(pairs), pair_margins(others), strict=True)]
    win, *win_95 = interval(wins)
    margin, *margin_95 = interval(margins)
    return {
        "a_win_rate_difference": win,
        "a_win_rate_difference_95": win_95,
        "a_minus_b_points_per_hand_difference": margin,
        "a_minus_b_points_per_hand_difference_95": margin_95,
    }


def pooled(runs: Sequence[Pairs]) -> dict[str, Any]:
    """A's wins over every pair of ``runs`` together, with its 95% interval."""
    wins = [rate for pairs in runs for rate in pair_win_rates(pairs)]
    win, *win_95 = interval(wins)
    matches = sum(len(pair) for pairs in runs for pair in pairs)
    return {"matches": matches, "a_win_rate": win, "a_win_rate_95": win_95}


def _named_commit(name: str) -> str | None:
    """The commit a result file's name gives (``...-2026-12-06-7431094-...``)."""
    found = _NAMED_COMMIT.search(name)
    return found[1] if found else None


def _arena_command(settings: dict[str, Any], tables: list[dict[str, Any]]) -> str:
    """The arena's command for an earlier run, from its settings and tables."""
    rows: list[str] = settings["rows"]
    tables_by_name = {table["name"]: table for table in tables}
    argv = ["--smoke"] if settings["smoke"] else []
    if rows:
        argv += ["--rows", *rows, "--pairs", str(settings["pairs"])]
    argv += ["--budget-ms", f"{settings['budget_ms']:g}"]
    if settings["simulations"]:
        argv += ["--simulations", str(settings["simulations"])]
    if settings["target"]:
        argv += ["--target", str(settings["target"])]
    argv += ["--seed", str(settings["seed"])]
    pimc = settings.get("pimc_worlds_depth", _PIMC_DEFAULT)
    if pimc != _PIMC_DEFAULT:
        argv += ["--pimc", f"{pimc[0]}x{pimc[1]}"]
    for name, value in settings.get("search", {}).items():
        argv += ["--search", f"{name}={json.dumps(value)}"]
    argv += ["--workers", str(settings["workers"])]
    if "last_round" in tables_by_name and not settings["smoke"]:
        argv += ["--last-rounds", str(tables_by_name["last_round"]["rows"][0][0])]
    if "retry_cost" in tables_by_name and not settings["smoke"]:
        argv += ["--retry-cost", str(_RETRY_COST_HANDS)]
    return command_line("benchmarks.arena", argv)


def _bench_command(settings: dict[str, Any]) -> str:
    """The benchmarks' command for an earlier run: the benchmarks it ran."""
    ran = [name for name in settings if name != "smoke"]
    everything = ["engine", "token", "json", "handlers", "service"]
    argv = [] if ran == everything else [arg for name in ran for arg in ("--only", name)]
    return command_line("benchmarks.run", ["--smoke", *argv] if settings["smoke"] else argv)


def _loadtest(body: dict[str, Any]) -> dict[str, Any]:
    """A load test's record with the command its ``what`` names."""
    command = re.search(r"\((make loadtest [^),]*)", body["what"])
    if command is None:
        raise ValueError(f"a load test's record names no make loadtest command: {body['what']}")
    rest = {key: value for key, value in body.items() if key not in ("date", "commit", "machine")}
    return {
        "kind": "loadtest",
        "command": command[1],
        "commit": body["commit"],
        "measured_at": body["date"],
        "machine": body["machine"],
        **rest,
    }


def _pairs_by_row(body: dict[str, Any]) -> dict[str, Pairs]:
    """The per-match log of a run: an arena --matches-log, or a result file of
    the earlier form."""
    logged: dict[str, Pairs] = body.get("pairs") or body.get("settings", {}).get("pairs_raw") or {}
    return logged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.summaries", description=__doc__)
    parser.add_argument("files", nargs="*", type=pathlib.Path, help="result files, rewritten")
    parser.add_argument(
        "--paired",
        nargs=2,
        type=pathlib.Path,
        metavar=("LOG", "OTHER"),
        help="print A's wins and points a hand in LOG less OTHER's, two per-match logs of"
        " one row each on the same seeds (arena --matches-log)",
    )
    args = parser.parse_args(argv)
    if args.paired:
        runs = [_pairs_by_row(json.loads(path.read_text())) for path in args.paired]
        if any(len(run) != 1 for run in runs):
            parser.error("--paired takes two logs of one row each")
        (mine,), (other,) = (run.values() for run in runs)
        print(json.dumps(paired(mine, other), indent=1))
        return 0
    bodies = {path: json.loads(path.read_text()) for path in args.files}
    # The per-match logs of the runs of one row, which COMPARED may name.
    logs = {}
    for path, body in bodies.items():
        runs = list(_pairs_by_row(body).values())
        if len(runs) == 1:
            logs[path.name] = runs[0]
    for path, body in bodies.items():
        kept = summarised(body, path.name, logs)
        missing = missing_fields(kept)
        if missing:
            raise SystemExit(f"{path}: the summary lacks {', '.join(missing)}")
        write_results(path, kept)
    return 0


if __name__ == "__main__":
    sys.exit(main())
