"""The players: legal, reproducible, honest, and within their budget."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from mazzo.engine import Move, get_game
from mazzo.engine.cards import SUIT_OF
from mazzo.engine.players import (
    PLAYERS,
    SEARCHING_LEVELS,
    Budget,
    counted_simulations,
    determinize,
    endgame,
    fast_tressette,
    greedy,
    scopa_inference,
    suggest,
    world_search,
)
from mazzo.engine.players.games import bots_of
from mazzo.engine.players.search import Evaluation
from mazzo.engine.players.voids import shown_voids
from mazzo.engine.scopa import ScopaRules, judge_hand
from mazzo.engine.tressette import NAPOLETANA_CARDS, TressetteRules
from tests.engine.players_support import SETUP_IDS, SETUPS, hidden_permuted, positions

LEVELS = sorted(PLAYERS)


def _budget(legal: list[Any]) -> Budget:
    # One simulation per legal move and a few more: enough to search, and quick.
    return Budget(simulations=len(legal) + 3)


def _ask(level: str, state: Any, seed: int) -> Any:
    seat = state.to_play
    legal = state.legal_moves()
    return suggest(level, state.view(seat), legal, _budget(legal), random.Random(seed))


@pytest.mark.parametrize(("name", "rules"), [s[1:] for s in SETUPS], ids=SETUP_IDS)
def test_every_level_suggests_a_legal_move_in_every_game_and_variant(name: str, rules: Any) -> None:
    game = get_game(name)
    asked = 0
    for state in positions(game, rules, seed=11, every=7):
        legal = state.legal_moves()
        for level in LEVELS:
            suggestion = _ask(level, state, seed=3)
            assert suggestion.move in legal, (level, suggestion)
            asked += 1
    assert asked >= 2 * len(LEVELS)


@pytest.mark.parametrize(("name", "rules"), [s[1:] for s in SETUPS], ids=SETUP_IDS)
def test_the_same_seed_gives_the_same_suggestion(name: str, rules: Any) -> None:
    game = get_game(name)
    state = next(positions(game, rules, seed=5, every=3))
    for level in LEVELS:
        assert _ask(level, state, seed=9) == _ask(level, state, seed=9)


@pytest.mark.parametrize(("name", "rules"), [s[1:] for s in SETUPS], ids=SETUP_IDS)
def test_permuting_the_hidden_cards_leaves_every_suggestion_unchanged(
    name: str, rules: Any
) -> None:
    game = get_game(name)
    rng = random.Random(1)
    checked = 0
    for state in positions(game, rules, seed=21, every=9):
        seat = state.to_play
        other = hidden_permuted(state, seat, rng)
        if other.hands == state.hands and other.stock == state.stock:
            continue  # nothing hidden left to move
        assert other.view(seat) == state.view(seat)
        for level in LEVELS:
            assert _ask(level, other, seed=4) == _ask(level, state, seed=4), level
        checked += 1
    assert checked >= 1


@pytest.mark.parametrize(("name", "rules"), [s[1:] for s in SETUPS], ids=SETUP_IDS)
def test_a_simulated_deal_shows_the_seat_exactly_its_view(name: str, rules: Any) -> None:
    game = get_game(name)
    rng = random.Random(2)
    for state in positions(game, rules, seed=31, every=5):
        seat = state.to_play
        seen = state.view(seat)
        deal = bots_of(name).simulator(seen)
        for _ in range(3):
            simulated = deal(rng)
            assert simulated.view(seat) == seen
            # The same moves (a view may show the hand in another order than the state's).
            assert set(simulated.legal_moves()) == set(state.legal_moves())


#: The setups of the games the world search knows.
SEARCHED = [(i, s) for i, s in zip(SETUP_IDS, SETUPS, strict=True) if bots_of(s[1]).searcher]


@pytest.mark.parametrize(
    ("name", "rules"), [s[1:] for _, s in SEARCHED], ids=[i for i, _ in SEARCHED]
)
def test_an_evenly_dealt_world_shows_the_seat_exactly_its_view(name: str, rules: Any) -> None:
    searcher = bots_of(name).searcher
    assert searcher is not None
    game = get_game(name)
    rng = random.Random(2)
    for state in positions(game, rules, seed=31, every=5):
        seat = state.to_play
        seen = state.view(seat)
        world = searcher(seen, even=True)
        for _ in range(12):  # more than a pass of the unseen cards, late in a hand
            simulated = world(rng, Evaluation(), lambda _: True, 0).start
            assert simulated.view(seat) == seen
            assert set(simulated.legal_moves()) == set(state.legal_moves())


def _unevenness(view: Any, dealt: list[Any], seat: int) -> int:
    """How much more often ``seat``'s hand held one unseen card than another."""
    counts = dict.fromkeys(determinize.unseen_cards(view), 0)
    for hands, _ in dealt:
        for card in hands[seat]:
            if card not in view.known[seat]:
                counts[card] += 1
    return max(counts.values()) - min(counts.values())


