"""Simulated deals: a full state built from one seat's view, the unseen cards
dealt at random in a way that fits everything the view shows.

One function per game builds the state (:func:`scopa_state`,
:func:`tressette_state`): when the states' shape changes, these are the only
places a player has to follow. What the view shows and the deal respects:

* the seat's own hand, the table or the trick, every pile, the counts of the
  other hands and of the stock;
* the cards others were seen to hold: Cirulla's declared hands, Tressette's
  drawn cards and declared napoletane;
* Tressette: the suits a seat has shown it lacks (:mod:`mazzo.engine.players.voids`):
  no card of such a suit is dealt to it;
* what a seat did not declare, where declaring is not a choice (Cirulla's
  hands, Tressette's napoletane): a deal that gives a seat a hand it would
  have declared is dealt again (:func:`redealt`), as each game's bots module
  says.

The stock's order is drawn at random too: nobody knows it.

A search of a few dozen deals judges a move by the other hands those deals
happen to hold, and independent deals crowd some unseen cards into a hand and
leave others out. :func:`even_dealer` deals in passes instead, so that over
the deals each other hand holds each unseen card about as often as any other
(stratified sampling). In 2-player Scopa this lifted the world search's
wins against the classic design (every world dealt alone) about as much as
four times the worlds lift that design's (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence

from mazzo.engine.cards import DECK, SUIT_OF, Card
from mazzo.engine.scopa import ScopaState, ScopaView
from mazzo.engine.state import View
from mazzo.engine.tressette import TressetteState, TressetteView


def unseen_cards(view: View) -> list[Card]:
    """The cards this seat cannot see, in the deck's order."""
    seen = {*view.hand, *(c for pile in view.piles for c in pile)}
    seen.update(c for cards in view.known for c in cards)
    seen.update(view.face_up)  # the table or the trick
    return [c for c in DECK if c not in seen]


#: Every seat's hand (the view's seat's own included) and the stock.
Dealt = tuple[list[tuple[Card, ...]], tuple[Card, ...]]
#: A way to deal the unseen cards of one choice, again and again.
Deal = Callable[[random.Random], Dealt]


def deal_unseen(view: View, rng: random.Random, voids: Sequence[int] = ()) -> Dealt:
    """Every seat's hand (its known cards, then dealt ones) and the stock.

    ``voids``: by seat, the suits (bit masks) not to deal it. Without voids the
    shuffled cards are dealt in turn. With voids, each card in turn goes to a
    holder (a seat or the stock) that may take it, drawn in proportion to the
    cards it still needs, and only if the rest can still be dealt (Hall's
    condition over the few holders).
    """
    unseen = unseen_cards(view)
    rng.shuffle(unseen)
    holders = [seat for seat in range(len(view.hand_sizes)) if seat != view.seat]
    needs = [view.hand_sizes[seat] - len(view.known[seat]) for seat in holders]
    given: list[list[Card]] = [[] for _ in holders]
    if any(voids) and _fits(
        unseen, needs, [ALL_SUITS & ~voids[s] for s in holders], view.stock_size
    ):
        allowed = [ALL_SUITS & ~voids[s] for s in holders]
        stock = _deal_around_voids(unseen, needs, allowed, view.stock_size, given, rng)
    else:
        at = 0
        for index, need in enumerate(needs):
            given[index] = unseen[at : at + need]
            at += need
        stock = unseen[at:]
    hands: list[tuple[Card, ...]] = [()] * len(view.hand_sizes)
    for index, seat in enumerate(holders):
        hands[seat] = (*view.known[seat], *given[index])
    hands[view.seat] = view.hand
    return hands, tuple(stock)


def dealer(view: View, even: bool = False, voids: Sequence[int] = ()) -> Deal:
    """The deals of one choice: :func:`even_dealer`'s with ``even``, else each
    :func:`deal_unseen`'s."""
    if even:
        return even_dealer(view, voids)
    return lambda rng: deal_unseen(view, rng, voids)


def even_dealer(view: View, voids: Sequence[int] = ()) -> Deal:
    """Deals that fit ``view``, as :func:`deal_unseen`'s, in which each other
    hand holds each unseen card about as often as any other, from one deal to
    the next.

    Each other hand draws its unknown cards from a queue of its own: passes
    of every unseen card in random order, one after the other. A card another
    hand already holds in this deal waits at the front of the queue for the
    next deal. Over ``n`` deals, a hand has then held each card as often as any
    other, give or take one pass's share and one deal. The stock (in random
    order) takes what the hands leave, or, with no stock, the last other hand
    does. Where a seat has shown a void, the deal is :func:`deal_unseen`'s
    (cards go to the seats that may hold them; no queue could keep to that).
    """
    if any(voids):
        return lambda rng: deal_unseen(view, rng, voids)
    unseen = unseen_cards(view)
    holders = [seat for seat in range(len(view.hand_sizes)) if seat != view.seat]
    needs = [view.hand_sizes[seat] - len(view.known[seat]) for seat in holders]
    # With no stock, the last other hand holds what the others leave.
    queues: list[list[Card]] = [[] for _ in holders[: None if view.stock_size else -1]]

    def deal(rng: random.Random) -> Dealt:
        held: set[Card] = set()
        # One queue short of the hands where the last hand takes the rest.
        given = [
            _draw(queue, need, held, unseen, rng)
            for queue, need in zip(queues, needs, strict=False)
        ]
        rest = [c for c in unseen if c not in held]
        rng.shuffle(rest)
        if not view.stock_size:
            given.append(rest)
            rest = []
        hands: list[tuple[Card, ...]] = [()] * len(view.hand_sizes)
        for seat, cards in zip(holders, given, strict=True):
            hands[seat] = (*view.known[seat], *cards)
        hands[view.seat] = view.hand
        return hands, tuple(rest)

    return deal


