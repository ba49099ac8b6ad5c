"""docs/rules.md, Tressette, Game: the target, more points wins, equal points play another hand."""

from __future__ import annotations

import pytest

from mazzo.engine import IllegalMove, Move, Reason
from mazzo.engine.events import CardsDealt, Deal, GameOver, HandScored
from mazzo.engine.game import game_winner
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.tressette_support import first_move, make_state, steps

# Side 1's pile for a hand scoring (side 0, side 1) = (11 - n, n) on the helper's last trick.
SIDE1_PILE = {
    0: "",
    1: "1D",
    2: "1D 1C",
    3: "1D 1C 1S",
    4: "1D 1C 1S 1B",
    5: "1D 1C 1S 1B 2D 3D 8D",
}


def last_trick(scores, side1_points, players=2, target=21, dealer=None):
    """The last trick of a hand that will score (11 - side1_points, side1_points)."""
    hands = ["5B", "4B"] if players == 2 else ["7B", "4B", "6B", "5B"]
    return make_state(
        hands=hands,
        piles=["", SIDE1_PILE[side1_points]],
        leader=0,
        scores=scores,
        dealer=players - 1 if dealer is None else dealer,
        rules=TressetteRules(players=players, target=target),
        fill=0,
    )


def end_of_hand(state):
    """Each seat plays its first card, on a clone of ``state``, until the hand is
    scored: the state after it, every event, and the hand's score."""
    state = state.clone()
    events = []
    while True:
        new = state.apply(Move(state.to_play, state.hands[state.to_play][0]))
        events += new
        scored = next((e for e in new if isinstance(e, HandScored)), None)
        if scored:
            return state, events, scored


@pytest.mark.parametrize("side1_points", sorted(SIDE1_PILE))
def test_the_helper_hand_scores_as_announced(side1_points):
    _, _, scored = end_of_hand(last_trick((0, 0), side1_points))
    assert [s.total for s in scored.sides] == [11 - side1_points, side1_points]


def test_reaching_the_default_target_of_21_with_more_points_ends_the_game():
    assert TressetteRules().target == 21
    state = last_trick((12, 5), 2)
    after, events, scored = end_of_hand(state)
    assert scored.scores == (21, 7)
    assert events[-2] is scored
    assert events[-1] == GameOver(winning_side=0, scores=(21, 7))
    assert events[-1].visible_to is None
    assert after.winner == 0
    assert after.game_over
    assert after.scores == (21, 7)
    assert not any(isinstance(e, (Deal, CardsDealt)) for e in events)


def test_one_short_of_the_target_plays_another_hand():
    state = last_trick((11, 5), 2)
    after, events, scored = end_of_hand(state)
    assert scored.scores == (20, 7)
    assert not any(isinstance(e, GameOver) for e in events)
    assert after.winner is None
    assert after.hand_number == state.hand_number + 1
    assert after.dealer == (state.dealer + 1) % 2
    assert after.to_play == after.leader == (after.dealer + 1) % 2
    assert after.scores == (20, 7)


def test_equal_points_at_the_target_play_another_hand():
    state = last_trick((12, 19), 2)
    after, events, scored = end_of_hand(state)
    assert scored.scores == (21, 21)
    assert not any(isinstance(e, GameOver) for e in events)
    assert after.winner is None
    assert after.hand_number == 2
    assert after.scores == (21, 21)
    assert after.piles == [[], []]
    assert all(len(h) == 10 for h in after.hands)
    deal = next(e for e in events if isinstance(e, Deal))
    assert events.index(deal) > events.index(scored)


def test_equal_points_over_the_target_play_another_hand_then_the_next_can_end_it():
    after, events, scored = end_of_hand(last_trick((20, 25), 3))
    assert scored.scores == (28, 28)
    assert not any(isinstance(e, GameOver) for e in events)
    _, events, scored = end_of_hand(last_trick(after.scores, 4, dealer=after.dealer))
    assert scored.scores == (35, 32)
    assert events[-1] == GameOver(winning_side=0, scores=(35, 32))


