"""Tressette's hooks for the players: simulated deals, the play-out's rules of
thumb, and the world search.

A play-out plays the rest of a simulated hand on a clone of the engine's own
state (:meth:`~mazzo.engine.state.State.step`: the engine's rules, without
their checks and events), each seat choosing by :func:`_policy`, and scores it
by the engine's scoring.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from mazzo.engine.cards import DECK, SUIT_OF, Card
from mazzo.engine.game import CARD_MOVES, Move
from mazzo.engine.players import determinize
from mazzo.engine.players.games import GameBots, World
from mazzo.engine.players.greedy import tressette_move_value
from mazzo.engine.players.search import Evaluation, TressetteSearch
from mazzo.engine.players.voids import shown_voids
from mazzo.engine.tressette import (
    CARD_STRENGTH,
    CARD_THIRDS,
    NAPOLETANA_CARDS,
    TressetteState,
    TressetteView,
    playable,
    winning_index,
)

#: By suit: the cards of its napoletana, as a set.
_NAPOLETANA = tuple(frozenset(cards) for cards in NAPOLETANA_CARDS)


def play_out(
    state: TressetteState, move: Move, rng: random.Random, explore: float
) -> tuple[int, ...]:
    """Play ``move`` then the rest of the hand with the rollout policy; the
    hand's points by side."""
    world = state.clone()
    world.step(move)
    players = world.rules.players
    for _ in range(world.cards_to_play()):
        seat = world.to_play
        card = _policy(world.hands[seat], world.trick, players, rng, explore)
        world.step(CARD_MOVES[seat][card])
    return tuple(side.total for side in world.hand_scores())


def _policy(
    hand: list[Card], trick: list[Card], players: int, rng: random.Random, explore: float
) -> Card:
    """Win a trick that carries points (or the last place of one) with the
    cheapest winning card; else play the lowest card; now and then at random."""
    legal = playable(hand, trick)
    if len(legal) == 1:
        return legal[0]
    if rng.random() < explore:
        return rng.choice(legal)
    if trick and (len(trick) == players - 1 or sum(map(CARD_THIRDS.__getitem__, trick))):
        top = trick[winning_index(trick)]
        winner = min(filter(_STRONGER[top].__contains__, legal), key=_STRENGTH, default=None)
        if winner is not None:
            return winner
    return min(legal, key=_LOWEST)


_STRENGTH = CARD_STRENGTH.__getitem__
#: By card: the cards of its suit that beat it.
_STRONGER = tuple(
    frozenset(
        c for c in DECK if SUIT_OF[c] == SUIT_OF[top] and CARD_STRENGTH[c] > CARD_STRENGTH[top]
    )
    for top in DECK
)
#: By card: the order :func:`_policy` throws cards in, fewest thirds first, then the
#: weakest (tables, not key functions: min() then runs no Python code).
_LOWEST = tuple(CARD_THIRDS[c] * 16 + CARD_STRENGTH[c] for c in DECK).__getitem__


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
        rng: random.Random, evaluation: Evaluation, more: Callable[[int], bool], done: int
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
