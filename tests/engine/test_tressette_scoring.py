"""docs/rules.md, Tressette, Points of a hand: thirds, floored per side, the last
trick, 11 a hand."""

from __future__ import annotations

import pytest

from mazzo.engine import DECK, Move
from mazzo.engine.cards import Card
from mazzo.engine.events import HandScored, TressetteSideScore, TrickWon
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.tressette_support import cards, make_state, random_chooser, rest_of

VALUE_IN_THIRDS = {1: 3, 2: 1, 3: 1, 4: 0, 5: 0, 6: 0, 7: 0, 8: 1, 9: 1, 10: 1}


def hand_end(pile, last_trick_side=0) -> tuple[TressetteSideScore, ...]:
    """The score of a hand over (two players) where side 0 won ``pile``, side 1 every
    other card, and ``last_trick_side`` the last trick (its seat leads next)."""
    pile = tuple(pile)
    state = make_state(hands=["", ""], piles=[pile, rest_of(pile)], leader=last_trick_side)
    assert state.hand_over
    return state.hand_scores()


@pytest.mark.parametrize("rank", range(1, 11))
def test_each_card_is_worth_its_thirds_in_every_suit(rank):
    for suit in range(4):
        assert hand_end([Card.of(rank, suit)])[0].thirds == VALUE_IN_THIRDS[rank]


def test_the_deck_holds_32_thirds():
    assert hand_end(DECK)[0].thirds == 32


def test_13_thirds_are_4_points_the_fraction_dropped():
    pile = cards("1D 1C 1S 1B 10D")  # four aces (12 thirds) and a king
    sides = hand_end(pile, last_trick_side=1)
    assert sides[0].thirds == 13
    assert sides[0] == TressetteSideScore(0, 13, 4, 0, 0)
    assert sides[1] == TressetteSideScore(1, 19, 6, 1, 0)
    assert [s.total for s in sides] == [4, 7]


@pytest.mark.parametrize(
    ("pile", "third_count", "points"),
    [
        ("", 0, 0),
        ("4D 5D 6D 7D", 0, 0),
        ("2D", 1, 0),
        ("2D 3D", 2, 0),
        ("1D", 3, 1),
        ("1D 8D", 4, 1),
        ("1D 8D 9D", 5, 1),
        ("1D 1C", 6, 2),
        ("1D 1C 1S 1B 10D 9D", 14, 4),
        ("1D 1C 1S 1B 10D 9D 8D", 15, 5),
    ],
)
def test_each_side_floors_its_own_thirds(pile, third_count, points):
    sides = hand_end(cards(pile), last_trick_side=0)
    assert sides[0].thirds == third_count
    assert sides[0].card_points == points
    assert sides[1].thirds == 32 - third_count
    assert sides[1].card_points == (32 - third_count) // 3
    # Whatever the split, the cards give 10 points and the last trick 1: 11.
    assert sum(s.total for s in sides) == 11


def test_the_floor_is_per_side_not_of_the_total():
    # 16 thirds each: 5 points each (5.33 dropped), 10 with both fractions gone.
    sides = hand_end(cards("1D 1C 1S 1B 2D 3D 8D 9D"), last_trick_side=1)
    assert [s.thirds for s in sides] == [16, 16]
    assert [s.card_points for s in sides] == [5, 5]
    assert [s.total for s in sides] == [5, 6]


def test_the_breakdown_adds_up_to_the_total():
    side = TressetteSideScore(side=1, thirds=20, card_points=6, last_trick_point=1, napoletana=3)
    assert side.total == 10


def last_trick_state(players: int, side1_pile: str, scores=(0, 0), napoletana=(0, 0)):
    """The last trick of a hand: seat 0 leads the strongest of the batons left, so
    side 0 wins it; side 1 holds ``side1_pile``, side 0 every other card."""
    hands = ["5B", "4B"] if players == 2 else ["7B", "4B", "6B", "5B"]
    return make_state(
        hands=hands,
        piles=["", side1_pile],
        leader=0,
        scores=scores,
        napoletana=napoletana,
        rules=TressetteRules(players=players),
        fill=0,
    )


