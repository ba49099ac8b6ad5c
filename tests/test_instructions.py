"""`make instructions`: the difference of two callgrind runs, divided by the work done."""

from __future__ import annotations

import pathlib
import sys

import pytest

from benchmarks import instructions

#: A stand-in for valgrind: runs the command and reports 1,000 instructions per
#: unit of work on top of a fixed start-up cost, as callgrind words it.
FAKE_VALGRIND = f"""#!{sys.executable}
import subprocess, sys
command = [a for a in sys.argv[1:] if not a.startswith(("--tool=", "--callgrind-out-file="))]
done = subprocess.run(command, capture_output=True, text=True, check=True)
sys.stdout.write(done.stdout)
sys.stderr.write(f"==42== Collected : {{1000 * int(done.stdout.split()[-1]) + 5_000_000}}\\n")
"""


@pytest.fixture
def fake_valgrind(tmp_path: pathlib.Path) -> str:
    path = tmp_path / "valgrind"
    path.write_text(FAKE_VALGRIND)
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("workload", ["scopa", "play"])
def test_start_up_cancels_out_and_the_rest_is_divided_by_the_work(
    workload: str, fake_valgrind: str
) -> None:
    assert instructions.instructions_per_unit(workload, fake_valgrind) == 1000


@pytest.mark.parametrize("workload", sorted(instructions.WORKLOADS))
def test_each_workload_does_more_work_at_its_larger_size(workload: str) -> None:
    small, large = instructions.WORKLOADS[workload][1]
    assert (
        0 < instructions.run_workload(workload, small) < instructions.run_workload(workload, large)
    )


def test_a_failed_run_says_so_with_what_valgrind_printed(tmp_path: pathlib.Path) -> None:
    broken = tmp_path / "valgrind"
    broken.write_text("#!/bin/sh\necho 'valgrind: cannot start' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(RuntimeError, match="cannot start"):
        instructions.instructions_per_unit("scopa", str(broken))