def test_both_over_the_target_with_different_points_the_higher_wins():
    _, events, scored = end_of_hand(last_trick((18, 17), 5))
    assert scored.scores == (24, 22)
    assert events[-1] == GameOver(winning_side=0, scores=(24, 22))
    # Side 1 was ahead before the hand; side 0 passes it as both cross the target.
    _, events, scored = end_of_hand(last_trick((19, 20), 4))
    assert scored.scores == (26, 24)
    assert events[-1] == GameOver(winning_side=0, scores=(26, 24))


def test_a_side_over_the_target_but_behind_does_not_win():
    _, events, scored = end_of_hand(last_trick((16, 18), 5))
    assert scored.scores == (22, 23)
    assert events[-1] == GameOver(winning_side=1, scores=(22, 23))


@pytest.mark.parametrize("target", [31, 41])
def test_the_common_targets_31_and_41_are_honoured(target):
    _, events, scored = end_of_hand(last_trick((20, 0), 2, target=target))
    assert scored.scores == (29, 2)
    assert not any(isinstance(e, GameOver) for e in events)
    _, events, _ = end_of_hand(last_trick((target - 9, 0), 2, target=target))
    assert events[-1] == GameOver(winning_side=0, scores=(target, 2))


def test_a_target_of_1_ends_the_game_after_the_first_hand():
    state, _ = TressetteState.new_game(TressetteRules(target=1), seed=3)
    for step in steps(state, first_move):
        if any(isinstance(e, HandScored) for e in step.events):
            assert step.after.game_over
            assert step.after.hand_number == 1


@pytest.mark.parametrize("players", [2, 4])
def test_pairs_win_as_a_side(players):
    _, events, scored = end_of_hand(last_trick((16, 19), 1, players=players))
    assert scored.scores == (26, 20)
    assert events[-1] == GameOver(winning_side=0, scores=(26, 20))


def test_a_finished_game_refuses_moves_and_shows_the_winner_in_its_status():
    after, _, _ = end_of_hand(last_trick((12, 5), 2))
    assert after.legal_moves() == []
    st = after.status()
    assert st.winning_side == 0
    assert st.game_over
    assert st.seat_to_play is None
    assert st.scores == (21, 7)
    assert st.target == 21
    assert st.game == "tressette"
    for seat in (0, 1):
        with pytest.raises(IllegalMove) as err:
            after.apply(Move(seat, after.stock[0] if after.stock else after.piles[0][0]))
        assert err.value.reason is Reason.GAME_OVER


@pytest.mark.parametrize(
    ("scores", "target", "winner"),
    [
        ((21, 20), 21, 0),
        ((20, 21), 21, 1),
        ((21, 21), 21, None),
        ((25, 25), 21, None),
        ((20, 19), 21, None),
        ((30, 22), 21, 0),
        ((22, 30), 21, 1),
        ((1, 0), 1, 0),
        ((40, 41), 41, 1),
    ],
)
def test_game_winner_follows_the_tressette_rule(scores, target, winner):
    assert game_winner(scores, target) == winner


@pytest.mark.parametrize("players", [2, 4])
def test_hands_follow_one_another_until_a_side_wins(players):
    state, _ = TressetteState.new_game(TressetteRules(players=players, target=31), seed=12)
    scored_hands = []
    final = None
    for step in steps(state, first_move):
        scored_hands += [e for e in step.events if isinstance(e, HandScored)]
        over = [e for e in step.events if isinstance(e, GameOver)]
        if over:
            assert step.events[-1] == over[0]
            assert step.events[-2] is scored_hands[-1]
            final = step.after
    assert final is not None
    assert [h.hand_number for h in scored_hands] == list(range(1, len(scored_hands) + 1))
    assert final.winner == game_winner(scored_hands[-1].scores, 31)
    assert max(final.scores) >= 31
    assert final.scores[final.winner] > final.scores[1 - final.winner]
    for earlier in scored_hands[:-1]:
        assert game_winner(earlier.scores, 31) is None