@pytest.mark.parametrize(
    ("name", "rules", "spread"),
    [
        ("scopa", ScopaRules(), 1),
        ("scopa", ScopaRules.preset("scopone_scientifico"), 2),
        ("tressette", TressetteRules(players=4), 2),
        ("tressette", TressetteRules(), 1),
    ],
    ids=["scopa2", "scopone", "tressette4", "tressette2"],
)
def test_even_deals_give_each_other_hand_every_unseen_card_as_often_as_another(
    name: str, rules: Any, spread: int
) -> None:
    """With a stock every other hand, without one every other hand but the
    last (which holds what the others leave), holds each unseen card as often
    as any other within one pass's share and one deal: ``spread``, which
    independent deals exceed."""
    game = get_game(name)
    rng = random.Random(5)
    checked = uneven_independent = 0
    for state in positions(game, rules, seed=41, every=4):
        seen = state.view(state.to_play)
        voids = shown_voids(seen) if name == "tressette" else ()
        others = [s for s in range(len(seen.hand_sizes)) if s != seen.seat]
        queued = others if seen.stock_size else others[:-1]
        if any(voids) or not queued or not determinize.unseen_cards(seen):
            continue
        checked += 1
        deal = determinize.even_dealer(seen, voids)
        dealt = [deal(rng) for _ in range(30)]
        for n in range(1, len(dealt) + 1):
            for seat in queued:
                assert _unevenness(seen, dealt[:n], seat) <= spread, (n, seat)
        independent = [determinize.deal_unseen(seen, rng) for _ in range(30)]
        uneven_independent += any(_unevenness(seen, independent, s) > spread for s in queued)
    assert checked >= 2
    # The property is the dealer's: independent deals break it.
    assert uneven_independent > 0


def test_even_deals_respect_shown_voids() -> None:
    game = get_game("tressette")
    rng = random.Random(4)
    found = 0
    for seed in range(6):
        for state in positions(game, TressetteRules(players=4), seed=seed, every=1):
            seen = state.view(state.to_play)
            voids = shown_voids(seen)
            if not any(voids):
                continue
            found += 1
            deal = determinize.even_dealer(seen, voids)
            for _ in range(3):
                hands, _ = deal(rng)
                for other, mask in enumerate(voids):
                    dealt = [c for c in hands[other] if c not in seen.known[other]]
                    assert not any(mask >> SUIT_OF[c] & 1 for c in dealt)
    assert found > 0


