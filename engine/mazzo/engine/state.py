"""The contract every game keeps: one :class:`State` class per game.

A game is its State class, as python-chess's variants are Board classes and
OpenSpiel's games their State: its catalog entry (name, title, description,
player counts, options) as class attributes, and every rule as a method.
Both callers run on it:

* the service: :meth:`State.apply` checks a move, plays it and tells what
  happened (the events), closing the hand and dealing the next one;
* the players' searches: :meth:`State.step` plays the same move by the same
  code, without the check and the events, and stops at the hand's end
  (:attr:`State.hand_over`), where :meth:`State.hand_scores` scores it.

A state changes in place (a search makes millions of moves); a caller that
shares one (the service's memory of recent states) plays on a
:meth:`State.clone`. Between calls a state lives only in its bytes
(:meth:`State.encode`, :meth:`State.decode`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from functools import cache
from typing import ClassVar, Generic, Protocol, Self, TypeVar, cast

from mazzo.engine import deal, packing
from mazzo.engine.cards import Card, parse_cards
from mazzo.engine.errors import InvalidInput, Reason, Text
from mazzo.engine.events import Event, GameOver, HandScored, SideTotal
from mazzo.engine.game import Move, Status, game_winner
from mazzo.engine.options import OptionSpec
from mazzo.engine.scopa_rules import Face

#: An option's value as the catalog writes it: an integer, true/false, or text
#: (an enum's value, a card's code).
OptionValue = bool | int | str

#: Bounds of a state's counters that no real game reaches (a game is played to
#: at most 1,000 points, and every hand scores at least one point), well inside
#: the API's 32-bit fields: a decoded state past them was not made by this
#: engine and is refused as STATE_CORRUPT.
MAX_SCORE = 100_000
MAX_HAND_NUMBER = 100_000


class Rules(Protocol):
    """What every game's rules say (each game's is a frozen dataclass of its options)."""

    @property
    def players(self) -> int: ...

    @property
    def target(self) -> int: ...

    @property
    def sides(self) -> int: ...

    def side_of(self, seat: int) -> int: ...


class View(Protocol):
    """What every game's view of a seat shows, what the players read."""

    @property
    def seat(self) -> int: ...

    @property
    def side(self) -> int: ...

    @property
    def hand(self) -> tuple[Card, ...]: ...

    @property
    def hand_sizes(self) -> tuple[int, ...]: ...

    @property
    def stock_size(self) -> int: ...

    @property
    def piles(self) -> tuple[tuple[Card, ...], ...]: ...

    @property
    def known(self) -> tuple[tuple[Card, ...], ...]: ...

    @property
    def status(self) -> Status: ...

    @property
    def face(self) -> Face: ...

    @property
    def face_up(self) -> tuple[Card, ...]: ...


R = TypeVar("R", bound=Rules)
V = TypeVar("V", bound=View)


