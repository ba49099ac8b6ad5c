"""What every game module offers, and the values they share.

A game is a :class:`Game`: its catalog entry and its module's functions (the
registry maps ``"scopa"`` to one). States are immutable: ``apply`` returns a new state and
never changes the one it was given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, TypeVar, cast

from mazzo.engine.cards import DECK, Card, parse_cards
from mazzo.engine.errors import N_, InvalidInput, Reason, RuleError, Text
from mazzo.engine.events import Event, GameOver, HandScored
from mazzo.engine.options import OptionSpec

_new = tuple.__new__

#: An option's value as the catalog writes it: an integer, true/false, or text
#: (an enum's value, a card's code).
OptionValue = bool | int | str

T = TypeVar("T")
S = TypeVar("S")  # a game's state


class Status(NamedTuple):
    """The public summary of a game: whose turn, the dealer, the scores.

    A named tuple, like states, moves and events: every Play answers one."""

    game: str
    players: int
    seat_to_play: int | None  # None once the game is over
    dealer: int
    hand_number: int
    scores: tuple[int, ...]  # by side
    winning_side: int | None
    target: int

    @property
    def game_over(self) -> bool:
        return self.winning_side is not None


class Move(NamedTuple):
    """A move: the seat, the card played and the table cards taken.

    ``take`` may be left empty when the taking is forced (nothing to take, or
    exactly one possible capture); the engine fills it in. ``lay`` says "play
    the card to the table without taking" where the rules let a card that could
    take be laid instead (Scopa's ``compulsory_capture`` off): an empty ``take``
    alone cannot say it, since it asks for the forced taking. A tuple, so that
    making one is cheap: bots make millions.
    """

    seat: int
    card: Card
    take: frozenset[Card] = frozenset()
    lay: bool = False

    def __str__(self) -> str:
        if self.lay:
            return f"{self.seat}:{self.card}-"
        if not self.take:
            return f"{self.seat}:{self.card}"
        return f"{self.seat}:{self.card}x" + "+".join(str(c) for c in sorted(self.take))

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read the notation ``str(move)`` writes: ``0:7D``, ``1:10Bx3B+7B``, ``0:8D-``.

        Refused with :class:`InvalidInput`: no seat before the colon
        (``INVALID_SEAT``), a card that is not one (``INVALID_CARD``), a card
        taken twice (``DUPLICATE_CARD``), a lay that also takes (``LAY_WITH_TAKE``).
        Whether the move is legal is for ``game.resolve`` to say.
        """
        if not isinstance(text, str):
            raise InvalidInput(
                Reason.INVALID_CARD, "a move is written as text, not {text}", text=repr(text)
            )
        seat, colon, rest = text.strip().partition(":")
        if not colon or not seat.isascii() or not seat.isdecimal():
            raise InvalidInput(
                Reason.INVALID_SEAT,
                "{text} is not a move: write SEAT:CARD, e.g. '0:7D', '1:10Bx3B+7B' or '0:8D-'",
                text=repr(text),
            )
        card, taking, taken = rest.partition("x")
        lay = card.endswith("-")
        if lay and taking:
            raise InvalidInput(
                Reason.LAY_WITH_TAKE, "{text} lays its card and takes too", text=repr(text)
            )
        try:
            take = parse_cards(taken.split("+")) if taking else ()
            played = Card.parse(card.removesuffix("-"))
        except InvalidInput as error:
            raise InvalidInput(
                error.reason, "{text} is not a move: {why}", text=repr(text), why=error
            ) from None
        return cls(int(seat), played, frozenset(take), lay)


#: The most seats a game has.
MAX_SEATS = 6
#: Every move that is a card alone (a trick game's), by seat then card: made once,
#: as moves are values, for the players' play-outs, which make one a card.
CARD_MOVES: tuple[tuple[Move, ...], ...] = tuple(
    tuple(Move(seat, card) for card in DECK) for seat in range(MAX_SEATS)
)


@dataclass(frozen=True, slots=True)
class Game:
    """A game as the registry and the service see it: what the catalog shows, and
    the game module's functions (``new_game``, ``legal_moves``, ``resolve``,
    ``apply``, ``view``, ``status`` and the state codec)."""

    name: str
    title: str
    description: str
    player_counts: tuple[int, ...]
    options: tuple[OptionSpec, ...]
    new_game: Callable[..., tuple[Any, list[Event]]]
    legal_moves: Callable[[Any], list[Move]]
    resolve: Callable[[Any, Move], Move]
    #: ``apply(state, move, entropy=None)``: ``entropy`` (a 64-bit integer) is the
    #: fresh randomness a game started with ``fresh=True`` needs when the move deals
    #: or draws; seeded games ignore it.
    apply: Callable[..., tuple[Any, list[Event]]]
    view: Callable[[Any, int], Any]
    status: Callable[[Any], Status]
    encode: Callable[[Any], bytes]
    decode: Callable[[bytes], Any]
    #: The game's rules from ``players`` and the options by their catalog names, as
    #: the rules type takes them (``ScopaRules.preset``, ``TressetteRules``):
    #: :meth:`rules_from` checks the catalog's values and calls it.
    make_rules: Callable[..., Any]
    #: The module of the game's hooks for the players (its ``BOTS``, a
    #: :class:`mazzo.engine.players.games.GameBots`): how to deal a simulation from
    #: a view, the fast play-out, the greedy player's rules of thumb. Named, not
    #: imported: the players import the game modules.
    bots: str = ""

    def rules_from(self, options: Mapping[str, object], players: int | None = None) -> Any:
        """The rules that ``options`` name, each option as the catalog writes it
        (``{"variant": "escoba", "target": 21, "re_bello": "10D"}``); an option
        left out keeps its default (in Scopa, the variant's preset), as in a
        NewGame request. Refused with ``INVALID_OPTION`` (``INVALID_PLAYERS``,
        ``INVALID_CARD``) as the rules refuse them."""
        specs = {spec.name: spec for spec in self.options}
        arguments: dict[str, object] = {} if players is None else {"players": players}
        for name, value in options.items():
            spec = specs.get(name)
            if spec is None:
                known = ", ".join(specs)
                raise InvalidInput(
                    Reason.INVALID_OPTION,
                    "{game} has no option {name}; its options: {known}",
                    {"option": str(name)},
                    game=self.title,
                    name=repr(name),
                    known=known,
                )
            arguments[name] = _rules_value(spec, value)
        return self.make_rules(**arguments)

    def options_of(self, rules: Any) -> dict[str, OptionValue]:
        """The options :meth:`rules_from` makes ``rules`` of (with its ``players``),
        fewest first: every option, then, as long as one can go, without each
        option the rules come out the same without (a Scopa variant's presets
        go, the variant and the switches set against it stay). ``InvalidInput``
        for rules no options name (a switch set where it does not apply)."""
        chosen = {spec.name: catalog_value(getattr(rules, spec.name)) for spec in self.options}
        dropped = True
        while dropped:
            dropped = False
            for name in reversed(list(chosen)):
                fewer = {key: value for key, value in chosen.items() if key != name}
                if self._makes(fewer, rules):
                    chosen, dropped = fewer, True
        if not self._makes(chosen, rules):
            raise InvalidInput(
                Reason.INVALID_OPTION,
                "{rules} cannot be written as {game}'s options",
                rules=repr(rules),
                game=self.title,
            )
        return chosen

    def _makes(self, options: Mapping[str, OptionValue], rules: Any) -> bool:
        try:
            return bool(self.rules_from(options, rules.players) == rules)
        except InvalidInput:
            return False


def game_of_state(state_type: Any) -> Game:
    """The registry entry of a game written as a :class:`mazzo.engine.state.State`
    class: its catalog entry, and its methods as the entry's functions, ``apply``
    playing on a clone (the caller's state may be shared, and stays as it was)."""

    def apply(state: Any, move: Move, entropy: int | None = None) -> tuple[Any, list[Event]]:
        played = state.clone()
        return played, played.apply(move, entropy)

    return Game(
        name=state_type.name,
        title=state_type.title,
        description=state_type.description,
        player_counts=state_type.player_counts,
        options=state_type.options,
        new_game=state_type.new_game,
        legal_moves=state_type.legal_moves,
        resolve=state_type.resolve,
        apply=apply,
        view=state_type.view,
        status=state_type.status,
        encode=state_type.encode,
        decode=state_type.decode,
        make_rules=state_type.make_rules,
        bots=state_type.bots,
    )


def catalog_value(value: object) -> OptionValue:
    """A rules field as the catalog writes it: an enum's value, a card's code,
    ``""`` for no card; booleans and integers as they are."""
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, Card):
        return str(value)
    if value is None:
        return ""
    if not isinstance(value, bool | int | str):
        raise TypeError(f"{value!r} is no option's value")
    return value


