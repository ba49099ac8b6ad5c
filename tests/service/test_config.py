"""Configuration: defaults, every variable, every kind of bad value, the settings table."""

from __future__ import annotations

import base64
import dataclasses

import pytest

from mazzo.service.config import (
    MAX_WORKERS,
    SETTINGS,
    Config,
    ConfigError,
    default_workers,
    settings_table_markdown,
    split_addr,
)
from mazzo.service.state_token import StateSealer

KEY_A = bytes(range(32))
KEY_B = bytes(range(16))
KEYS_SPEC = f"k2={base64.b64encode(KEY_A).decode()},k1={base64.b64encode(KEY_B).decode()}"


def test_defaults() -> None:
    config = Config.from_env({})
    assert config.grpc_addr == "127.0.0.1:50051"
    assert config.http_addr == "127.0.0.1:8080"
    assert config.metrics_addr == "127.0.0.1:9464"
    assert config.grace_seconds == 10.0
    assert config.drain_seconds == 5.0
    assert config.http_read_timeout == 5.0
    assert config.http_idle_timeout == 30.0
    assert config.grpc_workers == 16
    assert config.workers == default_workers()
    assert config.max_request_bytes == 65536
    assert config.log_level == "INFO"
    assert not config.metrics_on_rest  # /metrics stays off the callers' port
    assert config.state_max_age is None
    assert not config.require_seat_credentials
    assert config.max_suggest_ms == 1000


def test_workers_default_to_one_per_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 6)
    assert Config.from_env({}).workers == 6
    assert Config().workers == 6
    monkeypatch.setattr("os.cpu_count", lambda: None)  # the platform cannot tell
    assert Config.from_env({}).workers == 1
    monkeypatch.setattr("os.cpu_count", lambda: 4096)
    assert Config.from_env({}).workers == MAX_WORKERS


def test_dev_key_generated_when_keys_unset() -> None:
    config = Config.from_env({})
    assert config.dev_key
    [(kid, key)] = config.state_keys
    assert kid.startswith("dev-")
    assert len(key) == 32
    [(other_kid, other_key)] = Config.from_env({}).state_keys
    assert other_key != key
    assert other_kid != kid  # each process's development key has an id of its own
    sealer = StateSealer(config.state_keys)
    assert sealer.open(sealer.seal(b"x")) == b"x"


def test_every_variable_parsed() -> None:
    env = {
        "MAZZO_GRPC_ADDR": "[::]:6000",
        "MAZZO_HTTP_ADDR": "0.0.0.0:80",
        "MAZZO_METRICS_ADDR": " localhost:0 ",
        "MAZZO_STATE_KEYS": KEYS_SPEC,
        "MAZZO_GRACE_SECONDS": "2.5",
        "MAZZO_DRAIN_SECONDS": "0",
        "MAZZO_HTTP_READ_TIMEOUT": "0.5",
        "MAZZO_HTTP_IDLE_TIMEOUT": "120",
        "MAZZO_GRPC_THREADS": "4",
        "MAZZO_WORKERS": "3",
        "MAZZO_MAX_REQUEST_BYTES": "1024",
        "MAZZO_LOG_LEVEL": "debug",
        "MAZZO_METRICS_ON_REST": "true",
        "MAZZO_STATE_MAX_AGE": "86400",
        "MAZZO_REQUIRE_SEAT_CREDENTIALS": "TRUE",
        "MAZZO_MAX_SUGGEST_MS": "250",
        "UNRELATED": "ignored",
    }
    config = Config.from_env(env)
    assert config == Config(
        grpc_addr="[::]:6000",
        http_addr="0.0.0.0:80",
        metrics_addr="localhost:0",
        state_keys=(("k2", KEY_A), ("k1", KEY_B)),
        grace_seconds=2.5,
        drain_seconds=0.0,
        http_read_timeout=0.5,
        http_idle_timeout=120.0,
        grpc_workers=4,
        workers=3,
        max_request_bytes=1024,
        log_level="DEBUG",
        metrics_on_rest=True,
        state_max_age=86400.0,
        require_seat_credentials=True,
        max_suggest_ms=250,
    )
    assert not config.dev_key


def test_from_env_defaults_to_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAZZO_GRPC_THREADS", "3")
    monkeypatch.delenv("MAZZO_STATE_KEYS", raising=False)
    assert Config.from_env().grpc_workers == 3


def test_empty_metrics_addr_disables() -> None:
    assert Config.from_env({"MAZZO_METRICS_ADDR": ""}).metrics_addr == ""
    assert Config.from_env({"MAZZO_METRICS_ADDR": "  "}).metrics_addr == ""


def test_empty_max_age_means_no_limit() -> None:
    assert Config.from_env({"MAZZO_STATE_MAX_AGE": ""}).state_max_age is None


def test_zero_grace_is_allowed() -> None:
    assert Config.from_env({"MAZZO_GRACE_SECONDS": "0"}).grace_seconds == 0.0


