"""Configuration from MAZZO_* environment variables.

Environment variables are how containers and Kubernetes configure a process,
so they are the only source. Every setting has a default that runs on a
laptop; in particular, when MAZZO_STATE_KEYS is unset a random development key
is generated, with an id of its own (tokens then die with the process, and
several replicas cannot open each other's tokens), which the caller should warn
about (`dev_key`).

Values are checked up front so that a bad deployment fails at start with a
message naming the variable, not at the first request.
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from mazzo.service.state_token import (
    DEV_KEY_PREFIX,
    LEGACY_DEV_KEY_ID,
    generate_dev_key,
    is_dev_key_id,
    parse_state_keys,
)

StateKeys = tuple[tuple[str, bytes], ...]
T = TypeVar("T")

DEFAULT_GRPC_ADDR = "127.0.0.1:50051"
DEFAULT_HTTP_ADDR = "127.0.0.1:8080"
DEFAULT_METRICS_ADDR = "127.0.0.1:9464"
DEFAULT_GRACE_SECONDS = 10.0
DEFAULT_DRAIN_SECONDS = 5.0
DEFAULT_HTTP_READ_TIMEOUT = 5.0
DEFAULT_HTTP_IDLE_TIMEOUT = 30.0
DEFAULT_GRPC_WORKERS = 16
DEFAULT_MAX_REQUEST_BYTES = 65536
DEFAULT_LOG_LEVEL = "INFO"
DEFAULT_MAX_SUGGEST_MS = 1000
#: One search process per server process: with MAZZO_WORKERS at the CPU count,
#: as docs/operations.md advises, a search core each (the CPU count is not a
#: default: in a container it is the node's, not the container's).
DEFAULT_SEARCH_PROCESSES = 1
MAX_WORKERS = 256  # far above any machine's cores: a typo, not a plan
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MAX_INT32 = 2**31 - 1  # gRPC's receive limit is a signed 32-bit integer

SETTINGS: tuple[tuple[str, str, str], ...] = (
    ("MAZZO_GRPC_ADDR", DEFAULT_GRPC_ADDR, "gRPC listen address, host:port ([::] for IPv6)."),
    ("MAZZO_HTTP_ADDR", DEFAULT_HTTP_ADDR, "REST gateway listen address, host:port."),
    (
        "MAZZO_METRICS_ADDR",
        DEFAULT_METRICS_ADDR,
        "Prometheus /metrics address (every server process aggregated); empty disables it.",
    ),
    (
        "MAZZO_METRICS_ON_REST",
        "false",
        "true: /metrics is served on the REST port too (keep it off where callers reach it).",
    ),
    (
        "MAZZO_STATE_KEYS",
        "",
        "State token keys, `kid=BASE64KEY[,kid2=BASE64KEY...]` (16, 24 or 32 bytes each);"
        " the first seals, all open. Unset: a random development key, with a warning.",
    ),
    (
        "MAZZO_STATE_MAX_AGE",
        "",
        "Seconds a state token stays valid after it was sealed; older ones are refused"
        " (`STATE_EXPIRED`). Unset: no limit.",
    ),
    (
        "MAZZO_REQUIRE_SEAT_CREDENTIALS",
        "false",
        "true: every call for a seat needs its seat credential, and NewGame answers only"
        " public events unless `eventsSeat` is asked (docs/security.md).",
    ),
    (
        "MAZZO_GRACE_SECONDS",
        f"{DEFAULT_GRACE_SECONDS:g}",
        "How long SIGTERM waits for calls in flight before stopping.",
    ),
    (
        "MAZZO_DRAIN_SECONDS",
        f"{DEFAULT_DRAIN_SECONDS:g}",
        "On SIGTERM, how long at most the server reports not ready (gRPC health NOT_SERVING,"
        " `/readyz` 503) while still serving: it stops accepting once no new request has"
        " arrived for 1 s, or after this long; 0: stop at once. Above a balancer's check"
        " interval times its failure count.",
    ),
    (
        "MAZZO_HTTP_READ_TIMEOUT",
        f"{DEFAULT_HTTP_READ_TIMEOUT:g}",
        "REST: seconds a request (header and body) may take to arrive from its first byte"
        " (then 408 and the connection is closed), and a new connection to send its first"
        " byte (then it is closed without an answer).",
    ),
    (
        "MAZZO_HTTP_IDLE_TIMEOUT",
        f"{DEFAULT_HTTP_IDLE_TIMEOUT:g}",
        "REST: seconds a kept-alive connection may stay idle between requests.",
    ),
    (
        "MAZZO_GRPC_THREADS",
        str(DEFAULT_GRPC_WORKERS),
        "gRPC thread pool size of each server process.",
    ),
    (
        "MAZZO_WORKERS",
        "(one per core)",
        "Server processes, each serving gRPC and REST on the same ports (a supervisor"
        " restarts any that dies); 1: one process, no supervisor.",
    ),
    (
        "MAZZO_SEARCH_PROCESSES",
        str(DEFAULT_SEARCH_PROCESSES),
        "Processes of each server process that run the intermediate's and the expert's"
        " searches, so that a search never holds up the other calls; 0: search in the"
        " server process.",
    ),
    (
        "MAZZO_MAX_REQUEST_BYTES",
        str(DEFAULT_MAX_REQUEST_BYTES),
        "Largest request accepted, in bytes: the REST body and the gRPC message"
        " (one byte more is refused, REQUEST_TOO_LARGE).",
    ),
    ("MAZZO_LOG_LEVEL", DEFAULT_LOG_LEVEL, "Log level: " + ", ".join(LOG_LEVELS) + "."),
    (
        "MAZZO_STRICT_JSON",
        "false",
        "true: REST refuses unknown JSON fields (MALFORMED_REQUEST); false: ignores them,"
        " as protojson callers expect.",
    ),
    (
        "MAZZO_CORS_ORIGINS",
        "",
        "Origins browsers may call the REST gateway from, comma-separated"
        " (`https://app.example.com`, or `*` for any); unset: no CORS headers.",
    ),
    (
        "MAZZO_MAX_SUGGEST_MS",
        str(DEFAULT_MAX_SUGGEST_MS),
        "Longest a Suggest call may think, in ms: a larger budget_ms is cut to it.",
    ),
)


class ConfigError(ValueError):
    """A MAZZO_* variable has a value the service cannot run with."""


def _dev_keys() -> StateKeys:
    return (generate_dev_key(),)


def default_workers() -> int:
    """One server process per core (``os.cpu_count()``; 1 when it cannot tell)."""
    return min(os.cpu_count() or 1, MAX_WORKERS)


@dataclass(frozen=True)
class Config:
    """The settings of one Mazzo process; build it with `Config.from_env()`."""

    grpc_addr: str = DEFAULT_GRPC_ADDR
    http_addr: str = DEFAULT_HTTP_ADDR
    metrics_addr: str = DEFAULT_METRICS_ADDR
    state_keys: StateKeys = field(default_factory=_dev_keys, repr=False)
    grace_seconds: float = DEFAULT_GRACE_SECONDS
    drain_seconds: float = DEFAULT_DRAIN_SECONDS
    http_read_timeout: float = DEFAULT_HTTP_READ_TIMEOUT
    http_idle_timeout: float = DEFAULT_HTTP_IDLE_TIMEOUT
    grpc_workers: int = DEFAULT_GRPC_WORKERS
    #: Server processes (MAZZO_WORKERS); grpc_workers above is threads per process.
    workers: int = field(default_factory=default_workers)
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    log_level: str = DEFAULT_LOG_LEVEL
    #: Serve /metrics on the REST port as well as on metrics_addr.
    metrics_on_rest: bool = False
    #: Seconds a token stays valid after sealing; None: no limit.
    state_max_age: float | None = None
    require_seat_credentials: bool = False
    #: REST refuses unknown JSON fields instead of ignoring them.
    strict_json: bool = False
    #: Origins allowed by CORS ("*": any); empty: no CORS headers.
    cors_origins: tuple[str, ...] = ()
    max_suggest_ms: int = DEFAULT_MAX_SUGGEST_MS
    #: Search processes per server process (MAZZO_SEARCH_PROCESSES); 0: none.
    search_processes: int = DEFAULT_SEARCH_PROCESSES

    @property
    def dev_key(self) -> bool:
        """True when tokens are sealed by a generated key (ids "dev" and "dev-..." are
        reserved for them)."""
        return is_dev_key_id(self.state_keys[0][0])

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read and check every MAZZO_* variable (`env` defaults to os.environ)."""
        src = os.environ if env is None else env
        return cls(
            grpc_addr=_read(src, "MAZZO_GRPC_ADDR", DEFAULT_GRPC_ADDR, _address),
            http_addr=_read(src, "MAZZO_HTTP_ADDR", DEFAULT_HTTP_ADDR, _address),
            metrics_addr=_read(src, "MAZZO_METRICS_ADDR", DEFAULT_METRICS_ADDR, _optional_address),
            state_keys=_read(src, "MAZZO_STATE_KEYS", (), _state_keys) or _dev_keys(),
            grace_seconds=_read(src, "MAZZO_GRACE_SECONDS", DEFAULT_GRACE_SECONDS, _seconds),
            drain_seconds=_read(src, "MAZZO_DRAIN_SECONDS", DEFAULT_DRAIN_SECONDS, _seconds),
            http_read_timeout=_read(
                src, "MAZZO_HTTP_READ_TIMEOUT", DEFAULT_HTTP_READ_TIMEOUT, _timeout
            ),
            http_idle_timeout=_read(
                src, "MAZZO_HTTP_IDLE_TIMEOUT", DEFAULT_HTTP_IDLE_TIMEOUT, _timeout
            ),
            grpc_workers=_read(src, "MAZZO_GRPC_THREADS", DEFAULT_GRPC_WORKERS, _positive_int),
            workers=_read(src, "MAZZO_WORKERS", default_workers(), _worker_count),
            max_request_bytes=_read(
                src, "MAZZO_MAX_REQUEST_BYTES", DEFAULT_MAX_REQUEST_BYTES, _positive_int
            ),
            log_level=_read(src, "MAZZO_LOG_LEVEL", DEFAULT_LOG_LEVEL, _log_level),
            metrics_on_rest=_read(src, "MAZZO_METRICS_ON_REST", False, _bool),
            state_max_age=_read(src, "MAZZO_STATE_MAX_AGE", None, _max_age),
            require_seat_credentials=_read(src, "MAZZO_REQUIRE_SEAT_CREDENTIALS", False, _bool),
            strict_json=_read(src, "MAZZO_STRICT_JSON", False, _bool),
            cors_origins=_read(src, "MAZZO_CORS_ORIGINS", (), _origins),
            max_suggest_ms=_read(
                src, "MAZZO_MAX_SUGGEST_MS", DEFAULT_MAX_SUGGEST_MS, _positive_int
            ),
            search_processes=_read(
                src, "MAZZO_SEARCH_PROCESSES", DEFAULT_SEARCH_PROCESSES, _process_count
            ),
        )


