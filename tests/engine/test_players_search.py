"""The world search (mazzo.engine.players.search).

The search plays on its own mutable lists, so it is held to the engine: searched
to the end of a last round, its worth of every move is the minimax of the
engine's own ``apply`` and scoring over the same cards.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from benchmarks.arena import last_rounds
from mazzo.engine import get_game
from mazzo.engine.cards import COINS, SETTEBELLO, Card
from mazzo.engine.events import HandScored
from mazzo.engine.game import Move
from mazzo.engine.players import PLAYERS, Budget, endgame, fast_scopa, search
from mazzo.engine.players.games import bots_of
from mazzo.engine.players.search import Evaluation, ScopaSearch, TressetteSearch, scopa_static
from mazzo.engine.scopa import ScopaRules, ScopaState
from mazzo.engine.scopa_rules import Variant
from mazzo.engine.scopa_scoring import PRIMIERA_SCALE
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.players_support import SETUP_IDS, SETUPS, positions
from tests.engine.scopa_support import applied

SCOPA = get_game("scopa")


def _engine_minimax(state: ScopaState, side: int) -> float:
    """The hand's margin for ``side`` with both seats at their best, by the engine."""
    return _engine_fallible(state, side, 0.0)


@pytest.mark.parametrize(
    "rules",
    [ScopaRules(), ScopaRules.preset(Variant.ESCOBA), ScopaRules.preset(Variant.SCOPA_D_ASSI)],
    ids=lambda r: r.variant.value,
)
def test_searched_to_the_hand_end_the_search_agrees_with_the_engine(rules: ScopaRules) -> None:
    checked = 0
    for state in last_rounds(rules, range(1, 30)):
        side = state.to_play
        legal = state.legal_moves()
        search = ScopaSearch(state, side, Evaluation(), lambda _: True)
        worths = search.root(legal, depth=8)
        for move, worth in zip(legal, worths, strict=True):
            after, events = applied(state, move)
            assert not any(isinstance(e, HandScored) for e in events)
            assert worth == _engine_minimax(after, side), move
        checked += 1
        if checked == 6:
            break
    assert checked == 6


def _engine_fallible(state: ScopaState, side: int, share: float) -> float:
    """The hand's margin for ``side`` at its best, the other seat's replies worth
    their worst and, with weight ``share``, their mean, by the engine."""
    outcomes = []
    for move in state.legal_moves():
        after, events = applied(state, move)
        scored = [e for e in events if isinstance(e, HandScored)]
        if scored:
            totals = [s.total for s in scored[0].sides]
            outcomes.append(float(totals[side] - totals[1 - side]))
        else:
            outcomes.append(_engine_fallible(after, side, share))
    if state.to_play % 2 == side:
        return max(outcomes)
    return (1 - share) * min(outcomes) + share * sum(outcomes) / len(outcomes)


def test_a_fallible_other_side_is_weighed_as_the_engine_weighs_it() -> None:
    checked = 0
    for state in last_rounds(ScopaRules(), range(1, 20)):
        side = state.to_play
        legal = state.legal_moves()
        search = ScopaSearch(state, side, Evaluation(fallible=0.4), lambda _: True)
        worths = search.root(legal, depth=8)
        for move, worth in zip(legal, worths, strict=True):
            after, _ = applied(state, move)
            assert worth == pytest.approx(_engine_fallible(after, side, 0.4)), move
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_modelled_other_seats_are_the_exact_last_rounds_expectimax() -> None:
    """The other seat as the play-outs' players: the exact last round's model
    (mazzo.engine.players.endgame, through the engine), move by move."""
    checked = 0
    for state in last_rounds(ScopaRules(), range(1, 20)):
        side = state.to_play
        legal = state.legal_moves()
        evaluation = Evaluation(match=True, modelled=0.25)
        worths = ScopaSearch(state, side, evaluation, lambda _: True).root(legal, depth=8)
        exact = endgame._Search(state.to_play, side, lambda _: True, 0.25)
        for move, worth in zip(legal, worths, strict=True):
            assert worth == pytest.approx(exact.after(state, move)), move
        checked += 1
        if checked == 4:
            break
    assert checked == 4