@pytest.mark.parametrize("players", [2, 4])
def test_shown_voids_are_true_and_simulated_deals_respect_them(players: int) -> None:
    game = get_game("tressette")
    rng = random.Random(3)
    found = 0
    for seed in range(6):
        for state in positions(game, TressetteRules(players=players), seed=seed, every=1):
            seat = state.to_play
            seen = state.view(seat)
            voids = shown_voids(seen)
            for other, mask in enumerate(voids):
                if other == seat or not mask:
                    continue
                found += 1
                hidden = [c for c in state.hands[other] if c not in seen.known[other]]
                assert not any(mask >> SUIT_OF[c] & 1 for c in hidden), (seed, other, mask)
                simulated = determinize.tressette_state(seen, rng, voids)
                dealt = [c for c in simulated.hands[other] if c not in seen.known[other]]
                assert not any(mask >> SUIT_OF[c] & 1 for c in dealt)
    assert found > 0


def test_a_redeal_stops_at_the_first_deal_accepted_or_keeps_the_last_of_its_tries() -> None:
    dealt: list[int] = []

    def deal(rng: random.Random) -> Any:
        dealt.append(len(dealt))
        return dealt[-1]

    assert determinize.redealt(deal, lambda d, rng: d == 2)(random.Random(1)) == 2
    dealt.clear()
    assert determinize.redealt(deal, lambda d, rng: False, tries=5)(random.Random(1)) == 4
    assert len(dealt) == 5


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_cirulla_hand_that_declared_nothing_is_never_dealt_a_declaration(players: int) -> None:
    """A hand of three declares when its first card is played: a seat that has
    played without declaring held no declaration, and no simulated deal or
    world gives it one; independent deals would."""
    game = get_game("scopa")
    rules = ScopaRules.preset("cirulla", players=players)
    rng = random.Random(7)
    found = broken_unkept = 0
    for seed in range(40):
        for state in positions(game, rules, seed=seed, every=1):
            seat = state.to_play
            seen = state.view(seat)
            silent = scopa_inference.undeclared(seen)
            for other, played in silent:
                found += 1
                # True: the cards it played this round and those it holds made no declaration.
                assert len(played) + len(state.hands[other]) == rules.hand_size
                assert judge_hand((*played, *state.hands[other])) is None
            if not silent:
                continue
            simulate = bots_of("scopa").simulator(seen)
            searcher = bots_of("scopa").searcher
            assert searcher is not None
            world = searcher(seen, even=True)
            for _ in range(4):
                for hands in (
                    simulate(rng).hands,
                    world(rng, Evaluation(), lambda _: True, 0).start.hands,
                ):
                    for other, played in silent:
                        assert judge_hand((*played, *hands[other])) is None
                hands = determinize.deal_unseen(seen, rng)[0]
                broken_unkept += any(
                    judge_hand((*played, *hands[other])) is not None for other, played in silent
                )
    assert found >= 20
    assert broken_unkept > 0


def _holds_a_napoletana(hands: Any, masks: tuple[int, ...]) -> bool:
    """Whether a seat holds the whole napoletana of a suit its mask names."""
    return any(
        set(NAPOLETANA_CARDS[suit]) <= set(hands[seat])
        for seat, mask in enumerate(masks)
        for suit in range(4)
        if mask >> suit & 1
    )


@pytest.mark.parametrize("players", [2, 4])
def test_a_napoletana_not_declared_is_never_dealt(players: int) -> None:
    """A seat declares every napoletana it holds when it plays its first card
    (or draws its last card): one that has played and not declared a suit's
    holds no whole napoletana of it, in the game and in every simulated deal
    and world; independent deals would give it one."""
    game = get_game("tressette")
    rules = TressetteRules(players=players, napoletana=True)
    rng = random.Random(9)
    found = broken_unkept = 0
    for seed in range(30):
        for state in positions(game, rules, seed=seed, every=2):
            seen = state.view(state.to_play)
            masks = fast_tressette.undeclared_napoletane(seen)
            if not any(masks):
                continue
            found += 1
            assert not _holds_a_napoletana(state.hands, masks)  # true
            simulate = bots_of("tressette").simulator(seen)
            searcher = bots_of("tressette").searcher
            assert searcher is not None
            for even in (False, True):
                world = searcher(seen, even=even)
                for _ in range(3):
                    assert not _holds_a_napoletana(simulate(rng).hands, masks)
                    start = world(rng, Evaluation(), lambda _: True, 0).start
                    assert not _holds_a_napoletana(start.hands, masks)
            voids = shown_voids(seen)
            broken_unkept += sum(
                _holds_a_napoletana(determinize.deal_unseen(seen, rng, voids)[0], masks)
                for _ in range(5)
            )
    assert found >= 20
    assert broken_unkept > 0


