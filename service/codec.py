"""Translation between the protobuf messages of mazzo.v1 and engine values.

Nothing here knows a rule: it spells cards, moves, events and views the way
the wire does, and reads requests into engine values (refusing malformed ones
with the engine's own reasons).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import Any

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

from engine import Card, Game, Move, Status, parse_cards
from engine import events as ev
from engine.cards import DECK, SUITS
from engine.errors import InvalidInput, Reason
from engine.faces import card_index, card_name
from engine.scopa import ScopaRules, ScopaView
from engine.scopa_rules import (
    BOOL_FIELDS,
    DEFAULT_PLAYERS,
    ENUM_FIELDS,
    TITLES,
    VARIANT_PLAYERS,
    Face,
    Variant,
    preset_values,
)
from engine.tressette import TressetteRules, TressetteView
from mazzo.v1 import engine_pb2 as pb

DEFAULT_PLAYERS_OF_GAME = 2

#: Engine enums by option name, with their wire enum. A wire name is the wire
#: enum's prefix and the engine value in capitals: DEAL_RULE_SCOPONE_NINE.
_SCOPA_FIELDS = pb.ScopaOptions.DESCRIPTOR.fields_by_name
_ENUM_OPTIONS: dict[str, tuple[EnumTypeWrapper, type[StrEnum]]] = {
    name: (EnumTypeWrapper(_SCOPA_FIELDS[name].enum_type), kind)
    for name, kind in ENUM_FIELDS.items()
}
#: The bool switches a caller may leave unset (``optional`` on the wire).
_BOOL_SWITCHES = tuple(name for name in BOOL_FIELDS if _SCOPA_FIELDS[name].has_presence)


def _prefix(wire: EnumTypeWrapper) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", wire.DESCRIPTOR.name).upper() + "_"


def wire_name(option: str, value: StrEnum) -> str:
    """The wire name of an engine enum value: ``DEAL_RULE_SCOPONE_NINE``."""
    wire, _ = _ENUM_OPTIONS[option]
    return _prefix(wire) + value.value.upper()


def _engine_value(option: str, number: int) -> StrEnum | None:
    """The engine value of a wire enum number; ``None`` for UNSPECIFIED."""
    wire, kind = _ENUM_OPTIONS[option]
    if number == 0:
        return None
    try:
        return kind(wire.Name(number).removeprefix(_prefix(wire)).lower())
    except ValueError:
        raise InvalidInput(
            Reason.INVALID_OPTION, f"unknown {option} value {number}", {"option": option}
        ) from None


def card_names(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


# ---------------------------------------------------------------- requests


def rules_from_request(request: pb.NewGameRequest) -> tuple[str, Any]:
    """The game's name and its rules object; options left out keep the engine's defaults."""
    game = request.WhichOneof("game")
    if game is None:
        raise InvalidInput(
            Reason.INVALID_GAME,
            'name the game by its options message, e.g. {"scopa": {}} or {"tressette": {}}',
        )
    players = {"players": request.players} if request.players else {}
    if game == "tressette":
        tressette = request.tressette
        return game, TressetteRules(
            napoletana=tressette.napoletana,
            **{"players": DEFAULT_PLAYERS_OF_GAME, **players, **_target(tressette)},
        )
    return game, _scopa_rules(request.scopa, players)


def _scopa_rules(options: pb.ScopaOptions, players: dict[str, int]) -> ScopaRules:
    """The variant's preset, with every switch the caller set."""
    switches: dict[str, Any] = {**players, **_target(options)}
    for name in _ENUM_OPTIONS:
        value = _engine_value(name, getattr(options, name))
        if value is not None and name != "variant":
            switches[name] = value
    switches.update({n: getattr(options, n) for n in _BOOL_SWITCHES if options.HasField(n)})
    if options.napola:
        switches["napola"] = True
    if options.HasField("re_bello"):
        switches["re_bello"] = Card.parse(options.re_bello) if options.re_bello else None
    variant = _engine_value("variant", options.variant) or Variant.SCOPA
    return ScopaRules.preset(variant, **switches)


def _target(options: pb.ScopaOptions | pb.TressetteOptions) -> dict[str, int]:
    return {"target": options.target} if options.HasField("target") else {}


def decks_from_request(request: pb.NewGameRequest) -> list[tuple[Card, ...]]:
    return [parse_cards(deck.cards) for deck in request.decks]


