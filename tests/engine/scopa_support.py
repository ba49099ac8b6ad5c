"""Shared helpers for the Scopa engine tests: build exact situations, walk games.

Imported as a plain module (``from scopa_support import ...``): pytest puts this
directory on ``sys.path`` because it has no ``__init__.py``.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from mazzo.engine.cards import DECK, Card, parse_cards
from mazzo.engine.events import CardsDealt, Deal, Event, HandScored, Redeal
from mazzo.engine.game import IllegalMove, Move
from mazzo.engine.scopa import ScopaRules, ScopaState

Zone = str | Sequence[Card]


def cards(text: str) -> tuple[Card, ...]:
    """``cards("7D 3C")`` -> the two cards, in that order."""
    return parse_cards(text.split())


def card(text: str) -> Card:
    (only,) = cards(text)
    return only


def zone(value: Zone) -> tuple[Card, ...]:
    return cards(value) if isinstance(value, str) else tuple(value)


def rest_of(*zones: Zone) -> tuple[Card, ...]:
    """The cards of the deck (canonical order) that none of ``zones`` holds."""
    used = {c for z in zones for c in zone(z)}
    return tuple(c for c in DECK if c not in used)


def deck_starting_with(top: Zone) -> tuple[Card, ...]:
    """A full 40-card deck order whose first cards are ``top``; the rest in deck order."""
    head = zone(top)
    return head + rest_of(head)


def shuffled_deck(seed: int) -> tuple[Card, ...]:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return tuple(deck)


def make_state(
    *,
    hands: Sequence[Zone],
    table: Zone = (),
    stock: Zone = (),
    piles: Sequence[Zone] | None = None,
    to_play: int = 0,
    dealer: int | None = None,
    rules: ScopaRules | None = None,
    sweeps: Sequence[int] | None = None,
    scores: Sequence[int] | None = None,
    last_capture_side: int | None = None,
    hand_number: int = 1,
    rng: int = 12345,
    winner: int | None = None,
    fill: str | int | None = None,
) -> ScopaState:
    """A state exactly as given.

    ``fill`` puts every card no zone names somewhere, so the state holds the 40
    cards: ``"stock"`` appends them to the stock (after the given stock cards),
    a side number adds them to that side's pile.
    """
    rules = rules or ScopaRules(players=len(hands))
    assert rules.players == len(hands)
    hand_zones = [zone(h) for h in hands]
    table_zone = zone(table)
    stock_zone = zone(stock)
    pile_zones = [zone(p) for p in piles] if piles is not None else [()] * rules.sides
    assert len(pile_zones) == rules.sides
    if fill is not None:
        rest = rest_of(*hand_zones, table_zone, stock_zone, *pile_zones)
        if fill == "stock":
            stock_zone += rest
        else:
            assert isinstance(fill, int)
            pile_zones[fill] += rest
    return ScopaState(
        rules=rules,
        dealer=(to_play - 1) % rules.players if dealer is None else dealer,
        hand_number=hand_number,
        to_play=to_play,
        hands=[list(h) for h in hand_zones],
        table=table_zone,
        stock=list(stock_zone),
        piles=[list(p) for p in pile_zones],
        sweeps=list(sweeps) if sweeps is not None else [0] * rules.sides,
        last_capture_side=last_capture_side,
        scores=tuple(scores) if scores is not None else (0,) * rules.sides,
        rng=rng,
        decks=(),
        winner=winner,
    )


def all_cards(state: ScopaState) -> list[Card]:
    """Every card the state holds, zone after zone (duplicates kept)."""
    return [c for z in (*state.hands, state.table, state.stock, *state.piles) for c in z]


def replaced(state: ScopaState, **fields: object) -> ScopaState:
    """A clone of ``state`` with ``fields`` set (the original untouched), made as
    the state's own constructor makes it (its round's plays a bounded deque)."""
    return dataclasses.replace(state.clone(), **fields)


def applied(
    state: ScopaState, move: Move, entropy: int | None = None
) -> tuple[ScopaState, list[Event]]:
    """``move`` played on a clone of ``state``: the state after and the events;
    ``state`` itself is left as it was."""
    after = state.clone()
    events = after.apply(move, entropy)
    return after, events


def first_move(state: ScopaState) -> Move:
    return state.legal_moves()[0]


def random_chooser(seed: int) -> Callable[[ScopaState], Move]:
    rnd = random.Random(seed)

    def choose(state: ScopaState) -> Move:
        return rnd.choice(state.legal_moves())

    return choose


@dataclass(frozen=True)
class Step:
    before: ScopaState
    move: Move
    after: ScopaState
    events: list[Event]


def steps(
    state: ScopaState, choose: Callable[[ScopaState], Move], limit: int = 5000
) -> Iterator[Step]:
    """Play ``choose``'s moves until the game is over."""
    for _ in range(limit):
        if state.game_over:
            return
        move = choose(state)
        after, events = applied(state, move)
        yield Step(state, move, after, events)
        state = after
    raise AssertionError("the game did not end")