def _read(env: Mapping[str, str], name: str, default: T, parse: Callable[[str], T]) -> T:
    """Parse one variable, turning a ValueError into a ConfigError that names it."""
    raw = env.get(name)
    if raw is None:
        return default
    try:
        return parse(raw.strip())
    except ValueError as error:
        raise ConfigError(f"{name}: {error}") from None


def _address(text: str) -> str:
    split_addr(text)
    return text


def _optional_address(text: str) -> str:
    return text and _address(text)


_PORT_RE = re.compile(r"[0-9]{1,5}")
_HOST_RE = re.compile(r"[A-Za-z0-9._-]+")


def split_addr(addr: str) -> tuple[str, int]:
    """Split `host:port` (IPv6 hosts in brackets) into the host, unbracketed, and port."""
    host, sep, port = addr.rpartition(":")
    if not sep or not host:
        raise ValueError(f"bad address {addr!r}: expected host:port")
    if not _PORT_RE.fullmatch(port) or int(port) > 65535:
        raise ValueError(f"bad address {addr!r}: port must be a number from 0 to 65535")
    return _check_host(host, addr), int(port)


def _check_host(host: str, addr: str) -> str:
    """A bracketed IPv6 address, or a host name / IPv4 address without colons."""
    if host.startswith("[") and host.endswith("]"):
        try:
            return str(ipaddress.IPv6Address(host[1:-1]))
        except ValueError:
            raise ValueError(f"bad address {addr!r}: not an IPv6 address in brackets") from None
    if not _HOST_RE.fullmatch(host):
        raise ValueError(f"bad address {addr!r}: bad host (IPv6 addresses go in brackets)")
    return host