def move_from_pb(move: pb.Move) -> Move:
    return Move(seat=move.seat, card=Card.parse(move.card), take=frozenset(parse_cards(move.take)))


# ---------------------------------------------------------------- responses


def move_to_pb(move: Move) -> pb.Move:
    return pb.Move(seat=move.seat, card=str(move.card), take=card_names(sorted(move.take)))


def status_to_pb(status: Status) -> pb.Status:
    message = pb.Status(
        game=status.game,
        players=status.players,
        dealer=status.dealer,
        hand_number=status.hand_number,
        scores=status.scores,
        game_over=status.game_over,
        target=status.target,
    )
    if status.seat_to_play is not None:
        message.seat_to_play = status.seat_to_play
    if status.winning_side is not None:
        message.winning_side = status.winning_side
    return message


def _piles_to_pb(
    piles: Sequence[Sequence[Card]], sweeps: Sequence[int] | None = None
) -> list[pb.Pile]:
    return [
        pb.Pile(side=side, cards=card_names(pile), sweeps=sweeps[side] if sweeps else 0)
        for side, pile in enumerate(piles)
    ]


def view_to_pb(view: ScopaView | TressetteView) -> pb.View:
    message = pb.View(
        seat=view.seat,
        side=view.side,
        hand=card_names(view.hand),
        hand_sizes=view.hand_sizes,
        stock_size=view.stock_size,
        status=status_to_pb(view.status),
    )
    face = Face.ITALIAN
    if isinstance(view, ScopaView):
        face = view.face
        message.table.extend(card_names(view.table))
        message.piles.extend(_piles_to_pb(view.piles, view.sweeps))
    else:
        message.trick.extend(card_names(view.trick))
        message.leader = view.leader
        message.piles.extend(_piles_to_pb(view.piles))
    message.known.extend(
        pb.KnownCards(seat=seat, cards=card_names(cards))
        for seat, cards in enumerate(view.known)
        if seat != view.seat and cards
    )
    message.face = pb.Face.Value(wire_name("face", face))
    shown = {*view.hand, *getattr(view, "table", ()), *getattr(view, "trick", ())}
    shown.update(c for pile in view.piles for c in pile)
    shown.update(c for cards in view.known for c in cards)
    message.card_names.update({str(c): card_name(c, face) for c in sorted(shown)})
    return message


def _side_score_to_pb(score: ev.SideScore | ev.TressetteSideScore) -> pb.SideScore:
    if isinstance(score, ev.TressetteSideScore):
        return pb.SideScore(
            side=score.side,
            thirds=score.thirds,
            card_points=score.card_points,
            last_trick_point=score.last_trick_point,
            napoletana=score.napoletana,
            total=score.total,
        )
    return pb.SideScore(
        side=score.side,
        cards=score.cards,
        denari=score.denari,
        primiera=score.primiera,
        cards_point=score.cards_point,
        denari_point=score.denari_point,
        settebello_point=score.settebello_point,
        primiera_point=score.primiera_point,
        sweeps=score.sweeps,
        napola=score.napola,
        re_bello_point=score.re_bello_point,
        grande=score.grande,
        piccola=score.piccola,
        declarations=score.declarations,
        total=score.total,
    )


def _deal(e: ev.Deal) -> pb.Event:
    return pb.Event(
        deal=pb.Deal(
            hand_number=e.hand_number,
            dealer=e.dealer,
            table=card_names(e.table),
            hand_sizes=e.hand_sizes,
            stock_size=e.stock_size,
        )
    )


def _cards_dealt(e: ev.CardsDealt) -> pb.Event:
    return pb.Event(cards_dealt=pb.CardsDealt(seat=e.seat, cards=card_names(e.cards)))


def _redeal(e: ev.Redeal) -> pb.Event:
    return pb.Event(redeal=pb.Redeal(dealer=e.dealer, table=card_names(e.table)))


def _card_played(e: ev.CardPlayed) -> pb.Event:
    return pb.Event(card_played=pb.CardPlayed(seat=e.seat, card=str(e.card)))


def _capture(e: ev.Capture) -> pb.Event:
    return pb.Event(
        capture=pb.Capture(
            seat=e.seat, side=e.side, card=str(e.card), taken=card_names(e.taken), sweep=e.sweep
        )
    )


def _leftovers(e: ev.LeftoversTaken) -> pb.Event:
    return pb.Event(leftovers_taken=pb.LeftoversTaken(side=e.side, cards=card_names(e.cards)))


