"""Briscola's codec hooks: its view's trick, leader, turn-up, trumps and removed 2,
its score message, the turn-up event, and the deck faces in the catalog."""

from __future__ import annotations

from mazzo.engine import events as ev
from mazzo.engine.briscola import BriscolaView
from mazzo.engine.cards import SUITS
from mazzo.service.games.base import GameCodec, OptionText, card_names, face_infos, name_of
from mazzo.v1 import engine_pb2 as pb


def _write_view(message: pb.View, view: BriscolaView) -> None:
    briscola = message.briscola
    briscola.SetInParent()  # present even when empty: it names the game
    briscola.trick.extend(card_names(view.trick))
    briscola.leader = view.leader
    if view.turn_up is not None:
        briscola.trump_card = name_of(view.turn_up)
    briscola.trump_suit = SUITS[view.trump_suit]
    if view.removed is not None:
        briscola.removed_card = name_of(view.removed)


def _trump_turned_up(message: pb.Event, e: ev.TrumpTurnedUp) -> None:
    out = message.trump_turned_up
    out.card = name_of(e.card)
    out.suit = SUITS[e.card.suit]


def _catalog(info: pb.GameInfo, text: OptionText) -> None:
    info.faces.extend(face_infos())


CODEC = GameCodec(
    name="briscola",
    score_type=ev.BriscolaSideScore,
    score_fields=("card_points",),
    write_view=_write_view,
    event_writers={ev.TrumpTurnedUp: _trump_turned_up},
    catalog=_catalog,
)