def test_the_intermediate_level_stops_after_its_simulations_in_whole_deals() -> None:
    game = get_game("scopa")
    state, _ = game.new_game(SETUPS[0][2], seed=8)
    legal = state.legal_moves()
    view = state.view(state.to_play)
    # A deal is played out once per legal move: the budget is used in whole deals.
    for count in (len(legal), 17, 5 * len(legal) - 1):
        done = suggest("intermediate", view, legal, Budget(count), random.Random(1)).simulations
        assert done == count // len(legal) * len(legal)


#: The tables whose expert searches worlds (Scopa's): two seats, and four in teams.
SEARCHED_TABLES = [ScopaRules(), ScopaRules.preset("scopone_scientifico")]


@pytest.mark.parametrize("rules", SEARCHED_TABLES, ids=["scopa2", "scopone"])
def test_the_world_search_stops_after_its_simulations(rules: ScopaRules) -> None:
    for view, legal in _searched_openings(rules, 1):
        # The expert's simulations are the worlds it searched, each to its depth.
        for count in (1, 2, 7):
            chosen = PLAYERS["expert"](view, legal, Budget(count), random.Random(1))
            assert chosen.simulations == count
            assert chosen.move in legal


def _expert_searches_worlds(name: str, rules: Any) -> bool:
    """Whether the expert searches worlds at a table of ``rules`` (its first view)."""
    game = get_game(name)
    state, _ = game.new_game(rules, seed=1)
    return bots_of(name).expert_searches_worlds(state.view(state.to_play))


#: The setups whose expert searches worlds, and those whose expert plays by play-outs.
SEARCHED = [s for s in SETUPS if _expert_searches_worlds(s[1], s[2])]
PLAYED_OUT = [s for s in SETUPS if s not in SEARCHED]


def test_the_expert_searches_worlds_at_two_seats_and_where_the_whole_deck_is_dealt() -> None:
    searched = {setup[0] for setup in SEARCHED}
    # Scopa at two seats and Scopone; not Scopa at three to six seats with a
    # stock, nor Tressette and Briscola, where play-outs play better.
    assert {"scopa-scopa", "scopa-scopone_scientifico", "scopa-scopone_classico"} <= searched
    assert {"scopa-cirulla", "scopa-escoba"} <= searched
    assert not searched & {"scopa-3p", "scopa-6p", "cirulla-4p", "escoba-4p"}
    assert all(setup[1] == "scopa" for setup in SEARCHED)


@pytest.mark.parametrize(
    ("name", "rules"), [s[1:] for s in PLAYED_OUT], ids=[s[0] for s in PLAYED_OUT]
)
def test_where_play_outs_play_better_the_expert_plays_as_the_intermediate_level(
    name: str, rules: Any
) -> None:
    game = get_game(name)
    checked = 0
    for state in positions(game, rules, seed=13, every=6):
        view, legal = state.view(state.to_play), state.legal_moves()
        budget = Budget(3 * len(legal) + 1)
        expert = PLAYERS["expert"](view, legal, budget, random.Random(5))
        assert expert == PLAYERS["intermediate"](view, legal, budget, random.Random(5))
        checked += len(legal) > 1
    assert checked


