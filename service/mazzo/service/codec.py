"""Translation between the protobuf messages of mazzo.v1 and engine values.

Nothing here knows a rule: it spells cards, moves, events and views the way
the wire does, and reads requests into engine values (refusing malformed ones
with the engine's own reasons).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

from mazzo.engine import GAMES, Card, Game, Move, OptionSpec, Status, get_game, parse_cards
from mazzo.engine import events as ev
from mazzo.engine.cards import DECK
from mazzo.engine.errors import N_, InvalidInput, Listing, Reason
from mazzo.service.games import CODECS, GameCodec
from mazzo.service.games.base import NAME_OF_CARD, card_names, face_text, name_of
from mazzo.service.i18n import card_name, gettext
from mazzo.service.table import TIME_EXPIRED, Forfeit, TimeExpired
from mazzo.v1 import engine_pb2 as pb

_Key = TypeVar("_Key")
_Value = TypeVar("_Value")


# ---------------------------------------------------------------- a game's options
# A game's options message is the field of NewGameRequest's oneof `game` named after
# the game, and each of its fields is named after the engine's option it carries (the
# catalog's, mazzo.engine.options): the whole mapping follows from the names. A wire
# enum's names are its prefix and the engine value in capitals: DEAL_RULE_SCOPONE_NINE.


@dataclass(frozen=True)
class _WireOption:
    """One option of a game and the field of its options message that carries it."""

    spec: OptionSpec
    field: FieldDescriptor
    #: An enum option's wire enum, and the prefix of its names (``DEAL_RULE_``).
    enum: EnumTypeWrapper | None = None
    prefix: str = ""

    def read(self, message: Any) -> Any:
        """The option's value in ``message`` as the engine's rules take it, or
        ``_UNSET`` when the caller left it out: a field with presence unset, or one
        without at its zero (proto3 cannot tell that zero from unset)."""
        name = self.spec.name
        if self.field.has_presence and not message.HasField(name):
            return _UNSET
        value = getattr(message, name)
        if self.spec.type == "card":
            return Card.parse(value) if value else None
        if not self.field.has_presence and not value:
            return _UNSET
        return value if self.enum is None else self._engine_value(self.enum, value)

    def _engine_value(self, wire: EnumTypeWrapper, number: int) -> str:
        name = self.spec.name
        try:
            value = wire.Name(number).removeprefix(self.prefix).lower()
        except ValueError:
            value = ""
        if value not in self.spec.allowed:
            raise InvalidInput(
                Reason.INVALID_OPTION,
                "unknown {name} value {number}",
                {"option": name},
                name=name,
                number=number,
            )
        return value

    def text(self, value: object) -> str:
        """A value of the option as the catalog and JSON write it."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if self.enum is not None:
            if value not in self.spec.allowed:
                raise ValueError(f"{value!r} is not a valid {self.spec.name}")
            return self.prefix + str(value).upper()
        return "" if value is None else str(value)


_UNSET = object()


def _wire_options(game: Game) -> dict[str, _WireOption]:
    """By name, every option of ``game`` with its field of the game's options message."""
    message = pb.NewGameRequest.DESCRIPTOR.fields_by_name[game.name].message_type
    # The stubs also allow upb's descriptor classes, whose objects are these instances.
    assert isinstance(message, Descriptor)
    options = {}
    for spec in game.options:
        field = message.fields_by_name[spec.name]
        enum_type = field.enum_type
        if enum_type is None:
            options[spec.name] = _WireOption(spec, field)
        else:
            prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum_type.name).upper() + "_"
            options[spec.name] = _WireOption(spec, field, EnumTypeWrapper(enum_type), prefix)
    return options


_GAME_OPTIONS: dict[str, dict[str, _WireOption]] = {
    name: _wire_options(game) for name, game in GAMES.items()
}
#: Every game of the registry has its codec hooks (mazzo.service.games).
_CODECS: dict[str, GameCodec] = {name: CODECS[name] for name in GAMES}


#: Every card by its canonical name, and every name by card: the hot paths'
#: look-ups (anything else, lower case or an error, goes the long way).
_CARD_OF_NAME: dict[str, Card] = {str(c): c for c in DECK}
_NAME_OF_CARD: dict[Card, str] = NAME_OF_CARD
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