def _rules_value(spec: OptionSpec, value: object) -> object:
    """An option's catalog value as the rules take it: a card's code becomes the card.
    The rules check every value themselves (mazzo.engine.options.check)."""
    if spec.type == "card" and isinstance(value, str):
        return Card.parse(value) if value else None
    return value


# ---------------------------------------------------------------- shared rule pieces


class IllegalMove(RuleError):
    """The move is well formed but the rules forbid it here (mazzo.engine.errors).

    ``choices`` lists the legal alternatives when that helps the caller (an
    ambiguous capture lists every capture the card could make).
    """

    def __init__(
        self,
        reason: Reason,
        template: str,
        details: Mapping[str, str] | None = None,
        /,
        *,
        choices: tuple[Move, ...] = (),
        **params: object,
    ):
        super().__init__(reason, template, details, **params)
        self.choices = choices


#: Bounds of a state's counters that no real game reaches (a game is played to
#: at most 1,000 points, and every hand scores at least one point), well inside
#: the API's 32-bit fields: a decoded state past them was not made by this
#: engine and is refused as STATE_CORRUPT.
MAX_SCORE = 100_000
MAX_HAND_NUMBER = 100_000


def outside(name: str, values: Sequence[int], low: int, high: int) -> list[Text]:
    """``["NAME out of range"]`` when a value is not in ``low..high``, else ``[]``."""
    if all(low <= value <= high for value in values):
        return []
    return [Text("{name} out of range ({low}..{high})", name=name, low=low, high=high)]


