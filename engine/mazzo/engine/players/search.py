"""Depth-limited alpha-beta search of one sampled world (perfect information).

A sampled world (:mod:`mazzo.engine.players.determinize`) fixes every card: the
hands, and the stock's order. This module searches such a world a few moves
deep on the fast path's mutable lists (no Move, state or event is made), and
values what it reaches with a static evaluation of the cards each side has
won. Its user is the expert's world search
(:mod:`mazzo.engine.players.world_search`), which adds the sweep a table
leaves to the side to move and the match's target.

Every node is counted, and every :data:`CHECK_EVERY` nodes the caller's meter
(``more(simulations done)``, :meth:`mazzo.engine.players.base.Budget.meter`)
is asked whether the search may go on: when it may not, :class:`OutOfBudget`
ends the search at once (the world's partial result is dropped), so a search
overruns its budget by at most that many nodes, whatever the size of a world.

Scopa: a position is worth, to the searching side, its points minus the best
other side's (settebello, sweeps; the cards, coins and primiera once decided,
and in proportion to the lead before). The hand's end is scored exactly by the
engine's scoring. Tressette: the thirds of a point won, the last trick and the
napoletane.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mazzo.engine.cards import COINS, DECK, SETTEBELLO, Card
from mazzo.engine.game import Move, game_winner
from mazzo.engine.players.fast_scopa import choices, greedy_play
from mazzo.engine.scopa import ScopaState, is_sweep
from mazzo.engine.scopa_scoring import _SUIT_PRIMIERA, score_hand
from mazzo.engine.tressette import CARD_THIRDS, TressetteState, playable, winning_index

#: Nodes searched between two questions to the meter.
CHECK_EVERY = 64
_COINS_MASK = ((1 << 10) - 1) << (10 * COINS)
_SETTEBELLO_BIT = 1 << SETTEBELLO
_BIT = tuple(1 << c for c in range(len(DECK)))
_SEVENS = sum(1 << (suit * 10 + 6) for suit in range(4))
_SIXES = sum(1 << (suit * 10 + 5) for suit in range(4))
#: A won or lost match against a hand's points (as mazzo.engine.players.endgame).
MATCH_WEIGHT = 100.0
_INF = float("inf")


class OutOfBudget(Exception):
    """The meter stopped the search."""


@dataclass(frozen=True)
class Evaluation:
    """How a search values what it reaches.

    ``sweep_risk``: at the search's horizon, the side to move sweeps the table
    if it can (a one-move quiescence), so a line that leaves a sweep is not
    judged as if the sweep never came. ``match``: a hand's end that wins or
    loses the match counts :data:`MATCH_WEIGHT` more or less. ``sevens``: see below."""

    sweep_risk: bool = False
    match: bool = False
    #: The primiera judged by the sevens and sixes taken (who takes three
    #: sevens nearly always has it) rather than by the sum of the suits' best.
    sevens: bool = False
    #: At the horizon the side to move takes what is worth most to it, if
    #: anything (``sweep_risk`` generalised: every taking, not only sweeps).
    captures: bool = False
    #: With ``captures``, the plies of takings searched at the horizon (each
    #: side to move takes its best, or stands).
    quiescence: int = 1
    #: At the horizon the rest is played out by the greedy player's rules of
    #: thumb for every seat: ``"round"`` until the hands are empty (then the
    #: won cards are valued as at a horizon), ``"hand"`` to the hand's end
    #: (scored exactly). ``None``: the won cards valued at the horizon itself.
    roll_out: str | None = None
    #: The other sides taken as fallible players: a reply's worth is the worst
    #: for the searching side and, with this weight, the mean of the replies
    #: (0: minimax, every side at its best).
    fallible: float = 0.0
    #: The other sides played as the fast play-outs' players: the rules of thumb,
    #: and with this probability a random card (expectimax; None: not so).
    modelled: float | None = None
    #: With ``modelled``, the model's weight against the worst reply's.
    model_share: float = 1.0


def _category(mine: int, theirs: int, half: int, scale: float) -> float:
    """A point won by the majority: 1 once decided, else the lead's share of it."""
    if mine > half:
        return 1.0
    if theirs > half:
        return -1.0
    lead = (mine - theirs) / scale
    return -0.8 if lead < -0.8 else 0.8 if lead > 0.8 else lead


