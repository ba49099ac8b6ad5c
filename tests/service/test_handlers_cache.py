"""A token is opened once, however many calls carry it; a refused one every time."""

from __future__ import annotations

import pytest

from mazzo.v1 import engine_pb2 as pb
from service.errors import ApiError
from service.handlers import EngineHandlers
from service.metrics import Metrics
from service.state_token import StateSealer, generate_dev_key


class CountingSealer(StateSealer):
    def __init__(self) -> None:
        super().__init__([generate_dev_key()])
        self.opened = 0

    def open(self, token: bytes) -> bytes:
        self.opened += 1
        return super().open(token)


def test_the_same_token_is_decrypted_and_decoded_once_for_many_calls() -> None:
    sealer = CountingSealer()
    handlers = EngineHandlers(sealer, Metrics())
    state = handlers.new_game(pb.NewGameRequest(scopa=pb.ScopaOptions(), seed=5)).state
    legal = handlers.legal_moves(pb.LegalMovesRequest(state=state))
    handlers.validate(pb.ValidateRequest(state=state, move=legal.moves[0]))
    played = handlers.play(pb.PlayRequest(state=state, move=legal.moves[0]))
    assert sealer.opened == 1
    handlers.legal_moves(pb.LegalMovesRequest(state=played.state))
    assert sealer.opened == 2


def test_a_refused_token_is_checked_again_every_time_and_counted() -> None:
    sealer = CountingSealer()
    metrics = Metrics()
    handlers = EngineHandlers(sealer, metrics)
    state = handlers.new_game(pb.NewGameRequest(scopa=pb.ScopaOptions(), seed=5)).state
    tampered = state[:-1] + bytes([state[-1] ^ 1])
    for _ in range(2):
        with pytest.raises(ApiError) as refused:
            handlers.legal_moves(pb.LegalMovesRequest(state=tampered))
        assert refused.value.reason == "STATE_TAMPERED"
    assert sealer.opened == 2
    counted = metrics.registry.get_sample_value(
        "mazzo_states_refused_total", {"reason": "STATE_TAMPERED"}
    )
    assert counted == 2


def test_the_cache_can_be_turned_off_so_every_call_opens_its_token() -> None:
    sealer = CountingSealer()
    handlers = EngineHandlers(sealer, Metrics(), opened_states=0)
    state = handlers.new_game(pb.NewGameRequest(scopa=pb.ScopaOptions(), seed=5)).state
    for _ in range(3):
        handlers.legal_moves(pb.LegalMovesRequest(state=state))
    assert sealer.opened == 3
