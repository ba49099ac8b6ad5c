"""Tressette's fast path: a simulated hand played out on mutable lists.

As :mod:`mazzo.engine.players.fast_scopa` for Scopa: the hands, the trick and the
stock are lists changed in place, the won cards are kept only as each side's
thirds of a point, and no move, state or event is made. Each card's strength and
thirds and each suit's napoletana are the engine's own tables
(:mod:`mazzo.engine.tressette`). The rules themselves are written again here:
follow suit, the strongest card of the led suit wins, the winner then the other
draws, napoletane declared with the first card and on a draw, the points (thirds
floored, one for the last trick, the napoletane). Calling the engine's functions
for them (``playable``, ``trick_winner``, the napoletane's test, ``side_scores``)
cost a play-out about a tenth more instructions (callgrind), so
tests/engine/test_players_fast.py holds them to the engine instead, over every
mix of options the catalog allows: each simulated hand replayed through the
engine's ``apply`` is legal at every move and tells of the same tricks, draws,
napoletane and scores (:class:`~mazzo.engine.players.base.Trace`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from mazzo.engine.cards import SUIT_OF, Card
from mazzo.engine.events import CardDrawn, HandScored, NapoletanaDeclared, TrickWon
from mazzo.engine.game import Move
from mazzo.engine.players import determinize
from mazzo.engine.players.base import Trace
from mazzo.engine.players.games import GameBots, World
from mazzo.engine.players.greedy import tressette_move_value
from mazzo.engine.players.search import TressetteSearch
from mazzo.engine.players.voids import shown_voids
from mazzo.engine.tressette import (
    CARD_STRENGTH,
    CARD_THIRDS,
    NAPOLETANA_CARDS,
    NAPOLETANA_POINTS,
    TressetteState,
    TressetteView,
    side_scores,
)

#: By suit: the cards of its napoletana, as a set.
_NAPOLETANA = tuple(frozenset(cards) for cards in NAPOLETANA_CARDS)


def play_out(
    state: TressetteState,
    move: Move,
    rng: random.Random,
    explore: float,
    trace: Trace | None = None,
) -> tuple[int, ...]:
    """Play ``move`` then the rest of the hand with the rollout policy; the
    hand's points by side. ``trace`` collects every move played and the tricks,
    draws, napoletane and scores, as the engine's events (for tests)."""
    rules = state.rules
    players, napoletana_on = rules.players, rules.napoletana
    hands = [list(h) for h in state.hands]
    trick = list(state.trick)
    leader = state.leader
    stock = list(state.stock)
    thirds = [sum(map(CARD_THIRDS.__getitem__, pile)) for pile in state.piles]
    napoletana = list(state.napoletana)
    declared = list(state.declared)
    first_trick = not any(state.piles)
    seat, card = state.to_play, move.card
    while True:
        hand = hands[seat]
        if first_trick and napoletana_on:
            _declare(hand, seat, hand, declared, napoletana, trace)
        hand.remove(card)
        trick.append(card)
        if trace is not None:
            trace.moves.append(Move(seat, card))
        if len(trick) < players:
            seat = (seat + 1) % players
        else:
            led = SUIT_OF[trick[0]]
            best = max(
                (i for i, c in enumerate(trick) if SUIT_OF[c] == led),
                key=lambda i: CARD_STRENGTH[trick[i]],
            )
            winner = (leader + best) % players
            if trace is not None:
                trace.events.append(TrickWon(winner, winner % 2, leader, tuple(trick)))
            seat = leader = winner
            side = seat % 2
            thirds[side] += sum(map(CARD_THIRDS.__getitem__, trick))
            trick = []
            first_trick = False
            if stock:
                for drawer in (seat, 1 - seat):
                    drawn = stock.pop(0)
                    hands[drawer].append(drawn)
                    if trace is not None:
                        trace.events.append(CardDrawn(drawer, drawn))
                    if napoletana_on:
                        _declare(hands[drawer], drawer, (drawn,), declared, napoletana, trace)
            if not hands[seat]:
                totals = tuple(
                    thirds[s] // 3 + (s == side) + napoletana[s] for s in range(rules.sides)
                )
                if trace is not None:
                    scored = side_scores(thirds, side, napoletana)
                    scores = tuple(map(sum, zip(state.scores, totals, strict=True)))
                    trace.events.append(HandScored(state.hand_number, scored, scores))
                return totals
        card = _policy(hands[seat], trick, players, rng, explore)


def _declare(
    hand: list[Card],
    seat: int,
    among: Sequence[Card],
    declared: list[int],
    napoletana: list[int],
    trace: Trace | None,
) -> None:
    for suit in {SUIT_OF[c] for c in among}:
        if declared[seat] >> suit & 1 or not _NAPOLETANA[suit].issubset(hand):
            continue
        declared[seat] |= 1 << suit
        napoletana[seat % 2] += NAPOLETANA_POINTS
        if trace is not None:
            cards = NAPOLETANA_CARDS[suit]
            trace.events.append(NapoletanaDeclared(seat, seat % 2, suit, cards, NAPOLETANA_POINTS))


