"""Every game of the registry keeps the contract (OpenSpiel's api_test as the model).

For each game and each player count it allows, over random games played to a
target of 1: a random game ends; every legal move applies (on a clone, which
leaves the original as it was), every move it refuses comes with a reason and
changes nothing; the notation
reads back; a view never shows a card its seat may not see; states round-trip
through their bytes; and every player suggests a legal move, the same one when
the cards its seat cannot see are dealt otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from mazzo.engine import (
    GAMES,
    Game,
    IllegalMove,
    InvalidInput,
    Move,
    Reason,
    RuleError,
    dump_state,
    game_of,
    load_state,
)
from mazzo.engine.cards import DECK
from mazzo.engine.players import PLAYERS, Budget, suggest
from tests.engine.players_support import hidden_permuted

#: (game, players) for every game of the registry and every count it allows.
SETUPS = [(name, players) for name, game in GAMES.items() for players in game.player_counts]
IDS = [f"{name}-{players}p" for name, players in SETUPS]
#: A game runs far fewer moves than this: a bound that says "it never ended".
MAX_PLIES = 5_000


def rules_of(game: Game, players: int) -> Any:
    """The game's default rules for ``players``, to the shortest game its catalog allows."""
    shortest = {spec.name: spec.min for spec in game.options if spec.name == "target"}
    return game.rules_from(shortest, players)


def random_game(game: Game, players: int, seed: int) -> Iterator[Any]:
    """Every state of one random game, its last (game over) included."""
    state, _ = game.new_game(rules_of(game, players), seed=seed)
    rng = random.Random(seed)
    yield state
    for _ in range(MAX_PLIES):
        if state.winner is not None:
            return
        state = state.clone()  # each state yielded stays as it was
        state.apply(rng.choice(state.legal_moves()))
        yield state
    raise AssertionError(f"{game.name} with {players} players did not end in {MAX_PLIES} moves")


@pytest.mark.parametrize(("name", "players"), SETUPS, ids=IDS)
def test_random_games_end_with_a_winner_and_nothing_left_to_play(name: str, players: int) -> None:
    game = GAMES[name]
    for seed in range(3):
        *_, last = random_game(game, players, seed)
        status = game.status(last)
        assert status.game_over and status.seat_to_play is None
        assert status.winning_side is not None and game.legal_moves(last) == []
        assert status.scores[status.winning_side] >= status.target


@pytest.mark.parametrize(("name", "players"), SETUPS, ids=IDS)
def test_legal_moves_apply_on_a_clone_and_leave_the_original_unchanged(
    name: str, players: int
) -> None:
    game = GAMES[name]
    for state in random_game(game, players, seed=1):
        before = dump_state(state)
        for move in state.legal_moves():
            assert move.seat == state.to_play
            assert Move.parse(str(move)) == move  # the notation reads back
            after = state.clone()
            events = after.apply(move)
            assert events and dump_state(after) != before
        assert dump_state(state) == before


def _foreign_cards(state: Any) -> list[Any]:
    seat = state.to_play
    return [c for c in DECK if c not in state.hands[seat]]


@pytest.mark.parametrize(("name", "players"), SETUPS, ids=IDS)
def test_illegal_moves_are_refused_with_a_reason_and_change_nothing(
    name: str, players: int
) -> None:
    game = GAMES[name]
    rng = random.Random(4)
    last = None
    for state in random_game(game, players, seed=2):
        last = state
        if state.winner is not None:
            break
        before = dump_state(state)
        seat, hand = state.to_play, state.hands[state.to_play]
        attempts = [
            (Move(seat, rng.choice(_foreign_cards(state))), Reason.CARD_NOT_IN_HAND),
            (Move((seat + 1) % players, rng.choice(hand)), Reason.NOT_YOUR_TURN),
        ]
        for move, reason in attempts:
            with pytest.raises(IllegalMove) as refused:
                state.apply(move)
            assert refused.value.reason is reason and refused.value.message
        with pytest.raises(InvalidInput) as malformed:
            state.apply(Move(players, hand[0]))
        assert malformed.value.reason is Reason.INVALID_SEAT
        assert dump_state(state) == before
    assert last is not None and last.winner is not None
    with pytest.raises(RuleError) as over:
        last.apply(Move(0, DECK[0]))
    assert over.value.reason is Reason.GAME_OVER


def _shown(view: Any) -> set[Any]:
    """Every card ``view`` shows."""
    shown = {*view.hand, *view.face_up}
    shown.update(c for pile in view.piles for c in pile)
    shown.update(c for cards in view.known for c in cards)
    return shown


@pytest.mark.parametrize(("name", "players"), SETUPS, ids=IDS)
def test_views_never_show_a_card_their_seat_may_not_see(name: str, players: int) -> None:
    game = GAMES[name]
    for state in random_game(game, players, seed=3):
        for seat in range(players):
            view = game.view(state, seat)
            # The seat's whole hand, in whatever order the game shows it.
            assert sorted(view.hand) == sorted(state.hands[seat]) and view.seat == seat
            assert view.hand_sizes == tuple(map(len, state.hands))
            shown = _shown(view)
            assert not shown & set(state.stock), "a stock card is shown"
            for other, hand in enumerate(state.hands):
                if other != seat:
                    # Only what the seat was shown or can deduce of another hand.
                    assert shown & set(hand) <= set(view.known[other])
        with pytest.raises(InvalidInput):
            game.view(state, players)


@pytest.mark.parametrize(("name", "players"), SETUPS, ids=IDS)
def test_states_round_trip_through_their_bytes(name: str, players: int) -> None:
    game = GAMES[name]
    for state in random_game(game, players, seed=4):
        data = dump_state(state)
        assert load_state(data) == state and game_of(state) is game
        assert load_state(dump_state(load_state(data))) == state
        with pytest.raises(InvalidInput) as cut:
            load_state(data[: len(data) // 2])
        assert cut.value.reason is Reason.STATE_CORRUPT


@pytest.mark.parametrize(("name", "players"), SETUPS, ids=IDS)
def test_every_player_is_legal_and_honest(name: str, players: int) -> None:
    game = GAMES[name]
    rng = random.Random(5)
    permuted = 0
    for ply, state in enumerate(random_game(game, players, seed=5)):
        if state.winner is not None or ply % 11:
            continue
        seat, legal = state.to_play, game.legal_moves(state)
        other = hidden_permuted(state, seat, rng)
        assert game.view(other, seat) == game.view(state, seat)
        permuted += other != state
        for level in sorted(PLAYERS):
            budget = Budget(simulations=2 * len(legal) + 1)
            chosen = suggest(level, game.view(state, seat), legal, budget, random.Random(ply))
            assert chosen.move in legal, (level, chosen)
            # Honest: what the seat cannot see does not change its choice.
            again = suggest(level, game.view(other, seat), legal, budget, random.Random(ply))
            assert again == chosen, level
    assert permuted