def play_hand(
    state: ScopaState, choose: Callable[[ScopaState], Move] = first_move
) -> tuple[ScopaState, list[Event]]:
    """Play until a hand is scored (on a clone: ``state`` is left as it was);
    return the state after it and every event."""
    state = state.clone()
    events: list[Event] = []
    while True:
        new = state.apply(choose(state))
        events.extend(new)
        if any(isinstance(e, HandScored) for e in new):
            return state, events


def deals_of(events: Sequence[Event]) -> list[Deal]:
    return [e for e in events if isinstance(e, Deal)]


def dealt_to(events: Sequence[Event]) -> dict[int, tuple[Card, ...]]:
    return {e.seat: e.cards for e in events if isinstance(e, CardsDealt)}


def hands_of(state: ScopaState) -> tuple[tuple[Card, ...], ...]:
    """The state's hands as tuples, as the events and :func:`expected_deal` write them."""
    return tuple(map(tuple, state.hands))


def dealt(
    state: ScopaState,
) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...], tuple[Card, ...]]:
    """The state's hands, table and stock, as :func:`expected_deal` writes them."""
    return hands_of(state), state.table, tuple(state.stock)


def expected_deal(
    deck: Sequence[Card], players: int, dealer: int
) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...], tuple[Card, ...]]:
    """Hands, table and stock dealt from ``deck`` by docs/rules.md, computed independently.

    One card at a time to each seat, starting with the seat after the dealer,
    three rounds; then four table cards; the rest is the stock.
    """
    hands: list[list[Card]] = [[] for _ in range(players)]
    pos = 0
    for _round in range(3):
        for k in range(1, players + 1):
            hands[(dealer + k) % players].append(deck[pos])
            pos += 1
    return tuple(tuple(h) for h in hands), tuple(deck[pos : pos + 4]), tuple(deck[pos + 4 :])


def start(
    players: int = 2,
    deck: Sequence[Card] | None = None,
    seed: int = 1,
    **rules_kw: object,
) -> tuple[ScopaState, list[Event]]:
    rules = ScopaRules(players=players, **rules_kw)  # type: ignore[arg-type]
    decks = [deck] if deck is not None else []
    return ScopaState.new_game(rules, seed=seed, decks=decks)


def refusal(state: ScopaState, move: Move) -> IllegalMove:
    """The IllegalMove ``apply`` raises for ``move`` (fails if it is accepted);
    a refusal leaves the state as it was."""
    before = state.clone()
    try:
        state.apply(move)
    except IllegalMove as exc:
        assert state == before, "a refused move changed the state"
        return exc
    raise AssertionError(f"{move} was accepted")


def redeal_events(events: Sequence[Event]) -> list[Redeal]:
    return [e for e in events if isinstance(e, Redeal)]


# ---------------------------------------------------------------- hidden information


