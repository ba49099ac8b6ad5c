"""Property tests: random full games, random legal moves, every rule's invariants.

Each example plays a whole game (to the default target 11) from a random seed,
choosing random legal moves, and checks at every step what must always hold.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mazzo.engine import DECK, IllegalMove, Move, Reason, dump_state, load_state
from mazzo.engine.events import Capture, CardPlayed, GameOver, HandScored
from mazzo.engine.game import game_winner
from mazzo.engine.scopa import PrimieraRule, ScopaRules, ScopaState
from tests.engine.scopa_support import (
    all_cards,
    applied,
    check_deal_events,
    check_step_events,
    check_view,
    random_chooser,
    steps,
)

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
CHOICES = st.integers(min_value=0, max_value=2**32 - 1)
OPTIONS = st.fixed_dictionaries(
    {"napola": st.booleans(), "primiera": st.sampled_from(list(PrimieraRule))}
)
GAME_SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def reference_takings(played, table) -> set[frozenset]:
    """docs/rules.md's capture rule, written out by brute force."""
    same = {frozenset((t,)) for t in table if t.rank == played.rank}
    if same:
        return same
    sums = {
        frozenset(combo)
        for size in range(2, len(table) + 1)
        for combo in itertools.combinations(table, size)
        if sum(c.rank for c in combo) == played.rank
    }
    return sums or {frozenset()}


def check_accounted(state: ScopaState) -> None:
    held = all_cards(state)
    assert len(held) == 40
    assert Counter(held) == Counter(DECK)


def check_moves(state: ScopaState) -> None:
    """The legal moves are exactly docs/rules.md's; each resolves and applies."""
    moves = state.legal_moves()
    seat = state.to_play
    assert moves, "a game in progress always has a move"
    assert all(m.seat == seat for m in moves)
    assert len(set(moves)) == len(moves)
    for played in state.hands[seat]:
        mine = {m.take for m in moves if m.card == played}
        assert mine == reference_takings(played, state.table)
        bare = Move(seat, played)
        if len(mine) == 1:
            assert state.resolve(bare).take == next(iter(mine))
        else:
            with pytest.raises(IllegalMove) as err:
                state.resolve(bare)
            assert err.value.reason is Reason.CAPTURE_CHOICE_REQUIRED
            assert {m.take for m in err.value.choices} == mine
    for move in moves:
        assert state.resolve(move) == move
        after, events = applied(state, move)
        check_accounted(after)
        assert events[0] == CardPlayed(seat, move.card)


def play_checked(players: int, seed: int, choice_seed: int, **options) -> list:
    """Play one random game, checking everything at every step; return its trace."""
    rules = ScopaRules(players=players, **options)
    state, events = ScopaState.new_game(rules, seed=seed)
    check_accounted(state)
    check_deal_events(state, events, first=True)
    trace: list = [(state, events)]
    scores = (0,) * rules.sides
    hand_sweeps = Counter()
    game_over = None
    for step in steps(state, random_chooser(choice_seed)):
        before, after, events = step.before, step.after, step.events
        assert game_over is None, "no move after the game is over"
        check_moves(before)
        check_accounted(after)
        for e in events:
            if isinstance(e, Capture):
                assert e.side == rules.side_of(e.seat)
                hand_sweeps[e.side] += e.sweep
            if isinstance(e, HandScored):
                totals = [s.total for s in e.sides]
                for s in e.sides:
                    assert s.total == (
                        s.cards_point
                        + s.denari_point
                        + s.settebello_point
                        + s.primiera_point
                        + s.sweeps
                        + s.napola
                    )
                    assert s.sweeps == hand_sweeps[s.side]
                    if not rules.napola:
                        assert s.napola == 0
                assert [s.side for s in e.sides] == list(range(rules.sides))
                assert sum(s.cards for s in e.sides) == 40
                assert sum(s.denari for s in e.sides) == 10
                assert sum(s.settebello_point for s in e.sides) == 1
                for point in ("cards_point", "denari_point", "primiera_point"):
                    assert sum(getattr(s, point) for s in e.sides) <= 1
                assert e.scores == tuple(a + b for a, b in zip(scores, totals, strict=True))
                scores = e.scores
                hand_sweeps = Counter()
            if isinstance(e, GameOver):
                game_over = e
        if game_over is None:
            assert after.to_play in range(players)
            if after.hand_number == before.hand_number:
                assert after.to_play == (before.to_play + 1) % players
                assert after.dealer == before.dealer
            else:
                assert after.hand_number == before.hand_number + 1
                assert after.dealer == (before.dealer + 1) % players
                assert after.to_play == (after.dealer + 1) % players
                assert after.scores == scores
        check_step_events(before, step.move, after, events)
        trace.append((step.move, after, events))
    final = trace[-1][1]
    assert game_over is not None and final.game_over
    assert game_over.scores == scores == final.scores
    assert final.winner == game_over.winning_side
    assert game_winner(scores, rules.target) == final.winner
    best = max(scores)
    assert scores[final.winner] == best >= rules.target
    assert sorted(scores).count(best) == 1
    return trace


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@GAME_SETTINGS
@given(seed=SEEDS, choice_seed=CHOICES, options=OPTIONS)
def test_random_games_keep_every_rule_at_every_step(players, seed, choice_seed, options):
    play_checked(players, seed, choice_seed, **options)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, choice_seed=CHOICES)
def test_the_same_seed_and_choices_give_the_same_game(players, seed, choice_seed):
    def trace() -> list:
        rules = ScopaRules(players=players)
        state, events = ScopaState.new_game(rules, seed=seed)
        out: list = [(state, events)]
        out += [(s.move, s.after, s.events) for s in steps(state, random_chooser(choice_seed))]
        return out

    assert trace() == trace()


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, choice_seed=CHOICES)
def test_views_and_the_codec_hold_at_every_step_of_random_games(players, seed, choice_seed):
    first, _ = ScopaState.new_game(ScopaRules(players=players), seed=seed)
    for state in [first] + [s.after for s in steps(first, random_chooser(choice_seed))]:
        data = dump_state(state)
        assert load_state(data) == state
        if players == 2:
            assert len(data) < 120
        for seat in range(players):
            check_view(state, seat)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, choice_seed=CHOICES, players=st.sampled_from([2, 3, 4, 6]))
def test_a_game_resumed_from_its_bytes_goes_on_exactly_as_the_original(players, seed, choice_seed):
    state, _ = ScopaState.new_game(ScopaRules(players=players), seed=seed)
    rnd_a, rnd_b = random.Random(choice_seed), random.Random(choice_seed)
    original, resumed = state, load_state(dump_state(state))
    while not original.game_over:
        original, events_a = applied(original, rnd_a.choice(original.legal_moves()))
        resumed, events_b = applied(
            load_state(dump_state(resumed)), rnd_b.choice(resumed.legal_moves())
        )
        assert events_a == events_b
        assert original == resumed
    assert resumed.game_over