@pytest.mark.parametrize("every", [5, 7])
def test_played_out_to_the_hand_end_the_horizon_is_the_fast_play_out(every: int) -> None:
    """One move deep then the rules of thumb to the hand's end: the margin of the
    fast path's greedy play-out of that move (held to the engine elsewhere)."""
    checked = 0
    for state in positions(SCOPA, ScopaRules(), seed=every, every=every):
        side, legal = state.to_play, state.legal_moves()
        search = ScopaSearch(state, side, Evaluation(roll_out="hand"), lambda _: True)
        for move, worth in zip(legal, search.root(legal, depth=1), strict=True):
            totals = fast_scopa.play_out(state, move, random.Random(0), 0.0)
            assert worth == totals[side] - totals[1 - side], (state, move)
        checked += 1
    assert checked >= 4


def _margin(events: list[Any], side: int) -> float | None:
    for event in events:
        if isinstance(event, HandScored):
            totals = [s.total for s in event.sides]
            return float(totals[side] - totals[1 - side])
    return None


def _greedy_round(state: ScopaState, move: Move, side: int) -> float:
    """``move``, then the rules of thumb through the engine to the end of the round
    in play after it (the next deal): the won cards' static worth for ``side``,
    or the margin if the hand ends first. Played on a clone: ``state`` stays as it was."""
    state, events = applied(state, move)
    stock = len(state.stock)  # a fresh round (the move emptied the hands) is played too
    while (margin := _margin(events, side)) is None:
        hand, table, rules = list(state.hands[state.to_play]), state.table, state.rules
        card, take = fast_scopa.greedy_play(hand, table, rules)
        events = state.apply(fast_scopa.move_of(state.to_play, card, take, table, rules))
        if len(state.stock) < stock:  # dealt again: the round was over
            break
    else:
        return margin
    masks = [sum(1 << c for c in pile) for pile in state.piles]
    return scopa_static(masks, state.sweeps, side)


def test_played_out_to_the_round_end_the_horizon_is_the_rules_of_thumb_to_it() -> None:
    checked = 0
    for state in positions(SCOPA, ScopaRules(), seed=3, every=2):
        side, legal = state.to_play, state.legal_moves()
        rolled = ScopaSearch(state, side, Evaluation(roll_out="round"), lambda _: True)
        for move, worth in zip(legal, rolled.root(legal, depth=1), strict=True):
            assert worth == pytest.approx(_greedy_round(state, move, side)), (state, move)
        checked += 1
    assert checked >= 10


_INF = float("inf")


class _UnwindowedQuiescence(ScopaSearch):
    """The capture quiescence weighing every taking, whatever the window."""

    def _quiescence(
        self,
        seat: int,
        table: tuple[Card, ...],
        left: int,
        worth: float,
        alpha: float,
        beta: float,
        plies: int = 0,
    ) -> float:
        return super()._quiescence(seat, table, left, worth, -_INF, _INF, plies)


