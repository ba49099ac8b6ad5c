"""Byte packing shared by the games' compact state codecs.

A card is one byte (its index); a zone (a hand, the table, a pile) is a length
byte followed by its cards; explicit decks still to use are a count byte
followed by 40 bytes each, and end the state.

Every state a server reads came in a token it sealed, so reading is on the hot
path: the readers here map bytes to cards in one pass of C and slice, and leave
the checks that need the whole state to the game's ``inconsistencies``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import TypeVar

from mazzo.engine.cards import DECK, DECK_SIZE, Card, check_full_deck
from mazzo.engine.errors import N_, InvalidInput, Listing, Reason, Text

S = TypeVar("S")


def write_zones(out: bytearray, zones: Iterable[Sequence[Card]]) -> None:
    flat: list[int] = []  # one bytes() for all the zones: a Play writes eight or more
    for zone in zones:
        flat.append(len(zone))
        flat += zone
    out += bytes(flat)


#: The byte of a seat, a side or a card that is not there (no winner yet, no turn-up).
NONE = 0xFF


#: A side's game score and one more counter of its (Scopa's sweeps, Tressette's napoletana).
SIDE_FORMAT = "IB"
_SIDE = struct.Struct(">" + SIDE_FORMAT)
_SCORE = struct.Struct(">I")


def write_sides(out: bytearray, scores: Sequence[int], counters: Sequence[int]) -> None:
    for score, counter in zip(scores, counters, strict=True):
        out += _SIDE.pack(score, counter)


#: A state's sides (one to six), each :data:`_SIDE`, read by one unpack.
_SIDES = {sides: struct.Struct(">" + SIDE_FORMAT * sides) for sides in range(1, 7)}


def read_sides(data: bytes, pos: int, sides: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """:func:`write_sides`' scores and counters; the position after them."""
    both = _SIDES[sides].unpack_from(data, pos)
    return both[0::2], both[1::2], pos + _SIDE.size * sides


def write_scores(out: bytearray, scores: Sequence[int]) -> None:
    for score in scores:
        out += _SCORE.pack(score)


#: A state's scores (one to six sides), each :data:`_SCORE`, read by one unpack.
_SCORES = {sides: struct.Struct(">" + "I" * sides) for sides in range(1, 7)}


def read_scores(data: bytes, pos: int, sides: int) -> tuple[tuple[int, ...], int]:
    """:func:`write_scores`' scores; the position after them."""
    if len(data) < pos + _SCORE.size * sides:
        raise ValueError("the scores are cut short")
    return _SCORES[sides].unpack_from(data, pos), pos + _SCORE.size * sides


def write_decks(out: bytearray, decks: tuple[tuple[Card, ...], ...]) -> None:
    out.append(len(decks))
    for deck in decks:
        out += bytes(deck)


#: Every byte's card, and None for a byte past the 40 cards.
_CARD_OF_BYTE: tuple[Card | None, ...] = (*DECK, *(None,) * (256 - DECK_SIZE))
#: The 40 cards, to compare a state's cards with as a set.
ALL_CARDS = frozenset(DECK)


def cards_of(data: bytes) -> tuple[Card, ...]:
    """Each byte of ``data`` as its card, in one pass of C; KeyError for a byte
    past the 40 cards."""
    if len(data) < 2:  # itemgetter of one index answers the item, not a tuple
        cards: tuple[Card | None, ...] = tuple(_CARD_OF_BYTE[b] for b in data)
    else:
        cards = itemgetter(*data)(_CARD_OF_BYTE)
    if None in cards:
        raise KeyError("a byte that is no card")
    return cards  # type: ignore[return-value]  # None is not in it


def card_span(data: bytes, start: int) -> tuple[Card, ...]:
    """Every byte of ``data`` from ``start`` on as its card, in one pass of C: what
    :func:`split_zones` slices. A byte past the 40 cards reads as None (typed as a
    card all the same), which the game's ``inconsistencies`` refuse: their check
    that every card is there once."""
    if len(data) - start < 2:  # itemgetter of one index answers the item, not a tuple
        return tuple(_CARD_OF_BYTE[b] for b in data[start:])  # type: ignore[misc]
    return itemgetter(*data[start:])(_CARD_OF_BYTE)  # type: ignore[no-any-return]


def split_zones(
    data: bytes, span: tuple[Card, ...], start: int, pos: int, count: int
) -> tuple[list[tuple[Card, ...]], int]:
    """``count`` zones from ``pos``, sliced from ``span`` (:func:`card_span` of
    ``data`` from ``start``); them and the position after them."""
    zones = []
    shift = start - 1  # a zone's cards start a byte after its length
    for _ in range(count):
        end = pos + data[pos]
        zones.append(span[pos - shift : end - shift])
        pos = end + 1
    if pos > len(data):
        raise ValueError("a card zone is cut short")
    return zones, pos


def read_zones(data: bytes, pos: int, count: int) -> tuple[list[tuple[Card, ...]], int]:
    """``count`` zones from ``pos`` (:func:`split_zones`); them and the position after them."""
    return split_zones(data, card_span(data, pos), pos, pos, count)


def read_decks(data: bytes, pos: int) -> tuple[tuple[Card, ...], ...]:
    """Read the decks that end the state; nothing may follow them."""
    count = data[pos]
    pos += 1
    if pos + DECK_SIZE * count != len(data):
        raise ValueError("trailing or missing bytes")
    if not count:  # the usual case: a seeded game keeps no deck
        return ()
    decks = tuple(cards_of(data[at : at + DECK_SIZE]) for at in range(pos, len(data), DECK_SIZE))
    for deck in decks:
        if frozenset(deck) != ALL_CARDS:
            check_full_deck(deck)  # says which card is missing or twice
    return decks


def decode_checked(
    data: bytes,
    read: Callable[[bytes], S],
    inconsistencies: Callable[[S], Sequence[str | Text]],
) -> S:
    """Read a state with ``read``, then refuse it if ``inconsistencies`` finds any:
    either way ``InvalidInput(STATE_CORRUPT)``, never another exception."""
    try:
        state = read(data)
    except (struct.error, IndexError) as exc:
        raise InvalidInput(
            Reason.STATE_CORRUPT, N_("the state does not decode: cut short")
        ) from exc
    except KeyError as exc:
        raise InvalidInput(
            Reason.STATE_CORRUPT, N_("the state does not decode: a value no field can take")
        ) from exc
    except (ValueError, InvalidInput) as exc:  # the readers' own words, or a rule refused
        raise InvalidInput(
            Reason.STATE_CORRUPT, "the state does not decode: {why}", why=exc
        ) from exc
    problems = inconsistencies(state)
    if problems:
        listed = Listing(p if isinstance(p, Text) else Text(p) for p in problems)
        raise InvalidInput(
            Reason.STATE_CORRUPT, "the state is inconsistent: {problems}", problems=listed
        )
    return state
