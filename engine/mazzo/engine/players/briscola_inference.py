"""What the other seats' plays say of their hands, in Briscola.

The view keeps each side's won tricks in play order, each trick's cards from
its leader, and who leads now. Every trick's winner leads the next, so the
hand's tricks can be put back in order, from the last (won by the seat that
leads now) to the first, with the seat that played each card
(:func:`past_tricks`).

A seat is taken to play as the greedy player does (its rules of thumb,
:func:`~mazzo.engine.players.fast_briscola.card_value`), but one move in
:data:`NOISE` at random. How likely a dealt state is then follows from each
other seat's last :data:`WINDOW` plays: going back from the hand it is dealt,
one play and one draw at a time (the card drawn chosen at random among those
it holds, the turn-up where it drew that), the chance that its rules of thumb
play what it played (:class:`Plays`). The simulator deals a few states and
keeps one by that chance (sampling importance resampling): the worlds lean
to the hands the plays point at, at a bounded cost a world.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from mazzo.engine.briscola import HAND_SIZE, BriscolaView, winning_index
from mazzo.engine.cards import Card

#: The share of moves a seat is taken to play at random rather than by the
#: rules of thumb: a play the rules would not make is that unlikely, not impossible.
NOISE = 0.03
#: How many of each other seat's last plays are weighed.
WINDOW = 6

#: A card's worth to the rules of thumb: (card, hand, trick so far, trump suit, players).
CardValue = Callable[[Card, Sequence[Card], Sequence[Card], int, int], float]


def past_tricks(view: BriscolaView) -> list[tuple[int, tuple[Card, ...]]] | None:
    """The hand's finished tricks, oldest first, each with the seat that led it
    (None should the piles not fit the rules)."""
    players = len(view.hand_sizes)
    chunks = [[pile[i : i + players] for i in range(0, len(pile), players)] for pile in view.piles]
    tricks: list[tuple[int, tuple[Card, ...]]] = []
    winner = view.leader  # the last trick's winner leads the one in progress
    for _ in range(sum(map(len, chunks))):
        won = chunks[view.rules.side_of(winner)]
        if not won:
            return None
        trick = tuple(won.pop())
        leader = (winner - winning_index(trick, view.trump_suit)) % players
        tricks.append((leader, trick))
        winner = leader
    if winner != (view.status.dealer + 1) % players:
        return None
    tricks.reverse()
    return tricks


class Plays:
    """Each other seat's plays this hand, newest first, to weigh a dealt state by."""

    def __init__(self, view: BriscolaView, value: CardValue) -> None:
        self.value = value
        self.players = players = len(view.hand_sizes)
        self.trump = view.trump_suit
        self.turn_up = view.trump
        tricks = past_tricks(view) or []
        # Tricks followed by a draw: all but the last HAND_SIZE of the hand.
        cards_left = sum(view.hand_sizes) + len(view.trick) + view.stock_size
        left = -(-cards_left // players)
        drawn_after = len(tricks) + left - HAND_SIZE
        # By seat, newest first: (card played, the trick before it, then the
        # draw undone before the play: None for no draw, True for the
        # turn-up, False for a card at random).
        self.steps: list[list[tuple[Card, tuple[Card, ...], bool | None]]] = [
            [] for _ in range(players)
        ]
        rounds = [(view.leader, view.trick, None)] + [
            (leader, trick, k) for k, (leader, trick) in reversed(list(enumerate(tricks)))
        ]
        for at, (leader, trick, k) in enumerate(rounds):
            for seat in range(players):
                if seat == view.seat or len(self.steps[seat]) >= WINDOW:
                    continue
                position = (seat - leader) % players
                if position >= len(trick):
                    continue
                draw: bool | None = None
                if k is not None and k < drawn_after:
                    # Trick k's winner led the next one; the draws go round from it.
                    last_drawer = (rounds[at - 1][0] + players - 1) % players
                    draw = k == drawn_after - 1 and seat == last_drawer
                self.steps[seat].append((trick[position], trick[:position], draw))

    def weight(self, hands: Sequence[Sequence[Card]], rng: random.Random) -> float:
        """How likely the plays make ``hands`` (by seat), up to a constant."""
        weight = 1.0
        for seat, steps in enumerate(self.steps):
            hand = list(hands[seat])
            for card, before, draw in steps:
                if draw is not None:
                    if draw:
                        if self.turn_up not in hand:
                            return 0.0
                        hand.remove(self.turn_up)
                    else:
                        drawable = [c for c in hand if c != self.turn_up]
                        if not drawable:
                            return 0.0
                        hand.remove(rng.choice(drawable))
                hand.append(card)
                weight *= self._chance(card, hand, before)
        return weight

    def _chance(self, card: Card, hand: Sequence[Card], before: Sequence[Card]) -> float:
        if len(hand) == 1:
            return 1.0
        worths = [self.value(c, hand, before, self.trump, self.players) for c in hand]
        best = max(worths)
        chosen = worths[hand.index(card)] == best
        ties = worths.count(best)
        return (1 - NOISE) * chosen / ties + NOISE / len(hand)
