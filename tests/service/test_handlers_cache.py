"""A process remembers the states it opened and sealed, by token; a refused token never.

A caller's next call carries the token this process gave it (NewGame, Play),
or one it opened for an earlier call: such a token is neither decrypted nor
decoded again. A refused token is checked, refused and counted every time.
"""

from __future__ import annotations

import threading

import pytest

from mazzo.service.errors import ApiError
from mazzo.service.handlers import EngineHandlers, StateCache
from mazzo.service.metrics import Metrics
from mazzo.service.state_token import StateSealer, generate_dev_key
from mazzo.v1 import engine_pb2 as pb

KEY = generate_dev_key()


class CountingSealer(StateSealer):
    def __init__(self) -> None:
        super().__init__([KEY])
        self.opened = 0

    def open_dated(self, token: bytes) -> tuple[bytes, int]:
        self.opened += 1
        return super().open_dated(token)


def new_game(handlers: EngineHandlers, seed: int = 5) -> pb.NewGameResponse:
    return handlers.new_game(pb.NewGameRequest(scopa=pb.ScopaOptions(), seed=seed))


def first_move(handlers: EngineHandlers, state: bytes) -> pb.Move:
    return handlers.legal_moves(pb.LegalMovesRequest(state=state)).moves[0]


def refused_count(metrics: Metrics, reason: str) -> float | None:
    return metrics.registry.get_sample_value("mazzo_states_refused_total", {"reason": reason})


def test_the_tokens_new_game_and_play_return_are_answered_without_opening_them() -> None:
    sealer = CountingSealer()
    handlers = EngineHandlers(sealer, Metrics())
    state = new_game(handlers).state
    for _ in range(3):
        move = first_move(handlers, state)
        assert handlers.validate(pb.ValidateRequest(state=state, move=move)).legal
        state = handlers.play(pb.PlayRequest(state=state, move=move)).state
    handlers.view(pb.ViewRequest(state=state, seat=0))
    assert sealer.opened == 0


def test_a_remembered_state_answers_as_its_opened_token_does() -> None:
    remembering = EngineHandlers(StateSealer([KEY]), Metrics())
    opening = EngineHandlers(StateSealer([KEY]), Metrics(), opened_states=0)
    kept, opened = new_game(remembering), new_game(opening)
    for _ in range(12):
        move = first_move(opening, opened.state)
        assert first_move(remembering, kept.state) == move
        kept = remembering.play(pb.PlayRequest(state=kept.state, move=move))
        opened = opening.play(pb.PlayRequest(state=opened.state, move=move))
        assert kept.events == opened.events
        kept.status.ClearField("game_id")  # two games: all the same but their random ids
        opened.status.ClearField("game_id")
        assert kept.status == opened.status


def test_a_token_from_another_process_is_opened_once_for_many_calls() -> None:
    state = new_game(EngineHandlers(StateSealer([KEY]), Metrics())).state
    sealer = CountingSealer()
    handlers = EngineHandlers(sealer, Metrics())
    move = first_move(handlers, state)
    handlers.validate(pb.ValidateRequest(state=state, move=move))
    handlers.play(pb.PlayRequest(state=state, move=move))
    assert sealer.opened == 1


def test_a_refused_token_is_checked_again_every_time_and_counted_every_time() -> None:
    sealer = CountingSealer()
    metrics = Metrics()
    handlers = EngineHandlers(sealer, metrics)
    state = new_game(handlers).state
    tampered = state[:-1] + bytes([state[-1] ^ 1])
    for _ in range(2):
        with pytest.raises(ApiError) as refused:
            handlers.legal_moves(pb.LegalMovesRequest(state=tampered))
        assert refused.value.reason == "STATE_TAMPERED"
    assert sealer.opened == 2
    assert refused_count(metrics, "STATE_TAMPERED") == 2


def test_an_authentic_token_of_a_corrupt_state_is_refused_and_counted_every_time() -> None:
    sealer = CountingSealer()
    metrics = Metrics()
    handlers = EngineHandlers(sealer, metrics)
    corrupt = sealer.seal(b"\xff not a state")
    for _ in range(3):
        with pytest.raises(ApiError) as refused:
            handlers.validate(pb.ValidateRequest(state=corrupt, move=pb.Move(card="7D")))
        assert refused.value.reason == "STATE_CORRUPT"
    assert sealer.opened == 3
    assert refused_count(metrics, "STATE_CORRUPT") == 3


def test_the_least_recently_used_state_goes_first() -> None:
    cache = StateCache(2)
    cache.put(b"a", "A")
    cache.put(b"b", "B")
    assert cache.get(b"a") == "A"  # b is now the least recently used
    cache.put(b"c", "C")
    assert (cache.get(b"a"), cache.get(b"b"), cache.get(b"c")) == ("A", None, "C")
    assert len(cache) == 2
    assert (cache.hits, cache.misses) == (3, 1)


def test_a_process_remembers_at_most_its_number_of_states() -> None:
    sealer = CountingSealer()
    handlers = EngineHandlers(sealer, Metrics(), opened_states=2)
    first, second, third = (new_game(handlers, seed).state for seed in (1, 2, 3))
    first_move(handlers, first)  # first pushed out by third: opened again
    assert sealer.opened == 1
    first_move(handlers, third)  # remembered
    first_move(handlers, first)  # now remembered again
    assert sealer.opened == 1
    first_move(handlers, second)  # pushed out
    assert sealer.opened == 2


def test_no_states_are_remembered_when_the_size_is_zero() -> None:
    sealer = CountingSealer()
    handlers = EngineHandlers(sealer, Metrics(), opened_states=0)
    state = new_game(handlers).state
    for _ in range(3):
        first_move(handlers, state)
    assert sealer.opened == 3
    cache = StateCache(0)
    cache.put(b"a", "A")
    assert cache.get(b"a") is None
    assert len(cache) == 0


def test_threads_sharing_a_small_memory_get_the_right_answers() -> None:
    handlers = EngineHandlers(CountingSealer(), Metrics(), opened_states=3)
    games = [new_game(handlers, seed) for seed in range(8)]
    expected = {g.state: first_move(handlers, g.state) for g in games}
    failures: list[str] = []

    def caller(offset: int) -> None:
        for i in range(200):
            state = games[(offset + i) % len(games)].state
            move = expected[state]
            if first_move(handlers, state) != move:
                failures.append("legal moves")
            if not handlers.validate(pb.ValidateRequest(state=state, move=move)).legal:
                failures.append("validate")

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(handlers.states) <= 3
