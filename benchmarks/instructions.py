"""`make instructions`: the hot paths' cost in CPU instructions, counted by valgrind.

Timings on a shared machine move by several percent from run to run; the number
of instructions the same code runs on the same inputs does not, whatever else
the machine is doing. So this is the figure to compare two versions of the hot
path by: run it on each commit. Each workload runs twice under callgrind, at two
sizes, and the difference is divided by the difference in work done, so that
start-up and imports cancel out.

    python -m benchmarks.instructions                 # every workload
    python -m benchmarks.instructions --only play     # one of them

Instructions are not time: a change that runs fewer instructions but touches
more memory can still be slower (see docs/performance.md); time it with
`make bench` too.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable

from benchmarks.engine_bench import available_cases, play_random_game

#: name -> (what one unit is, (smaller size, larger size))
WORKLOADS: dict[str, tuple[str, tuple[int, int]]] = {
    "scopa": ("ply of random 2-player Scopa", (10, 30)),
    "tressette": ("ply of random 2-player Tressette", (10, 30)),
    "validate": ("Validate handler call, a token it remembers", (1, 4)),
    "play": ("Play handler call, a token it remembers", (1, 4)),
}
ROOT = pathlib.Path(__file__).resolve().parent.parent
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def _random_games(label: str, games: int) -> int:
    """Random games of the engine benchmark's row ``label``; the plies played."""
    case = next(c for c in available_cases()[0] if c.label == label)
    return sum(play_random_game(case.game, case.rules, seed) for seed in range(1, games + 1))


def _handler_calls(rpc: str, passes: int) -> int:
    from benchmarks.handler_bench import _requests
    from benchmarks.token_bench import BENCH_KEYS
    from mazzo.service.handlers import EngineHandlers
    from mazzo.service.metrics import Metrics
    from mazzo.service.state_token import StateSealer

    handlers = EngineHandlers(StateSealer(BENCH_KEYS), Metrics())
    pairs = _requests(handlers, games=4)
    call = handlers.validate if rpc == "validate" else handlers.play
    requests = [v if rpc == "validate" else p for v, p in pairs]
    for _ in range(passes):
        for request in requests:
            call(request)
    return passes * len(requests)


def run_workload(name: str, size: int) -> int:
    """Run ``name`` at ``size``; return the units of work done (plies or calls)."""
    runners: dict[str, Callable[[int], int]] = {
        "scopa": lambda n: _random_games("Scopa, 2 players, to 11", n),
        "tressette": lambda n: _random_games("Tressette, 2 players", n),
        "validate": lambda n: _handler_calls("validate", n),
        "play": lambda n: _handler_calls("play", n),
    }
    return runners[name](size)


def _count(name: str, size: int, valgrind: str) -> tuple[int, int]:
    """(instructions, units) of one run of the workload under callgrind."""
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [
                valgrind,
                "--tool=callgrind",
                f"--callgrind-out-file={scratch}/callgrind.out",
                sys.executable,
                "-m",
                "benchmarks.instructions",
                "--child",
                name,
                str(size),
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
        )
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"callgrind run of {name} failed:\n{done.stderr[-2000:]}")
    return int(found.group(1)), int(done.stdout.split()[-1])


def instructions_per_unit(name: str, valgrind: str) -> float:
    small, large = WORKLOADS[name][1]
    low, low_units = _count(name, small, valgrind)
    high, high_units = _count(name, large, valgrind)
    return (high - low) / (high_units - low_units)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.instructions", description=__doc__)
    parser.add_argument("--only", action="append", choices=sorted(WORKLOADS))
    parser.add_argument("--child", nargs=2, metavar=("WORKLOAD", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(run_workload(args.child[0], int(args.child[1])))
        return 0
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("valgrind is not installed: it counts the instructions", file=sys.stderr)
        return 1
    for name in args.only or list(WORKLOADS):
        per_unit = instructions_per_unit(name, valgrind)
        print(f"{per_unit:>10,.0f} instructions per {WORKLOADS[name][0]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