@pytest.mark.parametrize(("name", "rules"), [s[1:] for s in SETUPS], ids=SETUP_IDS)
def test_a_count_for_a_budget_is_the_experts_worlds_where_it_searches_them_else_play_outs(
    name: str, rules: Any
) -> None:
    game = get_game(name)
    state, _ = game.new_game(rules, seed=1)
    view = state.view(state.to_play)
    worlds = bots_of(name).expert_searches_worlds(view)
    assert counted_simulations("expert", view, 100) == (20 if worlds else 200)
    assert counted_simulations("intermediate", view, 100) == 200
    assert counted_simulations("intermediate", view, 0.1) == 1  # at least one
    for level in set(PLAYERS) - SEARCHING_LEVELS:
        assert counted_simulations(level, view, 100) == 0


def test_the_time_policy_settles_on_a_lead_of_a_few_standard_errors() -> None:
    settled = world_search._settled
    # Moves that tie in every world: nothing to learn from more worlds.
    assert settled([[1.0, 1.0]] * 6, [6.0, 6.0], 2.0)
    # A steady lead settles; the same mean lead with a wide spread does not.
    steady = [[2.0, 1.0], [1.9, 1.0], [2.1, 1.0], [2.0, 1.1], [2.0, 0.9], [2.0, 1.0]]
    assert settled(steady, [sum(w[i] for w in steady) for i in (0, 1)], 2.0)
    noisy = [[6.0, 1.0], [-3.0, 1.0], [5.0, 1.0], [-2.0, 1.0], [4.0, 1.0], [-4.0, 1.0]]
    assert not settled(noisy, [sum(w[i] for w in noisy) for i in (0, 1)], 2.0)


def _searched_openings(rules: ScopaRules, count: int) -> Iterator[tuple[Any, list[Move]]]:
    """The first position's view and legal moves of ``count`` seeded games
    under ``rules``, for the world search."""
    game = get_game("scopa")
    for seed in range(count):
        state, _ = game.new_game(rules, seed=seed)
        yield state.view(state.to_play), state.legal_moves()


@pytest.mark.parametrize("rules", SEARCHED_TABLES, ids=["scopa2", "scopone"])
def test_the_time_policy_spends_less_on_clear_choices(
    monkeypatch: pytest.MonkeyPatch, rules: ScopaRules
) -> None:
    spent, limit = [], 60
    for view, legal in _searched_openings(rules, 6):
        monkeypatch.setattr(world_search, "STOP_Z", 0.0)
        assert PLAYERS["expert"](view, legal, Budget(limit), random.Random(1)).simulations == limit
        monkeypatch.setattr(world_search, "STOP_Z", 1.5)
        chosen = PLAYERS["expert"](view, legal, Budget(limit), random.Random(1))
        assert chosen.move in legal
        assert world_search.STOP_MIN <= chosen.simulations <= limit
        spent.append(chosen.simulations)
    assert min(spent) < limit


def _exact_nodes(view: Any, legal: list[Move]) -> int:
    """The nodes of the expert's exact search of a last round, unbounded."""
    searcher = bots_of("scopa").searcher
    assert searcher is not None
    search = searcher(view)(random.Random(1), world_search.evaluation_of(view), lambda _: True, 0)
    search.root(legal, world_search.LAST_ROUND_DEPTH)
    return int(search.nodes)


def _a_large_escoba_last_round() -> tuple[Any, list[Move], int]:
    """The first last round of an Escoba hand played by greedy whose exact search
    takes over 1,000 nodes (where a card may be laid even when it could take),
    and those nodes."""
    game = get_game("scopa")
    state, _ = game.new_game(ScopaRules.preset("escoba"), seed=1)
    rng = random.Random(1)
    while state.hand_number == 1:
        view, legal = state.view(state.to_play), state.legal_moves()
        if endgame.solvable(view) and len(legal) > 1:
            nodes = _exact_nodes(view, legal)
            if nodes > 1000:
                return view, legal, nodes
        state.apply(greedy.choose(view, legal, Budget(1), rng).move)
    raise AssertionError("no large last round in this hand")


