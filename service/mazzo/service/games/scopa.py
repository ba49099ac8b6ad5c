"""Scopa's codec hooks: its view's table and sweeps, its variants and deck faces in
the catalog, and the events only the Scopa family makes (Escoba's and Cirulla's
first table, Cirulla's declarations)."""

from __future__ import annotations

from mazzo.engine import events as ev
from mazzo.engine.scopa import ScopaView
from mazzo.engine.scopa_rules import (
    DEFAULT_PLAYERS,
    TITLES,
    VARIANT_PLAYERS,
    Variant,
    preset_values,
)
from mazzo.service.games.base import GameCodec, OptionText, card_names, face_infos, pile_sweeps
from mazzo.v1 import engine_pb2 as pb


def _write_view(message: pb.View, view: ScopaView) -> None:
    scopa = message.scopa
    scopa.SetInParent()  # present even when empty: it names the game
    scopa.table.extend(card_names(view.table))
    pile_sweeps(message, view.sweeps)


def _catalog(info: pb.GameInfo, text: OptionText) -> None:
    info.variants.extend(
        pb.VariantInfo(
            name=text("variant", variant),
            title=TITLES[variant],
            player_counts=VARIANT_PLAYERS[variant],
            default_players=DEFAULT_PLAYERS[variant],
            presets={name: text(name, value) for name, value in preset_values(variant).items()},
        )
        for variant in Variant
    )
    info.faces.extend(face_infos())


def _first_table_taken(message: pb.Event, e: ev.FirstTableTaken) -> None:
    out = message.first_table_taken
    out.dealer = e.dealer
    out.side = e.side
    out.cards.extend(card_names(e.cards))
    out.sweeps = e.sweeps


def _declaration(message: pb.Event, e: ev.Declaration) -> None:
    out = message.declaration
    out.seat = e.seat
    out.side = e.side
    out.kind = e.kind
    out.cards.extend(card_names(e.cards))
    out.points = e.points
    if e.matta_value is not None:
        out.matta_value = e.matta_value


CODEC = GameCodec(
    name="scopa",
    score_type=ev.SideScore,
    write_view=_write_view,
    event_writers={ev.FirstTableTaken: _first_table_taken, ev.Declaration: _declaration},
    catalog=_catalog,
)
