"""The greedy player: the classic player's rules of thumb, one move ahead.

Each game's rules of thumb are its hook (``GameBots.move_value``,
mazzo.engine.players.games); Scopa's and Tressette's are here.

Scopa family: sweep when possible; take the settebello, the sevens and the
coins (and the re bello); lay the cheapest card; never leave a table that one
card can sweep. Tressette: win the tricks that carry points with the cheapest
card that wins, otherwise follow with the lowest card; keep the threes and twos;
give points (an ace) to a partner who is winning the trick.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from mazzo.engine.cards import COINS, RANK_OF, SETTEBELLO, SUIT_OF, Card
from mazzo.engine.game import Move
from mazzo.engine.players.base import Budget, Suggestion
from mazzo.engine.players.games import bots_for
from mazzo.engine.scopa import ScopaView, captures
from mazzo.engine.scopa_rules import ScopaRules
from mazzo.engine.scopa_scoring import PRIMIERA_SCALE
from mazzo.engine.state import View
from mazzo.engine.tressette import CARD_STRENGTH, CARD_THIRDS, TressetteView, winning_index

SWEEP_VALUE = 20.0
#: Leaving a table one card can sweep costs about a sweep, less the chance the
#: next player holds no such card.
OPEN_SWEEP_PENALTY = 12.0


def choose(
    view: View, legal_moves: Sequence[Move], budget: Budget, rng: random.Random
) -> Suggestion:
    move_value = bots_for(view).move_value  # the game's own rules of thumb
    scored = [(move_value(view, move), move) for move in legal_moves]
    best = max(value for value, _ in scored)
    # Equal values are broken at random: the same seed, the same choice.
    return Suggestion(rng.choice([move for value, move in scored if value == best]))


# ---------------------------------------------------------------- Scopa


def card_worth(card: Card, rules: ScopaRules | None) -> float:
    """What a card is worth to the side that takes it: a card towards the most
    cards, a coin, the settebello, the sevens and sixes of the primiera."""
    worth = 1.0 + PRIMIERA_SCALE[RANK_OF[card]] / 7.0
    if SUIT_OF[card] == COINS:
        worth += 2.0
    if card == SETTEBELLO or (rules is not None and card == rules.re_bello):
        worth += 8.0
    if RANK_OF[card] == 7:
        worth += 2.0
    return worth


def scopa_move_value(view: ScopaView, move: Move) -> float:
    rules, table = view.rules, view.table
    last_card = view.stock_size == 0 and sum(view.hand_sizes) == 1
    if move.take:
        value = card_worth(move.card, rules) + sum(card_worth(c, rules) for c in move.take)
        left = tuple(c for c in table if c not in move.take)
        if not left and not last_card:
            value += SWEEP_VALUE
    else:
        value = -card_worth(move.card, rules)
        left = (*table, move.card)
    if left and not last_card and sweepable(left, rules):
        value -= OPEN_SWEEP_PENALTY
    return value


def sweepable(table: tuple[Card, ...], rules: ScopaRules | None) -> bool:
    """Could one card take the whole of ``table``? (Only the ranks that could: the
    table's sum, what makes fifteen with it, and an ace that takes all.)"""
    total = sum(RANK_OF[c] for c in table)
    whole = frozenset(table)
    for rank in {total, 15 - total, 1}:
        if 1 <= rank <= 10 and whole in captures(Card.of(rank, COINS), table, rules):
            return True
    return False


# ---------------------------------------------------------------- Tressette


def tressette_move_value(view: TressetteView, move: Move) -> float:
    card, trick = move.card, view.trick
    players = len(view.hand_sizes)
    cost = CARD_THIRDS[card] * 2 + CARD_STRENGTH[card] / 10  # what playing it gives up
    keeps_top = RANK_OF[card] in (2, 3)
    if not trick:
        # Lead low, from a long suit; keep the threes and twos.
        length = sum(1 for c in view.hand if SUIT_OF[c] == SUIT_OF[card])
        return -cost + length / 2 - (3 if keeps_top else 0)
    led = SUIT_OF[trick[0]]
    best_at = winning_index(trick)
    winning_seat = (view.leader + best_at) % players
    partner_wins = winning_seat % 2 == view.seat % 2
    last = len(trick) == players - 1
    on_trick = sum(CARD_THIRDS[c] for c in trick)
    beats = SUIT_OF[card] == led and CARD_STRENGTH[card] > CARD_STRENGTH[trick[best_at]]
    if partner_wins:
        # Load the partner's trick with points when it is safe (last, or a three).
        safe = last or RANK_OF[trick[best_at]] == 3
        return (CARD_THIRDS[card] * 3 if safe and not keeps_top else 0) - cost
    if beats and (on_trick > 0 or last):
        # Win it, with the cheapest card that does; a sure win (last) is worth more.
        return 10 + on_trick + CARD_THIRDS[card] - cost + (5 if last else 0)
    return -cost - (3 if keeps_top else 0)
