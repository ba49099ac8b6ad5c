"""Metrics: the gRPC interceptor over a real server, the Flask hooks, the exporter."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import urllib.request
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import flask
import grpc
import pytest

from mazzo.service.metrics import (
    LATENCY_BUCKETS,
    GrpcMetricsInterceptor,
    Metrics,
    MetricsServer,
    instrument_flask,
    serve_metrics,
    split_method,
)
from mazzo.service.state_token import REASONS

SERVICE = "test.v1.Echo"
EXPOSED_NAMES = (
    "grpc_server_started_total",
    "grpc_server_handled_total",
    "grpc_server_handling_seconds",
    "http_requests_total",
    "http_request_duration_seconds",
    "mazzo_games_started_total",
    "mazzo_moves_total",
    "mazzo_move_seconds",
    "mazzo_advances_total",
    "mazzo_states_refused_total",
    "mazzo_state_seals_total",
)


def _identity(data: bytes) -> bytes:
    return data


def _ok(request: bytes, context: grpc.ServicerContext) -> bytes:
    return request


def _invalid(request: bytes, context: grpc.ServicerContext) -> bytes:
    context.abort(grpc.StatusCode.INVALID_ARGUMENT, "bad request")
    raise AssertionError("abort returned")


def _precondition(request: bytes, context: grpc.ServicerContext) -> bytes:
    context.abort_with_status(_Status(grpc.StatusCode.FAILED_PRECONDITION, "illegal", ()))
    raise AssertionError("abort returned")


def _crash(request: bytes, context: grpc.ServicerContext) -> bytes:
    raise RuntimeError("boom")


def _set_code(request: bytes, context: grpc.ServicerContext) -> bytes:
    context.set_code(grpc.StatusCode.NOT_FOUND)
    context.set_details("nothing here")
    return b""


def _stream(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
    yield request
    yield request


class _Status(grpc.Status):  # type: ignore[misc]
    def __init__(self, code: grpc.StatusCode, details: str, trailing_metadata: tuple[()]):
        self.code = code
        self.details = details
        self.trailing_metadata = trailing_metadata


def _unary(behavior: object) -> grpc.RpcMethodHandler:
    return grpc.unary_unary_rpc_method_handler(
        behavior, request_deserializer=_identity, response_serializer=_identity
    )


def _handler() -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Ok": _unary(_ok),
            "Invalid": _unary(_invalid),
            "Precondition": _unary(_precondition),
            "Crash": _unary(_crash),
            "SetCode": _unary(_set_code),
            "Stream": grpc.unary_stream_rpc_method_handler(
                _stream, request_deserializer=_identity, response_serializer=_identity
            ),
        },
    )


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
def channel(metrics: Metrics) -> Iterator[grpc.Channel]:
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=2),
        interceptors=[GrpcMetricsInterceptor(metrics)],
    )
    server.add_generic_rpc_handlers((_handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield channel
    finally:
        channel.close()
        server.stop(None).wait()


def call(channel: grpc.Channel, method: str, payload: bytes = b"hi") -> grpc.StatusCode:
    """Make one unary call and return its status code."""
    stub = channel.unary_unary(
        f"/{SERVICE}/{method}", request_serializer=_identity, response_deserializer=_identity
    )
    try:
        assert stub(payload, timeout=10) == payload or method == "SetCode"
    except grpc.RpcError as error:
        return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def sample(metrics: Metrics, name: str, **labels: str) -> float | None:
    return metrics.registry.get_sample_value(name, labels)


def grpc_labels(method: str) -> dict[str, str]:
    return {"grpc_type": "unary", "grpc_service": SERVICE, "grpc_method": method}


@pytest.mark.parametrize(
    ("method", "code"),
    [
        ("Ok", "OK"),
        ("Invalid", "INVALID_ARGUMENT"),
        ("Precondition", "FAILED_PRECONDITION"),
        ("Crash", "UNKNOWN"),
        ("SetCode", "NOT_FOUND"),
    ],
)
def test_grpc_unary_calls_are_counted(
    metrics: Metrics, channel: grpc.Channel, method: str, code: str
) -> None:
    for _ in range(3):
        assert call(channel, method).name == code  # the client sees what we count
    labels = grpc_labels(method)
    assert sample(metrics, "grpc_server_started_total", **labels) == 3
    assert sample(metrics, "grpc_server_handled_total", **labels, grpc_code=code) == 3
    assert sample(metrics, "grpc_server_handling_seconds_count", **labels) == 3
    assert sample(metrics, "grpc_server_handling_seconds_bucket", **labels, le="+Inf") == 3
    seconds = sample(metrics, "grpc_server_handling_seconds_sum", **labels)
    assert seconds is not None and 0 < seconds < 10


def test_grpc_codes_are_kept_apart(metrics: Metrics, channel: grpc.Channel) -> None:
    call(channel, "Ok")
    call(channel, "Invalid")
    assert sample(metrics, "grpc_server_handled_total", **grpc_labels("Ok"), grpc_code="OK") == 1
    other = sample(
        metrics, "grpc_server_handled_total", **grpc_labels("Ok"), grpc_code="INVALID_ARGUMENT"
    )
    assert other is None


def test_grpc_streaming_passes_through(metrics: Metrics, channel: grpc.Channel) -> None:
    stub = channel.unary_stream(
        f"/{SERVICE}/Stream", request_serializer=_identity, response_deserializer=_identity
    )
    assert list(stub(b"x", timeout=10)) == [b"x", b"x"]
    labels = {"grpc_service": SERVICE, "grpc_method": "Stream"}
    for grpc_type in ("unary", "server_stream"):
        assert sample(metrics, "grpc_server_started_total", grpc_type=grpc_type, **labels) is None


def test_grpc_unknown_method_is_unimplemented(metrics: Metrics, channel: grpc.Channel) -> None:
    assert call(channel, "Missing") == grpc.StatusCode.UNIMPLEMENTED
    assert sample(metrics, "grpc_server_started_total", **grpc_labels("Missing")) is None


class _Details:
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


def test_interceptor_returns_none_for_none(metrics: Metrics) -> None:
    interceptor = GrpcMetricsInterceptor(metrics)
    assert interceptor.intercept_service(lambda details: None, _Details("/a.B/C")) is None


def test_interceptor_keeps_serializers(metrics: Metrics) -> None:
    original = _unary(_ok)
    wrapped = GrpcMetricsInterceptor(metrics).intercept_service(
        lambda details: original, _Details(f"/{SERVICE}/Ok")
    )
    assert wrapped is not original
    assert wrapped.request_deserializer is _identity
    assert wrapped.response_serializer is _identity
    assert not wrapped.request_streaming and not wrapped.response_streaming


@pytest.mark.parametrize(
    ("full", "expected"),
    [
        ("/mazzo.v1.Engine/Play", ("mazzo.v1.Engine", "Play")),
        ("/grpc.health.v1.Health/Check", ("grpc.health.v1.Health", "Check")),
        ("odd", ("", "odd")),
    ],
)
def test_split_method(full: str, expected: tuple[str, str]) -> None:
    assert split_method(full) == expected


# ---------------------------------------------------------------------- Flask


@pytest.fixture
def app(metrics: Metrics) -> flask.Flask:
    app = flask.Flask(__name__)
    app.config["PROPAGATE_EXCEPTIONS"] = False  # as in production: errors become 500s

    @app.post("/v1/games:play")
    def play() -> tuple[str, int]:
        return "played", 200

    @app.get("/v1/games/<game>")
    def game(game: str) -> str:
        if game == "briscola":
            flask.abort(404)
        return game

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("boom")

    instrument_flask(app, metrics)
    return app


def http_count(metrics: Metrics, method: str, route: str, status: str) -> float | None:
    return sample(metrics, "http_requests_total", method=method, route=route, status=status)


def test_http_requests_counted_by_rule(app: flask.Flask, metrics: Metrics) -> None:
    client = app.test_client()
    assert client.post("/v1/games:play").status_code == 200
    assert client.post("/v1/games:play").status_code == 200
    assert client.get("/v1/games/scopa").status_code == 200
    assert client.get("/v1/games/tressette").status_code == 200
    assert client.get("/v1/games/briscola").status_code == 404
    assert http_count(metrics, "POST", "/v1/games:play", "200") == 2
    assert http_count(metrics, "GET", "/v1/games/<game>", "200") == 2
    assert http_count(metrics, "GET", "/v1/games/<game>", "404") == 1
    duration = "http_request_duration_seconds_count"
    assert sample(metrics, duration, method="POST", route="/v1/games:play") == 2
    assert sample(metrics, duration, method="GET", route="/v1/games/<game>") == 3


def test_http_unmatched_and_errors(app: flask.Flask, metrics: Metrics) -> None:
    client = app.test_client()
    assert client.get("/no/such/path").status_code == 404
    assert client.get("/another/path").status_code == 404
    assert client.get("/v1/games:play").status_code == 405
    assert client.get("/boom").status_code == 500
    assert client.open("/v1/games:play", method="BREW").status_code == 405
    assert http_count(metrics, "GET", "unmatched", "404") == 2
    assert http_count(metrics, "GET", "unmatched", "405") == 1
    assert http_count(metrics, "GET", "/boom", "500") == 1
    assert http_count(metrics, "OTHER", "unmatched", "405") == 1


def test_metrics_route(app: flask.Flask, metrics: Metrics) -> None:
    metrics.mazzo_games_started_total.labels(game="scopa").inc()
    for _ in range(2):
        metrics.mazzo_move_seconds.labels(game="scopa", outcome="applied").observe(0.001)
    client = app.test_client()
    client.post("/v1/games:play")
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.content_type.startswith("text/plain")
    body = response.get_data(as_text=True)
    for name in EXPOSED_NAMES:
        assert f"# TYPE {name} " in body
    assert "_total_total" not in body
    assert 'mazzo_games_started_total{game="scopa"} 1.0' in body
    assert 'mazzo_moves_total{game="scopa",outcome="applied"} 2.0' in body
    assert 'mazzo_move_seconds_count{game="scopa",outcome="applied"} 2.0' in body
    assert http_count(metrics, "GET", "/metrics", "200") == 1


def test_exposition_and_initial_series(metrics: Metrics) -> None:
    body, content_type = metrics.exposition()
    assert content_type.startswith("text/plain")
    text = body.decode()
    for reason in REASONS:
        assert f'mazzo_states_refused_total{{reason="{reason}"}} 0.0' in text


def test_buckets_cover_50us_to_1s(metrics: Metrics) -> None:
    assert LATENCY_BUCKETS[0] == 0.00005
    assert LATENCY_BUCKETS[-1] == 1.0
    assert list(LATENCY_BUCKETS) == sorted(LATENCY_BUCKETS)
    metrics.grpc_server_handling_seconds.labels("unary", "s", "m").observe(0.00004)
    labels = {"grpc_type": "unary", "grpc_service": "s", "grpc_method": "m"}
    assert sample(metrics, "grpc_server_handling_seconds_bucket", **labels, le="5e-05") == 1


def test_instances_are_independent() -> None:
    first, second = Metrics(), Metrics()
    first.mazzo_games_started_total.labels(game="scopa").inc()
    assert sample(second, "mazzo_games_started_total", game="scopa") is None


# ---------------------------------------------------------------------- exporter


@pytest.fixture
def exporter(metrics: Metrics) -> Iterator[MetricsServer]:
    server = serve_metrics("127.0.0.1:0", metrics)
    try:
        yield server
    finally:
        server.stop()


def test_serve_metrics(metrics: Metrics, exporter: MetricsServer) -> None:
    metrics.mazzo_games_started_total.labels(game="tressette").inc()
    assert exporter.port > 0
    url = f"http://127.0.0.1:{exporter.port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as response:
        body = response.read().decode()
    assert 'mazzo_games_started_total{game="tressette"} 1.0' in body


def test_serve_metrics_stops(metrics: Metrics) -> None:
    server = serve_metrics("127.0.0.1:0", metrics)
    port = server.port
    server.stop()
    assert not server.thread.is_alive()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)


def test_serve_metrics_refuses_bad_address(metrics: Metrics) -> None:
    with pytest.raises(ValueError, match="bad address"):
        serve_metrics("9464", metrics)


# ---------------------------------------------------------------------- multiprocess

_CHILD = textwrap.dedent(
    """
    import sys
    from mazzo.service.metrics import Metrics
    metrics = Metrics()
    metrics.mazzo_games_started_total.labels(game="scopa").inc()
    metrics.mazzo_move_seconds.labels(game="scopa", outcome="legal").observe(0.0002)
    if sys.argv[1] == "expose":
        sys.stdout.write(metrics.exposition()[0].decode())
    """
)


def _child(directory: Path, mode: str) -> str:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, mode],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_multiprocess_mode_aggregates_processes(tmp_path: Path) -> None:
    _child(tmp_path, "count")
    _child(tmp_path, "count")
    body = _child(tmp_path, "expose")
    assert 'mazzo_games_started_total{game="scopa"} 3.0' in body
    # Each process's moves, counted from the histogram they were timed in.
    assert 'mazzo_move_seconds_count{game="scopa",outcome="legal"} 3.0' in body
    assert 'mazzo_moves_total{game="scopa",outcome="legal"} 3.0' in body
    assert body.count("# TYPE mazzo_moves_total counter") == 1


def test_the_interceptor_wraps_each_method_once_and_reuses_it() -> None:
    handler = grpc.unary_unary_rpc_method_handler(lambda request, context: request)

    class Details:
        method = "/mazzo.v1.Engine/Validate"

    interceptor = GrpcMetricsInterceptor(Metrics())
    first = interceptor.intercept_service(lambda details: handler, Details())
    second = interceptor.intercept_service(lambda details: handler, Details())
    assert first is second and first is not handler
    other = grpc.unary_unary_rpc_method_handler(lambda request, context: request)
    assert interceptor.intercept_service(lambda details: other, Details()) is not first