def counters_out_of_range(state: Any) -> list[Text]:
    """A decoded state's scores and hand number within what a game can reach (any
    game's state: a named tuple with ``scores`` and ``hand_number``)."""
    return [
        *outside("score", state.scores, 0, MAX_SCORE),
        *outside("hand number", (state.hand_number,), 1, MAX_HAND_NUMBER),
    ]


def check_turn(
    move: Move, *, players: int, to_play: int, hand: Sequence[Card], game_over: bool
) -> None:
    """The checks every game makes first: the game goes on, the seat exists,
    it is its turn, it holds the card."""
    if game_over:
        raise IllegalMove(Reason.GAME_OVER, N_("the game is over"))
    check_seat(move.seat, players)
    if move.seat != to_play:
        raise IllegalMove(
            Reason.NOT_YOUR_TURN,
            "it is seat {to_play}'s turn, not seat {seat}'s",
            {"seatToPlay": str(to_play)},
            to_play=to_play,
            seat=move.seat,
        )
    if move.card not in hand:
        raise IllegalMove(
            Reason.CARD_NOT_IN_HAND,
            "{card} is not in seat {seat}'s hand",
            card=move.card,
            seat=move.seat,
        )


def check_seat(seat: int, players: int) -> None:
    if not 0 <= seat < players:
        raise InvalidInput(
            Reason.INVALID_SEAT, "seat must be 0..{last}, not {seat}", last=players - 1, seat=seat
        )


def unique_best(values: Sequence[Any]) -> int | None:
    """Index of the strictly greatest value; ``None`` when the best is shared."""
    best = max(values)
    leaders = [i for i, v in enumerate(values) if v == best]
    return leaders[0] if len(leaders) == 1 else None


def game_winner(scores: Sequence[int], target: int) -> int | None:
    """The side that reached the target alone in the lead, if any.

    With two sides this is also Tressette's rule: once a side has reached the
    target the side with more points wins; equal points, another hand.
    """
    best = unique_best(scores)
    return best if best is not None and scores[best] >= target else None


def replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])


def hands_fit(hands: Sequence[Sequence[Card]], to_play: int, played: set[int]) -> bool:
    """The seat to play holds a card; the seats in ``played`` (those that already
    played this round) hold one card fewer than the others."""
    size = len(hands[to_play])
    return size > 0 and all(len(hand) == size - (seat in played) for seat, hand in enumerate(hands))


def close_hand(
    state: S,
    sides: tuple[Any, ...],
    events: list[Event],
    start_hand: Callable[..., tuple[S, list[Event]]],
    **when_won: Any,
) -> tuple[S, list[Event]]:
    """Add a hand's points (``sides``, each with a ``total``) to the game scores:
    the state with the winner (changed by ``when_won`` too) if a side has won,
    else the next hand, dealt by ``start_hand`` (the game's own) by the next seat.

    Appends HandScored, then GameOver or the next deal's events. ``state`` is a
    game's state: a named tuple with ``rules``, ``dealer``, ``hand_number``,
    ``scores``, ``rng``, ``decks`` and ``fresh_draws`` (when set, ``rng`` is the
    fresh randomness of this move: see :func:`mazzo.engine.deal.fresh_order`).
    """
    ending = cast(Any, state)  # either game's state: it reads only the fields above
    scores = tuple(old + side.total for old, side in zip(ending.scores, sides, strict=True))
    events.append(HandScored(ending.hand_number, sides, scores))
    winner = game_winner(scores, ending.rules.target)
    if winner is not None:
        events.append(GameOver(winner, scores))
        if ending.fresh_draws:  # the entropy this move brought deals nothing now
            when_won = {**when_won, "rng": 0}
        return ending._replace(scores=scores, winner=winner, **when_won), events
    rules = ending.rules
    next_state, deal_events = start_hand(
        rules,
        (ending.dealer + 1) % rules.players,
        ending.hand_number + 1,
        scores,
        ending.rng,
        ending.decks,
        ending.fresh_draws,
    )
    events.extend(deal_events)
    return next_state, events


def status_of(game: str, state: Any) -> Status:
    """``state``'s public summary: either game's state (a named tuple with ``rules``,
    ``to_play``, ``dealer``, ``hand_number``, ``scores`` and ``winner``)."""
    rules, winner = state.rules, state.winner
    # tuple.__new__ in Status's field order: a named tuple's keyword __new__ is
    # Python code, and every Play answers a status.
    return _new(
        Status,
        (
            game,
            rules.players,
            None if winner is not None else state.to_play,
            state.dealer,
            state.hand_number,
            state.scores,
            winner,
            rules.target,
        ),
    )