def finish(state):
    """Play the last trick, each seat its only card, on a clone of ``state``; return
    the state and the events."""
    state = state.clone()
    events = []
    while True:
        new = state.apply(Move(state.to_play, state.hands[state.to_play][0]))
        events += new
        if any(isinstance(e, HandScored) for e in new):
            return state, events


@pytest.mark.parametrize("players", [2, 4])
def test_the_last_trick_is_worth_one_more_point_to_the_side_that_wins_it(players):
    side1 = "1D 1C 1S 1B 10D 2D"  # 14 thirds: 4 points
    state, events = finish(last_trick_state(players, side1))
    scored = next(e for e in events if isinstance(e, HandScored))
    won = [e for e in events if isinstance(e, TrickWon)]
    assert won[-1].side == 0
    assert scored.sides == (
        TressetteSideScore(side=0, thirds=18, card_points=6, last_trick_point=1, napoletana=0),
        TressetteSideScore(side=1, thirds=14, card_points=4, last_trick_point=0, napoletana=0),
    )
    assert [s.total for s in scored.sides] == [7, 4]
    assert scored.scores == (7, 4)
    assert state.scores == (7, 4)
    assert scored.hand_number == 1


def test_the_last_trick_point_follows_the_side_of_the_seat_that_wins_it():
    # Four players: seat 3 wins the last trick with the 3 of batons; side 1 takes the point.
    state = make_state(
        hands=["7B", "4B", "6B", "3B"],
        piles=["", "1D 1C"],
        leader=0,
        rules=TressetteRules(players=4),
        fill=0,
    )
    _, events = finish(state)
    scored = next(e for e in events if isinstance(e, HandScored))
    assert [s.last_trick_point for s in scored.sides] == [0, 1]
    assert [s.thirds for s in scored.sides] == [25, 7]
    assert [s.total for s in scored.sides] == [8, 3]


def test_four_players_pool_their_tricks_by_pairs_0_2_and_1_3():
    state, _ = TressetteState.new_game(TressetteRules(players=4, target=1000), seed=17)
    choose = random_chooser(17)
    taken = {0: [], 1: []}
    while True:
        events = state.apply(choose(state))
        for e in events:
            if isinstance(e, TrickWon):
                assert e.side == e.seat % 2
                taken[e.side] += e.cards
        scored = next((e for e in events if isinstance(e, HandScored)), None)
        if scored:
            break
        assert state.piles == [taken[0], taken[1]]
    assert [s.thirds for s in scored.sides] == [
        sum(VALUE_IN_THIRDS[c.rank] for c in taken[side]) for side in (0, 1)
    ]
    assert sorted(taken[0] + taken[1]) == sorted(DECK)


def test_scores_carry_over_and_grow_by_the_hands_totals():
    state, events = finish(last_trick_state(2, "1D 2D 3D", scores=(9, 12)))
    scored = next(e for e in events if isinstance(e, HandScored))
    assert [s.total for s in scored.sides] == [10, 1]  # 27 thirds = 9 + last trick; 5 thirds
    assert scored.scores == (19, 13)
    assert state.scores == (19, 13)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("seed", range(6))
def test_every_hand_totals_exactly_11_without_declarations(players, seed):
    state, _ = TressetteState.new_game(TressetteRules(players=players, target=60), seed=seed)
    choose = random_chooser(seed)
    hands = 0
    while not state.game_over:
        events = state.apply(choose(state))
        for e in events:
            if isinstance(e, HandScored):
                hands += 1
                assert sum(s.total for s in e.sides) == 11
                assert sum(s.thirds for s in e.sides) == 32
                assert sum(s.last_trick_point for s in e.sides) == 1
                assert all(s.napoletana == 0 for s in e.sides)
    assert hands >= 5


def test_the_hand_scored_event_lists_both_sides_in_order():
    _, events = finish(last_trick_state(2, ""))
    scored = next(e for e in events if isinstance(e, HandScored))
    assert [s.side for s in scored.sides] == [0, 1]
    assert scored.visible_to is None
    assert [s.total for s in scored.sides] == [11, 0]
