"""Shuffling and dealing, the same for every game (docs/rules.md, Seats, dealing).

A game takes its decks from a list of explicit deck orders first (tests,
replays, duplicate tournaments), then from the seeded generator; cards are
dealt one at a time from the top, in turn order starting with the seat after
the dealer.

A *fresh* game (one started without a seed or decks by a caller that must not
be able to predict its cards) keeps the cards still to deal in card order,
a set rather than a sequence, and shuffles them with entropy given to each
move that deals or draws (:func:`fresh_order`): the engine still draws no
randomness of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from mazzo.engine import rng
from mazzo.engine.cards import DECK, Card, check_full_deck
from mazzo.engine.errors import InvalidInput, Reason
from mazzo.engine.events import CardsDealt, Deal, Event

Deck = tuple[Card, ...]
Hands = tuple[tuple[Card, ...], ...]


def check_seed(seed: int) -> int:
    if type(seed) is not int or not 0 <= seed <= rng.MASK64:
        raise invalid_seed()
    return seed


def invalid_seed() -> InvalidInput:
    """The refusal of a seed that is not an integer in 0 .. 2**64-1."""
    return InvalidInput(Reason.INVALID_SEED, "the seed must be an integer in 0 .. 2**64-1")


def check_decks(decks: Sequence[Sequence[Card]]) -> tuple[Deck, ...]:
    explicit = tuple(tuple(deck) for deck in decks)
    for deck in explicit:
        check_full_deck(deck)
    return explicit


def first_dealer(players: int, requested: int | None) -> int:
    """The requested dealer, or by default the last seat (so seat 0 leads)."""
    dealer = players - 1 if requested is None else requested
    if type(dealer) is not int or not 0 <= dealer < players:
        raise InvalidInput(
            Reason.INVALID_SEAT,
            "first dealer must be a seat 0..{last}, not {dealer}",
            {"option": "first_dealer"},
            last=players - 1,
            dealer=dealer,
        )
    return dealer


def checked_start(
    players: int, seed: int, decks: Sequence[Sequence[Card]], requested_dealer: int | None
) -> tuple[int, int, tuple[Deck, ...]]:
    """What every game checks to start: the first dealer, the seed (the generator's
    first state) and the explicit decks."""
    return first_dealer(players, requested_dealer), check_seed(seed), check_decks(decks)


def next_deck(rng_state: int, decks: tuple[Deck, ...]) -> tuple[int, Deck, tuple[Deck, ...]]:
    """The next deck order: the first explicit one left, else a seeded shuffle.

    Returns the generator's new state, the deck and the explicit decks left.
    """
    if decks:
        return rng_state, decks[0], decks[1:]
    rng_state, deck = rng.shuffled(rng_state, DECK)
    return rng_state, deck, decks


def fresh_order(cards: Deck, entropy: int | None) -> Deck:
    """``cards`` shuffled with ``entropy``: the fresh randomness a game without a
    seed takes at each deal and draw (the caller supplies it; the engine draws none)."""
    return rng.shuffled(required_entropy(entropy), cards)[1]


def required_entropy(entropy: int | None) -> int:
    """The entropy a fresh game's deal or draw needs, checked: 64 bits, given."""
    if entropy is None:
        raise ValueError("this game deals with fresh randomness: apply() needs entropy")
    return check_seed(entropy)


def unordered(cards: Deck) -> Deck:
    """The cards still to deal of a game without a seed, as a set: in card order,
    so that the state fixes nothing of the order they will come in."""
    return tuple(sorted(cards))


def deal_round(stock: Deck, players: int, dealer: int, per_hand: int) -> tuple[Hands, Deck]:
    """Deal ``per_hand`` cards each, one at a time from the top, starting after the dealer.

    Returns the hands by seat and what is left of the stock.
    """
    hands: list[Deck] = [()] * players
    dealt = players * per_hand
    for position in range(players):
        # One at a time: the seat at ``position`` after the dealer gets every
        # players-th card from there.
        hands[(dealer + 1 + position) % players] = stock[position:dealt:players]
    return tuple(hands), stock[dealt:]


def deal_events(
    hand_number: int, dealer: int, table: Deck, hands: Hands, stock_size: int
) -> list[Event]:
    """A public Deal (the table cards turned up, the counts), then each seat's own cards."""
    events: list[Event] = [Deal(hand_number, dealer, table, tuple(map(len, hands)), stock_size)]
    events += [CardsDealt(seat, hand) for seat, hand in enumerate(hands)]
    return events
