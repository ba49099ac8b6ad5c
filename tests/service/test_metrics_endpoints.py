"""/metrics on the REST port after a known set of calls on both transports.

The module starts its own servers with a fresh Metrics, makes the calls in
``CALLS`` below once, scrapes once, and every test reads that scrape.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from mazzo.service.metrics import Metrics
from mazzo.service.state_token import REASONS
from mazzo_client import MazzoClient, MazzoError
from tests.service.support import KEYS, Stack, b64, deck, http_call, move, running_stack

DECK = deck(("7D 5C 9B", "1S 6B 2B"), "2C 5S 3S 4B")
ENGINE = {"grpc_type": "unary", "grpc_service": "mazzo.v1.Engine"}
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture(scope="module")
def measured() -> Iterator[Stack]:
    with running_stack(KEYS, metrics=Metrics(), metrics_on_rest=True) as stack:
        yield stack


def _refused(call: object, *args: object) -> MazzoError:
    with pytest.raises(MazzoError) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value


@pytest.fixture(scope="module")
def scrape(measured: Stack) -> tuple[str, Samples]:
    """Make the calls, then scrape /metrics once: (text, samples by name and labels)."""
    port = measured.http_port
    with MazzoClient(measured.grpc_target) as client:
        # gRPC: 2 games, 1 applied move, 2 refused, 1 legal and 3 illegal validations,
        # 1 tampered token, 1 catalog.
        token = client.new_game(2, decks=[DECK], seed=1).state
        client.new_game(2, seed=2)
        client.play(token, move(0, "5C"))
        assert _refused(client.play, token, move(1, "1S")).reason == "NOT_YOUR_TURN"
        assert _refused(client.play, token, move(0, "7D")).reason == "CAPTURE_CHOICE_REQUIRED"
        assert client.validate(token, move(0, "5C")).legal
        for illegal in (move(0, "1S"), move(0, "7D"), move(0, "5C", ["2C", "3S"])):
            assert not client.validate(token, illegal).legal
        tampered = token[:-1] + bytes((token[-1] ^ 1,))
        assert _refused(client.legal_moves, tampered).reason == "STATE_TAMPERED"
        assert _refused(client.new_game, 5).code == grpc.StatusCode.INVALID_ARGUMENT
        client.catalog()
    with grpc.insecure_channel(measured.grpc_target) as channel:
        check = health_pb2_grpc.HealthStub(channel).Check
        assert check(health_pb2.HealthCheckRequest(), timeout=10).status == 1  # SERVING
    # REST: 1 game, 1 refused move, 1 catalog, 1 unknown route, 1 wrong verb.
    rest_game = http_call(port, "POST", "/v1/games", {"scopa": {}, "decks": [{"cards": DECK}]})
    assert rest_game.status == 200
    body = {"state": rest_game.json()["state"], "move": {"seat": 1, "card": "1S"}}
    assert http_call(port, "POST", "/v1/games:play", body).status == 400
    assert http_call(port, "GET", "/v1/catalog").status == 200
    assert http_call(port, "GET", "/v1/nowhere").status == 404
    assert http_call(port, "GET", "/v1/games").status == 405
    assert http_call(port, "POST", "/v1/games:view", {"state": b64(tampered)}).status == 400

    reply = http_call(port, "GET", "/metrics")
    assert reply.status == 200
    assert reply.content_type.startswith("text/plain")
    text = reply.body.decode()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return text, samples


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def engine(samples: Samples, name: str, method: str, **labels: str) -> float | None:
    return value(samples, name, **ENGINE, grpc_method=method, **labels)


def test_grpc_started_counts_every_call(scrape: tuple[str, Samples]) -> None:
    text, samples = scrape
    assert "grpc_server_started_total{" in text
    expected = {"NewGame": 3, "Play": 3, "Validate": 4, "LegalMoves": 1, "GetCatalog": 1}
    for method, count in expected.items():
        assert engine(samples, "grpc_server_started_total", method) == count, method
    assert engine(samples, "grpc_server_started_total", "View") is None


def test_grpc_handled_counts_by_code(scrape: tuple[str, Samples]) -> None:
    text, samples = scrape
    assert 'grpc_code="FAILED_PRECONDITION"' in text
    handled = "grpc_server_handled_total"
    assert engine(samples, handled, "Play", grpc_code="OK") == 1
    assert engine(samples, handled, "Play", grpc_code="FAILED_PRECONDITION") == 2
    assert engine(samples, handled, "Validate", grpc_code="OK") == 4
    assert engine(samples, handled, "LegalMoves", grpc_code="INVALID_ARGUMENT") == 1
    assert engine(samples, handled, "NewGame", grpc_code="OK") == 2
    assert engine(samples, handled, "NewGame", grpc_code="INVALID_ARGUMENT") == 1


def test_grpc_handling_seconds_is_a_histogram(scrape: tuple[str, Samples]) -> None:
    text, samples = scrape
    assert "# TYPE grpc_server_handling_seconds histogram" in text
    assert engine(samples, "grpc_server_handling_seconds_count", "Play") == 3
    assert engine(samples, "grpc_server_handling_seconds_bucket", "Play", le="+Inf") == 3
    total = engine(samples, "grpc_server_handling_seconds_sum", "Play")
    assert total is not None and 0 < total < 5


def test_http_requests_by_route_and_status(scrape: tuple[str, Samples]) -> None:
    text, samples = scrape
    assert "# TYPE http_requests_total counter" in text
    assert "# TYPE http_request_duration_seconds histogram" in text
    requests = "http_requests_total"
    assert value(samples, requests, method="POST", route="/v1/games", status="200") == 1
    assert value(samples, requests, method="POST", route="/v1/games:play", status="400") == 1
    assert value(samples, requests, method="GET", route="/v1/catalog", status="200") == 1
    assert value(samples, requests, method="POST", route="/v1/games:view", status="400") == 1
    assert value(samples, requests, method="GET", route="unmatched", status="404") == 1
    assert value(samples, requests, method="GET", route="unmatched", status="405") == 1
    duration = "http_request_duration_seconds_count"
    assert value(samples, duration, method="POST", route="/v1/games") == 1


def test_games_started(scrape: tuple[str, Samples]) -> None:
    text, samples = scrape
    assert 'mazzo_games_started_total{game="scopa"} 3.0' in text  # 2 gRPC, 1 REST


def test_moves_by_outcome(scrape: tuple[str, Samples]) -> None:
    text, samples = scrape
    assert 'mazzo_moves_total{game="scopa",outcome="applied"} 1.0' in text
    assert 'mazzo_moves_total{game="scopa",outcome="refused"} 3.0' in text  # 2 gRPC, 1 REST
    assert 'mazzo_moves_total{game="scopa",outcome="legal"} 1.0' in text
    assert 'mazzo_moves_total{game="scopa",outcome="illegal"} 3.0' in text


def test_states_refused_by_reason(scrape: tuple[str, Samples]) -> None:
    text, samples = scrape
    assert 'mazzo_states_refused_total{reason="STATE_TAMPERED"} 2.0' in text  # gRPC and REST
    for reason in REASONS:
        if reason != "STATE_TAMPERED":
            assert value(samples, "mazzo_states_refused_total", reason=reason) == 0, reason


def test_seals_are_counted_by_the_sealing_key(scrape: tuple[str, Samples]) -> None:
    text, samples = scrape
    assert "# TYPE mazzo_state_seals_total counter" in text
    # 2 games and 1 applied move over gRPC, 1 game over REST; refusals seal nothing.
    assert value(samples, "mazzo_state_seals_total", key="k1") == 4


def test_health_checks_are_counted_under_their_service(scrape: tuple[str, Samples]) -> None:
    _, samples = scrape
    health = {"grpc_type": "unary", "grpc_service": "grpc.health.v1.Health"}
    handled = "grpc_server_handled_total"
    assert value(samples, handled, **health, grpc_method="Check", grpc_code="OK") == 1
