"""The arena's baselines (benchmarks/baselines): the PIMC baseline, the
information-set search, and the walk through a world the latter takes.

Like every level, both are legal, reproducible, and see only the seat's view.
A walk plays on the world search's own lists, so it is held to the engine: at
every step the moves it offers are the engine's legal moves, and at the hand's
end its worth is the engine's scoring. In a last round, where one world is the
whole truth, the information-set search finds the exact search's best move.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

import pytest

from benchmarks.arena import ARENA_PLAYERS, Settings, last_rounds
from benchmarks.baselines import ARENA_ONLY, ismcts, pimc
from benchmarks.baselines.worlds import ScopaWalk, TressetteWalk, Walk, walk_through
from mazzo.engine import get_game
from mazzo.engine.briscola import BriscolaRules
from mazzo.engine.events import HandScored
from mazzo.engine.game import Move
from mazzo.engine.players import PLAYERS, Budget
from mazzo.engine.players.games import bots_of
from mazzo.engine.players.search import Evaluation, ScopaSearch, TressetteSearch
from mazzo.engine.scopa import ScopaRules
from mazzo.engine.scopa_rules import Variant
from mazzo.engine.tressette import TressetteRules
from tests.engine.players_support import SETUP_IDS, SETUPS, hidden_permuted, positions

BASELINE = pimc.player(worlds=3, depth=3)

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
    the steps taken (on a clone: ``state`` is left as it was)."""
    side, steps = search.side, 0
    state = state.clone()
    while True:
        legal = state.legal_moves()
        by_key: dict[Hashable, Move] = {search.key(move): move for move in legal}
        assert sorted(map(repr, search.actions())) == sorted(map(repr, by_key))
        assert search.searchers_turn() == (search.side == state.rules.side_of(state.to_play))
        action = rng.choice(search.actions())
        search.step(action)
        events = state.apply(by_key[action])
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
            search = ScopaWalk(state, side, Evaluation())
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
            search = TressetteWalk(state, side, Evaluation())
            assert _walk_beside_the_engine(game, state, search, rng) >= 1


def _ask_ismcts(game: Any, state: Any, seed: int, walks: int = 20) -> Any:
    legal = game.legal_moves(state)
    view = game.view(state, state.to_play)
    return ismcts.choose(view, legal, Budget(walks), random.Random(seed))


def test_the_information_set_search_counts_its_walks_as_simulations() -> None:
    game = get_game("scopa")
    for state in positions(game, ScopaRules(), seed=3, every=5):
        if len(game.legal_moves(state)) > 1:
            assert _ask_ismcts(game, state, seed=1, walks=7).simulations == 7


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
        chosen = _ask_ismcts(game, state, seed=1, walks=600).move
        assert worths[legal.index(chosen)] == max(worths), state
        checked += 1
    assert checked >= 10


def test_the_arena_plays_the_baselines_by_name_and_no_suggest_level_is_one() -> None:
    assert set(ARENA_ONLY) <= set(ARENA_PLAYERS)
    assert not set(ARENA_ONLY) & set(PLAYERS)
    assert Settings(1.0, 1, None, 1).player("ismcts") is ismcts.choose
    assert Settings(1.0, 1, None, 1).player("pimc") is not ismcts.choose


def test_the_engines_world_searches_carry_no_walk() -> None:
    """The walk is the information-set search's, in the arena: the engine's
    searches only search."""
    walk = {name for name in vars(Walk) if not name.startswith("_")}
    assert walk == {"key", "actions", "searchers_turn", "step", "ended", "worth"}
    for search in (ScopaSearch, TressetteSearch):
        assert walk & set(dir(search)) == set(), search


def test_a_walk_goes_through_the_world_its_search_was_dealt() -> None:
    game = get_game("scopa")
    state = next(positions(game, ScopaRules(), seed=2, every=7))
    search = bots_of("scopa").searcher(game.view(state, state.to_play))
    world = search(random.Random(1), Evaluation(), lambda _: True, 0)
    walk = walk_through(world)
    assert isinstance(walk, ScopaWalk) and walk.hands == world.hands
    with pytest.raises(TypeError, match="no walk"):
        walk_through(object())  # type: ignore[arg-type]


def _ask(player: Any, game: Any, state: Any, seed: int) -> Any:
    legal = game.legal_moves(state)
    return player(game.view(state, state.to_play), legal, Budget(20), random.Random(seed))


#: The games the searches know (search.py): Scopa's variants and Tressette.
SEARCHED = [
    (setup[1:], name)
    for setup, name in zip(SETUPS, SETUP_IDS, strict=True)
    if setup[1] in ("scopa", "tressette")
]
#: The arena's searches that no Suggest level names.
ARENA_SEARCHES = {"pimc": BASELINE, "ismcts": ismcts.choose}


@pytest.mark.parametrize("player", ARENA_SEARCHES)
@pytest.mark.parametrize(("name", "rules"), [s for s, _ in SEARCHED], ids=[i for _, i in SEARCHED])
def test_the_arenas_searches_are_legal_reproducible_and_see_only_the_view(
    name: str, rules: Any, player: str
) -> None:
    game, choose = get_game(name), ARENA_SEARCHES[player]
    rng = random.Random(5)
    hidden_moved = 0
    for state in positions(game, rules, seed=13, every=6):
        chosen = _ask(choose, game, state, seed=2)
        assert chosen.move in game.legal_moves(state)
        assert _ask(choose, game, state, seed=2) == chosen
        other = hidden_permuted(state, state.to_play, rng)
        if (other.hands, other.stock) != (state.hands, state.stock):
            assert _ask(choose, game, other, seed=2) == chosen
            hidden_moved += 1
    assert hidden_moved >= 1


@pytest.mark.parametrize("player", ARENA_SEARCHES)
def test_the_arenas_searches_need_a_game_with_a_world_search(player: str) -> None:
    game = get_game("briscola")
    state, _ = game.new_game(BriscolaRules(players=2), seed=1)
    with pytest.raises(ValueError, match="no world search of briscola"):
        _ask(ARENA_SEARCHES[player], game, state, seed=1)


def test_the_baseline_needs_a_world_and_a_depth() -> None:
    with pytest.raises(ValueError, match="world"):
        pimc.player(worlds=0)
    with pytest.raises(ValueError, match="depth"):
        pimc.player(depth=0)
