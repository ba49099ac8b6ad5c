"""Translation between the protobuf messages of mazzo.v1 and engine values.

Nothing here knows a rule: it spells cards, moves, events and views the way
the wire does, and reads requests into engine values (refusing malformed ones
with the engine's own reasons).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import Any, TypeVar

from google.protobuf.descriptor import Descriptor
from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

from mazzo.engine import GAMES, Card, Game, Move, Status, parse_cards
from mazzo.engine import events as ev
from mazzo.engine.cards import DECK, SUITS
from mazzo.engine.errors import InvalidInput, Reason
from mazzo.engine.faces import card_index, card_name
from mazzo.engine.scopa import ScopaRules, ScopaView
from mazzo.engine.scopa_rules import (
    BOOL_FIELDS,
    DEFAULT_PLAYERS,
    ENUM_FIELDS,
    TITLES,
    VARIANT_PLAYERS,
    Face,
    Variant,
    preset_values,
)
from mazzo.engine.tressette import TressetteRules, TressetteView
from mazzo.v1 import engine_pb2 as pb

DEFAULT_PLAYERS_OF_GAME = 2

_Key = TypeVar("_Key")
_Value = TypeVar("_Value")

#: Engine enums by option name, with their wire enum. A wire name is the wire
#: enum's prefix and the engine value in capitals: DEAL_RULE_SCOPONE_NINE.
_SCOPA_OPTIONS = pb.ScopaOptions.DESCRIPTOR
# The stubs also allow upb's descriptor class, whose objects are Descriptor instances.
assert isinstance(_SCOPA_OPTIONS, Descriptor)
_SCOPA_FIELDS = _SCOPA_OPTIONS.fields_by_name


def _wire_enum(option: str) -> EnumTypeWrapper:
    """The wire enum of the ScopaOptions field ``option``."""
    enum_type = _SCOPA_FIELDS[option].enum_type
    if enum_type is None:
        raise TypeError(f"ScopaOptions.{option} is not an enum field")
    return EnumTypeWrapper(enum_type)


_ENUM_OPTIONS: dict[str, tuple[EnumTypeWrapper, type[StrEnum]]] = {
    name: (_wire_enum(name), kind) for name, kind in ENUM_FIELDS.items()
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


#: Every card by its canonical name, and every name by card: the hot paths'
#: look-ups (anything else, lower case or an error, goes the long way).
_CARD_OF_NAME: dict[str, Card] = {str(c): c for c in DECK}
_NAME_OF_CARD: dict[Card, str] = {c: name for name, c in _CARD_OF_NAME.items()}
_NO_CARDS: frozenset[Card] = frozenset()

#: Engine values are named tuples: tuple.__new__ makes one without the Python-level
#: constructor (the engine does the same on its hot paths).
_new = tuple.__new__

#: The moves that take nothing, by seat and card name, for every seat of every
#: game (a few hundred), and the take of one card by its name: most moves read
#: as one look-up.
_PLAIN_MOVES: dict[tuple[int, str], Move] = {
    (seat, name): _new(Move, (seat, card, _NO_CARDS, False))
    for seat in range(max(n for game in GAMES.values() for n in game.player_counts))
    for name, card in _CARD_OF_NAME.items()
}
_plain_move = _PLAIN_MOVES.get  # bound once: the hot path skips a method look-up
_TAKE_OF_ONE: dict[str, frozenset[Card]] = {
    name: frozenset((card,)) for name, card in _CARD_OF_NAME.items()
}


#: A card's name, as a function map() can call without a Python frame.
_name_of = _NAME_OF_CARD.__getitem__


def card_names(cards: Iterable[Card]) -> list[str]:
    return list(map(_name_of, cards))


# ---------------------------------------------------------------- caches

#: How many values each of the codec's caches holds before it starts again.
CACHE_LIMIT = 4096


def _remember(cache: dict[_Key, _Value], key: _Key, value: _Value) -> None:
    """Keep ``value`` in a cache that is emptied when full: bounded, no bookkeeping
    on a hit (an LRU's costs more than it saves here), and the values that recur
    come straight back."""
    if len(cache) >= CACHE_LIMIT:
        cache.clear()
    cache[key] = value


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
    # The hot path of Play and Validate. Each read of a upb message's field looks
    # the field up by name, so each is read once; the usual moves (canonical names,
    # no card twice) come from look-up tables, or are made with tuple.__new__.
    name, seat, take_names = move.card, move.seat, move.take
    if not take_names:
        plain = _plain_move((seat, name))
        if plain is not None:
            return plain._replace(lay=True) if move.lay else plain
    elif len(take_names) == 1:  # the usual capture: one card of the same rank
        key = (seat, name, take_names[0])
        taking_one = _MOVES_TAKING_ONE.get(key) or _move_taking_one(key)
        if taking_one is not None:
            return taking_one._replace(lay=True) if move.lay else taking_one
    else:
        card = _CARD_OF_NAME.get(name)
        take = _distinct_cards(take_names)
        if card is not None and take is not None:
            return _new(Move, (seat, card, take, move.lay))
    # Anything else (lower case, spaces, a card twice, no such card) the long way,
    # which refuses what it must.
    return Move(seat, Card.parse(name), frozenset(parse_cards(take_names)), move.lay)


#: The moves that take one card, by seat and the two cards' names, kept as they
#: come: few recur (a card takes one of its own rank), in a bounded cache.
_MOVES_TAKING_ONE: dict[tuple[int, str, str], Move] = {}


def _move_taking_one(key: tuple[int, str, str]) -> Move | None:
    """The move ``key`` names, kept for the next time; ``None`` unless both names
    are canonical."""
    seat, name, taken = key
    card, take = _CARD_OF_NAME.get(name), _TAKE_OF_ONE.get(taken)
    if card is None or take is None:
        return None
    move = _new(Move, (seat, card, take, False))
    _remember(_MOVES_TAKING_ONE, key, move)
    return move


def _distinct_cards(names: Sequence[str]) -> frozenset[Card] | None:
    """The cards named, if every name is canonical and none comes twice; else ``None``."""
    # A slice is a plain list: iterating the container itself goes by index
    # until an IndexError, which costs more than the rest of the call.
    names = names[:]
    try:
        cards = frozenset(map(_CARD_OF_NAME.__getitem__, names))
    except KeyError:
        return None
    return cards if len(cards) == len(names) else None


# ---------------------------------------------------------------- responses


def move_to_pb(move: Move) -> pb.Move:
    if move.lay:  # set only when true: the usual move's JSON stays as it was
        return pb.Move(seat=move.seat, card=str(move.card), lay=True)
    return pb.Move(seat=move.seat, card=str(move.card), take=card_names(sorted(move.take)))


#: Statuses as protobuf serialized them, by value. A status recurs: one answers
#: every move of a hand but for whose turn it is, and games alike share it.
_STATUS_BYTES: dict[Status, bytes] = {}


def write_status(message: pb.Status, status: Status) -> None:
    """Fill ``message`` (a response's own field, still empty: no copy) with ``status``."""
    # Setting the fields costs upb a look-up by name each; parsing the bytes
    # kept from the last time the same status was written costs a third of that.
    blob = _STATUS_BYTES.get(status)
    if blob is not None:
        message.MergeFromString(blob)
    else:
        _write_status_fields(message, status)
        _remember(_STATUS_BYTES, status, message.SerializeToString())


def _write_status_fields(message: pb.Status, status: Status) -> None:
    message.game = status.game  # first, and even if empty: it makes the message present
    if players := status.players:  # a zero is left unset: proto3 writes none
        message.players = players
    if dealer := status.dealer:
        message.dealer = dealer
    if hand_number := status.hand_number:
        message.hand_number = hand_number
    message.scores.extend(status.scores)
    if target := status.target:
        message.target = target
    if (seat_to_play := status.seat_to_play) is not None:
        message.seat_to_play = seat_to_play
    if (winning_side := status.winning_side) is not None:
        message.winning_side = winning_side
    if status.game_over:
        message.game_over = True


def _piles_to_pb(
    piles: Sequence[Sequence[Card]], sweeps: Sequence[int] | None = None
) -> list[pb.Pile]:
    return [
        pb.Pile(side=side, cards=card_names(pile), sweeps=sweeps[side] if sweeps else 0)
        for side, pile in enumerate(piles)
    ]


def view_to_pb(view: ScopaView | TressetteView) -> pb.View:
    face = view.face if isinstance(view, ScopaView) else Face.ITALIAN
    message = pb.View(
        seat=view.seat,
        side=view.side,
        hand=card_names(view.hand),
        hand_sizes=view.hand_sizes,
        stock_size=view.stock_size,
        face=wire_name("face", face),
    )
    write_status(message.status, view.status)
    # Each game's own fields go in its message of the oneof `game`, present
    # even when they are all empty: it names the game.
    if isinstance(view, ScopaView):
        scopa = message.scopa
        scopa.SetInParent()
        scopa.table.extend(card_names(view.table))
        message.piles.extend(_piles_to_pb(view.piles, view.sweeps))
    else:
        tressette = message.tressette
        tressette.SetInParent()
        tressette.trick.extend(card_names(view.trick))
        tressette.leader = view.leader
        message.piles.extend(_piles_to_pb(view.piles))
    message.known.extend(
        pb.KnownCards(seat=seat, cards=card_names(cards))
        for seat, cards in enumerate(view.known)
        if seat != view.seat and cards
    )
    shown = {*view.hand, *getattr(view, "table", ()), *getattr(view, "trick", ())}
    shown.update(c for pile in view.piles for c in pile)
    shown.update(c for cards in view.known for c in cards)
    message.card_names.update({str(c): card_name(c, face) for c in sorted(shown)})
    return message


#: By kind of engine score: the SideScore field of the game's own message, and
#: the names of its fields (the engine's fields after `side`, named as the wire does).
_SCORE_DETAILS: dict[type, tuple[str, tuple[str, ...]]] = {
    ev.SideScore: ("scopa", ev.SideScore._fields[1:]),
    ev.TressetteSideScore: ("tressette", ev.TressetteSideScore._fields[1:]),
}


def _write_side_score(out: pb.SideScore, score: ev.SideScore | ev.TressetteSideScore) -> None:
    # A zero is left unset (proto3 writes none), which spares most of the fields'
    # look-ups; the game's message is made present even when all its fields are zero.
    game, names = _SCORE_DETAILS[type(score)]
    if side := score.side:
        out.side = side
    if total := score.total:
        out.total = total
    detail = getattr(out, game)
    detail.SetInParent()
    for name, value in zip(names, score[1:], strict=True):
        if value:
            setattr(detail, name, value)


# Each writer fills its kind of event in place, in the repeated field's own
# message: building a message and handing it to a parent copies it. Every field
# set costs upb a look-up by name, and every repeated field reached costs a
# container: the writers of the frequent kinds set no zero and no empty list
# (proto3 writes neither), and set one field unconditionally first, which makes
# the event's message present even when all its fields are zero.


def _deal(message: pb.Event, e: ev.Deal) -> None:
    out = message.deal
    out.hand_number = e.hand_number
    if dealer := e.dealer:
        out.dealer = dealer
    if table := e.table:  # empty on every deal but the first
        out.table.extend(map(_name_of, table))
    out.hand_sizes.extend(e.hand_sizes)
    if stock_size := e.stock_size:
        out.stock_size = stock_size


def _cards_dealt(message: pb.Event, e: ev.CardsDealt) -> None:
    out = message.cards_dealt
    out.seat = e.seat
    out.cards.extend(map(_name_of, e.cards))


def _redeal(message: pb.Event, e: ev.Redeal) -> None:
    out = message.redeal
    out.dealer = e.dealer
    out.table.extend(card_names(e.table))


def _card_played(message: pb.Event, e: ev.CardPlayed) -> None:
    out = message.card_played
    out.card = _NAME_OF_CARD[e.card]
    if seat := e.seat:
        out.seat = seat


def _capture(message: pb.Event, e: ev.Capture) -> None:
    out = message.capture
    out.card = _NAME_OF_CARD[e.card]
    if seat := e.seat:
        out.seat = seat
    if side := e.side:
        out.side = side
    if taken := e.taken:
        out.taken.extend(map(_name_of, taken))
    if e.sweep:
        out.sweep = True


def _leftovers(message: pb.Event, e: ev.LeftoversTaken) -> None:
    out = message.leftovers_taken
    out.side = e.side
    out.cards.extend(card_names(e.cards))


def _hand_scored(message: pb.Event, e: ev.HandScored) -> None:
    out = message.hand_scored
    out.hand_number = e.hand_number
    sides = out.sides
    for score in e.sides:
        _write_side_score(sides.add(), score)
    out.scores.extend(e.scores)


def _game_over(message: pb.Event, e: ev.GameOver) -> None:
    out = message.game_over
    out.winning_side = e.winning_side
    out.scores.extend(e.scores)


def _trick_won(message: pb.Event, e: ev.TrickWon) -> None:
    out = message.trick_won
    out.seat = e.seat
    out.side = e.side
    out.leader = e.leader
    out.cards.extend(card_names(e.cards))


def _card_drawn(message: pb.Event, e: ev.CardDrawn) -> None:
    out = message.card_drawn
    out.seat = e.seat
    out.card = _NAME_OF_CARD[e.card]


def _napoletana(message: pb.Event, e: ev.NapoletanaDeclared) -> None:
    out = message.napoletana_declared
    out.seat = e.seat
    out.side = e.side
    out.suit = SUITS[e.suit]
    out.cards.extend(card_names(e.cards))
    out.points = e.points


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


_EventWriter = Callable[[pb.Event, Any], None]

_EVENT_WRITERS: dict[type[ev.Event], _EventWriter] = {
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

#: The kinds of event that recur from game to game: a card played, a capture, a
#: deal, a trick. (The cards dealt to a seat, the leftovers and a hand's scores
#: seldom do.) Each is written once and then parsed from the bytes protobuf
#: serialized it to, which costs less than setting its fields one by one.
_RECURRING_KINDS = (ev.CardPlayed, ev.Capture, ev.Deal, ev.TrickWon, ev.CardDrawn, ev.GameOver)


def _with_visible_to(write: _EventWriter) -> _EventWriter:
    """``write``, then the seat the event is for, if any (for the kinds that may
    be for one seat's eyes: asking the others would cost a property call each)."""

    def write_private(message: pb.Event, event: Any) -> None:
        write(message, event)
        if (seat := event.visible_to) is not None:
            message.visible_to = seat

    return write_private


#: By kind of event: its writer, and its cache of serialized events by field
#: values (a plain tuple: hashed in C, where an event hashes in Python), or None.
_EVENT_KINDS: dict[type[ev.Event], tuple[_EventWriter, dict[tuple[Any, ...], bytes] | None]] = {
    kind: (
        write if kind.visible_to is ev.Event.visible_to else _with_visible_to(write),
        {} if kind in _RECURRING_KINDS else None,
    )
    for kind, write in _EVENT_WRITERS.items()
}


def write_events(messages: Any, events: Sequence[ev.Event]) -> None:
    """Append ``events`` to a response's repeated ``events`` field, in place: a
    recurring kind of event from its bytes when the same event was written before."""
    for event in events:
        message = messages.add()
        write, recurring = _EVENT_KINDS[type(event)]
        if recurring is None:
            write(message, event)
            continue
        assert isinstance(event, tuple)  # every event is a named tuple (mazzo.engine.events)
        fields = event[:]  # the event's fields as a plain tuple
        blob = recurring.get(fields)
        if blob is None:
            write(message, event)
            _remember(recurring, fields, message.SerializeToString())
        else:
            message.MergeFromString(blob)


def _option_text(option: str, value: object) -> str:
    """An option value written as the catalog and JSON write it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if option in _ENUM_OPTIONS:
        kind = _ENUM_OPTIONS[option][1]
        if not isinstance(value, str):  # as kind(value) would refuse it
            raise ValueError(f"{value!r} is not a valid {kind.__name__}")
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
