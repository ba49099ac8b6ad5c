"""The 40-card Italian deck and its text notation.

A card is written rank then suit: ``1D`` .. ``10D``; suits ``D`` (denari,
coins), ``C`` (coppe, cups), ``S`` (spade, swords), ``B`` (bastoni, batons).
Ranks: 1 ace, 2..7, 8 jack (fante), 9 knight (cavallo), 10 king (re).

A :class:`Card` is an ``int`` 0..39 (``suit * 10 + rank - 1``), so cards are
cheap to compare, hash and pack, and print as their notation.
"""

from __future__ import annotations

from collections.abc import Iterable

from mazzo.engine.errors import N_, InvalidInput, Reason

SUITS = "DCSB"
COINS, CUPS, SWORDS, BATONS = range(4)
RANKS = range(1, 11)
ACE, JACK, KNIGHT, KING = 1, 8, 9, 10
DECK_SIZE = 40


class Card(int):
    """One card of the 40; compare and hash as its index 0..39."""

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if not 0 <= index < DECK_SIZE:
            raise ValueError(f"card index {index} is not in 0..39")
        return _CARDS[index] if _CARDS else super().__new__(cls, index)

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        return _CARDS[suit * 10 + rank - 1]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``7D``; raise :class:`InvalidInput` (``INVALID_CARD``) otherwise."""
        card = _BY_NAME.get(text.strip().upper()) if isinstance(text, str) else None
        if card is None:
            raise InvalidInput(
                Reason.INVALID_CARD,
                "{text} is not a card: write rank 1..10 then suit D, C, S or B, e.g. '7D'",
                text=repr(text),
            )
        return card

    @property
    def rank(self) -> int:
        return int(self) % 10 + 1

    @property
    def suit(self) -> int:
        return int(self) // 10

    @property
    def name(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card({_NAMES[self]})"

    def __str__(self) -> str:
        return _NAMES[self]


_CARDS: tuple[Card, ...] = ()
_CARDS = tuple(Card(i) for i in range(DECK_SIZE))
_NAMES = tuple(f"{i % 10 + 1}{SUITS[i // 10]}" for i in range(DECK_SIZE))
_BY_NAME = {name: _CARDS[i] for i, name in enumerate(_NAMES)}

#: Rank and suit by card index: plain tuple look-ups for the hot paths.
RANK_OF: tuple[int, ...] = tuple(i % 10 + 1 for i in range(DECK_SIZE))
SUIT_OF: tuple[int, ...] = tuple(i // 10 for i in range(DECK_SIZE))

#: The deck in canonical order: 1D..10D, 1C..10C, 1S..10S, 1B..10B.
DECK: tuple[Card, ...] = _CARDS
#: By suit, its ten cards: ``filter(CARDS_OF_SUIT[s].__contains__, hand)`` keeps a
#: hand's cards of suit ``s`` without a Python-level test per card.
CARDS_OF_SUIT: tuple[frozenset[Card], ...] = tuple(
    frozenset(c for c in _CARDS if SUIT_OF[c] == suit) for suit in range(len(SUITS))
)
SETTEBELLO = Card.of(7, COINS)


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Read several cards; a card named twice is refused (``DUPLICATE_CARD``)."""
    cards = tuple(Card.parse(t) for t in texts)
    if len(set(cards)) != len(cards):
        twice = sorted({c for c in cards if cards.count(c) > 1})
        raise InvalidInput(
            Reason.DUPLICATE_CARD, "card(s) named twice: {cards}", cards=format_cards(twice)
        )
    return cards


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def check_full_deck(cards: tuple[Card, ...]) -> None:
    """A deck order must hold each of the 40 cards exactly once."""
    if len(cards) != DECK_SIZE or set(cards) != set(DECK):
        missing = sorted(set(DECK) - set(cards))
        template = (
            N_("a deck must hold the 40 cards once each; got {count} cards, missing {missing}")
            if missing
            else N_("a deck must hold the 40 cards once each; got {count} cards")
        )
        raise InvalidInput(
            Reason.INVALID_DECK,
            template,
            count=len(cards),
            missing=format_cards(missing),
        )
