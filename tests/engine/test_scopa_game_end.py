"""docs/rules.md, Scopa, Game: the target, alone in the lead, tied leaders play on."""

from __future__ import annotations

import pytest

from mazzo.engine import IllegalMove, Move, Reason
from mazzo.engine.events import CardsDealt, Deal, GameOver, HandScored
from mazzo.engine.game import Status, game_winner
from mazzo.engine.scopa import ScopaRules, ScopaState
from tests.engine.scopa_support import applied, card, first_move, make_state, steps


def last_play(scores, sweeps=None, players=2, dealer=None, **rules_kw):
    """Seat 0 plays the hand's last card.

    Side 0 ends the hand with every card but a few batons, so it scores exactly
    4 (cards, denari, settebello, primiera); the other sides score their sweeps.
    """
    rules = ScopaRules(players=players, **rules_kw)
    others = ["1B 2B", "3B 4B", "5B"][: rules.sides - 1]
    piles = ["", *others]
    return make_state(
        hands=["9D"] + [""] * (players - 1),
        table="4S 5S",
        piles=piles,
        rules=rules,
        scores=scores,
        sweeps=sweeps or [0] * rules.sides,
        dealer=players - 1 if dealer is None else dealer,
        last_capture_side=1,
        fill=0,
    )


def end_of_hand(state):
    after, events = applied(state, Move(0, card("9D")))
    scored = next(e for e in events if isinstance(e, HandScored))
    return after, events, scored


def test_the_helper_hand_scores_four_for_side_0_and_the_sweeps_for_the_others():
    _, _, scored = end_of_hand(last_play([0, 0], sweeps=[1, 2]))
    assert [s.total for s in scored.sides] == [5, 2]
    assert scored.scores == (5, 2)


def test_reaching_the_target_alone_in_the_lead_ends_the_game():
    state = last_play([8, 3])
    after, events, scored = end_of_hand(state)
    assert scored.scores == (12, 3)
    assert isinstance(events[-2], HandScored)
    assert events[-1] == GameOver(winning_side=0, scores=(12, 3))
    assert after.winner == 0
    assert after.game_over
    assert after.scores == (12, 3)
    assert not any(isinstance(e, (Deal, CardsDealt)) for e in events)


def test_exactly_the_default_target_of_11_is_enough():
    assert ScopaRules().target == 11
    _, events, _ = end_of_hand(last_play([7, 0]))
    assert events[-1] == GameOver(winning_side=0, scores=(11, 0))


def test_one_short_of_the_target_plays_another_hand():
    state = last_play([6, 0])
    after, events, scored = end_of_hand(state)
    assert scored.scores == (10, 0)
    assert not any(isinstance(e, GameOver) for e in events)
    assert after.winner is None
    assert after.hand_number == state.hand_number + 1
    assert after.scores == (10, 0)


def test_a_finished_game_refuses_moves_and_shows_the_winner_in_its_status():
    after, _, _ = end_of_hand(last_play([8, 3]))
    assert after.legal_moves() == []
    st = after.status()
    assert st.winning_side == 0
    assert st.game_over
    assert st.seat_to_play is None
    assert st.scores == (12, 3)
    with pytest.raises(IllegalMove) as err:
        after.apply(Move(after.to_play, card("1D")))
    assert err.value.reason is Reason.GAME_OVER


def test_a_higher_target_is_honoured():
    _, events, _ = end_of_hand(last_play([8, 3], target=16))
    assert not any(isinstance(e, GameOver) for e in events)
    _, events, _ = end_of_hand(last_play([12, 3], target=16))
    assert events[-1] == GameOver(winning_side=0, scores=(16, 3))


def test_tied_leaders_at_the_target_play_another_hand_with_the_next_dealer():
    state = last_play([7, 9], sweeps=[0, 2])
    after, events, scored = end_of_hand(state)
    assert scored.scores == (11, 11)
    assert not any(isinstance(e, GameOver) for e in events)
    assert after.winner is None
    assert after.hand_number == state.hand_number + 1
    assert after.dealer == (state.dealer + 1) % 2
    assert after.to_play == (after.dealer + 1) % 2
    assert after.scores == (11, 11)
    assert after.sweeps == [0, 0]
    assert after.piles == [[], []]
    deal = next(e for e in events if isinstance(e, Deal))
    assert events.index(deal) > events.index(scored)
    assert deal.hand_number == state.hand_number + 1
    assert deal.dealer == after.dealer


