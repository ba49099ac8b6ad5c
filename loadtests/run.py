"""`make loadtest`: start Mazzo on this machine, run the Locust scenarios headless, judge.

    python -m loadtests.run [--duration 60] [--users 8] [--processes 2] [--workers N]
                            [--search-processes N]
                            [--scenarios mix validate suggest single-player]
                            [--transports grpc rest]
                            [--p95-limit-ms MS] [--results loadtests/results]

It starts ``python -m mazzo.service`` on free ports of 127.0.0.1 (nothing else
is ever a target), waits for its "listening on" lines, runs Locust once per
scenario (the realistic mix, Validate alone, Suggest, then a single player
against an expert computer seat) for an equal share of
``--duration`` seconds, with the gRPC and REST users of the scenario side by
side, and writes Locust's CSV files under ``--results`` (``mix_stats.csv``,
``validate_stats.csv``, ... and the server's log). The server is stopped
(SIGTERM, then SIGKILL to its process group) whatever happens.

It prints, per scenario and per call, the rate reached and the 50th, 95th and
99th percentiles, and exits non-zero when a scenario made no call, any call
failed or the 95th percentile of a call (made at least 100 times) is above
the limit: ``P95_LIMIT_MS`` in loadtests/locustfile.py unless
``--p95-limit-ms`` says otherwise, plus the budget the expert was given for
Suggest (``SUGGEST_BUDGET_MS``). Locust
itself judges (its exit code), so that a run by hand is judged the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from prometheus_client.parser import text_string_to_metric_families

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LOCUSTFILE = HERE / "locustfile.py"
HOST = "127.0.0.1"
LISTENING = re.compile(r"\b(gRPC|REST|metrics) listening on (\S+):(\d+)$")
START_TIMEOUT = 60.0
STOP_TIMEOUT = 20.0
#: Past its run time, Locust gets this long to stop and write its files.
LOCUST_MARGIN = 60.0

#: The user classes of each scenario, by transport.
SCENARIOS = {
    "mix": {"grpc": "GrpcGame", "rest": "RestGame"},
    "validate": {"grpc": "GrpcValidate", "rest": "RestValidate"},
    "suggest": {"grpc": "GrpcSuggest", "rest": "RestSuggest"},
    "single-player": {"grpc": "GrpcSinglePlayer", "rest": "RestSinglePlayer"},
}


# ---------------------------------------------------------------------- server


@dataclass
class Server:
    process: subprocess.Popen[str]
    log_path: Path
    ports: dict[str, int] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)
    #: The thread that reads the server's stderr into ``lines`` and ``log_path``.
    reader: threading.Thread | None = None

    def read(self) -> None:
        assert self.process.stderr is not None
        with self.log_path.open("w") as log:
            for line in self.process.stderr:
                log.write(line)
                log.flush()
                with self.changed:
                    self.lines.append(line.rstrip("\n"))
                    if match := LISTENING.search(self.lines[-1]):
                        self.ports[match[1]] = int(match[3])
                    self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_until_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        with self.changed:
            while len(self.ports) < 3:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the server exited: see {self.log_path}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start: see {self.log_path}")
                self.changed.wait(0.1)


@contextmanager
def running_server(
    workers: int | None,
    results: Path,
    search_processes: int | None = None,
    settings: Mapping[str, str] | None = None,
) -> Iterator[Server]:
    """``python -m mazzo.service`` on free ports of 127.0.0.1, configured by
    nothing of this process's environment but ``settings`` (MAZZO_* variables)."""
    server = start_server(results / "server.log", workers, search_processes, settings)
    try:
        server.wait_until_listening()
        yield server
    finally:
        stop_server(server)


def start_server(
    log_path: Path,
    workers: int | None = None,
    search_processes: int | None = None,
    settings: Mapping[str, str] | None = None,
) -> Server:
    """Start ``python -m mazzo.service`` (not yet listening: see
    ``Server.wait_until_listening``) on free ports of 127.0.0.1 unless
    ``settings`` give its addresses; its stderr goes to ``log_path``. In a
    process group of its own: :func:`stop_server` stops it with its workers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAZZO_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.update(
        MAZZO_GRPC_ADDR=f"{HOST}:0",
        MAZZO_HTTP_ADDR=f"{HOST}:0",
        MAZZO_METRICS_ADDR=f"{HOST}:0",
        MAZZO_LOG_LEVEL="INFO",
    )
    env.update(settings or {})
    if workers is not None:
        env["MAZZO_WORKERS"] = str(workers)
    if search_processes is not None:
        env["MAZZO_SEARCH_PROCESSES"] = str(search_processes)
    process = subprocess.Popen(
        [sys.executable, "-m", "mazzo.service"],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its workers are in its process group
    )
    server = Server(process, log_path)
    server.reader = threading.Thread(target=server.read, daemon=True)
    server.reader.start()
    return server


def stop_server(server: Server, timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM, then SIGKILL to its group (a no-op once it exited), and the log read whole."""
    stop_group(server.process, timeout)
    if server.reader is not None:
        server.reader.join(5)


