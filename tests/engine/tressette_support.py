"""Shared helpers for the Tressette engine tests: exact states, explicit decks, walks.

A :class:`TressetteState` plays in place (``events = state.apply(move)``); the
helpers that play several moves (:func:`play`, :func:`play_hand`, :func:`steps`)
play on a clone and hand back the state after them, so a test keeps the one
before.

The card helpers (``cards``, ``card``, ``rest_of``, ``shuffled_deck``,
``cards_in``) come from ``scopa_support``: they know nothing of Scopa. What is
here is Tressette's: states built field by field, decks that deal given hands,
random walks through whole games, and :class:`Observer`, an independent model
of what one seat has been shown.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from mazzo.engine.cards import DECK, Card
from mazzo.engine.errors import RuleError
from mazzo.engine.events import (
    CardDrawn,
    CardPlayed,
    CardsDealt,
    Deal,
    Event,
    GameOver,
    HandScored,
    NapoletanaDeclared,
    TrickWon,
)
from mazzo.engine.game import IllegalMove, Move
from mazzo.engine.registry import dump_state, load_state
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.scopa_support import card, cards, cards_in, rest_of, shuffled_deck, zone

__all__ = [
    "ORDER",
    "Observer",
    "Step",
    "all_cards",
    "card",
    "cards",
    "cards_in",
    "check_view",
    "deck_dealing",
    "expected_deal",
    "first_move",
    "illegal",
    "make_state",
    "napoletana_of",
    "play",
    "play_hand",
    "random_chooser",
    "refusal",
    "rest_of",
    "shuffled_deck",
    "start",
    "steps",
    "walk",
]

Zone = str | Sequence[Card]

#: docs/rules.md's strength, strongest first: 3, 2, ace, king, knight, jack, 7, 6, 5, 4.
ORDER = (3, 2, 1, 10, 9, 8, 7, 6, 5, 4)


def napoletana_of(suit: int) -> tuple[Card, ...]:
    """The 3, 2 and ace of ``suit``."""
    return (Card.of(3, suit), Card.of(2, suit), Card.of(1, suit))


# ---------------------------------------------------------------- states and decks


def make_state(
    *,
    hands: Sequence[Zone],
    trick: Zone = (),
    leader: int = 0,
    stock: Zone = (),
    piles: Sequence[Zone] = ((), ()),
    revealed: Sequence[Zone] | None = None,
    declared: Sequence[int] | None = None,
    napoletana: Sequence[int] = (0, 0),
    scores: Sequence[int] = (0, 0),
    dealer: int | None = None,
    rules: TressetteRules | None = None,
    hand_number: int = 1,
    rng: int = 12345,
    winner: int | None = None,
    fill: str | int | None = None,
) -> TressetteState:
    """A state exactly as given; the seat to play is ``leader`` + the cards in the trick.

    ``fill`` puts every card no zone names somewhere so the state holds the 40
    cards: ``"stock"`` appends them to the stock, a side number to that side's pile.
    """
    rules = rules or TressetteRules(players=len(hands))
    players = rules.players
    assert len(hands) == players
    hand_zones = tuple(zone(h) for h in hands)
    trick_zone = zone(trick)
    stock_zone = zone(stock)
    pile_zones = [zone(p) for p in piles]
    if fill is not None:
        rest = rest_of(*hand_zones, trick_zone, stock_zone, *pile_zones)
        if fill == "stock":
            stock_zone += rest
        else:
            assert isinstance(fill, int)
            pile_zones[fill] += rest
    return TressetteState(
        rules=rules,
        dealer=(leader - 1) % players if dealer is None else dealer,
        hand_number=hand_number,
        to_play=(leader + len(trick_zone)) % players,
        leader=leader,
        hands=[list(h) for h in hand_zones],
        trick=list(trick_zone),
        stock=list(stock_zone),
        piles=[list(p) for p in pile_zones],
        revealed=[list(zone(r)) for r in revealed] if revealed else [[] for _ in range(players)],
        declared=list(declared) if declared else [0] * players,
        napoletana=list(napoletana),
        scores=tuple(scores),
        rng=rng,
        decks=(),
        winner=winner,
    )


def expected_deal(
    deck: Sequence[Card], players: int, dealer: int
) -> tuple[list[list[Card]], list[Card]]:
    """docs/rules.md's deal, written out: one card at a time from the top, starting with
    the seat after the dealer, until each holds 10; the rest is the stock (as a
    state holds them: lists)."""
    hands: list[list[Card]] = [[] for _ in range(players)]
    pos = 0
    while pos < 10 * players:
        seat = (dealer + 1 + pos) % players
        hands[seat].append(deck[pos])
        pos += 1
    return hands, list(deck[pos:])


def deck_dealing(hands: Sequence[str], stock: str = "", dealer: int | None = None) -> tuple:
    """A 40-card deck order that deals ``hands`` (10 cards each, by seat) with
    ``dealer`` dealing (default the last seat), then has ``stock`` on top of the
    stock; the other cards follow in deck order."""
    players = len(hands)
    dealer = players - 1 if dealer is None else dealer
    by_seat = [cards(h) for h in hands]
    assert all(len(h) == 10 for h in by_seat), "give each seat its 10 cards"
    order = [(dealer + k) % players for k in range(1, players + 1)]
    top = tuple(by_seat[seat][i] for i in range(10) for seat in order) + cards(stock)
    assert len(set(top)) == len(top)
    return top + rest_of(top)


def start(
    players: int = 2,
    deck: Sequence[Card] | None = None,
    seed: int = 1,
    first_dealer: int | None = None,
    **rules_kw: object,
) -> tuple[TressetteState, list[Event]]:
    rules = TressetteRules(players=players, **rules_kw)  # type: ignore[arg-type]
    decks = [deck] if deck is not None else []
    return TressetteState.new_game(rules, seed=seed, decks=decks, first_dealer=first_dealer)


def all_cards(state: TressetteState) -> list[Card]:
    """Every card the state holds, zone after zone (duplicates kept)."""
    return [c for z in (*state.hands, state.trick, state.stock, *state.piles) for c in z]


# ---------------------------------------------------------------- moves and walks


def first_move(state: TressetteState) -> Move:
    return state.legal_moves()[0]


def random_chooser(seed: int) -> Callable[[TressetteState], Move]:
    rnd = random.Random(seed)

    def choose(state: TressetteState) -> Move:
        return rnd.choice(state.legal_moves())

    return choose


@dataclass(frozen=True)
class Step:
    before: TressetteState
    move: Move
    after: TressetteState
    events: list[Event]


def steps(
    state: TressetteState, choose: Callable[[TressetteState], Move], limit: int = 5000
) -> Iterator[Step]:
    """Play ``choose``'s moves until the game is over, each on a clone of the state
    before it (``state`` itself is left as it was)."""
    for _ in range(limit):
        if state.game_over:
            return
        move = choose(state)
        after = state.clone()
        events = after.apply(move)
        yield Step(state, move, after, events)
        state = after
    raise AssertionError("the game did not end")


def walk(
    players: int, seed: int, choice_seed: int, **rules_kw: object
) -> tuple[TressetteState, list[Event], list[Step]]:
    """A whole random game: the first state, its events, then every step."""
    state, events = start(players, seed=seed, **rules_kw)
    return state, events, list(steps(state, random_chooser(choice_seed)))


def play(state: TressetteState, *texts: str) -> tuple[TressetteState, list[Event]]:
    """Play the named cards one after the other, each by the seat to play, on a
    clone of ``state``: the state after them and their events."""
    state = state.clone()
    events: list[Event] = []
    for text in texts:
        events += state.apply(Move(state.to_play, card(text)))
    return state, events


def play_hand(
    state: TressetteState, choose: Callable[[TressetteState], Move] = first_move
) -> tuple[TressetteState, list[Event]]:
    """Play until a hand is scored, on a clone of ``state``; return the state after
    it and every event."""
    state = state.clone()
    events: list[Event] = []
    while True:
        new = state.apply(choose(state))
        events.extend(new)
        if any(isinstance(e, HandScored) for e in new):
            return state, events


def refusal(state: TressetteState, move: Move) -> RuleError:
    """The refusal ``state.apply`` raises for ``move`` (fails if it is accepted), after
    checking that the state, played in place, is untouched and still plays as before."""
    data = dump_state(state)
    try:
        state.apply(move)
    except RuleError as exc:
        assert dump_state(state) == data
        again = load_state(data)
        assert again == state
        if not state.game_over:
            played = state.clone()
            assert played.apply(played.legal_moves()[0]) == again.apply(again.legal_moves()[0])
            assert played == again
        return exc
    raise AssertionError(f"{move} was accepted")


def illegal(state: TressetteState, move: Move) -> IllegalMove:
    exc = refusal(state, move)
    assert isinstance(exc, IllegalMove), exc
    return exc


# ---------------------------------------------------------------- what a seat was shown


class Observer:
    """What one seat has been shown, built only from the events routed to it.

    It reads an event only if ``visible_to`` is ``None`` or its seat, exactly as a
    front end would, and keeps its own hand, the trick, the piles, the counts,
    and the other seats' cards it was shown (drawn, declared) and has not seen
    played. With two players and the stock gone it deduces the opponent's hand:
    every card it has neither in hand nor seen played this hand.
    """

    def __init__(self, seat: int, players: int):
        self.seat = seat
        self.players = players
        self.hand: list[Card] = []
        self.shown: dict[int, list[Card]] = {}
        self.played: set[Card] = set()
        self.trick: list[Card] = []
        self.piles: list[list[Card]] = [[], []]
        self.hand_sizes: list[int] = [0] * players
        self.stock_size = 0
        self.leader = 0
        self.game_over = False

    def see_all(self, events: Sequence[Event]) -> None:
        for event in events:
            if event.visible_to in (None, self.seat):
                self.see(event)

    def see(self, event: Event) -> None:
        if isinstance(event, Deal):
            assert event.table == ()
            self.hand = []
            self.shown = {s: [] for s in range(self.players) if s != self.seat}
            self.played = set()
            self.trick = []
            self.piles = [[], []]
            self.hand_sizes = list(event.hand_sizes)
            self.stock_size = event.stock_size
            self.leader = (event.dealer + 1) % self.players
        elif isinstance(event, CardsDealt):
            assert event.seat == self.seat, "another seat's cards reached this seat"
            self.hand = list(event.cards)
        elif isinstance(event, NapoletanaDeclared):
            if event.seat != self.seat:
                self.shown[event.seat] += [
                    c for c in event.cards if c not in self.shown[event.seat]
                ]
        elif isinstance(event, CardPlayed):
            if event.seat == self.seat:
                self.hand.remove(event.card)
            elif event.card in self.shown[event.seat]:
                self.shown[event.seat].remove(event.card)
            self.hand_sizes[event.seat] -= 1
            self.trick.append(event.card)
            self.played.add(event.card)
        elif isinstance(event, TrickWon):
            assert event.cards == tuple(self.trick)
            assert event.leader == self.leader
            self.piles[event.side] += event.cards
            self.trick = []
            self.leader = event.seat
        elif isinstance(event, CardDrawn):
            self.stock_size -= 1
            self.hand_sizes[event.seat] += 1
            if event.seat == self.seat:
                self.hand.append(event.card)
            else:
                self.shown[event.seat].append(event.card)
        elif isinstance(event, GameOver):
            self.game_over = True
        else:
            assert isinstance(event, HandScored), event

    def known(self) -> list[set[Card]]:
        """By seat, the other seats' cards this seat knows (nothing for its own)."""
        out: list[set[Card]] = []
        for other in range(self.players):
            if other == self.seat:
                out.append(set())
            elif self.players == 2 and self.stock_size == 0:
                out.append(set(DECK) - set(self.hand) - self.played)
            else:
                out.append(set(self.shown[other]))
        return out