def test_tied_leaders_over_the_target_play_another_hand():
    _, events, scored = end_of_hand(last_play([12, 12], sweeps=[0, 4]))
    assert scored.scores == (16, 16)
    assert not any(isinstance(e, GameOver) for e in events)


def test_after_a_tie_the_next_hand_can_end_the_game():
    state, _, _ = end_of_hand(last_play([7, 9], sweeps=[0, 2]))
    assert state.scores == (11, 11)
    # Replay the situation of the helper from the tied scores, side 1 ahead this time.
    _, events, _ = end_of_hand(last_play([11, 11], sweeps=[0, 5]))
    assert events[-1] == GameOver(winning_side=1, scores=(15, 16))


def test_a_side_over_the_target_but_behind_does_not_win():
    _, events, scored = end_of_hand(last_play([9, 8], sweeps=[0, 6]))
    assert scored.scores == (13, 14)
    assert events[-1] == GameOver(winning_side=1, scores=(13, 14))


def test_three_players_two_tied_leaders_over_the_target_play_on():
    state = last_play([8, 10, 9], sweeps=[0, 2, 0], players=3)
    after, events, scored = end_of_hand(state)
    assert scored.scores == (12, 12, 9)
    assert not any(isinstance(e, GameOver) for e in events)
    assert after.hand_number == 2
    assert after.dealer == 0
    assert after.to_play == 1


def test_three_players_the_leader_alone_wins_even_with_another_over_the_target():
    _, events, scored = end_of_hand(last_play([8, 10, 0], sweeps=[0, 3, 1], players=3))
    assert scored.scores == (12, 13, 1)
    assert events[-1] == GameOver(winning_side=1, scores=(12, 13, 1))


def test_three_players_alone_in_the_lead_but_under_the_target_plays_on():
    _, events, scored = end_of_hand(last_play([3, 1, 2], players=3, target=16))
    assert scored.scores == (7, 1, 2)
    assert not any(isinstance(e, GameOver) for e in events)


def test_teams_win_as_a_side():
    _, events, scored = end_of_hand(last_play([18, 20], sweeps=[0, 0], players=4, target=21))
    assert scored.scores == (22, 20)
    assert events[-1] == GameOver(winning_side=0, scores=(22, 20))


@pytest.mark.parametrize(
    ("scores", "target", "winner"),
    [
        ((11, 10), 11, 0),
        ((10, 11), 11, 1),
        ((11, 11), 11, None),
        ((10, 9), 11, None),
        ((15, 14), 11, 0),
        ((12, 12, 3), 11, None),
        ((12, 11, 3), 11, 0),
        ((3, 12, 11), 11, 1),
        ((0, 0, 0), 11, None),
        ((1, 0), 1, 0),
        ((20, 21), 21, 1),
    ],
)
def test_game_winner_is_the_side_alone_in_the_lead_at_or_over_the_target(scores, target, winner):
    assert game_winner(scores, target) == winner


def test_hands_follow_one_another_until_the_game_ends():
    state, _ = ScopaState.new_game(ScopaRules(players=3, target=5), seed=3)
    hands_scored = []
    for step in steps(state, first_move):
        hands_scored += [e for e in step.events if isinstance(e, HandScored)]
        over = [e for e in step.events if isinstance(e, GameOver)]
        if over:
            assert step.events[-1] == over[0]
            assert step.events[-2] is hands_scored[-1]
            final = step.after
    assert [h.hand_number for h in hands_scored] == list(range(1, len(hands_scored) + 1))
    assert final.winner == game_winner(hands_scored[-1].scores, 5)
    assert final.winner is not None
    for earlier in hands_scored[:-1]:
        assert game_winner(earlier.scores, 5) is None


def test_the_status_names_the_games_public_summary_field_by_field():
    playing = last_play([8, 3], players=4, dealer=2, target=21)
    over, _, _ = end_of_hand(last_play([8, 3]))
    assert playing.status() == Status(
        game="scopa",
        players=4,
        seat_to_play=playing.to_play,
        dealer=2,
        hand_number=playing.hand_number,
        scores=(8, 3),
        winning_side=None,
        target=21,
    )
    assert over.status() == Status(
        game="scopa",
        players=2,
        seat_to_play=None,
        dealer=over.dealer,
        hand_number=over.hand_number,
        scores=(12, 3),
        winning_side=0,
        target=11,
    )