@pytest.mark.parametrize(
    "rules",
    [
        ScopaRules(),
        ScopaRules(players=3),
        ScopaRules.preset(Variant.SCOPONE_SCIENTIFICO),
        ScopaRules.preset("quindici"),
    ],
    ids=lambda r: f"{r.variant.value}-{r.players}",
)
def test_the_quiescence_cut_by_the_window_keeps_every_moves_worth(
    rules: ScopaRules, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alpha-beta's window stops the quiescence early; the root's worths, which
    the worlds add up, are those of the quiescence that weighs every taking."""
    evaluations = (
        Evaluation(captures=True),
        Evaluation(captures=True, quiescence=2, sevens=True),
        Evaluation(captures=True, quiescence=3, match=True),
        Evaluation(captures=True, sevens=True, modelled=0.1, model_share=0.5),
    )
    weighed = {"windowed": 0, "full": 0}  # the takings the quiescence valued
    weighing = "windowed"

    def counted(*args: Any) -> float:
        weighed[weighing] += 1
        return scopa_static(*args)

    monkeypatch.setattr(search, "scopa_static", counted)
    checked = 0
    for seed in range(1, 5):
        for state in positions(SCOPA, rules, seed=seed, every=3):
            legal = state.legal_moves()
            for evaluation in evaluations:
                side = rules.side_of(state.to_play)
                weighing = "windowed"
                worths = ScopaSearch(state, side, evaluation, _always).root(legal, depth=3)
                weighing = "full"
                full = _UnwindowedQuiescence(state, side, evaluation, _always)
                assert worths == full.root(legal, depth=3), state
                checked += 1
    assert checked >= 40
    assert weighed["windowed"] < weighed["full"]  # the window does cut


def _always(_: int) -> bool:
    return True


def _plain_static(masks: list[int], sweeps: list[int], side: int, sevens: bool) -> float:
    """The static evaluation from its definition: settebello and sweeps, and each
    category by the lead (scopa_static looks the categories up in tables)."""

    def category(mine: int, theirs: int, half: int, scale: float) -> float:
        if mine > half:
            return 1.0
        if theirs > half:
            return -1.0
        return max(-0.8, min(0.8, (mine - theirs) / scale))

    def count(mask: int, cards: Any) -> int:
        return sum(1 for c in cards if mask >> c & 1)

    def primiera(mask: int) -> int:
        suits = [[r for r in range(1, 11) if mask >> (suit * 10 + r - 1) & 1] for suit in range(4)]
        return sum(max((PRIMIERA_SCALE[r] for r in ranks), default=0) for ranks in suits)

    coins = range(10 * COINS, 10 * COINS + 10)
    sevens_of = [suit * 10 + 6 for suit in range(4)]
    sixes_of = [suit * 10 + 5 for suit in range(4)]
    mine = masks[side]
    worths = []
    for other, theirs in enumerate(masks):
        if other == side:
            continue
        if sevens:
            my_sevens, their_sevens = count(mine, sevens_of), count(theirs, sevens_of)
            lead = 0.35 * (my_sevens - their_sevens) + 0.1 * (
                count(mine, sixes_of) - count(theirs, sixes_of)
            )
            best = 1.0 if my_sevens > 2 else -1.0 if their_sevens > 2 else max(-0.8, min(0.8, lead))
        else:
            best = category(primiera(mine), primiera(theirs), 1000, 40.0)
        worths.append(
            sweeps[side]
            - sweeps[other]
            + (mine >> SETTEBELLO & 1)
            - (theirs >> SETTEBELLO & 1)
            + category(count(mine, range(40)), count(theirs, range(40)), 20, 10.0)
            + category(count(mine, coins), count(theirs, coins), 5, 4.0)
            + best
        )
    return min(worths)


def test_the_static_evaluation_is_the_categories_worth_by_their_definition() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        sides = rng.choice((2, 3))
        owner = [rng.randrange(sides + 1) for _ in range(40)]  # sides: not yet won
        masks = [sum(1 << c for c in range(40) if owner[c] == s) for s in range(sides)]
        sweeps = [rng.randrange(4) for _ in range(sides)]
        side, sevens = rng.randrange(sides), rng.random() < 0.5
        expected = _plain_static(masks, sweeps, side, sevens)
        assert scopa_static(masks, sweeps, side, sevens) == pytest.approx(expected, abs=1e-12)


def test_the_search_leaves_its_world_as_it_found_it() -> None:
    state, _ = TressetteState.new_game(TressetteRules(players=2), seed=4)
    legal = state.legal_moves()
    search = TressetteSearch(state, 0, Evaluation(), lambda _: True)
    hands = [list(h) for h in search.hands]
    first = search.root(legal, depth=5)
    assert search.hands == hands and search.drawn == 0
    assert search.root(legal, depth=5) == first  # the same world, the same worths
    scopa_state, _ = SCOPA.new_game(ScopaRules(), seed=4)
    for evaluation in (
        Evaluation(sweep_risk=True),
        Evaluation(roll_out="hand", fallible=0.3),
        Evaluation(roll_out="round"),
        Evaluation(captures=True, quiescence=3),
        Evaluation(modelled=0.2),
    ):
        scopa = ScopaSearch(scopa_state, 0, evaluation, lambda _: True)
        before = ([list(h) for h in scopa.hands], list(scopa.masks), list(scopa.sweeps))
        scopa.root(scopa_state.legal_moves(), depth=4)
        assert ([list(h) for h in scopa.hands], scopa.masks, scopa.sweeps) == before


@pytest.mark.parametrize(("name", "rules"), [s[1:] for s in SETUPS], ids=SETUP_IDS)
def test_each_game_gives_its_world_search_through_its_hooks(name: str, rules: Any) -> None:
    """The expert knows no game by type: a game's hooks deal and search its
    worlds, or say it has none (the expert then plays the flat search); every
    choice is legal either way."""
    game = get_game(name)
    bots = bots_of(name)
    for state in positions(game, rules, seed=4, every=9):
        view, legal = state.view(state.to_play), state.legal_moves()
        if bots.searcher is not None:
            assert bots.search_depth > 0
            world = bots.searcher(view)(random.Random(1), Evaluation(), lambda _: True, 0)
            assert len(world.root(legal, 2)) == len(legal)
        chosen = PLAYERS["expert"](view, legal, Budget(3), random.Random(2))
        assert chosen.move in legal
        if bots.exact_endgame(view):
            assert name == "scopa" and view.stock_size == 0 and len(view.hand_sizes) == 2