@dataclass(eq=True, kw_only=True, slots=True)
class State(ABC, Generic[R, V]):
    """One game between two moves, hidden cards included: the fields every game
    has (a game's own class adds its own)."""

    # ------------------------------------------------------------ the catalog entry

    #: The game's name in the registry, the API and the records: never changed.
    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    player_counts: ClassVar[tuple[int, ...]]
    #: The byte that names the game at the head of a state's bytes: never reused.
    tag: ClassVar[int]
    #: The module of the game's hooks for the players (its ``BOTS``, a
    #: :class:`mazzo.engine.players.games.GameBots`). Named, not imported: the
    #: players import the games.
    bots: ClassVar[str]
    #: The catalog's entries of the game's options: its rules' fields
    #: (mazzo.engine.options.catalog).
    options: ClassVar[tuple[OptionSpec, ...]]

    rules: R
    dealer: int
    hand_number: int  # 1 for the first hand
    to_play: int
    hands: list[list[Card]]  # by seat
    stock: list[Card]  # stock[0] is the top card
    piles: list[list[Card]]  # the cards won, by side
    scores: tuple[int, ...]  # the match's score by side, before this hand
    rng: int  # the shuffling generator's state
    decks: tuple[tuple[Card, ...], ...]  # explicit deck orders still to use
    winner: int | None = None  # the side that won the match
    #: Started without a seed or decks: ``stock`` is in card order (a set, not a
    #: sequence), ``rng`` is 0, and each deal or draw shuffles with the entropy
    #: :meth:`apply` is given.
    fresh_draws: bool = False

    # ------------------------------------------------------------ starting

    @classmethod
    def new_game(
        cls,
        rules: R,
        *,
        seed: int,
        decks: Sequence[Sequence[Card]] = (),
        first_dealer: int | None = None,
        fresh: bool = False,
    ) -> tuple[Self, list[Event]]:
        """Shuffle (or take ``decks[0]``) and deal the first hand.

        ``fresh``: ``seed`` is fresh randomness for this deal only; later deals and
        draws take the entropy given to :meth:`apply`, so the state fixes no card
        still to come.
        """
        dealer, rng_state, explicit = deal.checked_start(rules.players, seed, decks, first_dealer)
        if fresh and explicit:
            raise ValueError("explicit decks fix the deal: a game with them cannot be fresh")
        state = cls.__new__(cls)
        state.rules, state.scores, state.winner = rules, (0,) * rules.sides, None
        state.rng, state.decks, state.fresh_draws = rng_state, explicit, fresh
        state.hand_number = 0
        events: list[Event] = []
        state.deal(dealer, events)
        return state, events

    @abstractmethod
    def deal(self, dealer: int, events: list[Event]) -> None:
        """The next hand dealt by ``dealer`` (the hand number one more), from the
        next explicit deck or the generator: every field of the hand set anew."""

    def next_deck(self) -> tuple[Card, ...]:
        """The deck the next deal takes: the first explicit one left, else a shuffle."""
        self.rng, deck, self.decks = deal.next_deck(self.rng, self.decks)
        return deck

    # ------------------------------------------------------------ moves

    @property
    def game_over(self) -> bool:
        return self.winner is not None

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to play (none once the game is over)."""

    @abstractmethod
    def resolve(self, move: Move) -> Move:
        """``move`` checked, with what it leaves implicit filled in (Scopa's forced
        taking); :class:`~mazzo.engine.game.IllegalMove` or
        :class:`~mazzo.engine.errors.InvalidInput` saying why it is not legal."""

    def apply(self, move: Move, entropy: int | None = None) -> list[Event]:
        """Check ``move`` and play it, in place: what happened. A refused move
        changes nothing.

        ``entropy`` (64 bits) shuffles the cards a deal or a draw takes in a game
        started with ``fresh=True``, and must then be given; seeded games ignore it.
        """
        move = self.resolve(move)
        events: list[Event] = []
        self.step(move, events, entropy)
        if self.hand_over:
            if self.fresh_draws:  # the next hand, if any, is shuffled with this entropy
                self.rng = deal.required_entropy(entropy)
            self.close_hand(events)
        return events

    @abstractmethod
    def step(
        self, move: Move, events: list[Event] | None = None, entropy: int | None = None
    ) -> None:
        """Play a legal ``move``, in place and unchecked: the one transition of the
        rules, which :meth:`apply` calls after its check and the players' searches
        call alone. ``events`` collects what happened (``None``, as in a search:
        nothing is told, nothing is made for it). At the hand's end
        (:attr:`hand_over`) the state stops there, for :meth:`hand_scores`:
        :meth:`apply` then closes the hand."""

    def cards_to_play(self) -> int:
        """The moves left in this hand: every card in a hand or the stock is played."""
        return sum(map(len, self.hands)) + len(self.stock)

    @property
    @abstractmethod
    def hand_over(self) -> bool:
        """Every card of the hand is played: :meth:`hand_scores` scores it."""

    @abstractmethod
    def hand_scores(self) -> tuple[SideTotal, ...]:
        """The hand's points by side, each with what earned them."""

    def close_hand(self, events: list[Event]) -> None:
        """Add the hand's points to the match: the winner if a side has won,
        else the next hand, dealt by the next seat."""
        sides = self.hand_scores()
        self.scores = tuple(old + side.total for old, side in zip(self.scores, sides, strict=True))
        events.append(HandScored(self.hand_number, sides, self.scores))
        winner = game_winner(self.scores, self.rules.target)
        if winner is None:
            self.deal((self.dealer + 1) % self.rules.players, events)
            return
        events.append(GameOver(winner, self.scores))
        self.winner = winner
        if self.fresh_draws:  # the entropy this move brought deals nothing now
            self.rng = 0
        self.match_won()

    def match_won(self) -> None:
        """What a game clears when the match is won (Scopa: the hand's declarations)."""

    # ------------------------------------------------------------ copying, comparing

    def clone(self) -> Self:
        """A copy that shares nothing mutable with this state: its lists (of cards,
        or of lists of cards) and deques are copied, its values shared."""
        # Not typing.cast: a call of its own, on every Play and every play-out.
        return _cloner(type(self))(self)  # type: ignore[return-value]

    # ------------------------------------------------------------ seeing

    @abstractmethod
    def view(self, seat: int) -> V:
        """What ``seat`` may see: docs/rules.md, Hidden information."""

    def status(self) -> Status:
        """The public summary: whose turn, the dealer, the scores."""
        winner = self.winner
        return Status(
            self.name,
            self.rules.players,
            None if winner is not None else self.to_play,
            self.dealer,
            self.hand_number,
            self.scores,
            winner,
            self.rules.target,
        )

    # ------------------------------------------------------------ bytes

    @abstractmethod
    def encode(self) -> bytes:
        """The state as compact bytes (the game's own format, after the tag)."""

    @classmethod
    def decode(cls, data: bytes) -> Self:
        """:meth:`encode`'s bytes read back; ``InvalidInput(STATE_CORRUPT)`` if
        they are not a state this engine can have made: :meth:`read_unchecked`
        cannot read them, or :meth:`inconsistencies` finds a fault."""
        return packing.decode_checked(data, cls.read_unchecked, cls.inconsistencies)

    @classmethod
    @abstractmethod
    def read_unchecked(cls, data: bytes) -> Self:
        """:meth:`encode`'s bytes read as they are, for :meth:`decode` to check:
        ``struct.error``, ``IndexError``, ``KeyError`` or ``ValueError`` where they
        cannot be read (a card's byte past the 40 may read as None)."""

    @abstractmethod
    def inconsistencies(self) -> list[Text]:
        """What makes a decoded state one no game can reach, so that no later call
        trips on it: none for a state the rules made."""

    def counters_out_of_range(self) -> list[Text]:
        """A decoded state's scores and hand number within what a game can reach."""
        scores = self.scores
        hand_number = self.hand_number
        if min(scores) >= 0 and max(scores) <= MAX_SCORE and 1 <= hand_number <= MAX_HAND_NUMBER:
            return []  # every state a decode reads: no texts to build
        return [
            *outside("score", scores, 0, MAX_SCORE),
            *outside("hand number", (hand_number,), 1, MAX_HAND_NUMBER),
        ]

    # ------------------------------------------------------------ options

    @classmethod
    def rules_from(cls, options: Mapping[str, object], players: int | None = None) -> R:
        """The rules that ``options`` name, each option as the catalog writes it
        (``{"variant": "escoba", "target": 21, "re_bello": "10D"}``); an option
        left out keeps its default (in Scopa, the variant's preset), as in a
        NewGame request. Refused with ``INVALID_OPTION`` (``INVALID_PLAYERS``,
        ``INVALID_CARD``) as the rules refuse them."""
        specs = {spec.name: spec for spec in cls.options}
        arguments: dict[str, object] = {} if players is None else {"players": players}
        for name, value in options.items():
            spec = specs.get(name)
            if spec is None:
                known = ", ".join(specs)
                raise InvalidInput(
                    Reason.INVALID_OPTION,
                    "{game} has no option {name}; its options: {known}",
                    {"option": str(name)},
                    game=cls.title,
                    name=repr(name),
                    known=known,
                )
            arguments[name] = _rules_value(spec, value)
        return cls.make_rules(**arguments)

    #: The game's rules class, which :meth:`make_rules` calls with the options.
    rules_type: ClassVar[Callable[..., Rules]]

    @classmethod
    def make_rules(cls, **options: object) -> R:
        """The rules of these options (by the rules' own names, ``players`` too);
        Scopa's presets its variant's switches first."""
        return cast(R, cls.rules_type(**options))

    @classmethod
    def options_of(cls, rules: R) -> dict[str, OptionValue]:
        """The options :meth:`rules_from` makes ``rules`` of (with its ``players``),
        fewest first: every option, then, as long as one can go, without each
        option the rules come out the same without (a Scopa variant's presets
        go, the variant and the switches set against it stay). ``InvalidInput``
        for rules no options name (a switch set where it does not apply)."""
        chosen = {spec.name: catalog_value(getattr(rules, spec.name)) for spec in cls.options}
        dropped = True
        while dropped:
            dropped = False
            for name in reversed(list(chosen)):
                fewer = {key: value for key, value in chosen.items() if key != name}
                if cls._makes(fewer, rules):
                    chosen, dropped = fewer, True
        if not cls._makes(chosen, rules):
            raise InvalidInput(
                Reason.INVALID_OPTION,
                "{rules} cannot be written as {game}'s options",
                rules=repr(rules),
                game=cls.title,
            )
        return chosen

    @classmethod
    def _makes(cls, options: Mapping[str, OptionValue], rules: R) -> bool:
        try:
            return bool(cls.rules_from(options, rules.players) == rules)
        except InvalidInput:
            return False


