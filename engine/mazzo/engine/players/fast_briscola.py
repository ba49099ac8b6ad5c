"""Briscola's hooks for the players: simulated deals, the play-out's rules of
thumb, and the greedy player's.

A play-out plays the rest of a simulated hand on a clone of the engine's own
state (:meth:`~mazzo.engine.state.State.step`), each seat choosing by the rules
of thumb, until a two-player hand's stock is gone: every card is then known,
and both seats play their best (an exact search of the last tricks: at most 36
lines, fewer with alpha-beta's cut, with a table per trump suit, made once from
the engine's ``winning_index``, of whether an answer takes a lead).

Rules of thumb (the greedy player, and the simulated players of the play-out):
lead the cheapest card, keeping trumps and points; take a trick that carries
points, with the cheapest card that takes it (a card of the suit led before a
trump); let a trick without points go, throwing the cheapest card; give
points to a partner who holds the trick when the last to play.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from mazzo.engine.briscola import (
    CARD_POINTS,
    CARD_STRENGTH,
    BriscolaState,
    BriscolaView,
    winning_index,
)
from mazzo.engine.cards import DECK, SUIT_OF, SUITS, Card
from mazzo.engine.game import CARD_MOVES, Move
from mazzo.engine.players import determinize
from mazzo.engine.players.briscola_inference import Plays
from mazzo.engine.players.games import GameBots

#: Card points a trick must carry before a trump is spent on it.
TRUMP_WORTH = 10
#: What winning a hand is worth beyond its points, to the search (in card points;
#: measured in the arena against 0 and against winning alone).
WIN_WORTH = 30.0
#: Random deals weighed for each simulated deal (see ``_simulator``).
DEALS_WEIGHED = 2

#: By lead then answer: whether the answer takes a two-card trick.
Takes = tuple[tuple[bool, ...], ...]


def play_out(
    state: BriscolaState, move: Move, rng: random.Random, explore: float
) -> tuple[int, ...]:
    """Play ``move`` then the rest of the hand with the rollout policy; the hand's
    card points by side."""
    world = state.clone()
    world.step(move)
    players = world.rules.players
    pairs = players == 4
    trump = world.trump_suit
    takes = _ANSWER_TAKES[trump]
    while not world.hand_over:
        seat = world.to_play
        hand, trick = world.hands[seat], world.trick
        if players == 2 and world.turn_up is None:  # every card known: the best play
            other = tuple(world.hands[1 - seat])
            if trick:
                card = _best_answer(tuple(hand), other, trick[0], takes)[1]
            else:
                card = _best_lead(tuple(hand), other, takes)[1]
        else:
            card = _policy(hand, trick, trump, pairs, rng, explore)
        world.step(CARD_MOVES[seat][card])
    return tuple(world.worth_won())


def _answer_takes(trump: int) -> Takes:
    """By lead then answer (card indices): whether the answer takes a two-card
    trick, by the engine's own ``winning_index`` (the end searches ask it most)."""
    return tuple(
        tuple(winning_index((lead, answer), trump) == 1 for answer in DECK) for lead in DECK
    )


#: :func:`_answer_takes` of each trump suit.
_ANSWER_TAKES = tuple(_answer_takes(trump) for trump in range(len(SUITS)))


def _best_lead(
    lead_hand: tuple[Card, ...], answer_hand: tuple[Card, ...], takes: Takes
) -> tuple[int, Card]:
    """Negamax over the tricks left (``lead_hand`` not empty): the best card-points
    margin the leader can be sure of, and the lead that makes it. Alpha-beta's cut
    at each trick: a lead whose answer already does worse than the best lead
    found is not searched further."""
    best, chosen = -1000, lead_hand[0]
    for i, lead in enumerate(lead_hand):
        rest = lead_hand[:i] + lead_hand[i + 1 :]
        margin = -_best_answer(answer_hand, rest, lead, takes, -best)[0]
        if margin > best:
            best, chosen = margin, lead
    return best, chosen


def _best_answer(
    hand: tuple[Card, ...], other: tuple[Card, ...], lead: Card, takes: Takes, cut: int = 1000
) -> tuple[int, Card]:
    """Two players, every card known: the best margin the answering seat can be
    sure of against ``lead``, from ``hand`` (``other``: the leader's cards left),
    and the answer that makes it. Once the margin reaches ``cut`` the leader will
    not choose this lead, and the search of it stops."""
    best, chosen = -1000, hand[0]
    for i, answer in enumerate(hand):
        rest = hand[:i] + hand[i + 1 :]
        taken = CARD_POINTS[lead] + CARD_POINTS[answer]
        if takes[lead][answer]:
            margin = taken + (_best_lead(rest, other, takes)[0] if rest else 0)
        else:
            margin = -taken - (_best_lead(other, rest, takes)[0] if rest else 0)
        if margin > best:
            best, chosen = margin, answer
            if best >= cut:
                break
    return best, chosen


def _cheapest(card: Card, trump: int) -> tuple[bool, int, int]:
    """The order of what a card gives up when played: trumps last, then points, strength."""
    return (SUIT_OF[card] == trump, CARD_POINTS[card], CARD_STRENGTH[card])


