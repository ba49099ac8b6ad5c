"""`make fleet-test`: Mazzo replicas behind HAProxy, under load, through a rolling
update, a kill -9 and a key rotation.

    python -m loadtests.fleet [--replicas 3] [--duration 60] [--users 4]
                              [--results loadtests/results/fleet]

It starts ``--replicas`` servers (``python -m mazzo.service``, one server
process each: MAZZO_WORKERS=1, no search process) on free ports of 127.0.0.1,
sharing one state key, and HAProxy (Debian's ``haproxy``; ``make fleet-test``
installs it when missing) with the committed set-up, deploy/haproxy/haproxy.cfg,
and the replicas listed as deploy/haproxy/replicas.cfg lists them
(:func:`replicas_config`). Locust's fleet users (loadtests/fleet_users.py)
play whole games through the proxy, over REST and gRPC, retrying as
docs/integration.md says, while the run goes through its phases:

1. ``steady``: the load alone;
2. ``rolling update``: each replica in turn stopped with SIGTERM (it drains
   and exits) and started again on its ports; the next one once the proxy
   sees it ready again;
3. ``kill -9``: a replica killed with SIGKILL, started again once the proxy
   has found it dead (as an orchestrator restarts a container);
4. ``key rotation 1``: a rolling update that adds the new key, second
   (docs/operations.md, Key rotation, step 1);
5. ``key rotation 2``: a rolling update that puts the new key first (step 2:
   until the last replica restarts, replicas seal with different keys);
6. ``steady after``: the load alone, sealed with the new key.

Each phase lasts ``--duration`` / 6 seconds at least (its restarts take what
they take). It prints the calls by phase, transport and outcome, and exits 1
when a call failed after the documented retries, a token was refused, a
keyed Play sent twice answered differently, another refusal came, a phase made
no call on either transport, a replica stopped by SIGTERM did not exit 0, a
replica logged a traceback, or the proxy could not be run. Every process it
started is stopped, whatever happens (SIGTERM to this process too). Its files
(the replicas', the proxy's and Locust's logs, the outcomes, the verdict) go
to ``--results``.
"""

from __future__ import annotations

import argparse
import base64
import csv
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from loadtests.run import HOST, Server, spawn, start_server, stop_group, stop_server

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
HAPROXY_CONFIG = REPO / "deploy" / "haproxy" / "haproxy.cfg"
REPLICAS_EXAMPLE = REPO / "deploy" / "haproxy" / "replicas.cfg"
FLEET_USERS = HERE / "fleet_users.py"
OUTCOMES_FILE = "outcomes.jsonl"
USER_CLASSES = ("GrpcFleetGame", "RestFleetGame")
PHASES = (
    "steady",
    "rolling update",
    "kill -9",
    "key rotation 1",
    "key rotation 2",
    "steady after",
)
#: A call's outcomes (loadtests/fleet_users.py writes them; this module reads them
#: without importing Locust, which patches the standard library as it loads), and a
#: keyed Play's sent twice ("alike", "differed").
CALL_OUTCOMES = ("ok", "retried", "failed", "token refused", "refused")
#: The table's columns: the outcomes, the calls the proxy sent again to another
#: replica (its log says so), the Plays sent twice.
OUTCOMES = (*CALL_OUTCOMES, "proxy retried", "alike", "differed")
#: Those that fail the run.
FAILURES = frozenset({"failed", "token refused", "refused", "differed"})
#: A request in the proxy's log (HAProxy's httplog): when it was accepted, its
#: frontend, and its retries (after the termination state and the connection counts).
PROXY_LOG_LINE = re.compile(
    r"\[(?P<accepted>\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d)\.(?P<ms>\d{3})\] (?P<frontend>\S+) "
    r".* [-\w]{4} \d+/\d+/\d+/\d+/\+?(?P<retries>\d+) \d+/\d+ \""
)
DRAINED = re.compile(r"drain over after (?P<seconds>[\d.]+) s: (?P<why>.*)$")
#: Bounds on waits for a condition: far more than any of them takes.
WAIT_SECONDS = 60.0
#: A replica stops within its drain (MAZZO_DRAIN_SECONDS, 5) and grace (10).
STOP_SECONDS = 30.0
POLL_SECONDS = 0.1
#: The backends of deploy/haproxy/haproxy.cfg: every replica is a server of each.
BACKENDS = ("mazzo-rest", "mazzo-grpc")


class Failed(Exception):
    """The run cannot go on (a process did not start, a wait ran out)."""


