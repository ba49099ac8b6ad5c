"""The expert's exact search of a 2-player Scopa hand's last round."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from mazzo.engine import get_game
from mazzo.engine.events import HandScored
from mazzo.engine.players import Budget, Player, endgame, expert, greedy, suggest
from mazzo.engine.scopa import ScopaRules, ScopaState
from mazzo.engine.scopa_rules import Variant

SCOPA = get_game("scopa")
TWO_PLAYER_RULES = [
    ScopaRules(),
    *(ScopaRules.preset(v) for v in Variant if ScopaRules.preset(v).players == 2),
]


def last_rounds(rules: ScopaRules, seeds: range) -> Iterator[ScopaState]:
    """The first move of the first hand's last round, after greedy play, by seed."""
    for seed in seeds:
        state, _ = SCOPA.new_game(rules, seed=seed)
        rng = random.Random(seed)
        while state.stock or len(state.hands[state.to_play]) < 3:
            state = _play(state, "greedy", Budget(1), rng)
            if state.hand_number > 1:
                break
        else:
            yield state


def _play(state: Any, level: str, budget: Budget, rng: random.Random) -> Any:
    seen = SCOPA.view(state, state.to_play)
    chosen = suggest(level, seen, SCOPA.legal_moves(state), budget, rng)
    return SCOPA.apply(state, chosen.move)[0]


def _hand_margin(state: ScopaState, me: Player, budget: Budget, seed: int) -> int:
    """The seat to play plays ``me``, the other greedy, to the hand's end: the
    points of the seat to play minus the other's."""
    rng, seat = random.Random(seed), state.to_play
    while True:
        player = me if state.to_play == seat else greedy.choose
        seen = SCOPA.view(state, state.to_play)
        chosen = player(seen, SCOPA.legal_moves(state), budget, rng)
        state, events = SCOPA.apply(state, chosen.move)
        for event in events:
            if isinstance(event, HandScored):
                totals = [side.total for side in event.sides]
                return totals[seat] - totals[1 - seat]


@pytest.mark.parametrize("rules", TWO_PLAYER_RULES, ids=lambda r: r.variant.value)
def test_with_the_stock_empty_two_players_see_the_whole_state(rules: ScopaRules) -> None:
    state = next(last_rounds(rules, range(1, 50)))
    seen = SCOPA.view(state, state.to_play)
    assert endgame.solvable(seen)
    suggestion = suggest(
        "expert", seen, SCOPA.legal_moves(state), Budget(10**6), random.Random(1)
    )
    assert suggestion.move in SCOPA.legal_moves(state)
    assert suggestion.simulations > 0
    assert suggestion.expected_points is not None


def test_a_stock_or_a_third_player_leaves_the_state_unknown() -> None:
    state, _ = SCOPA.new_game(ScopaRules(), seed=3)
    assert not endgame.solvable(SCOPA.view(state, state.to_play))
    state, _ = SCOPA.new_game(ScopaRules(players=3), seed=3)
    state = state._replace(stock=())
    assert not endgame.solvable(SCOPA.view(state, state.to_play))


def test_the_exact_search_plays_the_last_round_better_than_sampling() -> None:
    # The same last rounds played out twice against the greedy player: by the
    # expert (the exact search), then by the sampling search it replaces.
    positions = list(last_rounds(ScopaRules(), range(1, 150)))
    budget = Budget(600)
    exact = [_hand_margin(s, expert.choose, budget, seed) for seed, s in enumerate(positions)]
    sampled = [_hand_margin(s, expert.sample, budget, seed) for seed, s in enumerate(positions)]
    assert len(positions) >= 100
    assert sum(exact) > sum(sampled)
    # Where the two differ the exact search mostly comes out ahead.
    ahead = sum(e > s for e, s in zip(exact, sampled, strict=True))
    behind = sum(e < s for e, s in zip(exact, sampled, strict=True))
    assert ahead > 2 * behind


def test_the_exact_search_stops_within_its_budget() -> None:
    for state in last_rounds(ScopaRules(), range(1, 40)):
        legal = SCOPA.legal_moves(state)
        seen = SCOPA.view(state, state.to_play)
        full = suggest("expert", seen, legal, Budget(10**6), random.Random(1))
        if full.simulations > 4:
            break
    else:
        pytest.fail("no last round with more than 4 hand ends")
    for count in (1, 4, full.simulations - 1):
        cut = suggest("expert", seen, legal, Budget(count), random.Random(1))
        assert cut.simulations <= count
        assert cut.move in legal
    # The exact search may spend half the budget; the sampling search has the rest.
    enough = Budget(2 * full.simulations)
    assert suggest("expert", seen, legal, enough, random.Random(1)) == full