def _state_keys(text: str) -> StateKeys:
    if not text:
        raise ValueError("is set but empty; unset it to use a generated development key")
    keys = tuple(parse_state_keys(text))
    reserved = [kid for kid, _ in keys if is_dev_key_id(kid)]
    if reserved:
        raise ValueError(
            f"key id {reserved[0]!r} is reserved: {LEGACY_DEV_KEY_ID!r} and ids beginning"
            f" with {DEV_KEY_PREFIX!r} name generated development keys"
        )
    return keys


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"bad number {text!r}: expected seconds, e.g. 10 or 2.5") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"bad number {text!r}: must be a finite number of seconds >= 0")
    return value


def _max_age(text: str) -> float | None:
    """Seconds, above 0; empty: no limit (as if unset)."""
    if not text:
        return None
    value = _seconds(text)
    if value <= 0:
        raise ValueError(f"bad number {text!r}: must be above 0 (unset it for no limit)")
    return value


_BOOLS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def _bool(text: str) -> bool:
    value = _BOOLS.get(text.lower())
    if value is None:
        raise ValueError(f"bad switch {text!r}: expected true or false")
    return value


def _timeout(text: str) -> float:
    value = _seconds(text)
    if value == 0:
        raise ValueError(f"bad number {text!r}: a timeout must be more than 0 seconds")
    return value