def wait_for(condition: Callable[[], bool], what: str, timeout: float = WAIT_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise Failed(f"{what}: not within {timeout:g} s")
        time.sleep(POLL_SECONDS)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def new_key(kid: str) -> str:
    """A MAZZO_STATE_KEYS entry: ``kid=`` and 32 random bytes in base64."""
    return f"{kid}={base64.b64encode(os.urandom(32)).decode()}"


# ---------------------------------------------------------------------- the proxy


def replicas_config(replicas: Sequence[tuple[str, int, int]]) -> str:
    """The proxy's second file: each replica (host, REST port, gRPC port) a server
    of both backends, its gRPC over h2c checked over HTTP/1.1 on its REST port.
    deploy/haproxy/replicas.cfg is this for three hosts on the default ports."""
    servers = [(f"mazzo-{n}", *replica) for n, replica in enumerate(replicas, start=1)]
    lines = [
        "# The replicas behind deploy/haproxy/haproxy.cfg: each in both backends, with its",
        "# REST port, and its gRPC port over h2c (proto h2), checked over HTTP/1.1",
        "# (check-proto h1) on its REST port's /readyz (port).",
        "backend mazzo-rest from mazzo",
        *(f"    server {name} {host}:{rest}" for name, host, rest, _ in servers),
        "",
        "backend mazzo-grpc from mazzo",
        *(
            f"    server {name} {host}:{grpc} proto h2 check-proto h1 port {rest}"
            for name, host, rest, grpc in servers
        ),
    ]
    return "\n".join(lines) + "\n"


def haproxy_command() -> str:
    # Debian installs it in /usr/sbin, which a user's PATH may lack.
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
    if found is None:
        raise Failed("haproxy is not installed: `make fleet-test` installs it (apt-get)")
    return found


@dataclass
class Proxy:
    """HAProxy with the committed set-up, in front of the replicas."""

    process: subprocess.Popen[bytes]
    admin_socket: Path
    rest_port: int
    grpc_port: int

    def server_states(self) -> dict[tuple[str, str], str]:
        """Each (backend, server)'s status from the admin socket ("UP", "DOWN", ...)."""
        with socket.socket(socket.AF_UNIX) as admin:
            admin.settimeout(10)
            admin.connect(str(self.admin_socket))
            admin.sendall(b"show stat\n")
            text = b"".join(iter(lambda: admin.recv(65536), b"")).decode()
        rows = csv.DictReader(io.StringIO(text.removeprefix("# ")))
        return {
            (row["pxname"], row["svname"]): row["status"]
            for row in rows
            if row["svname"] not in ("FRONTEND", "BACKEND")
        }

    def sees(self, server: str, status: str) -> bool:
        """Whether every backend has ``server`` in ``status`` (the proxy may not answer yet)."""
        if self.process.poll() is not None:
            raise Failed(f"haproxy exited with status {self.process.returncode}")
        try:
            states = self.server_states()
        except OSError:
            return False
        return all(states.get((backend, server)) == status for backend in BACKENDS)

    def wait_until(self, server: str, status: str, what: str) -> None:
        wait_for(lambda: self.sees(server, status), f"the proxy {what} {server}")


@contextmanager
def running_proxy(replicas: Sequence[Replica], results: Path) -> Iterator[Proxy]:
    servers = results / "replicas.cfg"
    servers.write_text(
        replicas_config([(HOST, r.ports["REST"], r.ports["gRPC"]) for r in replicas])
    )
    directory = Path(tempfile.mkdtemp(prefix="mazzo-fleet-"))  # a short path for the socket
    admin_socket = directory / "admin.sock"
    rest_port, grpc_port = free_port(), free_port()
    env = {
        **os.environ,
        "MAZZO_PROXY_REST": f"{HOST}:{rest_port}",
        "MAZZO_PROXY_GRPC": f"{HOST}:{grpc_port}",
        "MAZZO_PROXY_SOCKET": str(admin_socket),
        "MAZZO_PROXY_LOG": "stderr",
    }
    command = [haproxy_command(), "-db", "-f", str(HAPROXY_CONFIG), "-f", str(servers)]
    with (results / "haproxy.log").open("wb") as log:
        process = spawn(command, log, env)
    proxy = Proxy(process, admin_socket, rest_port, grpc_port)
    try:
        for replica in replicas:
            proxy.wait_until(replica.name, "UP", "sees ready")
        yield proxy
    finally:
        stop_group(process, 10)
        shutil.rmtree(directory, ignore_errors=True)


# ---------------------------------------------------------------------- the replicas


@dataclass
class Replica:
    """One replica: a server started again on the same ports at every restart."""

    name: str
    results: Path
    server: Server | None = None
    ports: dict[str, int] = field(default_factory=dict)
    starts: int = 0
    #: How each start ended: the exit status of each stop, in order.
    exits: list[int] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    def start(self, keys: str) -> None:
        """Start the replica with the state keys ``keys`` (MAZZO_STATE_KEYS), on its
        ports after the first start; :meth:`wait_until_listening` then."""
        settings = {
            "MAZZO_STATE_KEYS": keys,
            "MAZZO_WORKERS": "1",
            "MAZZO_SEARCH_PROCESSES": "0",
        }
        if self.ports:  # a restart: the proxy knows the replica by its ports
            settings |= {
                "MAZZO_HTTP_ADDR": f"{HOST}:{self.ports['REST']}",
                "MAZZO_GRPC_ADDR": f"{HOST}:{self.ports['gRPC']}",
                "MAZZO_METRICS_ADDR": f"{HOST}:{self.ports['metrics']}",
            }
        self.starts += 1
        log = self.results / f"{self.name}.{self.starts}.log"
        self.logs.append(log)
        self.server = start_server(log, settings=settings)

    def wait_until_listening(self) -> None:
        server = self.server
        assert server is not None, "wait_until_listening() after start()"
        try:
            server.wait_until_listening()
        except RuntimeError as error:
            raise Failed(f"{self.name}: {error}") from None
        self.ports = dict(server.ports)

    def stop(self) -> None:
        """SIGTERM: the replica drains, lets its calls finish and exits."""
        server = self._running()
        server.process.send_signal(signal.SIGTERM)
        try:
            self.exits.append(server.process.wait(STOP_SECONDS))
        except subprocess.TimeoutExpired:
            self.exits.append(-1)
        stop_server(server)

    def kill(self) -> None:
        """SIGKILL: nothing drains, calls in flight are lost."""
        server = self._running()
        with suppress(ProcessLookupError):
            os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait(STOP_SECONDS)
        self.exits.append(-signal.SIGKILL)
        stop_server(server)

    def close(self) -> None:
        """Stop whatever still runs (at the end of the run, or after a failure)."""
        if self.server is not None and self.server.process.poll() is None:
            self.stop()

    def _running(self) -> Server:
        assert self.server is not None and self.server.process.poll() is None, self.name
        return self.server


def restart(replica: Replica, proxy: Proxy, keys: str) -> None:
    replica.stop()
    replica.start(keys)
    replica.wait_until_listening()
    proxy.wait_until(replica.name, "UP", "sees back")


def rolling_update(replicas: Sequence[Replica], proxy: Proxy, keys: str) -> None:
    for replica in replicas:
        restart(replica, proxy, keys)


def kill_and_restart(replica: Replica, proxy: Proxy, keys: str) -> None:
    replica.kill()
    proxy.wait_until(replica.name, "DOWN", "finds dead")
    replica.start(keys)
    replica.wait_until_listening()
    proxy.wait_until(replica.name, "UP", "sees back")


# ---------------------------------------------------------------------- the load


def locust_command(proxy: Proxy, users: int, outcomes: Path, results: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(FLEET_USERS),
        "--headless",
        "--users",
        str(users),
        "--spawn-rate",
        str(users),
        "--host",
        f"http://{HOST}:{proxy.rest_port}",
        "--grpc-target",
        f"{HOST}:{proxy.grpc_port}",
        "--outcomes",
        str(outcomes),
        "--csv",
        str(results / "fleet"),
        "--only-summary",
        # Latency is not judged here: a retried call waits its backoff on purpose.
        "--p95-limit-ms",
        "600000",
        *USER_CLASSES,
    ]


def read_outcomes(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def answered_on_both_transports(path: Path) -> bool:
    answered = {line["transport"] for line in read_outcomes(path) if line["outcome"] == "ok"}
    return answered >= {"grpc", "rest"}


# ---------------------------------------------------------------------- the verdict


def proxy_retries(log: Path) -> list[dict[str, Any]]:
    """The requests the proxy sent again to another replica, as outcome lines
    ("proxy retried"), from its log."""
    retried = []
    for line in log.read_text(errors="replace").splitlines() if log.exists() else ():
        match = PROXY_LOG_LINE.search(line)
        if match and int(match["retries"]):
            accepted = time.mktime(time.strptime(match["accepted"], "%d/%b/%Y:%H:%M:%S"))
            transport = "grpc" if match["frontend"] == "mazzo-grpc" else "rest"
            at = accepted + int(match["ms"]) / 1000
            retried.append({"at": at, "transport": transport, "outcome": "proxy retried"})
    return retried


def by_phase(
    outcomes: Sequence[dict[str, Any]], marks: Sequence[tuple[str, float]]
) -> dict[tuple[str, str], Counter[str]]:
    """Outcomes counted by (phase, transport): a call belongs to the phase it began in."""
    table: dict[tuple[str, str], Counter[str]] = {
        (phase, transport): Counter() for phase, _ in marks for transport in ("grpc", "rest")
    }
    for line in outcomes:
        phase = marks[0][0]
        for name, began in marks:
            if line["at"] >= began:
                phase = name
        table[phase, line["transport"]][line["outcome"]] += 1
    return table


def print_table(table: dict[tuple[str, str], Counter[str]]) -> None:
    widths = [max(7, len(outcome)) for outcome in OUTCOMES]
    print(f"\n  {'phase':<16} {'transport':<9} {'calls':>6}", end="")
    print("".join(f" {outcome:>{width}}" for outcome, width in zip(OUTCOMES, widths, strict=True)))
    totals: Counter[str] = Counter()
    for (phase, transport), counts in [*table.items(), (("all", ""), totals)]:
        if phase != "all":
            totals.update(counts)
        calls = sum(counts[outcome] for outcome in CALL_OUTCOMES)
        print(f"  {phase:<16} {transport:<9} {calls:>6}", end="")
        cells = zip(OUTCOMES, widths, strict=True)
        print("".join(f" {counts[outcome]:>{width}}" for outcome, width in cells))
    print(
        "\n  ok: answered at once; retried: answered after a lost attempt; proxy retried:"
        " sent again\n  to another replica by the proxy; alike, differed: keyed Plays sent twice"
    )


def drains(replicas: Sequence[Replica]) -> list[tuple[float, str]]:
    """How long each replica's drain lasted and why it ended, from their logs."""
    found = []
    for log in (log for replica in replicas for log in replica.logs if log.exists()):
        for line in log.read_text().splitlines():
            if match := DRAINED.search(line):
                found.append((float(match["seconds"]), match["why"]))
    return found


def print_drains(drained: Sequence[tuple[float, str]]) -> None:
    if not drained:
        return
    seconds = [took for took, _ in drained]
    print(
        f"\n  drains: {len(drained)}, of {min(seconds):.2f} to {max(seconds):.2f} s;"
        f" {sum(why.startswith('no new request') for _, why in drained)} ended quiet"
        " (no new request for 1 s), the others at MAZZO_DRAIN_SECONDS"
    )


def problems_of(
    table: dict[tuple[str, str], Counter[str]],
    replicas: Sequence[Replica],
    locust_code: int | None,
) -> list[str]:
    problems = []
    totals: Counter[str] = Counter()
    for (phase, transport), counts in table.items():
        totals.update(counts)
        if not counts["ok"] + counts["retried"]:
            problems.append(f"{phase}: no {transport} call was answered")
    for outcome in sorted(FAILURES):
        if totals[outcome]:
            problems.append(f"{totals[outcome]} call(s) {outcome}")
    if not totals["alike"]:
        problems.append("no keyed Play was sent twice")
    for replica in replicas:
        stopped = [code for code in replica.exits if code != -signal.SIGKILL]
        if any(code != 0 for code in stopped):
            problems.append(f"{replica.name}: a stop by SIGTERM exited {stopped}")
        for log in replica.logs:
            if log.exists() and "Traceback" in log.read_text():
                problems.append(f"{log.name}: a traceback")
    if locust_code != 0:
        problems.append(f"Locust exited {locust_code}" if locust_code else "Locust did not stop")
    return problems


# ---------------------------------------------------------------------- the run


def start_load(stack: ExitStack, proxy: Proxy, args: argparse.Namespace) -> subprocess.Popen[bytes]:
    """Locust's fleet users, through the proxy; stopped when ``stack`` closes."""
    log = stack.enter_context((args.results / "locust.log").open("w"))
    command = locust_command(proxy, args.users, args.results / OUTCOMES_FILE, args.results)
    locust = spawn(command, log)
    stack.callback(stop_group, locust, 10)
    return locust


def go_through_phases(
    replicas: Sequence[Replica], proxy: Proxy, old: str, phase_seconds: float
) -> list[tuple[str, float]]:
    """Each phase's action under load, then the load alone for the rest of the
    phase's share of the run; when each phase began. The replicas hold the key
    ``old``; the rotation brings in another."""
    new = new_key("k2")
    actions: dict[str, Callable[[], None]] = {
        "rolling update": lambda: rolling_update(replicas, proxy, old),
        "kill -9": lambda: kill_and_restart(replicas[0], proxy, old),
        "key rotation 1": lambda: rolling_update(replicas, proxy, f"{old},{new}"),
        "key rotation 2": lambda: rolling_update(replicas, proxy, f"{new},{old}"),
    }
    marks = []
    for phase in PHASES:
        marks.append((phase, time.time()))
        print(f"{time.strftime('%H:%M:%S')} {phase}", flush=True)
        actions.get(phase, lambda: None)()
        time.sleep(max(0.0, marks[-1][1] + phase_seconds - time.time()))
    return marks


def run(args: argparse.Namespace) -> int:
    results: Path = args.results
    results.mkdir(parents=True, exist_ok=True)
    for stale in [*results.glob("*.log"), *results.glob("fleet_*"), results / OUTCOMES_FILE]:
        stale.unlink(missing_ok=True)  # a previous run's files must not count
    replicas = [Replica(f"mazzo-{n}", results) for n in range(1, args.replicas + 1)]
    old = new_key("k1")
    locust_code: int | None = None
    with ExitStack() as stack:
        for replica in replicas:  # started together, then waited for
            stack.callback(replica.close)
            replica.start(old)
        for replica in replicas:
            replica.wait_until_listening()
        proxy = stack.enter_context(running_proxy(replicas, results))
        phase_seconds = args.duration / len(PHASES)
        print(
            f"{len(replicas)} replicas behind HAProxy: REST {HOST}:{proxy.rest_port},"
            f" gRPC {HOST}:{proxy.grpc_port}; Locust: {args.users} users;"
            f" {phase_seconds:.0f} s a phase at least"
        )
        locust = start_load(stack, proxy, args)
        outcomes = results / OUTCOMES_FILE
        wait_for(lambda: answered_on_both_transports(outcomes), "the first games answered")
        marks = go_through_phases(replicas, proxy, old, phase_seconds)
        locust.send_signal(signal.SIGTERM)  # Locust stops its users and writes its files
        with suppress(subprocess.TimeoutExpired):
            locust_code = locust.wait(WAIT_SECONDS)
    return report(args, replicas, marks, locust_code)


def report(
    args: argparse.Namespace,
    replicas: Sequence[Replica],
    marks: Sequence[tuple[str, float]],
    locust_code: int | None,
) -> int:
    """The table, the drains and the verdict (printed, and in fleet_verdict.json)."""
    results: Path = args.results
    lines = read_outcomes(results / OUTCOMES_FILE) + proxy_retries(results / "haproxy.log")
    table = by_phase(lines, marks)
    print_table(table)
    drained = drains(replicas)
    print_drains(drained)
    problems = problems_of(table, replicas, locust_code)
    verdict = {
        "passed": not problems,
        "problems": problems,
        "replicas": args.replicas,
        "users": args.users,
        "phases": {
            f"{phase} {transport}": dict(counts) for (phase, transport), counts in table.items()
        },
        "drains": [{"seconds": took, "why": why} for took, why in drained],
    }
    (results / "fleet_verdict.json").write_text(json.dumps(verdict, indent=1) + "\n")
    for problem in problems:
        print(f"FAIL: {problem}")
    print(f"\nlogs and outcomes: {results}")
    print("FAILED" if problems else "PASSED")
    return 1 if problems else 0


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    # Unwinds the run: every process it started is stopped on the way out.
    raise SystemExit(f"{signal.Signals(signum).name} received: stopping")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicas", type=int, default=3, help="replicas behind the proxy")
    parser.add_argument(
        "--duration", type=float, default=60, help="seconds of load, at least, in all phases"
    )
    parser.add_argument("--users", type=int, default=4, help="Locust users, half on each transport")
    parser.add_argument("--results", type=Path, default=HERE / "results" / "fleet")
    args = parser.parse_args(argv)
    if args.replicas < 2 or args.users < 2:
        parser.error("--replicas and --users must be 2 or more")
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        return run(args)
    except Failed as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
