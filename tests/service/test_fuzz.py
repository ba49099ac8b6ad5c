"""Property-based fuzzing of every REST route and every gRPC method (tools/fuzz.py's requests).

Whatever arrives is answered, or refused in the documented form: over REST
never a 5xx and every refusal the JSON envelope with one ErrorInfo; over gRPC
never INTERNAL nor UNKNOWN, and every refusal a status with one ErrorInfo.
A few hundred examples here; ``make fuzz`` sends 100,000 to a served Mazzo.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.service.support import Stack
from tools.fuzz import grpc_case, rest_case, send_grpc, send_rest, tokens_from

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def fuzz_channel(stack: Stack) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(stack.grpc_target) as channel:
        yield channel


@pytest.fixture(scope="module")
def tokens(fuzz_channel: grpc.Channel) -> list[bytes]:
    return tokens_from(fuzz_channel)


@FUZZ
@given(rng=st.randoms(use_true_random=False))
def test_every_rest_request_is_answered_or_refused_in_the_envelope(
    stack: Stack, tokens: list[bytes], rng: random.Random
) -> None:
    case = rest_case(rng, tokens)
    outcome, problem = send_rest(stack.http_port, case)
    assert problem is None, (case, outcome)


@FUZZ
@given(rng=st.randoms(use_true_random=False))
def test_every_grpc_request_is_answered_or_refused_with_one_error_info(
    fuzz_channel: grpc.Channel, tokens: list[bytes], rng: random.Random
) -> None:
    method, data = grpc_case(rng, tokens)
    outcome, problem = send_grpc(fuzz_channel, method, data)
    assert problem is None, (method, data, outcome)
