"""Briscola, rule by rule (docs/rules.md, Briscola)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import pytest

from mazzo.engine import IllegalMove, InvalidInput, Move, Reason, dump_state, load_state
from mazzo.engine.briscola import (
    BriscolaRules,
    BriscolaState,
    RemovedTwo,
    side_scores,
    winning_index,
)
from mazzo.engine.cards import CUPS, DECK, Card, parse_cards
from mazzo.engine.events import (
    BriscolaSideScore,
    CardDrawn,
    CardsDealt,
    Deal,
    Event,
    GameOver,
    HandScored,
    TrickWon,
    TrumpTurnedUp,
)


def c(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split())


def deck(hands: Sequence[str], turn_up: str, stock: str = "") -> tuple[Card, ...]:
    """A deck dealing ``hands`` (3 each, by seat, the dealer the last seat), then the
    turn-up, then ``stock`` on top of the stock."""
    by_seat = [c(h) for h in hands]
    top = [by_seat[seat][i] for i in range(3) for seat in range(len(hands))]
    top += [*c(turn_up), *c(stock)]
    return (*top, *(card for card in DECK if card not in top))


def random_hand(players: int, seed: int) -> tuple[BriscolaState, list[object]]:
    """One hand played at random; every state's events, in order."""
    state, events = BriscolaState.new_game(BriscolaRules(players=players), seed=seed)
    told: list[object] = list(events)
    rng = random.Random(seed)
    while state.hand_number == 1 and state.winner is None:
        told += state.apply(rng.choice(state.legal_moves()))
    return state, told


def hand_end(*piles: Sequence[Card]) -> tuple[BriscolaSideScore, ...]:
    """The score of a two-player hand over in which each side won its pile (the
    scoring reads the piles alone: they need not hold the whole deck)."""
    state, _ = BriscolaState.new_game(BriscolaRules(), seed=0)
    over = dataclasses.replace(
        state, hands=[[], []], stock=[], turn_up=None, piles=[list(pile) for pile in piles]
    )
    assert over.hand_over
    return over.hand_scores()


def card_points(cards: Sequence[Card]) -> int:
    """The card points a side that won ``cards`` counts at the hand's end."""
    return hand_end(cards, ())[0].card_points


# ---------------------------------------------------------------- players and deal


@pytest.mark.parametrize(("players", "stock"), [(2, 34), (3, 30), (4, 28)])
def test_three_cards_each_then_the_turn_up_under_a_stock_that_counts_it(
    players: int, stock: int
) -> None:
    state, events = BriscolaState.new_game(BriscolaRules(players=players), seed=1)
    assert [len(h) for h in state.hands] == [3] * players
    assert state.stock_size == stock and len(state.stock) == stock - 1
    assert state.turn_up == state.trump
    deal, *dealt, turned = events
    assert isinstance(deal, Deal) and deal.stock_size == stock and deal.table == ()
    assert [e.seat for e in dealt if isinstance(e, CardsDealt)] == list(range(players))
    assert turned == TrumpTurnedUp(state.trump) and turned.visible_to is None


def test_cards_are_dealt_one_at_a_time_from_the_seat_after_the_dealer() -> None:
    order = deck(("1D 2D 3D", "1C 2C 3C"), "7S", "8S 9S")
    state, _ = BriscolaState.new_game(BriscolaRules(), seed=0, decks=[order])
    assert state.hands == [list(c("1D 2D 3D")), list(c("1C 2C 3C"))]
    assert (state.turn_up, state.stock[:2]) == (Card.parse("7S"), list(c("8S 9S")))
    assert state.to_play == 0 and state.dealer == 1


def test_three_players_play_without_the_two_of_cups_the_others_in_their_order() -> None:
    order = deck(("1D 2D 3D", "1C 3C 4C", "1S 2S 3S"), "7B")
    # The 2 of cups lies in the stock: the stock is the rest, less that card.
    state, _ = BriscolaState.new_game(BriscolaRules(players=3), seed=0, decks=[order])
    rest = [card for card in order[10:] if card != Card.parse("2C")]
    assert state.stock == rest
    assert state.view(0).removed == Card.parse("2C")
    held = [card for hand in state.hands for card in hand]
    assert Card.parse("2C") not in (*held, *state.stock)