def test_config_is_frozen_and_hides_keys() -> None:
    config = Config.from_env({"MAZZO_STATE_KEYS": KEYS_SPEC})
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.grpc_workers = 2  # type: ignore[misc]
    assert "state_keys" not in repr(config)
    assert repr(KEY_A) not in repr(config)


BAD_VALUES = [
    ("MAZZO_GRPC_ADDR", "50051", "expected host:port"),
    ("MAZZO_GRPC_ADDR", "", "expected host:port"),
    ("MAZZO_GRPC_ADDR", ":50051", "expected host:port"),
    ("MAZZO_GRPC_ADDR", "localhost:", "port"),
    ("MAZZO_GRPC_ADDR", "localhost:65536", "port"),
    ("MAZZO_GRPC_ADDR", "localhost:-1", "port"),
    ("MAZZO_GRPC_ADDR", "localhost:http", "port"),
    ("MAZZO_GRPC_ADDR", "::1:50051", "brackets"),
    ("MAZZO_GRPC_ADDR", "[nothost]:50051", "IPv6"),
    ("MAZZO_GRPC_ADDR", "bad host:50051", "bad host"),
    ("MAZZO_HTTP_ADDR", "localhost:99999", "port"),
    ("MAZZO_HTTP_ADDR", "localhost", "expected host:port"),
    ("MAZZO_METRICS_ADDR", "9464", "expected host:port"),
    ("MAZZO_STATE_KEYS", "", "set but empty"),
    ("MAZZO_STATE_KEYS", "k1", "expected kid=BASE64KEY"),
    ("MAZZO_STATE_KEYS", "k1=!!!", "base64"),
    ("MAZZO_STATE_KEYS", "k1=AAAA", "16, 24 or 32 bytes"),
    ("MAZZO_STATE_KEYS", f"dev={base64.b64encode(KEY_A).decode()}", "reserved"),
    ("MAZZO_STATE_KEYS", f"dev-1={base64.b64encode(KEY_A).decode()}", "reserved"),
    ("MAZZO_STATE_KEYS", f"{KEYS_SPEC},{KEYS_SPEC}", "given twice"),
    ("MAZZO_GRACE_SECONDS", "ten", "bad number"),
    ("MAZZO_GRACE_SECONDS", "", "bad number"),
    ("MAZZO_GRACE_SECONDS", "-1", "bad number"),
    ("MAZZO_GRACE_SECONDS", "nan", "bad number"),
    ("MAZZO_GRACE_SECONDS", "inf", "bad number"),
    ("MAZZO_DRAIN_SECONDS", "-1", "bad number"),
    ("MAZZO_DRAIN_SECONDS", "soon", "bad number"),
    ("MAZZO_HTTP_READ_TIMEOUT", "0", "more than 0 seconds"),
    ("MAZZO_HTTP_READ_TIMEOUT", "inf", "bad number"),
    ("MAZZO_HTTP_IDLE_TIMEOUT", "0", "more than 0 seconds"),
    ("MAZZO_HTTP_IDLE_TIMEOUT", "-5", "bad number"),
    ("MAZZO_GRPC_THREADS", "0", "bad number"),
    ("MAZZO_GRPC_THREADS", "1.5", "bad number"),
    ("MAZZO_GRPC_THREADS", "-4", "bad number"),
    ("MAZZO_GRPC_THREADS", "many", "bad number"),
    ("MAZZO_GRPC_THREADS", "1_000", "bad number"),
    ("MAZZO_WORKERS", "0", "bad number"),
    ("MAZZO_WORKERS", "two", "bad number"),
    ("MAZZO_WORKERS", str(MAX_WORKERS + 1), "bad number"),
    ("MAZZO_MAX_REQUEST_BYTES", "64k", "bad number"),
    ("MAZZO_MAX_REQUEST_BYTES", "0", "bad number"),
    ("MAZZO_MAX_REQUEST_BYTES", str(2**31), "bad number"),
    ("MAZZO_SEARCH_PROCESSES", "-1", "bad number"),
    ("MAZZO_SEARCH_PROCESSES", "few", "bad number"),
    ("MAZZO_SEARCH_PROCESSES", str(MAX_WORKERS + 1), "from 0 to"),
    ("MAZZO_MAX_SUGGEST_MS", "0", "bad number"),
    ("MAZZO_MAX_SUGGEST_MS", "1s", "bad number"),
    ("MAZZO_LOG_LEVEL", "LOUD", "bad log level"),
    ("MAZZO_LOG_LEVEL", "", "bad log level"),
    ("MAZZO_METRICS_ON_REST", "sure", "bad switch"),
    ("MAZZO_REQUIRE_SEAT_CREDENTIALS", "", "bad switch"),
    ("MAZZO_STATE_MAX_AGE", "0", "above 0"),
    ("MAZZO_STATE_MAX_AGE", "a day", "bad number"),
    ("MAZZO_STATE_MAX_AGE", "-5", "bad number"),
    ("MAZZO_STRICT_JSON", "yes please", "bad switch"),
    ("MAZZO_STRICT_JSON", "", "bad switch"),
    ("MAZZO_CORS_ORIGINS", "app.example.com", "bad origin"),
    ("MAZZO_CORS_ORIGINS", "https://app.example.com/", "bad origin"),
    ("MAZZO_CORS_ORIGINS", "https://a.example.com,ftp://b.example.com", "bad origin"),
]


