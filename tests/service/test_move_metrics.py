"""The handlers' own series: each move counted and timed by game and outcome in one
observation, and each Advance call counted by what it did."""

from __future__ import annotations

from typing import Any

import pytest

from mazzo.engine import GAMES
from mazzo.service.handlers import EngineHandlers
from mazzo.service.metrics import ADVANCE_OUTCOMES, MOVE_OUTCOMES, Metrics
from mazzo.service.state_token import StateSealer
from mazzo.service.table import ComputerSeat, Table
from mazzo.service.trust import dump_record, load_tabled_record
from mazzo.v1 import engine_pb2 as pb
from tests.service.support import KEYS, HandClock, deck, move

DECK = deck(("7D 5C 9B", "1S 6B 2B"), "2C 5S 3S 4B")


def _value(metrics: Metrics, name: str, game: str, outcome: str) -> float | None:
    return metrics.registry.get_sample_value(name, {"game": game, "outcome": outcome})


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
def clock() -> HandClock:
    return HandClock()


@pytest.fixture
def handlers(metrics: Metrics, clock: HandClock) -> EngineHandlers:
    return EngineHandlers(StateSealer(list(KEYS)), metrics, clock=clock)


def test_every_game_and_outcome_starts_at_zero(metrics: Metrics, handlers: EngineHandlers) -> None:
    for game in GAMES:
        for outcome in MOVE_OUTCOMES:
            assert _value(metrics, "mazzo_moves_total", game, outcome) == 0
            assert _value(metrics, "mazzo_move_seconds_count", game, outcome) == 0
        for outcome in ADVANCE_OUTCOMES:
            assert _value(metrics, "mazzo_advances_total", game, outcome) == 0


def test_each_move_is_counted_and_timed_by_game_and_outcome(
    metrics: Metrics, handlers: EngineHandlers
) -> None:
    scopa = handlers.new_game(pb.NewGameRequest(players=2, scopa={}, decks=[pb.Deck(cards=DECK)]))
    token = scopa.state
    assert handlers.validate(pb.ValidateRequest(state=token, move=move(0, "5C"))).legal
    for illegal in (move(0, "1S"), move(1, "1S")):
        assert not handlers.validate(pb.ValidateRequest(state=token, move=illegal)).legal
    handlers.play(pb.PlayRequest(state=token, move=move(0, "5C")))
    with pytest.raises(Exception, match="turn"):
        handlers.play(pb.PlayRequest(state=token, move=move(1, "1S")))
    tressette = handlers.new_game(pb.NewGameRequest(players=2, tressette={}, seed=1))
    listed = handlers.legal_moves(pb.LegalMovesRequest(state=tressette.state)).moves
    handlers.play(pb.PlayRequest(state=tressette.state, move=listed[0]))
    expected = {
        ("scopa", "legal"): 1,
        ("scopa", "illegal"): 2,
        ("scopa", "applied"): 1,
        ("scopa", "refused"): 1,
        ("tressette", "applied"): 1,
    }
    for game in GAMES:
        for outcome in MOVE_OUTCOMES:
            count = expected.get((game, outcome), 0)
            assert _value(metrics, "mazzo_moves_total", game, outcome) == count, (game, outcome)
            assert _value(metrics, "mazzo_move_seconds_count", game, outcome) == count
            seconds = _value(metrics, "mazzo_move_seconds_sum", game, outcome)
            assert seconds is not None and (seconds > 0) == (count > 0)


def _clocked(handlers: EngineHandlers, on_timeout: str = "") -> Any:
    """A game with a clock of one second a move, seat 1 a computer: seat 0 to play."""
    return handlers.new_game(
        pb.NewGameRequest(
            players=2,
            scopa={},
            seed=3,
            computers=[pb.ComputerSeat(seat=1, level="greedy")],
            clock=pb.Clock(move_seconds=1, on_timeout=on_timeout),
        )
    )


def _advance(handlers: EngineHandlers, token: bytes) -> Any:
    return handlers.advance(pb.AdvanceRequest(state=token))


def test_each_advance_is_counted_by_game_and_what_it_did(
    metrics: Metrics, handlers: EngineHandlers, clock: HandClock
) -> None:
    # In time: nothing to do.
    started = _clocked(handlers)
    forfeiting = _clocked(handlers, on_timeout="forfeit")
    assert _advance(handlers, started.state).state == started.state
    # Out of time: the clock's level plays for seat 0 (then the computer seat 1).
    clock.now += 2
    assert _advance(handlers, started.state).status.ply == 2
    # Out of time with a clock that says forfeit: seat 0's side loses.
    lost = _advance(handlers, forfeiting.state).status
    assert lost.game_over and lost.HasField("forfeited_side") and lost.forfeited_side == 0
    # A computer seat to play (a record no server of this version writes, but one
    # Advance is for): seat 0 played by the computer, up to seat 1's turn.
    sealer = StateSealer(list(KEYS))
    state, game_id, ply, table = load_tabled_record(sealer.open(started.state))
    seat_0_computer = Table((ComputerSeat(0, "greedy", 10),), table.clock)
    token = sealer.seal(dump_record(state, game_id, ply, seat_0_computer))
    assert _advance(handlers, token).status.ply == ply + 1
    for outcome, count in (("none", 1), ("timeout", 1), ("forfeit", 1), ("computer", 1)):
        assert _value(metrics, "mazzo_advances_total", "scopa", outcome) == count, outcome