def group_cpu_seconds(pgid: int) -> float:
    """CPU time (user + system) of the live processes of a process group (Linux /proc)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[2]) == pgid:  # fields from the state on: state, ppid, pgrp, ...
            total += int(fields[11]) + int(fields[12])  # utime, stime in clock ticks
    return total / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds() -> float:
    times = os.times()
    return times.children_user + times.children_system


def server_problems(server: Server) -> list[str]:
    """What went wrong on the server's side: a worker died, a traceback, a dirty stop."""
    problems = []
    if server.process.returncode != 0:
        problems.append(f"the server exited with status {server.process.returncode}")
    with server.changed:
        lines = list(server.lines)
    if any("stopped unexpectedly" in line for line in lines):
        problems.append("a server process died under load")
    if any("Traceback" in line for line in lines):
        problems.append("the server logged a traceback")
    return problems


def spawn(
    command: Sequence[str], log: IO[Any], env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """``command`` in the repository, its output to ``log``, in a process group of
    its own (:func:`stop_group` stops it with whatever it forks)."""
    return subprocess.Popen(
        command,
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop_group(process: subprocess.Popen[Any], timeout: float) -> None:
    """SIGTERM to the process, then SIGKILL to its whole group (it leads one)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout)
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(5)


# ---------------------------------------------------------------------- Locust


def _processes_options(processes: int) -> list[str]:
    """Locust's own processes: a master and its workers on a free port of this
    machine (Locust's default, 5557 on every interface, may be taken)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = str(probe.getsockname()[1])
    return [
        "--processes",
        str(processes),
        "--master-bind-host",
        HOST,
        "--master-bind-port",
        port,
        "--master-host",
        HOST,
        "--master-port",
        port,
    ]


def expert_counts(server: Server) -> tuple[float, float]:
    """The expert's suggestions so far and the simulations they ran, from the
    server's /metrics (every server process's sum)."""
    url = f"http://{HOST}:{server.ports['metrics']}/metrics"
    with urllib.request.urlopen(url, timeout=10) as reply:
        text = reply.read().decode()
    counts = {"mazzo_suggestions": 0.0, "mazzo_suggest_simulations": 0.0}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.removesuffix("_total") in counts and sample.labels["level"] == "expert":
                counts[sample.name.removesuffix("_total")] += sample.value
    return counts["mazzo_suggestions"], counts["mazzo_suggest_simulations"]


def read_verdict(path: Path) -> dict[str, Any]:
    """The locustfile's final figures (see ``judge`` there)."""
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def run_locust(
    scenario: str,
    classes: Sequence[str],
    server: Server,
    args: argparse.Namespace,
    seconds: int,
) -> int:
    prefix = args.results / scenario
    for stale in args.results.glob(f"{scenario}_*"):  # a previous run's figures must not count
        stale.unlink()
    command = [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(LOCUSTFILE),
        "--headless",
        "--users",
        str(args.users),
        "--spawn-rate",
        str(args.users),
        "--run-time",
        f"{seconds}s",
        "--stop-timeout",
        "2",
        "--host",
        f"http://{HOST}:{server.ports['REST']}",
        "--grpc-target",
        f"{HOST}:{server.ports['gRPC']}",
        "--csv",
        str(prefix),
        "--only-summary",
        *(["--p95-limit-ms", str(args.p95_limit_ms)] if args.p95_limit_ms is not None else []),
        *(["--games", args.games] if args.games else []),
        *(_processes_options(args.processes) if args.processes > 1 else []),
        *classes,
    ]
    log_path = args.results / f"{scenario}_locust.log"
    with log_path.open("w") as log:
        locust = spawn(command, log)  # --processes forks: stop_group stops them all
        try:
            code = locust.wait(seconds + LOCUST_MARGIN)
        except subprocess.TimeoutExpired:
            print(f"{scenario}: Locust did not stop in time: killed", file=sys.stderr)
            code = 1
        finally:
            stop_group(locust, 10)  # a no-op when it ended by itself
    verdicts = [
        line for line in log_path.read_text().splitlines() if "PASS:" in line or "FAIL:" in line
    ]
    for line in verdicts:
        print(f"{scenario}: {line.split('loadtest: ', 1)[-1]}")
    if code and not verdicts:
        print(log_path.read_text()[-3000:], file=sys.stderr)
    return code


def print_table(scenario: str, calls: list[dict[str, Any]]) -> None:
    print(f"\n{scenario} (latencies in ms)")
    print(
        f"  {'call':<30} {'calls':>8} {'failed':>7} {'calls/s':>9} {'p50':>5} {'p95':>5} {'p99':>5}"
    )
    for row in calls:
        name = "all calls" if row["name"] == "Aggregated" else f"{row['type']} {row['name']}"
        print(
            f"  {name:<30} {row['requests']:>8} {row['failures']:>7} {row['rate']:>9.1f}"
            f" {row['p50']:>5g} {row['p95']:>5g} {row['p99']:>5g}"
        )


def machine() -> str:
    model = ""
    with suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    load = ", load average {:.2f} {:.2f} {:.2f} before the run".format(*os.getloadavg())
    return f"{os.cpu_count()} cores {model}, Python {platform.python_version()}{load}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=60, help="seconds of load, all scenarios")
    parser.add_argument("--users", type=int, default=8, help="Locust users per scenario")
    parser.add_argument(
        "--processes", type=int, default=2, help="Locust processes (one saturates a core)"
    )
    parser.add_argument("--workers", type=int, default=None, help="MAZZO_WORKERS (default: cores)")
    parser.add_argument(
        "--search-processes",
        type=int,
        default=None,
        help="MAZZO_SEARCH_PROCESSES (default: the server's; 0: search in the server processes)",
    )
    parser.add_argument(
        "--scenarios", nargs="+", choices=sorted(SCENARIOS), default=list(SCENARIOS)
    )
    parser.add_argument(
        "--transports", nargs="+", choices=("grpc", "rest"), default=["grpc", "rest"]
    )
    parser.add_argument(
        "--p95-limit-ms", type=float, default=None, help="default: the locustfile's"
    )
    parser.add_argument(
        "--games", default=None, help="games the users deal in turn, e.g. scopa,briscola"
    )
    parser.add_argument("--results", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    if args.duration < len(args.scenarios) or args.users < 1 or args.processes < 1:
        parser.error("--duration must give each scenario a second; --users, --processes >= 1")
    args.results.mkdir(parents=True, exist_ok=True)
    seconds = args.duration // len(args.scenarios)

    print(f"machine: {machine()}")
    try:
        return run(args, seconds)
    except RuntimeError as error:  # the server did not start
        print(f"FAILED: {error}", file=sys.stderr)
        return 1


def run(args: argparse.Namespace, seconds: int) -> int:
    failed = False
    with running_server(args.workers, args.results, args.search_processes) as server:
        workers = sum("serving gRPC and REST" in line for line in server.lines) or 1
        print(
            f"server: {workers} process(es), gRPC {HOST}:{server.ports['gRPC']},"
            f" REST {HOST}:{server.ports['REST']}; Locust: {args.users} users,"
            f" {args.processes} process(es), {seconds} s per scenario"
        )
        for scenario in args.scenarios:
            classes = [SCENARIOS[scenario][transport] for transport in args.transports]
            server_cpu, locust_cpu = group_cpu_seconds(server.process.pid), children_cpu_seconds()
            suggested_before, simulated_before = expert_counts(server)
            code = run_locust(scenario, classes, server, args, seconds)
            server_cpu = group_cpu_seconds(server.process.pid) - server_cpu
            locust_cpu = children_cpu_seconds() - locust_cpu
            suggested, simulated = expert_counts(server)
            suggested, simulated = suggested - suggested_before, simulated - simulated_before
            verdict_path = args.results / f"{scenario}_verdict.json"
            if not verdict_path.exists() or not (args.results / f"{scenario}_stats.csv").exists():
                print(f"{scenario}: Locust did not write its figures", file=sys.stderr)
                failed = True
                continue
            verdict = read_verdict(verdict_path)
            print_table(scenario, verdict["calls"])
            calls = verdict["calls"][-1]["requests"]
            if calls:
                print(
                    f"  CPU per call: server {1000 * server_cpu / calls:.2f} ms,"
                    f" Locust {1000 * locust_cpu / calls:.2f} ms;"
                    f" load average {os.getloadavg()[0]:.2f} after the run"
                )
            if suggested:
                print(
                    f"  expert: {suggested:.0f} suggestions,"
                    f" {simulated / suggested:.0f} simulations each on average"
                )
            failed = failed or code != 0 or not verdict["passed"]
    for problem in server_problems(server):
        print(f"server: FAIL: {problem}")
        failed = True
    print(f"\nCSV and logs: {args.results}")
    print("FAILED" if failed else "PASSED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