def test_three_players_may_take_another_two_out_and_the_turn_up_moves_up() -> None:
    # The 2 of batons would be turned up: it leaves, and the next card is the turn-up.
    order = deck(("1D 2D 3D", "1C 3C 4C", "1S 2S 3S"), "2B", "7B")
    rules = BriscolaRules(players=3, removed_two=RemovedTwo.BATONS)
    state, _ = BriscolaState.new_game(rules, seed=0, decks=[order])
    assert state.turn_up == Card.parse("7B")
    assert card_points(DECK) == 120 and rules.removed == Card.parse("2B")


def test_briscola_is_for_two_three_or_four() -> None:
    for players in (1, 5, 6):
        with pytest.raises(InvalidInput) as refused:
            BriscolaRules(players=players)
        assert refused.value.reason is Reason.INVALID_PLAYERS
    with pytest.raises(InvalidInput) as refused:
        BriscolaState.rules_from({"target": 0})
    assert refused.value.reason is Reason.INVALID_OPTION


# ---------------------------------------------------------------- tricks


@pytest.mark.parametrize(
    ("trick", "winner"),
    [
        ("1D 3D", 0),  # the ace beats the 3 of its suit
        ("3D 10D", 0),  # the 3 beats the king
        ("2D 4D", 1),  # the 2 is the lowest
        ("1D 2S", 0),  # a card of another suit cannot win, whatever it is
        ("1D 2C", 1),  # the lowest trump takes the ace
        ("2C 1C", 1),  # the higher trump
        ("7S 1D 4C", 2),  # a trump, even a 4, beats the led suit
        ("7S 1D 3S 10S", 2),  # no trump: the highest of the suit led
    ],
)
def test_the_highest_trump_else_the_highest_card_of_the_suit_led_wins(
    trick: str, winner: int
) -> None:
    assert winning_index(c(trick), CUPS) == winner


def test_no_one_must_follow_suit_nor_trump() -> None:
    order = deck(("1D 5B 4S", "3D 2C 6S"), "7C", "8D 9D")
    state, _ = BriscolaState.new_game(BriscolaRules(), seed=0, decks=[order])
    state.apply(Move(0, Card.parse("1D")))
    assert {m.card for m in state.legal_moves()} == set(c("3D 2C 6S"))
    for card in c("6S 2C"):
        assert state.resolve(Move(1, card)) == Move(1, card)


def test_the_winner_draws_first_each_for_its_eyes_and_leads() -> None:
    order = deck(("1D 5B 4S", "3D 2C 6S"), "7C", "8D 9D")
    state, _ = BriscolaState.new_game(BriscolaRules(), seed=0, decks=[order])
    state.apply(Move(0, Card.parse("4S")))
    events = state.apply(Move(1, Card.parse("6S")))
    assert events[1:] == [
        TrickWon(1, 1, 0, c("4S 6S")),
        CardDrawn(1, Card.parse("8D"), True),
        CardDrawn(0, Card.parse("9D"), True),
    ]
    assert [e.visible_to for e in events[2:]] == [1, 0]
    assert state.to_play == state.leader == 1


@pytest.mark.parametrize(("players", "tricks"), [(2, 20), (3, 13), (4, 10)])
def test_the_turn_up_is_the_last_card_drawn_seen_by_all_then_the_hands_play_out(
    players: int, tricks: int
) -> None:
    state, told = random_hand(players, seed=players)
    draws = [e for e in told if isinstance(e, CardDrawn)]
    turned = next(e for e in told if isinstance(e, TrumpTurnedUp))
    assert draws[-1].card == turned.card and draws[-1].visible_to is None
    assert all(d.visible_to == d.seat for d in draws[:-1])
    won = [e for e in told if isinstance(e, TrickWon)]
    assert len(won) == tricks
    last_draw = told.index(draws[-1])
    assert sum(1 for e in told[last_draw:] if isinstance(e, TrickWon)) == 3


def test_moves_are_refused_with_tressette_s_reasons() -> None:
    state, _ = BriscolaState.new_game(BriscolaRules(), seed=3)
    before = state.clone()
    hand = state.hands[0]
    other = next(card for card in DECK if card not in hand)
    cases = [
        (Move(1, state.hands[1][0]), Reason.NOT_YOUR_TURN),
        (Move(0, other), Reason.CARD_NOT_IN_HAND),
    ]
    for move, reason in cases:
        with pytest.raises(IllegalMove) as refused:
            state.apply(move)
        assert refused.value.reason is reason
    with pytest.raises(InvalidInput) as malformed:
        state.apply(Move(0, hand[0], frozenset({other})))
    assert malformed.value.reason is Reason.TAKE_NOT_ALLOWED
    assert state == before  # a refused move changes nothing