def _policy(
    hand: list[Card], trick: list[Card], players: int, rng: random.Random, explore: float
) -> Card:
    """Win a trick that carries points (or the last place of one) with the
    cheapest winning card; else play the lowest card; now and then at random."""
    if trick:
        led = SUIT_OF[trick[0]]
        legal = [c for c in hand if SUIT_OF[c] == led] or hand
    else:
        legal = hand
    if len(legal) == 1:
        return legal[0]
    if rng.random() < explore:
        return rng.choice(legal)
    if trick:
        top = max(CARD_STRENGTH[c] for c in trick if SUIT_OF[c] == led)
        if len(trick) == players - 1 or any(CARD_THIRDS[c] for c in trick):
            winners = [c for c in legal if SUIT_OF[c] == led and CARD_STRENGTH[c] > top]
            if winners:
                return min(winners, key=CARD_STRENGTH.__getitem__)
    return min(legal, key=lambda c: (CARD_THIRDS[c], CARD_STRENGTH[c]))


def undeclared_napoletane(view: TressetteView) -> tuple[int, ...]:
    """By seat, the suits (bit s: suit s) whose napoletana the seat does not
    hold whole. With the napoletana on, a seat declares each one it holds when
    it plays its first card of the hand, and one a drawn card completes when it
    draws it: a seat that has played this hand and did not declare a suit's
    holds two of its three cards at most. Only the suits whose three cards
    this seat cannot see are named (for the others it goes without saying)."""
    rules = view.rules
    assert rules is not None, "a view from mazzo.engine.tressette.view carries its rules"
    players = len(view.hand_sizes)
    if not rules.napoletana:
        return (0,) * players
    unseen = set(determinize.unseen_cards(view))
    hidden = sum(1 << suit for suit, cards in enumerate(_NAPOLETANA) if unseen >= cards)
    if any(view.piles):  # a trick is over: every seat has played
        played = set(range(players))
    else:
        played = {(view.leader + at) % players for at in range(len(view.trick))}
    declared = view.napoletana_suits or (0,) * players
    return tuple(
        hidden & ~declared[seat] if seat in played and seat != view.seat else 0
        for seat in range(players)
    )


def napoletane_kept(view: TressetteView, deal: determinize.Deal) -> determinize.Deal:
    """``deal``, dealt again while it gives a seat a napoletana it did not
    declare (:func:`undeclared_napoletane`): a fact, as the shown voids."""
    ruled_out = [
        (seat, [whole for suit, whole in enumerate(_NAPOLETANA) if mask >> suit & 1])
        for seat, mask in enumerate(undeclared_napoletane(view))
        if mask
    ]
    if not ruled_out:
        return deal

    def kept(dealt: determinize.Dealt, rng: random.Random) -> bool:
        hands = dealt[0]
        return not any(cards <= set(hands[seat]) for seat, wholes in ruled_out for cards in wholes)

    return determinize.redealt(deal, kept)


def _deal(view: TressetteView, voids: Sequence[int], even: bool) -> determinize.Deal:
    """The deals of a choice: around the shown voids, none giving a seat a
    napoletana it did not declare."""
    return napoletane_kept(view, determinize.dealer(view, even, voids))


def _simulator(view: TressetteView) -> Callable[[random.Random], TressetteState]:
    voids = shown_voids(view)  # once per choice: every simulated deal respects them
    deal = _deal(view, voids, even=False)
    return lambda rng: determinize.tressette_state(view, rng, voids, deal(rng))


def _searcher(view: TressetteView, even: bool = False, inferred: bool = False) -> World:
    # The shown voids and the napoletane not declared are what Tressette's plays
    # say, and they are facts: every world keeps to them, ``inferred`` or not.
    voids = shown_voids(view)  # once per choice, as the simulator's
    deal = _deal(view, voids, even)

    def world(
        rng: random.Random, evaluation: Any, more: Callable[[int], bool], done: int
    ) -> TressetteSearch:
        state = determinize.tressette_state(view, rng, voids, deal(rng))
        return TressetteSearch(state, view.side, evaluation, more, done)

    return world


#: Tressette's hooks for the players (mazzo.engine.players.games): its world
#: search, 6 cards deep as the arena's pilots chose; its expert plays by
#: play-outs (a search of a few cards, judged by the thirds won, lost to the
#: rules of thumb: 26% of 120 two-player matches at 100 ms).
BOTS = GameBots(
    simulator=_simulator,
    play_out=play_out,
    move_value=tressette_move_value,
    searcher=_searcher,
    search_depth=6,
)