def cards_in(value: object) -> list[Card]:
    """Every card anywhere inside ``value`` (dataclasses, tuples, sets, dicts...)."""
    found: list[Card] = []

    def walk(item: object) -> None:
        if isinstance(item, Card):
            found.append(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            for f in dataclasses.fields(item):
                if f.name != "rules":  # a view's rules name a card (re bello): nothing shown
                    walk(getattr(item, f.name))
        elif isinstance(item, dict):
            for key, val in item.items():
                walk(key)
                walk(val)
        elif isinstance(item, (tuple, list, set, frozenset)):
            for sub in item:
                walk(sub)

    walk(value)
    return found


def hidden_from(state: ScopaState, seat: int) -> set[Card]:
    """The cards ``seat`` may not see: the other hands and the stock."""
    others = {c for s, hand in enumerate(state.hands) if s != seat for c in hand}
    return others | set(state.stock)


def check_view(state: ScopaState, seat: int) -> None:
    """``state.view(seat)`` shows what docs/rules.md allows and nothing it forbids."""
    seen = state.view(seat)
    assert seen.seat == seat
    assert seen.side == state.rules.side_of(seat)
    assert seen.hand == tuple(state.hands[seat])
    assert seen.table == state.table
    assert seen.hand_sizes == tuple(len(h) for h in state.hands)
    assert seen.stock_size == len(state.stock)
    assert seen.piles == tuple(map(tuple, state.piles))
    assert seen.sweeps == tuple(state.sweeps)
    assert seen.status == state.status()
    names = {f.name for f in dataclasses.fields(seen)}
    assert not names & {"hands", "stock", "rng", "decks"}
    shown = set(cards_in(seen))
    assert not shown & hidden_from(state, seat)
    public = set(state.table).union(*state.piles)
    assert shown <= public | set(state.hands[seat])


def check_deal_events(state: ScopaState, events: Sequence[Event], *, first: bool) -> None:
    """A deal's events: the face-up table and counts for all, each hand for its seat only."""
    deal = [e for e in events if isinstance(e, Deal)]
    assert len(deal) == 1
    assert deal[0].visible_to is None
    assert deal[0].table == (state.table if first else ())
    assert deal[0].hand_sizes == tuple(len(h) for h in state.hands)
    assert deal[0].stock_size == len(state.stock)
    dealt = [e for e in events if isinstance(e, CardsDealt)]
    assert [e.seat for e in dealt] == list(range(state.rules.players))
    for e in dealt:
        assert e.visible_to == e.seat
        assert e.cards == tuple(state.hands[e.seat])
    for e in events:
        if isinstance(e, Redeal):
            assert e.visible_to is None


def check_step_events(before: ScopaState, move: Move, after: ScopaState, events: Sequence[Event]):
    """Only CardsDealt is private; public events name only cards that are face up."""
    for e in events:
        if isinstance(e, CardsDealt):
            assert e.visible_to == e.seat
        else:
            assert e.visible_to is None
    scored = next((i for i, e in enumerate(events) if isinstance(e, HandScored)), None)
    this_hand = events if scored is None else events[: scored + 1]
    next_hand = [] if scored is None else events[scored + 1 :]
    # Within the hand: the played card, the table and the piles are all a public event
    # may name; a later deal's cards go to their seats only.
    face_up = {move.card} | set(before.table) | set().union(*before.piles)
    for e in this_hand:
        if e.visible_to is None:
            assert set(cards_in(e)) <= face_up, e
    later_deal = [e for e in this_hand if isinstance(e, (Deal, CardsDealt))]
    if later_deal:
        check_deal_events(after, later_deal, first=False)
    if next_hand and not after.game_over:
        check_deal_events(after, next_hand, first=True)
    # No card hidden from a seat after this step is shown to it by the step's events.
    # (When a hand ends, the old hand's cards were all face up before the new deal, and a
    # void table's cards went back into the shuffle: only the new deal can leak.)
    relevant = [e for e in next_hand if not isinstance(e, Redeal)] if next_hand else events
    for seat in range(after.rules.players):
        shown = {c for e in relevant if e.visible_to in (None, seat) for c in cards_in(e)}
        assert not shown & hidden_from(after, seat), seat
