"""Tressette's codec hooks: its view's trick and leader, and the napoletana event."""

from __future__ import annotations

from mazzo.engine import events as ev
from mazzo.engine.cards import SUITS
from mazzo.engine.tressette import TressetteView
from mazzo.service.games.base import GameCodec, card_names
from mazzo.v1 import engine_pb2 as pb


def _write_view(message: pb.View, view: TressetteView) -> None:
    tressette = message.tressette
    tressette.SetInParent()  # present even when empty: it names the game
    tressette.trick.extend(card_names(view.trick))
    tressette.leader = view.leader


def _napoletana(message: pb.Event, e: ev.NapoletanaDeclared) -> None:
    out = message.napoletana_declared
    out.seat = e.seat
    out.side = e.side
    out.suit = SUITS[e.suit]
    out.cards.extend(card_names(e.cards))
    out.points = e.points


CODEC = GameCodec(
    name="tressette",
    score_type=ev.TressetteSideScore,
    write_view=_write_view,
    event_writers={ev.NapoletanaDeclared: _napoletana},
)
