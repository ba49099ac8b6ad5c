"""`make bench`: every benchmark, printed as tables and written as JSON.

    python -m benchmarks.run                 # the full run (a few minutes)
    python -m benchmarks.run --only engine   # engine, token, json, handlers, service
    python -m benchmarks.run --smoke         # tiny counts: checks that it all runs

Results go to benchmarks/results/latest.json unless --results names a file: the
command, the commit and the tables (benchmarks.summaries).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks import engine_bench, handler_bench, json_bench, service_bench, token_bench
from benchmarks.stats import Table, machine, write_results
from benchmarks.summaries import command_line, run_summary
from benchmarks.targets import summary

RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "latest.json"

#: name -> (full settings, smoke settings)
SETTINGS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "engine": (
        {"repeats": 5, "game_seconds": 2.0, "call_seconds": 0.3, "sample_games": 20},
        {"repeats": 2, "game_seconds": 0.05, "call_seconds": 0.01, "sample_games": 1},
    ),
    "token": (
        {"repeats": 5, "call_seconds": 0.2, "seeds": 200, "sample_games": 20},
        {"repeats": 2, "call_seconds": 0.01, "seeds": 3, "sample_games": 1},
    ),
    "json": (
        {"repeats": 5, "call_seconds": 0.2},
        {"repeats": 2, "call_seconds": 0.01},
    ),
    "handlers": (
        {"repeats": 5, "call_seconds": 0.2, "games": 4},
        {"repeats": 2, "call_seconds": 0.01, "games": 1},
    ),
    "service": (
        {
            "repeats": 5,
            "seconds": 3.0,
            "warmup_seconds": 1.0,
            "concurrency": 4,
            "games": 4,
            "plies": 200,
        },
        {
            "repeats": 2,
            "seconds": 0.1,
            "warmup_seconds": 0.02,
            "concurrency": 2,
            "games": 1,
            "plies": 3,
        },
    ),
}
RUNNERS: dict[str, Callable[..., list[Table]]] = {
    "engine": engine_bench.run,
    "token": token_bench.run,
    "json": json_bench.run,
    "handlers": handler_bench.run,
    "service": service_bench.run,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="tiny counts, to check it runs")
    parser.add_argument(
        "--only", action="append", choices=sorted(RUNNERS), help="run only these (repeatable)"
    )
    parser.add_argument("--results", type=pathlib.Path, default=RESULTS, help="JSON file to write")
    args = parser.parse_args(argv)
    command = command_line("benchmarks.run", sys.argv[1:] if argv is None else argv)
    names = args.only or list(RUNNERS)
    about = machine()
    print(
        f"Mazzo benchmarks on {about['nproc']} x {about['cpu_model']}, Python {about['python']}"
        f" (commit {about['git_commit']}){', smoke run' if args.smoke else ''}",
        flush=True,
    )
    tables: list[Table] = []
    settings: dict[str, Any] = {"smoke": args.smoke}
    for name in names:
        chosen = SETTINGS[name][1 if args.smoke else 0]
        settings[name] = chosen
        started = time.monotonic()
        for table in RUNNERS[name](**chosen):
            print()
            print(table.render(), flush=True)
            tables.append(table)
        print(f"  ({name}: {time.monotonic() - started:.0f} s)", flush=True)
    targets = summary(tables)
    if targets is not None:
        print()
        print(targets.render())
        tables.append(targets)
    tables_json = [table.as_json() for table in tables]
    write_results(args.results, run_summary("bench", command, about, settings, tables_json))
    print(f"\nwritten to {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
