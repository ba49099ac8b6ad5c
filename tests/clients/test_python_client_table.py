"""mazzo-client exposes computer seats, Advance, spectators, clocks and retries,
sync and asyncio, against a real server that requires seat credentials."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from mazzo.service.table import random_key
from mazzo_client import AsyncMazzoClient, MazzoClient, MazzoError, computer, idempotency_key, pb
from tests.service.support import Stack, running_stack


class SetClock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Stack, SetClock]]:
    clock = SetClock()
    with running_stack(require_seat_credentials=True, rest=False, clock=clock) as stack:
        yield stack, clock


def test_the_sync_client_plays_a_single_player_game_one_call_per_move(
    served: tuple[Stack, SetClock],
) -> None:
    stack, _ = served
    with MazzoClient(stack.grpc_target) as mazzo:
        game = mazzo.new_game(2, computers=[computer(1, "greedy")])
        credential = game.seat_credentials[0].credential
        state, status = game.state, game.status
        assert list(status.computer_seats) == [1]
        while not status.game_over:
            move = mazzo.legal_moves(state, credential=credential).moves[0]
            key = idempotency_key()
            played = mazzo.play(state, move, credential=credential, idempotency_key=key)
            again = mazzo.play(state, move, credential=credential, idempotency_key=key)
            assert list(played.events) == list(again.events)
            state, status = played.state, played.status
        public = mazzo.view(state, spectator=True).view
        assert public.spectator and public.status.game_over
        with pytest.raises(MazzoError) as refused:
            mazzo.play(state, move, credential=credential)
        assert refused.value.reason == "GAME_OVER"


def test_the_asyncio_client_advances_a_late_seat(served: tuple[Stack, SetClock]) -> None:
    stack, clock = served

    async def late_seat() -> tuple[pb.AdvanceResponse, str]:
        async with AsyncMazzoClient(stack.grpc_target) as mazzo:
            game = await mazzo.new_game(
                2,
                computers=[computer(1, "random")],
                clock=pb.Clock(move_seconds=1, on_timeout="forfeit"),
            )
            credential = game.seat_credentials[0].credential
            move = (await mazzo.legal_moves(game.state, credential=credential)).moves[0]
            clock.now += 5
            try:
                await mazzo.play(game.state, move, credential=credential)
            except MazzoError as error:
                reason = error.reason
            advanced = await mazzo.advance(game.state, idempotency_key=random_key())
            public = await mazzo.view(advanced.state, spectator=True)
            assert public.view.status.forfeited_side == 0
            return advanced, reason

    advanced, reason = asyncio.run(late_seat())
    assert reason == "TIME_EXPIRED"
    assert advanced.status.game_over and advanced.status.winning_side == 1
    # The client's event types tell the forfeit and the game's end.
    forfeit, over = advanced.events
    assert forfeit.forfeit == pb.Forfeit(seat=0, side=0, reason=pb.FORFEIT_REASON_TIME_EXPIRED)
    assert over.game_over.winning_side == 1