def test_a_count_alone_bounds_the_experts_exact_last_round_by_its_nodes() -> None:
    """With no clock, the exact last round searches at most EXACT_NODES_A_SIMULATION
    nodes a simulation of the count; past them the sampling search chooses, as
    when a clock stops it (one world searched exactly counts 1 simulation)."""
    view, legal, needed = _a_large_escoba_last_round()
    per_simulation = world_search.EXACT_NODES_A_SIMULATION
    expert = PLAYERS["expert"]
    enough = Budget(needed // per_simulation + 2)  # room for the last check's 64 nodes
    assert expert(view, legal, enough, random.Random(2)).simulations == 1
    cut = expert(view, legal, Budget(needed // per_simulation - 2), random.Random(2))
    assert cut.move in legal and cut.simulations != 1


@pytest.mark.parametrize(
    ("rules", "whole_deck"),
    [
        (ScopaRules.preset("scopone_scientifico"), True),
        (ScopaRules.preset("scopone_classico"), True),
        (ScopaRules(), False),
        (ScopaRules.preset("escoba"), False),
    ],
    ids=["scopone", "scopone-classico", "scopa2", "escoba"],
)
def test_where_the_whole_deck_is_dealt_the_expert_searches_a_count_of_worlds_a_millisecond(
    rules: ScopaRules, whole_deck: bool
) -> None:
    game = get_game("scopa")
    state, _ = game.new_game(rules, seed=3)
    view, legal = state.view(state.to_play), state.legal_moves()
    assert bots_of("scopa").whole_deck_dealt(view) is whole_deck
    expert = PLAYERS["expert"]

    def stopped() -> float:  # a clock that never runs out
        return 0.0

    for milliseconds in (10, 40):
        worlds = round(world_search.WORLDS_PER_MS * milliseconds)
        budget = Budget(worlds + 5, milliseconds / 1000, stopped)
        searched = expert(view, legal, budget, random.Random(1)).simulations
        # Bounded by the count, or else by the simulations (the clock never stops).
        assert searched == (worlds if whole_deck else worlds + 5)
    # A simulations limit below the count still binds; with no clock, no count.
    assert expert(view, legal, Budget(2, 0.04, stopped), random.Random(1)).simulations == 2
    assert expert(view, legal, Budget(7), random.Random(1)).simulations == 7


def test_the_intermediate_level_stops_when_its_injected_clock_runs_out() -> None:
    game = get_game("tressette")
    state, _ = game.new_game(TressetteRules(), seed=8)
    count = len(state.legal_moves())
    ticks = iter(range(1000))
    budget = Budget(simulations=10**6, seconds=3 * count + 1, clock=lambda: float(next(ticks)))
    suggestion = suggest(
        "intermediate",
        state.view(state.to_play),
        state.legal_moves(),
        budget,
        random.Random(1),
    )
    # The deadline is read at tick 0; the clock is read before each play-out,
    # one a legal move for each deal: ticks 1..3 * count allow three deals.
    assert suggestion.simulations == 3 * count
    assert suggestion.move in state.legal_moves()


def test_the_expert_reports_the_points_it_expects() -> None:
    game = get_game("scopa")
    state, _ = game.new_game(SETUPS[0][2], seed=8)
    legal = state.legal_moves()
    players = ((PLAYERS["intermediate"], Budget(3 * len(legal))), (PLAYERS["expert"], Budget(4)))
    for level, (player, budget) in enumerate(players):
        suggestion = player(state.view(0), legal, budget, random.Random(1))
        assert suggestion.expected_points is not None, level
        assert 0 <= suggestion.expected_points <= 40, level


def test_the_expert_models_the_other_seat_only_at_a_table_of_two() -> None:
    for players, modelled in ((2, world_search.EVALUATION.modelled), (4, None)):
        state, _ = get_game("scopa").new_game(ScopaRules(players=players), seed=1)
        view = state.view(state.to_play)
        assert world_search.evaluation_of(view).modelled == modelled
    assert world_search.EVALUATION.modelled is not None