def test_one_search_process_per_server_process_unless_set() -> None:
    assert Config.from_env({}).search_processes == 1
    assert Config.from_env({"MAZZO_WORKERS": "4"}).search_processes == 1
    assert Config.from_env({"MAZZO_SEARCH_PROCESSES": "0"}).search_processes == 0
    assert Config.from_env({"MAZZO_SEARCH_PROCESSES": "3"}).search_processes == 3


def test_strict_json_and_cors_origins() -> None:
    assert Config.from_env({}).strict_json is False
    assert Config.from_env({}).cors_origins == ()
    assert Config.from_env({"MAZZO_STRICT_JSON": "TRUE"}).strict_json is True
    assert Config.from_env({"MAZZO_STRICT_JSON": "0"}).strict_json is False
    origins = " https://app.example.com, http://localhost:3000 ,,http://[::1]:8000"
    assert Config.from_env({"MAZZO_CORS_ORIGINS": origins}).cors_origins == (
        "https://app.example.com",
        "http://localhost:3000",
        "http://[::1]:8000",
    )
    assert Config.from_env({"MAZZO_CORS_ORIGINS": "*"}).cors_origins == ("*",)
    assert Config.from_env({"MAZZO_CORS_ORIGINS": ""}).cors_origins == ()


@pytest.mark.parametrize(("name", "value", "message"), BAD_VALUES)
def test_bad_value_names_the_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Config.from_env({name: value})
    assert isinstance(caught.value, ValueError)
    assert str(caught.value).startswith(f"{name}: ")
    assert message in str(caught.value)
    assert base64.b64encode(KEY_A).decode() not in str(caught.value)


def test_every_setting_is_covered_by_bad_value_tests() -> None:
    assert {name for name, _, _ in SETTINGS} == {name for name, _, _ in BAD_VALUES}


@pytest.mark.parametrize(
    ("addr", "expected"),
    [
        ("127.0.0.1:50051", ("127.0.0.1", 50051)),
        ("localhost:0", ("localhost", 0)),
        ("mazzo-0.mazzo.svc.cluster.local:65535", ("mazzo-0.mazzo.svc.cluster.local", 65535)),
        ("[::]:8080", ("::", 8080)),
        ("[::1]:9464", ("::1", 9464)),
        ("[2001:db8::1]:80", ("2001:db8::1", 80)),
    ],
)
def test_split_addr(addr: str, expected: tuple[str, int]) -> None:
    assert split_addr(addr) == expected


@pytest.mark.parametrize("addr", ["", "host", "host:", ":1", "host:1:2", "[::1]", "h:123456"])
def test_split_addr_refuses(addr: str) -> None:
    with pytest.raises(ValueError, match="bad address"):
        split_addr(addr)


def test_settings_match_config_defaults() -> None:
    defaults = Config.from_env({})
    shown = {name: default for name, default, _ in SETTINGS}
    assert shown["MAZZO_GRPC_ADDR"] == defaults.grpc_addr
    assert shown["MAZZO_HTTP_ADDR"] == defaults.http_addr
    assert shown["MAZZO_METRICS_ADDR"] == defaults.metrics_addr
    assert float(shown["MAZZO_GRACE_SECONDS"]) == defaults.grace_seconds
    assert float(shown["MAZZO_DRAIN_SECONDS"]) == defaults.drain_seconds
    assert float(shown["MAZZO_HTTP_READ_TIMEOUT"]) == defaults.http_read_timeout
    assert float(shown["MAZZO_HTTP_IDLE_TIMEOUT"]) == defaults.http_idle_timeout
    assert int(shown["MAZZO_GRPC_THREADS"]) == defaults.grpc_workers
    assert shown["MAZZO_WORKERS"] == "(one per core)"  # default_workers(), not a literal
    assert int(shown["MAZZO_MAX_REQUEST_BYTES"]) == defaults.max_request_bytes
    assert shown["MAZZO_LOG_LEVEL"] == defaults.log_level
    assert int(shown["MAZZO_MAX_SUGGEST_MS"]) == defaults.max_suggest_ms
    assert int(shown["MAZZO_SEARCH_PROCESSES"]) == defaults.search_processes
    assert shown["MAZZO_STATE_KEYS"] == ""


def test_settings_table_markdown() -> None:
    table = settings_table_markdown()
    lines = table.splitlines()
    assert lines[0] == "| Variable | Default | Meaning |"
    assert len(lines) == 2 + len(SETTINGS)
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines)
    assert all(line.count(" | ") == 2 for line in lines)
    for name, _, _ in SETTINGS:
        assert f"| `{name}` |" in table
    assert "| `MAZZO_GRPC_THREADS` | `16` |" in table
    assert "| `MAZZO_WORKERS` | (one per core) |" in table
    assert "| `MAZZO_STATE_KEYS` | (unset) |" in table
