"""The intermediate level's exact search of a 2-player Scopa hand's last round.

The last rounds and the hands finished from them are the arena's
(``python -m benchmarks.arena --last-rounds``), so the test and the measure
look at the same thing."""

from __future__ import annotations

import random

import pytest

from benchmarks.arena import hand_margin, last_rounds
from mazzo.engine import get_game
from mazzo.engine.players import Budget, endgame, montecarlo, suggest
from mazzo.engine.scopa import ScopaRules
from mazzo.engine.scopa_rules import Variant
from tests.engine.scopa_support import replaced

SCOPA = get_game("scopa")
TWO_PLAYER_RULES = [
    ScopaRules(),
    *(ScopaRules.preset(v) for v in Variant if ScopaRules.preset(v).players == 2),
]


@pytest.mark.parametrize("rules", TWO_PLAYER_RULES, ids=lambda r: r.variant.value)
def test_with_the_stock_empty_two_players_see_the_whole_state(rules: ScopaRules) -> None:
    state = next(last_rounds(rules, range(1, 50)))
    seen = state.view(state.to_play)
    assert endgame.solvable(seen)
    suggestion = suggest("intermediate", seen, state.legal_moves(), Budget(10**6), random.Random(1))
    assert suggestion.move in state.legal_moves()
    assert suggestion.simulations > 0
    assert suggestion.expected_points is not None


def test_a_stock_or_a_third_player_leaves_the_state_unknown() -> None:
    state, _ = SCOPA.new_game(ScopaRules(), seed=3)
    assert not endgame.solvable(state.view(state.to_play))
    state, _ = SCOPA.new_game(ScopaRules(players=3), seed=3)
    state = replaced(state, stock=[])
    assert not endgame.solvable(state.view(state.to_play))


def test_the_exact_search_plays_the_last_round_better_than_sampling() -> None:
    # The same last rounds played out twice against the greedy player: by the
    # intermediate (the exact search), then by the sampling search it replaces.
    positions = list(last_rounds(ScopaRules(), range(1, 150)))
    budget = Budget(600)
    exact, sampled = [], []
    for seed, position in enumerate(positions):
        exact.append(hand_margin(position, montecarlo.choose, budget, random.Random(seed)))
        sampled.append(hand_margin(position, montecarlo.sample, budget, random.Random(seed)))
    assert len(positions) >= 100
    assert sum(exact) > sum(sampled)
    # Where the two differ the exact search mostly comes out ahead.
    ahead = sum(e > s for e, s in zip(exact, sampled, strict=True))
    behind = sum(e < s for e, s in zip(exact, sampled, strict=True))
    assert ahead > 2 * behind


def test_the_exact_search_stops_within_its_budget() -> None:
    for state in last_rounds(ScopaRules(), range(1, 40)):
        legal = state.legal_moves()
        seen = state.view(state.to_play)
        full = suggest("intermediate", seen, legal, Budget(10**6), random.Random(1))
        if full.simulations > 4:
            break
    else:
        pytest.fail("no last round with more than 4 hand ends")
    for count in (1, 4, full.simulations - 1):
        cut = suggest("intermediate", seen, legal, Budget(count), random.Random(1))
        assert cut.simulations <= count
        assert cut.move in legal
    # The exact search may spend half the budget; the sampling search has the rest.
    enough = Budget(2 * full.simulations)
    assert suggest("intermediate", seen, legal, enough, random.Random(1)) == full