def _whole_number(text: str, low: int, high: int) -> int:
    if not re.fullmatch(r"[0-9]+", text):
        raise ValueError(f"bad number {text!r}: expected a whole number")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"bad number {text!r}: must be from {low} to {high}")
    return value


def _positive_int(text: str) -> int:
    return _whole_number(text, 1, MAX_INT32)


def _worker_count(text: str) -> int:
    return _whole_number(text, 1, MAX_WORKERS)


def _process_count(text: str) -> int:
    return _whole_number(text, 0, MAX_WORKERS)


def _log_level(text: str) -> str:
    level = text.upper()
    if level not in LOG_LEVELS:
        raise ValueError(f"bad log level {text!r}: expected one of {', '.join(LOG_LEVELS)}")
    return level


#: An origin as a browser sends it in the Origin header: scheme://host[:port].
_ORIGIN_RE = re.compile(r"https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?")


def _origins(text: str) -> tuple[str, ...]:
    """Comma-separated origins as browsers send them (scheme://host[:port]), or `*`."""
    origins = tuple(part.strip() for part in text.split(",") if part.strip())
    for origin in origins:
        if origin != "*" and not _ORIGIN_RE.fullmatch(origin):
            raise ValueError(
                f"bad origin {origin!r}: expected scheme://host[:port] (no path, no slash), or *"
            )
    return origins


def settings_table_markdown() -> str:
    """The README's configuration table, generated so that it cannot drift from the code."""
    rows = ["| Variable | Default | Meaning |", "| --- | --- | --- |"]
    for name, default, meaning in SETTINGS:
        # A default that is not a literal value is written in parentheses.
        shown = (default if default.startswith("(") else f"`{default}`") if default else "(unset)"
        escaped = meaning.replace("|", r"\|")
        rows.append(f"| `{name}` | {shown} | {escaped} |")
    return "\n".join(rows) + "\n"
