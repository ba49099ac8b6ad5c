"""The names of the 40 cards in the Italian, French and Spanish decks.

Faces are only names and pictures: the codes (``7D``) and the values used in
every rule stay the same (docs/variants.md, Deck faces). A French deck drops
its 8, 9 and 10, so its jack, queen and king stand for 8, 9 and 10; a Spanish
deck prints 10, 11 and 12 on its sota, caballo and rey, still worth 8, 9, 10.
"""

from __future__ import annotations

from mazzo.engine.cards import RANK_OF, SUIT_OF, Card
from mazzo.engine.scopa_rules import Face

_RANK_NAMES = {
    Face.ITALIAN: ("asso", "due", "tre", "quattro", "cinque", "sei", "sette", "fante",
                   "cavallo", "re"),
    Face.FRENCH: ("ace", "two", "three", "four", "five", "six", "seven", "jack", "queen",
                  "king"),
    Face.SPANISH: ("as", "dos", "tres", "cuatro", "cinco", "seis", "siete", "sota", "caballo",
                   "rey"),
}  # fmt: skip
_SUIT_NAMES = {
    Face.ITALIAN: ("denari", "coppe", "spade", "bastoni"),
    Face.FRENCH: ("diamonds", "hearts", "spades", "clubs"),
    Face.SPANISH: ("oros", "copas", "espadas", "bastos"),
}
_JOIN = {Face.ITALIAN: "di", Face.FRENCH: "of", Face.SPANISH: "de"}
_INDEX = {
    Face.ITALIAN: ("A", "2", "3", "4", "5", "6", "7", "F", "C", "R"),
    Face.FRENCH: ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"),
    Face.SPANISH: ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12"),
}


def card_name(card: Card, face: Face) -> str:
    """``card_name(Card.parse("10D"), Face.SPANISH)`` is ``"rey de oros"``."""
    rank, suit = RANK_OF[card] - 1, SUIT_OF[card]
    return f"{_RANK_NAMES[face][rank]} {_JOIN[face]} {_SUIT_NAMES[face][suit]}"


def card_index(card: Card, face: Face) -> str:
    """What is printed in the card's corner: ``K`` (French), ``12`` (Spanish), ``R`` (Italian)."""
    return _INDEX[face][RANK_OF[card] - 1]
