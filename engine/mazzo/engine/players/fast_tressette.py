"""Tressette's fast path: a simulated hand played out on mutable lists.

As :mod:`mazzo.engine.players.fast_scopa` for Scopa: the hands, the trick and the
stock are lists changed in place, the won cards are kept only as each side's
thirds of a point, and no move, state or event is made. The rules are the
engine's (follow suit, the strongest card of the led suit wins, the winner
then the other draws, napoletane declared with the first card and on a draw);
tests/engine/test_players_fast.py replays each simulated hand through the
engine's ``apply`` and checks that both score it the same.
"""

from __future__ import annotations

import random

from mazzo.engine.cards import DECK, RANK_OF, SUIT_OF, Card
from mazzo.engine.game import Move
from mazzo.engine.tressette import (
    NAPOLETANA_POINTS,
    NAPOLETANA_RANKS,
    STRENGTH,
    THIRDS,
    TressetteState,
)

#: By card index: its trick strength and its value in thirds.
_STRENGTH = tuple(STRENGTH[RANK_OF[c]] for c in DECK)
_THIRDS = tuple(THIRDS[RANK_OF[c]] for c in DECK)
#: By suit: the three cards of its napoletana.
_NAPOLETANA = tuple(
    frozenset(Card.of(rank, suit) for rank in NAPOLETANA_RANKS) for suit in range(4)
)


def play_out(
    state: TressetteState,
    move: Move,
    rng: random.Random,
    explore: float,
    trace: list[tuple[int, Card]] | None = None,
) -> tuple[int, ...]:
    """Play ``move`` then the rest of the hand with the rollout policy; the
    hand's points by side. ``trace`` collects every card played (for tests)."""
    rules = state.rules
    players, napoletana_on = rules.players, rules.napoletana
    hands = [list(h) for h in state.hands]
    trick = list(state.trick)
    leader = state.leader
    stock = list(state.stock)
    thirds = [sum(_THIRDS[c] for c in pile) for pile in state.piles]
    napoletana = list(state.napoletana)
    declared = list(state.declared)
    first_trick = not any(state.piles)
    seat, card = state.to_play, move.card
    while True:
        hand = hands[seat]
        if first_trick and napoletana_on:
            _declare(hand, seat, hand, declared, napoletana)
        hand.remove(card)
        trick.append(card)
        if trace is not None:
            trace.append((seat, card))
        if len(trick) < players:
            seat = (seat + 1) % players
        else:
            led = SUIT_OF[trick[0]]
            best = max(
                (i for i, c in enumerate(trick) if SUIT_OF[c] == led),
                key=lambda i: _STRENGTH[trick[i]],
            )
            seat = leader = (leader + best) % players
            side = seat % 2
            thirds[side] += sum(_THIRDS[c] for c in trick)
            trick = []
            first_trick = False
            if stock:
                for drawer in (seat, 1 - seat):
                    drawn = stock.pop(0)
                    hands[drawer].append(drawn)
                    if napoletana_on:
                        _declare(hands[drawer], drawer, (drawn,), declared, napoletana)
            if not hands[seat]:
                return tuple(
                    thirds[s] // 3 + (s == side) + napoletana[s] for s in range(rules.sides)
                )
        card = _policy(hands[seat], trick, players, rng, explore)


def _declare(
    hand: list[Card],
    seat: int,
    among: list[Card] | tuple[Card, ...],
    declared: list[int],
    napoletana: list[int],
) -> None:
    for suit in {SUIT_OF[c] for c in among}:
        if not declared[seat] >> suit & 1 and _NAPOLETANA[suit].issubset(hand):
            declared[seat] |= 1 << suit
            napoletana[seat % 2] += NAPOLETANA_POINTS


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
        top = max(_STRENGTH[c] for c in trick if SUIT_OF[c] == led)
        if len(trick) == players - 1 or any(_THIRDS[c] for c in trick):
            winners = [c for c in legal if SUIT_OF[c] == led and _STRENGTH[c] > top]
            if winners:
                return min(winners, key=_STRENGTH.__getitem__)
    return min(legal, key=lambda c: (_THIRDS[c], _STRENGTH[c]))
