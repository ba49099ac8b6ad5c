"""The information-set search (mazzo.engine.players.ismcts) and the world's walk it
takes (mazzo.engine.players.search: ``step`` and the rest).

A walk restates the rules on the search's own lists, so it is held to the
engine: at every step the moves it offers are the engine's legal moves, and
at the hand's end its worth is the engine's scoring. In a last round, where
one world is the whole truth, the search finds the exact search's best move
(that it is legal, reproducible and blind to hidden cards, as the PIMC
baseline is, is held in test_players_search.py).
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

import pytest

from benchmarks.arena import ARENA_PLAYERS, Settings, last_rounds
from mazzo.engine import get_game
from mazzo.engine.events import HandScored
from mazzo.engine.game import Move
from mazzo.engine.players import Budget, ismcts
from mazzo.engine.players.search import Evaluation, ScopaSearch, TressetteSearch
from mazzo.engine.scopa import ScopaRules
from mazzo.engine.scopa_rules import Variant
from mazzo.engine.tressette import TressetteRules
from tests.engine.players_support import positions

SCOPA_RULES = [
    ScopaRules(),
    ScopaRules.preset(Variant.ESCOBA),
    ScopaRules.preset(Variant.SCOPA_D_ASSI),
    ScopaRules.preset(Variant.RE_BELLO),
    ScopaRules(players=4),
]


def _hand_margin(events: list[Any], side: int) -> float | None:
    for event in events:
        if isinstance(event, HandScored):
            totals = [s.total for s in event.sides]
            return float(totals[side] - max(t for s, t in enumerate(totals) if s != side))
    return None


def _walk_beside_the_engine(game: Any, state: Any, search: Any, rng: random.Random) -> int:
    """Random moves played in the walk and in the engine alike to the hand's end;
    the steps taken."""
    side, steps = search.side, 0
    while True:
        legal = game.legal_moves(state)
        by_key: dict[Hashable, Move] = {search.key(move): move for move in legal}
        assert sorted(map(repr, search.actions())) == sorted(map(repr, by_key))
        assert search.searchers_turn() == (search.side == state.rules.side_of(state.to_play))
        action = rng.choice(search.actions())
        search.step(action)
        state, events = game.apply(state, by_key[action])
        steps += 1
        margin = _hand_margin(events, side)
        assert search.ended() == (margin is not None)
        if margin is not None:
            assert search.worth() == margin
            return steps


@pytest.mark.parametrize("rules", SCOPA_RULES, ids=lambda r: f"{r.variant.value}-{r.players}p")
def test_a_walk_through_a_scopa_world_offers_the_legal_moves_and_scores_as_the_engine(
    rules: ScopaRules,
) -> None:
    game, rng = get_game("scopa"), random.Random(3)
    for seed in range(4):
        for state in positions(game, rules, seed=seed, every=11):
            side = rules.side_of(state.to_play)
            search = ScopaSearch(state, side, Evaluation(), lambda _: True)
            assert _walk_beside_the_engine(game, state, search, rng) >= 1


@pytest.mark.parametrize("players", [2, 4])
def test_a_walk_through_a_tressette_world_offers_the_legal_cards_and_scores_as_the_engine(
    players: int,
) -> None:
    game, rng = get_game("tressette"), random.Random(4)
    rules = TressetteRules(players=players, napoletana=True)
    for seed in range(4):
        for state in positions(game, rules, seed=seed, every=9):
            side = rules.side_of(state.to_play)
            search = TressetteSearch(state, side, Evaluation(), lambda _: True)
            assert _walk_beside_the_engine(game, state, search, rng) >= 1


def _ask(game: Any, state: Any, seed: int, walks: int = 20) -> Any:
    legal = game.legal_moves(state)
    view = game.view(state, state.to_play)
    return ismcts.choose(view, legal, Budget(walks), random.Random(seed))


def test_the_information_set_search_counts_its_walks_as_simulations() -> None:
    game = get_game("scopa")
    for state in positions(game, ScopaRules(), seed=3, every=5):
        if len(game.legal_moves(state)) > 1:
            assert _ask(game, state, seed=1, walks=7).simulations == 7


def test_in_a_last_round_the_information_set_search_finds_the_exact_best_move() -> None:
    """Once the stock is empty at a table of two, every world is the true one:
    the tree converges on the minimax of the hand's end (the match weighed as
    the expert weighs it)."""
    game, checked = get_game("scopa"), 0
    for state in last_rounds(ScopaRules(), range(1, 40)):
        legal = game.legal_moves(state)
        if len(legal) < 2:
            continue
        exact = ScopaSearch(state, state.to_play, Evaluation(match=True), lambda _: True)
        worths = exact.root(legal, depth=8)
        chosen = _ask(game, state, seed=1, walks=600).move
        assert worths[legal.index(chosen)] == max(worths), state
        checked += 1
    assert checked >= 10


def test_the_arena_plays_the_information_set_search() -> None:
    assert "ismcts" in ARENA_PLAYERS
    assert Settings(1.0, 1, None, 1).player("ismcts") is ismcts.choose
