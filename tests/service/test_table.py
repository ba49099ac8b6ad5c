"""The table sealed beside a game's state, the public view, and a move's randomness."""

from __future__ import annotations

import dataclasses

import pytest

from mazzo.engine import GAMES, InvalidInput, Reason, dump_state
from mazzo.service.handlers import EngineHandlers
from mazzo.service.metrics import Metrics
from mazzo.service.spectator import public_view
from mazzo.service.state_token import StateSealer
from mazzo.service.table import (
    NO_TABLE,
    Clock,
    ComputerSeat,
    MoveRandomness,
    Table,
    dump_table,
    load_table,
)
from mazzo.service.trust import dump_record, load_record, load_tabled_record
from mazzo.v1 import engine_pb2 as pb

GAME_ID = bytes(range(12))
TABLES = [
    NO_TABLE,
    Table((ComputerSeat(1, "expert", 100),)),
    Table((ComputerSeat(0, "greedy", 5), ComputerSeat(2, "random", 0)), Clock(30, "forfeit", 17)),
    Table((), Clock(1, "greedy", 1_800_000_000_000), forfeited_side=1),
]


def _started(name: str, players: int, seed: int = 3) -> object:
    game = GAMES[name]
    return game.new_game(game.make_rules(players=players), seed=seed)[0]


@pytest.mark.parametrize("table", TABLES)
def test_a_table_reads_back_as_written(table: Table) -> None:
    assert load_table(dump_table(table)) == table
    state = _started("scopa", 2)
    loaded = load_tabled_record(dump_record(state, GAME_ID, 5, table))
    assert dump_state(loaded[0]) == dump_state(state) and loaded[1:] == (GAME_ID, 5, table)


def test_a_game_without_computers_or_clock_keeps_the_record_it_always_had() -> None:
    state = _started("scopa", 2)
    plain = dump_record(state, GAME_ID, 0)
    assert plain[0] == 1 and dump_record(state, GAME_ID, 0, NO_TABLE) == plain
    assert dump_record(state, GAME_ID, 0, TABLES[1])[0] == 2
    assert load_record(dump_record(state, GAME_ID, 0, TABLES[1]))[1:] == (GAME_ID, 0)


@pytest.mark.parametrize("cut", [1, 3, 6])
def test_a_damaged_table_is_state_corrupt(cut: int) -> None:
    raw = dump_table(TABLES[2])
    for damaged in (raw[:-cut], raw + bytes(cut)):
        with pytest.raises(InvalidInput) as refused:
            load_table(damaged)
        assert refused.value.reason is Reason.STATE_CORRUPT


@pytest.mark.parametrize(
    ("name", "players"),
    [(name, n) for name, game in GAMES.items() for n in game.player_counts],
)
def test_the_public_view_is_what_every_seat_sees_alike(name: str, players: int) -> None:
    game = GAMES[name]
    state = _started(name, players)
    for _ in range(5):  # a few moves in
        state.apply(state.legal_moves()[0], 7)
    public = public_view(game, state)
    views = [game.view(state, seat) for seat in range(players)]
    assert public.hand == () and (public.seat, public.side) == (0, 0)
    for field in dataclasses.fields(public):
        value = getattr(public, field.name)
        if field.name == "known":
            shown = {card for cards in value for card in cards}
            everyone = [
                {c for seat_view in views for c in seat_view.known[s]} for s in range(players)
            ]
            assert all(set(cards) <= everyone[s] for s, cards in enumerate(value))
            if players < 3:
                assert not shown
        elif field.name not in ("seat", "side", "hand"):
            assert all(getattr(view, field.name) == value for view in views), field.name


def test_a_move_s_randomness_is_fresh_without_a_key_and_derived_with_one() -> None:
    assert MoveRandomness().next_u64() != MoveRandomness().next_u64()
    secret = StateSealer([("k", bytes(32))]).derived_keys(b"purpose")[0][1]
    context = (b"Play", b"token", b"move", b"key" * 6)
    one, again = MoveRandomness(secret, context), MoveRandomness(secret, context)
    drawn = [one.next_u64() for _ in range(3)]
    assert drawn == [again.next_u64() for _ in range(3)] and len(set(drawn)) == 3
    # Another key, another context, or another server's secret: other numbers.
    other_server = StateSealer([("k", bytes(range(32)))]).derived_keys(b"purpose")[0][1]
    for secret_, context_ in [
        (secret, (b"Play", b"token", b"move", b"yek" * 6)),
        (secret, (b"Play", b"token2", b"move", b"key" * 6)),
        (other_server, context),
    ]:
        assert MoveRandomness(secret_, context_).next_u64() != drawn[0]


def test_a_tabled_token_opens_on_another_server_with_the_same_keys() -> None:
    keys = [("k1", bytes(range(32)))]
    first = EngineHandlers(StateSealer(keys), Metrics())
    started = first.new_game(
        pb.NewGameRequest(
            players=2,
            scopa=pb.ScopaOptions(),
            computers=[pb.ComputerSeat(seat=1, level="greedy")],
            clock=pb.Clock(move_seconds=60, on_timeout="forfeit"),
        )
    )
    # Another process: nothing remembered, the token decoded afresh.
    other = EngineHandlers(StateSealer(keys), Metrics(), opened_states=0)
    move = other.legal_moves(pb.LegalMovesRequest(state=started.state)).moves[0]
    played = other.play(pb.PlayRequest(state=started.state, move=move))
    assert [e.card_played.seat for e in played.events if e.HasField("card_played")] == [0, 1]
    assert list(played.status.computer_seats) == [1] and played.status.HasField("deadline")


def test_a_computer_thinks_at_most_a_minute_whatever_the_servers_cap() -> None:
    handlers = EngineHandlers(StateSealer([("k1", bytes(32))]), Metrics(), max_suggest_ms=10**7)
    started = handlers.new_game(
        pb.NewGameRequest(
            players=2,
            scopa=pb.ScopaOptions(),
            computers=[pb.ComputerSeat(seat=1, level="random", budget_ms=10**6)],
        )
    )
    record = handlers.states.get(started.state)
    assert record is not None and record.table.computers[0].budget_ms == 60_000