_name_of = name_of


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
    """The game's name and its rules object; options left out keep the engine's
    defaults (Scopa: the variant's preset)."""
    name = request.WhichOneof("game")
    if name is None:
        examples = Listing((f'{{"{game}": {{}}}}' for game in GAMES), N_(" or "))
        raise InvalidInput(
            Reason.INVALID_GAME,
            "name the game by its options message, e.g. {examples}",
            examples=examples,
        )
    message = getattr(request, name)
    options: dict[str, Any] = {}
    for option, wire in _GAME_OPTIONS[name].items():
        value = wire.read(message)
        if value is not _UNSET:
            options[option] = value
    if request.players:
        options["players"] = request.players
    return name, get_game(name).make_rules(**options)


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


def view_to_pb(view: Any) -> pb.View:
    """Any game's view: the common fields here, the game's own by its hooks."""
    face = view.face
    message = pb.View(
        seat=view.seat,
        side=view.side,
        hand=card_names(view.hand),
        hand_sizes=view.hand_sizes,
        stock_size=view.stock_size,
        face=face_text(face),
    )
    write_status(message.status, view.status)
    message.piles.extend(
        pb.Pile(side=side, cards=card_names(pile)) for side, pile in enumerate(view.piles)
    )
    # Each game's own fields go in its message of the oneof `game`, present
    # even when they are all empty: it names the game.
    _CODECS[view.status.game].write_view(message, view)
    # Every seat's known cards: a seat's own view knows none of its own hand, and
    # the public view's seat (0) is no one's, so its known cards are shown too.
    message.known.extend(
        pb.KnownCards(seat=seat, cards=card_names(cards))
        for seat, cards in enumerate(view.known)
        if cards
    )
    # The names of exactly the cards written above (the game's hook writes face_up).
    shown = {*view.hand, *view.face_up}
    shown.update(c for pile in view.piles for c in pile)
    shown.update(c for cards in view.known for c in cards)
    message.card_names.update({str(c): card_name(c, face) for c in sorted(shown)})
    return message


#: By kind of engine score: the SideScore field of the game's own message, and
#: the names of its fields (the engine's fields after `side`, named as the wire does).
_SCORE_DETAILS: dict[type, tuple[str, tuple[str, ...]]] = {
    codec.score_type: (
        codec.name,
        codec.score_fields or codec.score_type._fields[1:],  # type: ignore[attr-defined]
    )
    for codec in _CODECS.values()
}


def _write_side_score(out: pb.SideScore, score: Any) -> None:
    # A zero is left unset (proto3 writes none), which spares most of the fields'
    # look-ups; the game's message is made present even when all its fields are zero.
    game, names = _SCORE_DETAILS[type(score)]
    if side := score.side:
        out.side = side
    if total := score.total:
        out.total = total
    detail = getattr(out, game)
    detail.SetInParent()
    for name in names:
        if value := getattr(score, name):
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


def _time_expired(message: pb.Event, e: TimeExpired) -> None:
    out = message.time_expired
    out.seat = e.seat
    out.level = e.level


#: Why a side forfeits, as the table says it and as the wire does.
_FORFEIT_REASONS = {TIME_EXPIRED: pb.FORFEIT_REASON_TIME_EXPIRED}


def _forfeit(message: pb.Event, e: Forfeit) -> None:
    out = message.forfeit
    out.seat = e.seat
    out.side = e.side
    out.reason = _FORFEIT_REASONS[e.reason]


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
    # The table's (mazzo.service.table): a clock run out.
    TimeExpired: _time_expired,
    Forfeit: _forfeit,
}
for _codec in _CODECS.values():  # the events only one game makes: its hooks write them
    _EVENT_WRITERS.update(_codec.event_writers)

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


def game_info_to_pb(game: Game) -> pb.GameInfo:
    """A game's catalog entry: its descriptions and card names in the caller's
    language (its titles are names, the same in every language)."""
    wire = _GAME_OPTIONS[game.name]
    translate = gettext()
    options = [
        pb.OptionInfo(
            name=spec.name,
            type=spec.type,
            default_value=wire[spec.name].text(spec.default),
            allowed_values=[wire[spec.name].text(v) for v in spec.allowed],
            min=spec.min,
            max=spec.max,
            description=translate(spec.description),
        )
        for spec in game.options
    ]
    info = pb.GameInfo(
        name=game.name,
        title=game.title,
        description=translate(game.description),
        player_counts=game.player_counts,
        options=options,
    )
    _CODECS[game.name].catalog(info, lambda name, value: wire[name].text(value))
    return info