@cache
def _cloner(state_type: type) -> Callable[[object], object]:
    """``state_type``'s clone, written out field by field from the fields' types,
    as dataclasses writes ``__init__`` (a loop over the fields, asking each value
    its type, cost a Play a tenth more): a list of lists copies each list, a
    list or a deque is copied, any other value (a number, a tuple, the rules)
    is shared."""
    lines = ["def clone(self):", "    new = new_state(state_type)"]
    for field in fields(state_type):
        kind, name = str(field.type), field.name
        if kind.startswith("list[list["):
            copied = f"list(map(copy_list, self.{name}))"
        elif kind.startswith(("list[", "deque[")):
            copied = f"self.{name}.copy()"
        else:
            copied = f"self.{name}"
        lines.append(f"    new.{name} = {copied}")
    source = "\n".join([*lines, "    return new"])
    namespace: dict[str, object] = {
        "new_state": object.__new__,
        "state_type": state_type,
        "copy_list": list.copy,
    }
    exec(source, namespace)  # the code above, from the fields alone
    return cast(Callable[[object], object], namespace["clone"])


def outside(name: str, values: Sequence[int], low: int, high: int) -> list[Text]:
    """``["NAME out of range"]`` when a value is not in ``low..high``, else ``[]``."""
    if not values or low <= min(values) and max(values) <= high:
        return []
    return [Text("{name} out of range ({low}..{high})", name=name, low=low, high=high)]


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
        return parse_cards([value])[0] if value else None
    return value