# ---------------------------------------------------------------- points and the game


def test_card_points_and_the_hand_to_more_than_sixty() -> None:
    assert [card_points(c(t)) for t in ("1D", "3D", "10D", "9D", "8D", "7D 2D")] == [
        11,
        10,
        4,
        3,
        2,
        0,
    ]
    scored = hand_end(c("1D 3D 10D"), c("9D 8D"))
    assert [(s.card_points, s.total) for s in scored] == [(25, 0), (5, 0)]  # not past 60
    sixty_one = [side.total for side in _scored(61, 59)]
    assert sixty_one == [1, 0]
    assert [side.total for side in _scored(60, 60)] == [0, 0]


def _scored(*points: int) -> tuple[BriscolaSideScore, ...]:
    return side_scores(points)


def test_three_players_the_single_best_total_wins_a_tie_at_the_top_for_nobody() -> None:
    assert [s.total for s in _scored(50, 40, 30)] == [1, 0, 0]
    assert [s.total for s in _scored(45, 45, 30)] == [0, 0, 0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_hand_counts_its_120_points_and_the_target_counts_hands(players: int) -> None:
    state, _ = BriscolaState.new_game(BriscolaRules(players=players, target=2), seed=9)
    rng = random.Random(9)
    hands: list[HandScored] = []
    dealers = [state.dealer]
    while state.winner is None:
        events = state.apply(rng.choice(state.legal_moves()))
        hands += [e for e in events if isinstance(e, HandScored)]
        if any(isinstance(e, Deal) for e in events):
            dealers.append(state.dealer)
    for hand in hands:
        assert sum(side.card_points for side in hand.sides) == 120
    sides = len(state.scores)
    wins = [sum(x.total for h in hands for x in h.sides if x.side == s) for s in range(sides)]
    assert state.scores[state.winner] == 2 and wins == list(state.scores)
    assert dealers == [(dealers[0] + k) % players for k in range(len(dealers))]


def test_the_game_ends_at_once_and_then_refuses_every_move() -> None:
    state, _ = BriscolaState.new_game(BriscolaRules(), seed=4)
    rng = random.Random(4)
    events: list[Event] = []
    while state.winner is None:
        events = state.apply(rng.choice(state.legal_moves()))
    assert isinstance(events[-1], GameOver) and state.scores[state.winner] == 1
    with pytest.raises(IllegalMove) as refused:
        state.apply(Move(0, DECK[0]))
    assert refused.value.reason is Reason.GAME_OVER


# ---------------------------------------------------------------- seeing and the codec


def test_a_seat_sees_the_turn_up_then_who_drew_it_never_another_drawn_card() -> None:
    state, _ = BriscolaState.new_game(BriscolaRules(), seed=6)
    rng = random.Random(6)
    while state.turn_up is not None:
        seen = state.view(0)
        assert seen.turn_up == state.trump and seen.known == ((), ())
        state.apply(rng.choice(state.legal_moves()))
    holder = next(seat for seat, hand in enumerate(state.hands) if state.trump in hand)
    other = 1 - holder
    assert state.view(other).known[holder] == (state.trump,)
    assert state.view(other).turn_up is None
    assert state.view(holder).known == ((), ())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_states_round_trip_and_damaged_ones_are_state_corrupt(players: int) -> None:
    state, _ = random_hand(players, seed=11)
    start, _ = BriscolaState.new_game(BriscolaRules(players=players), seed=2)
    for candidate in (start, state):
        data = dump_state(candidate)
        assert load_state(data) == candidate and len(data) < 100
    damaged = [
        dataclasses.replace(start, stock=start.stock[1:]),  # a card missing
        dataclasses.replace(start, turn_up=None),  # a stock without its turn-up
        dataclasses.replace(start, to_play=(start.to_play + 1) % players),  # the turn
        dataclasses.replace(start, scores=(10**6,) * len(start.scores)),
    ]
    for bad in damaged:
        with pytest.raises(InvalidInput) as refused:
            load_state(dump_state(bad))
        assert refused.value.reason is Reason.STATE_CORRUPT