def check_view(state: TressetteState, seat: int, observer: Observer) -> None:
    """``state.view(seat)`` shows exactly what ``observer`` was shown, and nothing
    of another hand or the stock beyond it."""
    seen = state.view(seat)
    names = {f.name for f in dataclasses.fields(seen)}
    assert not names & {"hands", "stock", "rng", "decks", "revealed", "declared"}
    assert seen.seat == seat
    assert seen.side == seat % 2
    assert sorted(seen.hand) == sorted(observer.hand)
    assert len(seen.hand) == len(observer.hand)
    assert seen.trick == tuple(observer.trick)
    assert seen.leader == observer.leader
    assert seen.hand_sizes == tuple(observer.hand_sizes)
    assert seen.stock_size == observer.stock_size
    assert seen.piles == tuple(tuple(p) for p in observer.piles)
    assert seen.status == state.status()
    known = observer.known()
    assert len(seen.known) == state.rules.players
    for other, cards_known in enumerate(seen.known):
        assert len(set(cards_known)) == len(cards_known), "a known card listed twice"
        assert set(cards_known) == known[other], (seat, other)
        # What the observer deduced is true.
        assert known[other] <= set(state.hands[other])
    # Nothing of another hand or the stock the seat was not shown.
    shown_anywhere = set(cards_in(seen))
    allowed = set(observer.hand) | observer.played | set().union(*known)
    assert shown_anywhere <= allowed
    hidden = {c for s, h in enumerate(state.hands) if s != seat for c in h} | set(state.stock)
    assert shown_anywhere & hidden <= set().union(*known)
    assert not shown_anywhere & set(state.stock)