def _takers(hand: Sequence[Card], trick: Sequence[Card], trump: int) -> list[Card]:
    """The cards of ``hand`` that would take ``trick`` as it stands."""
    best = trick[winning_index(trick, trump)]
    best_suit = SUIT_OF[best]
    return [
        c
        for c in hand
        if (SUIT_OF[c] == best_suit and CARD_STRENGTH[c] > CARD_STRENGTH[best])
        or (SUIT_OF[c] == trump and best_suit != trump)
    ]


def _policy(
    hand: list[Card],
    trick: list[Card],
    trump: int,
    pairs: bool,
    rng: random.Random,
    explore: float,
) -> Card:
    if len(hand) == 1:
        return hand[0]
    if rng.random() < explore:
        return rng.choice(hand)
    if trick:
        if pairs and winning_index(trick, trump) == len(trick) - 2:  # the partner holds it
            if len(trick) == 3:  # last to play: load it with points
                return max(hand, key=lambda c: (SUIT_OF[c] != trump, CARD_POINTS[c]))
            return min(hand, key=lambda c: _cheapest(c, trump))
        on_trick = sum(map(CARD_POINTS.__getitem__, trick))
        takers = _takers(hand, trick, trump)
        plain = [c for c in takers if SUIT_OF[c] != trump]
        if plain:
            return min(plain, key=CARD_STRENGTH.__getitem__)
        if takers and on_trick >= TRUMP_WORTH:
            return min(takers, key=CARD_STRENGTH.__getitem__)
    return min(hand, key=lambda c: _cheapest(c, trump))


def move_value(view: BriscolaView, move: Move) -> float:
    """The greedy player's worth of a move: the points it takes or gives away, less
    what spending a trump or a strong card costs."""
    return card_value(move.card, view.hand, view.trick, view.trump_suit, len(view.hand_sizes))


def card_value(
    card: Card, hand: Sequence[Card], trick: Sequence[Card], trump: int, players: int
) -> float:
    """:func:`move_value` of playing ``card`` from ``hand`` to ``trick``."""
    is_trump = SUIT_OF[card] == trump
    cost = CARD_POINTS[card] + (TRUMP_WORTH if is_trump else 0) + CARD_STRENGTH[card] / 10
    if not trick:
        return -cost
    if players == 4 and winning_index(trick, trump) == len(trick) - 2:
        last = len(trick) == players - 1
        return (CARD_POINTS[card] if last and not is_trump else 0) - cost / 2
    on_trick = sum(map(CARD_POINTS.__getitem__, trick))
    if card in _takers(hand, trick, trump):
        gain = on_trick + CARD_POINTS[card]
        return gain - (TRUMP_WORTH if is_trump else 0) - CARD_STRENGTH[card] / 10 + 1
    return -cost


def reward(points: Sequence[int], side: int) -> float:
    """A simulated hand's worth to ``side``: its card points over the best other
    side's, and :data:`WIN_WORTH` more for winning the hand (less for losing it):
    a hand is won or lost, 61 points are as good as 80."""
    margin = points[side] - max(p for s, p in enumerate(points) if s != side)
    return margin + (WIN_WORTH if margin > 0 else -WIN_WORTH if margin < 0 else 0.0)


def _simulator(view: BriscolaView) -> Callable[[random.Random], BriscolaState]:
    """Full states that fit ``view``: the other hands dealt as the others' plays
    make likely (:mod:`mazzo.engine.players.briscola_inference`), the rest of the
    unseen cards the stock in a random order, the turn-up under it while it lies
    there.

    The hands come from a pool that every deal adds :data:`DEALS_WEIGHED` random
    deals to, each with its weight; a deal draws its hands from the whole pool by
    weight (sampling importance resampling), so the cost of weighing stays a small
    share of the play-outs however sharp the weights."""
    plays = Plays(view, card_value)
    unseen = determinize.unseen_cards(view)
    pool: list[tuple[tuple[Card, ...], ...]] = []  # the hands of the deals weighed, by seat
    totals: list[float] = []  # the running sum of their weights

    def hands(rng: random.Random) -> tuple[tuple[Card, ...], ...]:
        for _ in range(DEALS_WEIGHED):
            dealt = tuple(determinize.deal_unseen(view, rng)[0])
            weight = plays.weight(dealt, rng)
            if weight > 0:
                pool.append(dealt)
                totals.append(weight + (totals[-1] if totals else 0.0))
        if not pool:  # no deal fitted the plays (a guard: dealt hands hold their known cards)
            return tuple(determinize.deal_unseen(view, rng)[0])
        return rng.choices(pool, cum_weights=totals)[0]

    def deal(rng: random.Random) -> BriscolaState:
        dealt = hands(rng)
        held = {c for hand in dealt for c in hand}
        stock = [c for c in unseen if c not in held]
        rng.shuffle(stock)
        world = BriscolaState.imagined(view.rules, view, dealt, stock, rng.getrandbits(64))
        world.turn_up, world.trump = view.turn_up, view.trump
        return world

    return deal


#: Briscola's hooks for the players (mazzo.engine.players.games).
BOTS = GameBots(simulator=_simulator, play_out=play_out, move_value=move_value, reward=reward)