def _hand_scored(e: ev.HandScored) -> pb.Event:
    return pb.Event(
        hand_scored=pb.HandScored(
            hand_number=e.hand_number,
            sides=[_side_score_to_pb(s) for s in e.sides],
            scores=e.scores,
        )
    )


def _game_over(e: ev.GameOver) -> pb.Event:
    return pb.Event(game_over=pb.GameOver(winning_side=e.winning_side, scores=e.scores))


def _trick_won(e: ev.TrickWon) -> pb.Event:
    return pb.Event(
        trick_won=pb.TrickWon(seat=e.seat, side=e.side, leader=e.leader, cards=card_names(e.cards))
    )


def _card_drawn(e: ev.CardDrawn) -> pb.Event:
    return pb.Event(card_drawn=pb.CardDrawn(seat=e.seat, card=str(e.card)))


def _napoletana(e: ev.NapoletanaDeclared) -> pb.Event:
    return pb.Event(
        napoletana_declared=pb.NapoletanaDeclared(
            seat=e.seat,
            side=e.side,
            suit=SUITS[e.suit],
            cards=card_names(e.cards),
            points=e.points,
        )
    )


def _first_table_taken(e: ev.FirstTableTaken) -> pb.Event:
    return pb.Event(
        first_table_taken=pb.FirstTableTaken(
            dealer=e.dealer, side=e.side, cards=card_names(e.cards), sweeps=e.sweeps
        )
    )


def _declaration(e: ev.Declaration) -> pb.Event:
    return pb.Event(
        declaration=pb.Declaration(
            seat=e.seat,
            side=e.side,
            kind=e.kind,
            cards=card_names(e.cards),
            points=e.points,
            matta_value=e.matta_value,
        )
    )


_EVENT_WRITERS: dict[type, Callable[[Any], pb.Event]] = {
    ev.Deal: _deal,
    ev.CardsDealt: _cards_dealt,
    ev.Redeal: _redeal,
    ev.CardPlayed: _card_played,
    ev.Capture: _capture,
    ev.LeftoversTaken: _leftovers,
    ev.HandScored: _hand_scored,
    ev.GameOver: _game_over,
    ev.TrickWon: _trick_won,
    ev.CardDrawn: _card_drawn,
    ev.NapoletanaDeclared: _napoletana,
    ev.FirstTableTaken: _first_table_taken,
    ev.Declaration: _declaration,
}


def events_to_pb(events: Sequence[ev.Event]) -> list[pb.Event]:
    out = []
    for event in events:
        message = _EVENT_WRITERS[type(event)](event)
        if event.visible_to is not None:
            message.visible_to = event.visible_to
        out.append(message)
    return out


def _option_text(option: str, value: object) -> str:
    """An option value written as the catalog and JSON write it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if option in _ENUM_OPTIONS:
        kind = _ENUM_OPTIONS[option][1]
        return wire_name(option, kind(value))
    return "" if value is None else str(value)


def _variant_info(variant: Variant) -> pb.VariantInfo:
    return pb.VariantInfo(
        name=wire_name("variant", variant),
        title=TITLES[variant],
        player_counts=VARIANT_PLAYERS[variant],
        default_players=DEFAULT_PLAYERS[variant],
        presets={name: _option_text(name, v) for name, v in preset_values(variant).items()},
    )


def _face_info(face: Face) -> pb.FaceInfo:
    return pb.FaceInfo(
        name=wire_name("face", face),
        cards=[
            pb.CardName(code=str(c), name=card_name(c, face), index=card_index(c, face))
            for c in DECK
        ],
    )


def game_info_to_pb(game: Game) -> pb.GameInfo:
    options = [
        pb.OptionInfo(
            name=spec.name,
            type=spec.type,
            default_value=_option_text(spec.name, spec.default),
            allowed_values=[_option_text(spec.name, v) for v in spec.allowed],
            min=spec.min,
            max=spec.max,
            description=spec.description,
        )
        for spec in game.options
    ]
    scopa = game.name == "scopa"
    return pb.GameInfo(
        name=game.name,
        title=game.title,
        description=game.description,
        player_counts=game.player_counts,
        options=options,
        variants=[_variant_info(v) for v in Variant] if scopa else [],
        faces=[_face_info(f) for f in Face] if scopa else [],
    )