def _primiera(mask: int) -> int:
    return (
        _SUIT_PRIMIERA[mask & 1023]
        + _SUIT_PRIMIERA[mask >> 10 & 1023]
        + _SUIT_PRIMIERA[mask >> 20 & 1023]
        + _SUIT_PRIMIERA[mask >> 30 & 1023]
    )


def _by_sevens(my_sevens: int, their_sevens: int, my_sixes: int, their_sixes: int) -> float:
    if my_sevens > 2:
        return 1.0
    if their_sevens > 2:
        return -1.0
    lead = 0.35 * (my_sevens - their_sevens) + 0.1 * (my_sixes - their_sixes)
    return -0.8 if lead < -0.8 else 0.8 if lead > 0.8 else lead


# The categories' worths looked up, not worked out: the static evaluation runs at
# every horizon and every taking the quiescence weighs (a third of a search's time).
#: By the cards each side won: the cards' point.
_CARDS_WORTH = tuple(
    tuple(_category(mine, theirs, 20, 10.0) for theirs in range(41)) for mine in range(41)
)
#: By the coins each side won: the coins' point.
_COINS_WORTH = tuple(
    tuple(_category(mine, theirs, 5, 4.0) for theirs in range(11)) for mine in range(11)
)
#: The primiera judged by the sevens and sixes, at ``sevens * 5 + sixes`` of
#: the side, then of the other.
_SEVENS_WORTH = tuple(
    tuple(_by_sevens(mine // 5, theirs // 5, mine % 5, theirs % 5) for theirs in range(25))
    for mine in range(25)
)


def _sevens_key(mask: int) -> int:
    return (mask & _SEVENS).bit_count() * 5 + (mask & _SIXES).bit_count()


def scopa_static(
    masks: Sequence[int], sweeps: Sequence[int], side: int, sevens: bool = False
) -> float:
    """What the won cards are worth to ``side`` against the best other side."""
    mine = masks[side]
    my_points = sweeps[side] + (mine & _SETTEBELLO_BIT != 0)  # sweeps and settebello
    cards_worth = _CARDS_WORTH[mine.bit_count()]
    coins_worth = _COINS_WORTH[(mine & _COINS_MASK).bit_count()]
    # One of the two primiera judgements, the one asked for.
    sevens_worth = _SEVENS_WORTH[_sevens_key(mine)] if sevens else ()
    my_primiera = 0 if sevens else _primiera(mine)
    worst = _INF
    for other, theirs in enumerate(masks):
        if other == side:
            continue
        worth = (
            my_points
            - sweeps[other]
            - (theirs & _SETTEBELLO_BIT != 0)
            + cards_worth[theirs.bit_count()]
            + coins_worth[(theirs & _COINS_MASK).bit_count()]
            + (
                sevens_worth[_sevens_key(theirs)]
                if sevens
                else _category(my_primiera, _primiera(theirs), 1000, 40.0)
            )
        )
        if worth < worst:
            worst = worth
    return worst


class _Root:
    """What both games' searches share: the root's moves, each worth searched."""

    points: list[float]
    _mine: float

    def _capped(
        self,
        moves: Sequence[Move],
        worth: Callable[[Move, float], float],
        cap: float | None,
        order: Callable[[Move], int],
    ) -> list[float]:
        """Each move's worth; with ``cap``, each searched with the window's floor at
        the best so far less ``cap`` (a move below it fails low at once, which
        saves most of its search), and worth at least the best less ``cap``."""
        worths = [0.0] * len(moves)
        self.points = [0.0] * len(moves)
        best = -_INF
        for index in sorted(range(len(moves)), key=lambda i: order(moves[i])):
            floor = -_INF if cap is None or best == -_INF else best - cap
            value = worth(moves[index], floor)
            worths[index], self.points[index] = max(value, floor), self._mine
            best = max(best, value)
        if cap is not None:
            worths = [max(w, best - cap) for w in worths]
        return worths


class ScopaSearch(_Root):
    """Alpha-beta over one Scopa world, for the side ``side``."""

    def __init__(
        self,
        state: ScopaState,
        side: int,
        evaluation: Evaluation,
        more: Callable[[int], bool],
        done: int = 0,
    ) -> None:
        rules = state.rules
        self.rules, self.players, self.hand_size = rules, rules.players, rules.hand_size
        self.side_of = [rules.side_of(seat) for seat in range(rules.players)]
        self.side, self.evaluation, self.more = side, evaluation, more
        self.hands = [list(h) for h in state.hands]
        self.stock, self.dealt, self.dealer = state.stock, 0, state.dealer
        self.masks = [0] * rules.sides
        for index, pile in enumerate(state.piles):
            for card in pile:
                self.masks[index] |= _BIT[card]
        self.sweeps = list(state.sweeps)
        self.scores, self.target = state.scores, rules.target
        self.declared = list(state.declared) if state.declared else []
        # ``more`` is asked with ``done``, the caller's simulations so far.
        self.done, self.nodes = done, 0
        self.start = state
        #: By root move, the side's own points this hand on the line found
        #: (past the horizon, its sweeps and settebello and a share of the rest).
        self.points: list[float] = []
        self._mine = 0.0

    def root(self, moves: Sequence[Move], depth: int, cap: float | None = None) -> list[float]:
        """The worth of each move of the seat to play, searched ``depth`` moves deep
        (the move itself the first); with ``cap``, a move worse than the best by
        more than ``cap`` is worth the best less ``cap`` (see :func:`capped`)."""
        state = self.start
        left = sum(map(len, self.hands)) + len(self.stock)
        table, last = state.table, state.last_capture_side

        def worth(move: Move, alpha: float) -> float:
            return self._play(
                state.to_play, move.card, move.take, table, last, left, depth, alpha, _INF
            )

        return self._capped(moves, worth, cap, order=lambda m: -len(m.take))

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes % CHECK_EVERY and not self.more(self.done):
            raise OutOfBudget

    def _play(
        self,
        seat: int,
        card: Card,
        take: frozenset[Card],
        table: tuple[Card, ...],
        last: int | None,
        left: int,
        depth: int,
        alpha: float,
        beta: float,
    ) -> float:
        """Play ``card`` taking ``take``, then search ``depth - 1`` moves on."""
        hand = self.hands[seat]
        at = hand.index(card)
        del hand[at]
        if take:
            side = self.side_of[seat]
            before = self.masks[side]
            bits = _BIT[card]
            for taken in take:
                bits |= _BIT[taken]
            self.masks[side] = before | bits
            sweep = len(take) == len(table) and is_sweep(self.rules, card, table, left == 1)
            if sweep:
                self.sweeps[side] += 1
            worth = self._value(
                (seat + 1) % self.players,
                tuple([c for c in table if c not in take]),
                side,
                left - 1,
                depth - 1,
                alpha,
                beta,
            )
            self.masks[side] = before
            if sweep:
                self.sweeps[side] -= 1
        else:
            worth = self._value(
                (seat + 1) % self.players, (*table, card), last, left - 1, depth - 1, alpha, beta
            )
        hand.insert(at, card)
        return worth

    def _value(
        self,
        seat: int,
        table: tuple[Card, ...],
        last: int | None,
        left: int,
        depth: int,
        alpha: float,
        beta: float,
    ) -> float:
        self._tick()
        if not left:
            return self._final(table, last)
        if not self.hands[seat]:
            return self._deal(seat, table, last, left, depth, alpha, beta)
        if depth <= 0:
            return self._horizon(seat, table, last, left, alpha, beta)
        maximising = self.side_of[seat] == self.side
        if not maximising and self.evaluation.modelled is not None:
            return self._modelled(seat, table, last, left, depth)
        if not maximising and self.evaluation.fallible:
            return self._fallible(seat, table, last, left, depth)
        best = -float("inf") if maximising else float("inf")
        mine = 0.0
        for card, take in self._moves(self.hands[seat], table):
            worth = self._play(seat, card, take, table, last, left, depth, alpha, beta)
            if maximising:
                if worth > best:
                    best, mine = worth, self._mine
                    if best > alpha:
                        alpha = best
            elif worth < best:
                best, mine = worth, self._mine
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        self._mine = mine
        return best

    def _fallible(
        self, seat: int, table: tuple[Card, ...], last: int | None, left: int, depth: int
    ) -> float:
        """An other side's turn, its replies weighed as a fallible player's: the
        worst for the searching side, and with weight ``fallible`` their mean.
        Every reply is searched with the full window (the mean needs them all)."""
        share = self.evaluation.fallible
        worst, worst_mine, total, total_mine = _INF, 0.0, 0.0, 0.0
        moves = self._moves(self.hands[seat], table)
        for card, take in moves:
            worth = self._play(seat, card, take, table, last, left, depth, -_INF, _INF)
            total += worth
            total_mine += self._mine
            if worth < worst:
                worst, worst_mine = worth, self._mine
        count = len(moves)
        self._mine = (1 - share) * worst_mine + share * total_mine / count
        return (1 - share) * worst + share * total / count

    def _modelled(
        self, seat: int, table: tuple[Card, ...], last: int | None, left: int, depth: int
    ) -> float:
        """An other side's turn played as the fast play-outs' players play it: the
        rules of thumb, and with weight ``modelled`` a random card and taking
        (expectimax, as the exact last round's model of the other seat); with
        ``model_share`` below 1, that much of the model and the rest the worst
        reply (a good player who cannot see the searching side's cards)."""
        explore, share = self.evaluation.modelled, self.evaluation.model_share
        assert explore is not None
        hand = self.hands[seat]
        greedy = greedy_play(hand, table, self.rules)
        if not explore and share == 1:  # the rules of thumb's reply alone
            return self._play(seat, *greedy, table, last, left, depth, -_INF, _INF)
        model = model_mine = 0.0
        worst, worst_mine = _INF, 0.0
        for card in list(hand):
            options = choices(card, table, self.rules)
            weight = explore / len(hand) / len(options)
            for take in options:
                worth = self._play(seat, card, take, table, last, left, depth, -_INF, _INF)
                chance = weight + (1 - explore) * ((card, take) == greedy)
                model += chance * worth
                model_mine += chance * self._mine
                if worth < worst:
                    worst, worst_mine = worth, self._mine
        self._mine = share * model_mine + (1 - share) * worst_mine
        return share * model + (1 - share) * worst

    def _moves(
        self, hand: list[Card], table: tuple[Card, ...]
    ) -> list[tuple[Card, frozenset[Card]]]:
        """The seat's moves, the biggest takings first (they prune best)."""
        moves = [(card, take) for card in list(hand) for take in choices(card, table, self.rules)]
        moves.sort(key=lambda m: -len(m[1]))
        return moves

    def _deal(
        self,
        seat: int,
        table: tuple[Card, ...],
        last: int | None,
        left: int,
        depth: int,
        alpha: float,
        beta: float,
    ) -> float:
        """Every hand is empty: the next round comes from the world's stock."""
        start, emptied = self.dealt, self.hands
        self.hands = self._round(start)
        self.dealt = start + self.players * self.hand_size
        try:
            return self._value(seat, table, last, left, depth, alpha, beta)
        finally:
            self.dealt, self.hands = start, emptied

    def _round(self, start: int) -> list[list[Card]]:
        """Every seat's hand of the round dealt from the world's stock at
        ``start``, one card at a time from the dealer's next seat."""
        players, size = self.players, self.hand_size
        hands: list[list[Card]] = [[] for _ in range(players)]
        for position in range(players):
            receiver = (self.dealer + 1 + position) % players
            hands[receiver] = list(self.stock[start + position : start + players * size : players])
        return hands

    def _horizon(
        self,
        seat: int,
        table: tuple[Card, ...],
        last: int | None,
        left: int,
        alpha: float,
        beta: float,
    ) -> float:
        if self.evaluation.roll_out:
            return self._roll_out(seat, table, last, left)
        mask = self.masks[self.side]
        self._mine = self.sweeps[self.side] + (mask & _SETTEBELLO_BIT != 0) + 1.5
        worth = scopa_static(self.masks, self.sweeps, self.side, self.evaluation.sevens)
        if self.evaluation.captures and table:
            return self._quiescence(seat, table, left, worth, alpha, beta)
        if not self.evaluation.sweep_risk or not table:
            return worth
        # The side to move sweeps the table if it can: the cost of leaving it.
        for card in self.hands[seat]:
            for take in choices(card, table, self.rules):
                if len(take) == len(table) and is_sweep(self.rules, card, table, left == 1):
                    side = self.side_of[seat]
                    self.sweeps[side] += 1
                    swept = scopa_static(self.masks, self.sweeps, self.side, self.evaluation.sevens)
                    self.sweeps[side] -= 1
                    return swept
        return worth

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
        """The side to move takes what is worth most to it (a sweep included),
        or stands on ``worth`` if no taking beats it; with ``plies`` left of
        :attr:`Evaluation.quiescence`, the next seat answers the same way.

        Within alpha-beta's window: once the side to move holds a worth outside
        it (standing, or with a taking found), the others need not be weighed,
        since a worth the side would only better is already one the line above
        turns down (a bound, as every cut node's worth)."""
        plies = plies or self.evaluation.quiescence
        side = self.side_of[seat]
        mine = side == self.side
        best, before, sevens = worth, self.masks[side], self.evaluation.sevens
        if (best >= beta) if mine else (best <= alpha):
            return best
        hand = self.hands[seat]
        following = (seat + 1) % self.players
        for card in list(hand):
            for take in choices(card, table, self.rules):
                if not take:
                    continue
                bits = _BIT[card]
                for taken in take:
                    bits |= _BIT[taken]
                self.masks[side] = before | bits
                sweep = len(take) == len(table) and is_sweep(self.rules, card, table, left == 1)
                self.sweeps[side] += sweep
                after = scopa_static(self.masks, self.sweeps, self.side, sevens)
                rest = tuple([c for c in table if c not in take])
                if plies > 1 and rest and left > 1:
                    at = hand.index(card)
                    del hand[at]
                    if self.hands[following]:
                        low, high = (max(alpha, best), beta) if mine else (alpha, min(beta, best))
                        after = self._quiescence(
                            following, rest, left - 1, after, low, high, plies - 1
                        )
                    hand.insert(at, card)
                self.sweeps[side] -= sweep
                self.masks[side] = before
                if (after > best) if mine else (after < best):
                    best = after
                    if (best >= beta) if mine else (best <= alpha):
                        return best
        return best

    def _roll_out(self, seat: int, table: tuple[Card, ...], last: int | None, left: int) -> float:
        """The rest played by the greedy player's rules of thumb (every seat), on
        copies: to the round's end (then valued as a horizon) or the hand's."""
        rules, players, side_of = self.rules, self.players, self.side_of
        hands = [list(h) for h in self.hands]
        masks, sweeps = list(self.masks), list(self.sweeps)
        dealt = self.dealt
        whole_hand = self.evaluation.roll_out == "hand"
        while left:
            hand = hands[seat]
            if not hand:
                if not whole_hand:
                    break
                hands = self._round(dealt)
                dealt += players * self.hand_size
                hand = hands[seat]
            card, take = greedy_play(hand, table, rules)
            hand.remove(card)
            left -= 1
            if take:
                side = side_of[seat]
                bits = _BIT[card]
                for taken in take:
                    bits |= _BIT[taken]
                masks[side] |= bits
                if len(take) == len(table) and is_sweep(rules, card, table, not left):
                    sweeps[side] += 1
                table = tuple([c for c in table if c not in take])
                last = side
            else:
                table = (*table, card)
            seat = (seat + 1) % players
        if not left:
            return self._final(table, last, masks, sweeps)
        self._mine = sweeps[self.side] + (masks[self.side] & _SETTEBELLO_BIT != 0) + 1.5
        return scopa_static(masks, sweeps, self.side, self.evaluation.sevens)

    def _final(
        self,
        table: tuple[Card, ...],
        last: int | None,
        won: Sequence[int] | None = None,
        sweeps: Sequence[int] | None = None,
    ) -> float:
        """The hand's end, scored by the engine's scoring (of the search's won
        cards and sweeps, or of ``won`` and ``sweeps``)."""
        masks = list(self.masks if won is None else won)
        sweeps = self.sweeps if sweeps is None else sweeps
        if table and last is not None:
            for card in table:
                masks[last] |= _BIT[card]
        piles = [[c for c in DECK if mask >> c & 1] for mask in masks]
        scored = score_hand(self.rules, piles, sweeps, self.declared)
        totals = [side.total for side in scored]
        mine = totals[self.side]
        self._mine = float(mine)
        worth = float(mine - max(t for s, t in enumerate(totals) if s != self.side))
        if self.evaluation.match:
            scores = [score + total for score, total in zip(self.scores, totals, strict=True)]
            winner = game_winner(scores, self.target)
            if winner is not None:
                worth += MATCH_WEIGHT if winner == self.side else -MATCH_WEIGHT
        return worth


class TressetteSearch(_Root):
    """Alpha-beta over one Tressette world, for the side ``side`` (two sides)."""

    def __init__(
        self,
        state: TressetteState,
        side: int,
        evaluation: Evaluation,
        more: Callable[[int], bool],
        done: int = 0,
    ) -> None:
        self.players = state.rules.players
        self.side, self.evaluation, self.more = side, evaluation, more
        self.hands = [list(h) for h in state.hands]
        self.stock, self.drawn = state.stock, 0
        self.thirds = [sum(CARD_THIRDS[c] for c in pile) for pile in state.piles]
        self.napoletana = state.napoletana
        self.scores, self.target = state.scores, state.rules.target
        # ``more`` is asked with ``done``, the caller's simulations so far.
        self.done, self.nodes = done, 0
        self.start = state
        self.points: list[float] = []  # by root move, as ScopaSearch.points
        self._mine = 0.0

    def root(self, moves: Sequence[Move], depth: int, cap: float | None = None) -> list[float]:
        """As :meth:`ScopaSearch.root`."""
        state = self.start
        trick = list(state.trick)

        def worth(move: Move, alpha: float) -> float:
            return self._play(state.to_play, move.card, trick, state.leader, depth, alpha, _INF)

        return self._capped(moves, worth, cap, order=lambda m: 0)

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes % CHECK_EVERY and not self.more(self.done):
            raise OutOfBudget

    def _play(
        self,
        seat: int,
        card: Card,
        trick: list[Card],
        leader: int,
        depth: int,
        alpha: float,
        beta: float,
    ) -> float:
        hand = self.hands[seat]
        at = hand.index(card)
        del hand[at]
        trick = [*trick, card]
        try:
            if len(trick) < self.players:
                return self._value((seat + 1) % self.players, trick, leader, depth - 1, alpha, beta)
            return self._finish(trick, leader, depth, alpha, beta)
        finally:
            hand.insert(at, card)

    def _finish(
        self, trick: list[Card], leader: int, depth: int, alpha: float, beta: float
    ) -> float:
        winner = (leader + winning_index(trick)) % self.players
        side = winner % 2
        won = sum(CARD_THIRDS[c] for c in trick)
        self.thirds[side] += won
        drawn = self.drawn
        drawers = self._draw(winner)
        try:
            if not self.hands[winner]:
                return self._final(side)
            return self._value(winner, [], winner, depth - 1, alpha, beta)
        finally:
            self.thirds[side] -= won
            for drawer in drawers:
                self.hands[drawer].pop()
            self.drawn = drawn

    def _draw(self, winner: int) -> tuple[int, ...]:
        """After a trick, while the stock lasts, each seat draws a card from it,
        the trick's winner first: the seats that drew."""
        if self.drawn >= len(self.stock):
            return ()
        drawers = (winner, 1 - winner)
        for offset, drawer in enumerate(drawers):
            self.hands[drawer].append(self.stock[self.drawn + offset])
        self.drawn += 2
        return drawers

    def _thirds_margin(self) -> float:
        """The searching side's thirds won less the other's, in points."""
        return (self.thirds[self.side] - self.thirds[1 - self.side]) / 3

    def _value(
        self, seat: int, trick: list[Card], leader: int, depth: int, alpha: float, beta: float
    ) -> float:
        self._tick()
        if depth <= 0:
            self._mine = self.thirds[self.side] / 3 + self.napoletana[self.side]
            return self._thirds_margin()
        # A copy: _play takes each card out of the hand and puts it back.
        legal = list(playable(self.hands[seat], trick))
        maximising = seat % 2 == self.side
        best = -float("inf") if maximising else float("inf")
        mine = 0.0
        for card in legal:
            worth = self._play(seat, card, trick, leader, depth, alpha, beta)
            if maximising:
                if worth > best:
                    best, mine = worth, self._mine
                    alpha = max(alpha, best)
            elif worth < best:
                best, mine = worth, self._mine
                beta = min(beta, best)
            if alpha >= beta:
                break
        self._mine = mine
        return best

    def _final(self, last_side: int) -> float:
        totals = [self.thirds[s] // 3 + (s == last_side) + self.napoletana[s] for s in range(2)]
        worth = float(totals[self.side] - totals[1 - self.side])
        self._mine = float(totals[self.side])
        if self.evaluation.match:
            scores = [score + total for score, total in zip(self.scores, totals, strict=True)]
            winner = game_winner(scores, self.target)
            if winner is not None:
                worth += MATCH_WEIGHT if winner == self.side else -MATCH_WEIGHT
        return worth
