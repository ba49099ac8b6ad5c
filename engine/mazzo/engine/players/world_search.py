"""The expert: every sampled world searched, not only played out.

Each round of the search deals the unseen cards in a way that fits the view
(:mod:`mazzo.engine.players.determinize`, with Tressette's shown voids), then
searches that world by alpha-beta a few moves deep
(:mod:`mazzo.engine.players.search`, through the game's ``searcher`` and
``search_depth`` hooks) and adds each legal move's worth to its
total; the worlds go on until the budget is spent, and the move with the best
total is played. What it adds to the classic design (perfect-information Monte
Carlo: each world searched with every seat at its best, its horizon valued by
the cards won):

* the sweep a table leaves: at the search's horizon the side to move sweeps
  the table if it can, so a line is not judged as if the sweep never came;
* the match: a hand's end that wins or loses the match weighs more than any
  hand's points (as the exact last round does);
* the primiera judged by the sevens and sixes taken;
* Scopa: at the horizon the side to move takes its best taking if that beats
  standing on the won cards (a capture quiescence); the other seat's reply is
  worth half its worst for the searcher, half what the play-outs' players
  would make of it (a good player who cannot see the searcher's cards);
* worlds dealt evenly (:data:`EVEN_DEALS`): each other hand holds each unseen
  card about as often as any other over the worlds;
* as many worlds as the budget allows, all searched to the same depth, or,
  where a hand deals the whole deck at its start (the ``whole_deck_dealt``
  hook: Scopone, 4-player Tressette), at most :data:`WORLDS_PER_MS` worlds a
  millisecond of the budget; in the last round of a 2-player Scopa hand,
  where the view fixes every card, the one world there is, searched to the
  hand's end;
* the budget's clock read every :data:`~mazzo.engine.players.search.CHECK_EVERY`
  nodes: a world cut short is dropped, and the search overruns by at most that
  many nodes, however long a world takes;
* a time policy, off by default (:data:`STOP_Z`): stop once the best move's
  lead is clear, so a plain choice costs a few worlds.

Its ``simulations`` are the worlds searched (1 in the exact last round): a
``simulations`` limit bounds the worlds, and the exact last round's nodes
(:data:`EXACT_NODES_A_SIMULATION`). With a budget too
small for one world, the flat Monte Carlo search
(:mod:`mazzo.engine.players.montecarlo`, the ``intermediate`` level) chooses with
what is left.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from mazzo.engine.game import Move
from mazzo.engine.players import endgame, montecarlo
from mazzo.engine.players.base import Budget, Suggestion
from mazzo.engine.players.games import bots_for
from mazzo.engine.players.search import Evaluation, OutOfBudget
from mazzo.engine.state import View

#: The arena's pilots chose the capture quiescence and the other seat half
#: modelled (its rules of thumb, a random card one time in ten), half at its
#: worst: the model alone beat greedy more often but lost to the classic design
#: (benchmarks/RESULTS.md).
EVALUATION = Evaluation(
    sweep_risk=True, match=True, sevens=True, captures=True, modelled=0.1, model_share=0.5
)


def evaluation_of(view: View) -> Evaluation:
    """The evaluation for ``view``'s table: :data:`EVALUATION`, or, with more
    than two seats, that with the other sides at their worst, unmodelled (in
    Scopone scientifico the model won 36% of 120 against the classic design,
    and 61% without it: benchmarks/RESULTS.md)."""
    if len(view.hand_sizes) == 2:
        return EVALUATION
    return replace(EVALUATION, modelled=None)


#: A move worse than a world's best by more than this many points counts as
#: that much worse (so its search stops there: more worlds in the time).
CAP: float | None = None
#: The weight of the greedy player's value of a move against its points a world.
PRIOR = 0.01
#: The time policy: after :data:`STOP_MIN` worlds, the search stops once the best
#: move's lead over every other is this many standard errors of the worlds'
#: differences (0: never; the budget is spent on every move). Clear choices
#: then cost a few worlds and close ones the whole budget.
STOP_Z = 0.0
STOP_MIN = 6
#: The worlds' other hands cover the unseen cards evenly, deal after deal
#: (:func:`mazzo.engine.players.determinize.even_dealer`), rather than each
#: drawn alone: in 2-player Scopa worth about what four times the worlds are
#: worth to the classic design (benchmarks/RESULTS.md).
EVEN_DEALS = True
#: The worlds lean to the other hands the other seats' plays point at, where
#: the game's searcher knows how (``inferred``: at a Scopa table of two,
#: :mod:`mazzo.engine.players.scopa_inference`): docs/bots.md, What the other
#: seat's plays say.
INFER_PLAYS = True
#: Where a hand deals the whole deck at its start, the worlds searched a
#: millisecond of the budget, at most (30 at 100 ms). A hand's first moves,
#: whose worlds hold ten cards a hand, then spend up to the whole budget and
#: its last ones a few milliseconds: in Scopone scientifico six worlds a move
#: won 76% of 300 matches against the classic design, a flat budget of about
#: the same CPU a match 65% (benchmarks/RESULTS.md).
WORLDS_PER_MS = 0.3
#: Deeper than any last round (three cards a hand).
LAST_ROUND_DEPTH = 8
#: The exact last round's nodes, at most, for each simulation of the budget's
#: limit; past them the sampling search chooses, as when a clock stops it. A
#: search bounded by a count alone (a safe retry, whose count is 20 worlds at
#: 100 ms) is then bounded here too, near what the clock allows (a node takes
#: 12 to 24 microseconds): most last rounds take under 300 nodes, but
#: Escoba's, where a card may be laid even when it could take, up to 60,000
#: (1.4 s of a core, measured over 40 first hands).
EXACT_NODES_A_SIMULATION = 200
_INF = float("inf")


def choose(
    view: View, legal_moves: Sequence[Move], budget: Budget, rng: random.Random
) -> Suggestion:
    if len(legal_moves) == 1:
        return Suggestion(legal_moves[0])
    bots = bots_for(view)
    if not bots.expert_searches_worlds(view):  # this table plays better by play-outs
        return montecarlo.choose(view, legal_moves, budget, rng)
    if bots.whole_deck_dealt(view) and budget.seconds:
        worlds = max(1, round(WORLDS_PER_MS * budget.seconds * 1000))
        budget = Budget(min(budget.simulations, worlds), budget.seconds, budget.clock)
    more = budget.meter()
    assert bots.searcher is not None, "a game whose expert searches worlds has a searcher"
    if endgame.solvable(view):
        # The view fixes the whole state: one world, searched to the hand's end.
        nodes = budget.simulations * EXACT_NODES_A_SIMULATION

        def within(done: int) -> bool:
            return search.nodes < nodes and more(done)

        search = bots.searcher(view)(rng, evaluation_of(view), within, 0)  # the one world there is
        try:
            worths = search.root(legal_moves, LAST_ROUND_DEPTH)
        except OutOfBudget:
            return montecarlo.sample(view, legal_moves, budget, rng, more)
        best = max(range(len(legal_moves)), key=worths.__getitem__)
        return Suggestion(legal_moves[best], search.points[best], 1)
    return search_worlds(view, legal_moves, budget, rng, more)


def search_worlds(
    view: View,
    legal_moves: Sequence[Move],
    budget: Budget,
    rng: random.Random,
    more: Callable[[int], bool],
) -> Suggestion:
    """Worlds searched until the meter ``more`` of ``budget`` stops."""
    bots = bots_for(view)
    assert bots.searcher is not None
    world = bots.searcher(view, even=EVEN_DEALS, inferred=INFER_PLAYS)
    depth = bots.search_depth
    evaluation = evaluation_of(view)
    totals = [0.0] * len(legal_moves)
    points = [0.0] * len(legal_moves)
    worlds = 0
    history: list[list[float]] = []  # every world's worths, for the time policy
    while more(worlds):
        search = world(rng, evaluation, more, worlds)
        try:
            worths = search.root(legal_moves, depth, CAP)
        except OutOfBudget:
            break
        for index, worth in enumerate(worths):
            totals[index] += worth
            points[index] += search.points[index]
        worlds += 1
        if STOP_Z:
            history.append(worths)
            if worlds >= STOP_MIN and _settled(history, totals, STOP_Z):
                break
    if not worlds:
        return montecarlo.sample(view, legal_moves, budget, rng, more)
    if PRIOR:
        # The search's horizon sees no difference between many moves (which card
        # to lay, mostly): the rules of thumb break such near-ties.
        for index, move in enumerate(legal_moves):
            totals[index] += PRIOR * worlds * bots.move_value(view, move)
    best = max(range(len(legal_moves)), key=totals.__getitem__)
    return Suggestion(legal_moves[best], points[best] / worlds, worlds)


def _settled(history: list[list[float]], totals: list[float], z: float) -> bool:
    """Whether the best total leads every other move by ``z`` standard errors of
    the worlds' paired differences (moves that tie in every world lead by 0)."""
    best = max(range(len(totals)), key=totals.__getitem__)
    count = len(history)
    for other in range(len(totals)):
        if other == best:
            continue
        gaps = [worths[best] - worths[other] for worths in history]
        mean = sum(gaps) / count
        spread = sum((gap - mean) ** 2 for gap in gaps) / (count - 1)
        if mean * mean * count < z * z * spread or mean < 0:
            return False
    return True
