"""What every game's codec hooks share: the hook record and the card spellings.

A game on the wire is its proto messages (a field named after the game in each
of NewGameRequest's, View's and SideScore's oneof ``game``, plus the events it
adds) and its :class:`GameCodec`, registered in :mod:`mazzo.service.games`. The
codec (mazzo.service.codec) writes what every game has and hands the rest to
the game's hooks; it never asks which game it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mazzo.engine.cards import DECK, SUITS, Card
from mazzo.engine.faces import card_index
from mazzo.engine.scopa_rules import Face
from mazzo.service.i18n import card_accusative, card_name, suit_name
from mazzo.v1 import engine_pb2 as pb

#: Every card's name by card: a plain look-up, cheaper than ``str(card)``.
NAME_OF_CARD: dict[Card, str] = {c: str(c) for c in DECK}
#: A card's name, as a function map() can call without a Python frame.
name_of = NAME_OF_CARD.__getitem__


def card_names(cards: Iterable[Card]) -> list[str]:
    return list(map(name_of, cards))


#: A value of one of the game's options, as the catalog and JSON write it:
#: ``text(option_name, value)`` (the codec's own spelling of each option).
OptionText = Callable[[str, object], str]
#: Writes one kind of engine event into an Event message, in place.
EventWriter = Callable[[pb.Event, Any], None]


@dataclass(frozen=True, slots=True)
class GameCodec:
    """One game's codec hooks."""

    #: The game's name: its field in the oneofs ``game`` of NewGameRequest,
    #: View and SideScore.
    name: str
    #: The engine's side score of a hand of this game; its fields after ``side``
    #: are the fields of the game's score message, by name.
    score_type: type
    #: Fills the game's own message of View (``view_to_pb`` writes the rest).
    write_view: Callable[[pb.View, Any], None]
    #: The fields of ``score_type`` the game's score message carries, when not all
    #: of them after ``side`` (Briscola's ``total`` is SideScore's own).
    score_fields: tuple[str, ...] = ()
    #: The writers of the events only this game makes, by engine event type.
    event_writers: Mapping[type, EventWriter] = field(default_factory=dict)
    #: Adds what the game's catalog entry has beyond its options (Scopa's
    #: variants, the deck faces of a game with a ``face`` option).
    catalog: Callable[[pb.GameInfo, OptionText], None] = lambda info, text: None


def face_text(face: Face) -> str:
    """A face as the wire's Face enum names it: ``FACE_SPANISH``."""
    return "FACE_" + face.value.upper()


def face_infos() -> list[pb.FaceInfo]:
    """Every deck face, the names of the 40 cards in it and of its suits, for a
    catalog entry."""
    return [
        pb.FaceInfo(
            name=face_text(face),
            cards=[
                pb.CardName(
                    code=str(c),
                    name=card_name(c, face),
                    index=card_index(c, face),
                    accusative=card_accusative(c, face),
                )
                for c in DECK
            ],
            suits=[
                pb.SuitName(code=code, name=suit_name(suit, face))
                for suit, code in enumerate(SUITS)
            ],
        )
        for face in Face
    ]


def pile_sweeps(message: pb.View, sweeps: Mapping[int, int] | tuple[int, ...]) -> None:
    """Set each side's sweeps on the piles ``view_to_pb`` wrote."""
    for pile, count in zip(message.piles, sweeps, strict=True):
        if count:
            pile.sweeps = count