def _draw(
    queue: list[Card], need: int, held: set[Card], cards: Sequence[Card], rng: random.Random
) -> list[Card]:
    """``need`` cards from the front of ``queue`` that are not ``held`` yet
    (those wait there), a new pass of ``cards`` shuffled behind it when it runs
    short; the cards drawn join ``held``."""
    drawn: list[Card] = []
    at = 0
    while len(drawn) < need:
        if at == len(queue):
            fresh = list(cards)
            rng.shuffle(fresh)
            queue.extend(fresh)
        card = queue[at]
        if card in held:
            at += 1
            continue
        del queue[at]
        drawn.append(card)
        held.add(card)
    return drawn


#: Deals tried for one that a rule of :func:`redealt` accepts, before the last
#: one dealt is kept whatever.
TRIES = 30


def redealt(
    deal: Deal, accepts: Callable[[Dealt, random.Random], bool], tries: int = TRIES
) -> Deal:
    """``deal``, dealt again until ``accepts`` the deal (rejection sampling),
    at most ``tries`` times: then the last one dealt."""

    def dealt_again(rng: random.Random) -> Dealt:
        for _ in range(tries):
            dealt = deal(rng)
            if accepts(dealt, rng):
                break
        return dealt

    return dealt_again


ALL_SUITS = 0b1111


def _fits(cards: Sequence[Card], needs: Sequence[int], allowed: Sequence[int], stock: int) -> bool:
    """Hall's condition: every group of seats needs no more cards than there are
    cards of the suits some of them may hold (the stock takes any card)."""
    per_suit = [0, 0, 0, 0]
    for card in cards:
        per_suit[SUIT_OF[card]] += 1
    if sum(needs) + stock != len(cards):
        return False
    return _hall(per_suit, needs, allowed)


def _hall(per_suit: Sequence[int], needs: Sequence[int], allowed: Sequence[int]) -> bool:
    for group in range(1, 1 << len(needs)):
        need = suits = 0
        for index, wanted in enumerate(needs):
            if group >> index & 1:
                need += wanted
                suits |= allowed[index]
        if need > sum(n for s, n in enumerate(per_suit) if suits >> s & 1):
            return False
    return True


def _deal_around_voids(
    cards: Sequence[Card],
    needs: Sequence[int],
    allowed: Sequence[int],
    stock_size: int,
    given: list[list[Card]],
    rng: random.Random,
) -> list[Card]:
    left = list(needs) + [stock_size]
    masks = [*allowed, ALL_SUITS]
    stock: list[Card] = []
    per_suit = [0, 0, 0, 0]
    for card in cards:
        per_suit[SUIT_OF[card]] += 1
    for card in cards:
        suit = SUIT_OF[card]
        per_suit[suit] -= 1
        candidates = [k for k, mask in enumerate(masks) if left[k] and mask >> suit & 1]
        while candidates:
            pick = rng.choices(candidates, [left[k] for k in candidates])[0]
            left[pick] -= 1
            if _hall(per_suit, left[:-1], allowed):
                break
            left[pick] += 1
            candidates.remove(pick)
        else:  # unreachable when the deal fitted at the start
            raise AssertionError("no holder may take this card")
        (stock if pick == len(needs) else given[pick]).append(card)
    return stock


def scopa_state(view: ScopaView, rng: random.Random, dealt: Dealt | None = None) -> ScopaState:
    """A full Scopa state that fits ``view``, its hands and stock ``dealt``
    (by default :func:`deal_unseen`'s)."""
    assert view.rules is not None, "a view from mazzo.engine.scopa.view carries its rules"
    hands, stock = dealt or deal_unseen(view, rng)
    status = view.status
    return ScopaState(
        rules=view.rules,
        dealer=status.dealer,
        hand_number=status.hand_number,
        to_play=view.seat if status.seat_to_play is None else status.seat_to_play,
        hands=[list(hand) for hand in hands],
        table=view.table,
        stock=list(stock),
        piles=[list(pile) for pile in view.piles],
        sweeps=list(view.sweeps),
        last_capture_side=view.last_capture_side,
        scores=status.scores,
        rng=rng.getrandbits(64),
        decks=(),
        revealed=[c for cards in view.known for c in cards],
        declared=list(view.declared),
        round_plays=deque(view.round_plays),
    )


def tressette_state(
    view: TressetteView,
    rng: random.Random,
    voids: Sequence[int] = (),
    dealt: Dealt | None = None,
) -> TressetteState:
    """A full Tressette state that fits ``view``; ``voids`` from
    :func:`mazzo.engine.players.voids.shown_voids` (worked out once per choice),
    its hands and stock ``dealt`` (by default :func:`deal_unseen`'s)."""
    assert view.rules is not None, "a view from mazzo.engine.tressette.view carries its rules"
    hands, stock = dealt or deal_unseen(view, rng, voids)
    players = len(hands)
    # Cards known to others stay shown while a stock remains (drawn, declared).
    revealed = [list(view.known[seat]) if view.stock_size else [] for seat in range(players)]
    world = TressetteState.imagined(view.rules, view, hands, stock, rng.getrandbits(64))
    world.revealed = revealed
    world.declared = list(view.napoletana_suits or (0,) * players)
    world.napoletana = list(view.napoletana or (0, 0))
    return world
