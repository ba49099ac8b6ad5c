"""The rules of one game of Scopa: the variant and every switch it presets.

Every variant of the family is a set of switches on the one Scopa game
(docs/variants.md): Scopone changes the deal, Quindici and Escoba the capture,
Scopa d'Assi the ace, Cirulla several things at once, Re bello the scoring.
:meth:`ScopaRules.preset` fills in the switches of a variant and lets a caller
override any of them to mix house rules; the combinations that make no sense
are refused with ``INVALID_OPTION``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from mazzo.engine import options
from mazzo.engine.cards import SETTEBELLO, Card
from mazzo.engine.errors import N_, InvalidInput, Reason
from mazzo.engine.options import card, choice, number, switch

PLAYER_COUNTS = (2, 3, 4, 6)
MAX_TARGET = 1000


class Variant(StrEnum):
    SCOPA = "scopa"
    SCOPONE_SCIENTIFICO = "scopone_scientifico"
    SCOPONE_CLASSICO = "scopone_classico"
    QUINDICI = "quindici"
    ESCOBA = "escoba"
    SCOPA_D_ASSI = "scopa_d_assi"
    CIRULLA = "cirulla"
    RE_BELLO = "re_bello"


class PrimieraRule(StrEnum):
    """How the primiera point is decided (docs/rules.md, Points of a hand)."""

    STANDARD = "standard"  # scale totals; a side lacking a suit has none
    SEVENS = "sevens"  # most sevens, then sixes, ...
    LENIENT = "lenient"  # lacking a suit wins only if every side lacks one
    MOST_SEVENS = "most_sevens"  # Escoba's sietes: most sevens, a tie scores nobody


class DealRule(StrEnum):
    THREE = "three"  # 3 each and 4 on the table, again until the stock is gone
    SCOPONE_NINE = "scopone_nine"  # 9 each and 4 on the table, once
    SCOPONE_TEN = "scopone_ten"  # 10 each, nothing on the table


class CaptureRule(StrEnum):
    SCOPA = "scopa"  # same rank first, else a sum to the card's value
    QUINDICI = "quindici"  # the played card and the taken cards total 15
    CIRULLA = "cirulla"  # either of the two above, the player's choice


class AceSweep(StrEnum):
    """When a capture made by an ace that takes all counts as a sweep."""

    ORDINARY = "ordinary"  # only when the ordinary rules would have made it: never a take-all
    ALWAYS = "always"  # every ace capture that empties the table
    NEVER = "never"  # no capture made with an ace is a sweep


class TableBonus(StrEnum):
    """The dealer's sweeps for the first table of a hand."""

    NONE = "none"
    TOTAL = "total"  # Cirulla: a total of 15 gives one sweep, 30 two
    PAIRS = "pairs"  # Escoba: 15 gives one; 30 two when it splits into two 15s


class Face(StrEnum):
    """The names and pictures of the cards; the codes on the wire never change."""

    ITALIAN = "italian"
    FRENCH = "french"
    SPANISH = "spanish"


#: (hand size, table size) of each deal.
DEAL_SIZES = {DealRule.THREE: (3, 4), DealRule.SCOPONE_NINE: (9, 4), DealRule.SCOPONE_TEN: (10, 0)}


@dataclass(frozen=True, slots=True)
class ScopaRules:
    """Every option of a game of Scopa, each declared once (mazzo.engine.options): the
    catalog, the checks, the state codec and the server's mapping read them from here.

    The order of the enum options and of the on/off options is the order of the state
    codec's rules bytes (mazzo.engine.scopa): add an option after the others of its
    kind, never reorder them.
    """

    players: int = 2
    target: int = number(11, "points to win", low=1, high=MAX_TARGET)
    napola: bool = switch(False, "score the run of coins from the ace")
    primiera: PrimieraRule = choice(PrimieraRule.STANDARD, "how the primiera point is decided")
    variant: Variant = choice(
        Variant.SCOPA,
        "the preset of every switch below; a switch set by the caller overrides it",
        presets=True,
    )
    deal: DealRule = choice(
        DealRule.THREE, "3 each and 4 on the table, or Scopone's 9 + 4 or 10 each"
    )
    capture: CaptureRule = choice(
        CaptureRule.SCOPA, "by rank or sum, by fifteen (Quindici, Escoba), or either (Cirulla)"
    )
    ace_takes_all: bool = switch(False, "an ace takes the whole table")
    ace_sweep: AceSweep = choice(AceSweep.ORDINARY, "when an ace that takes all makes a sweep")
    fewest_cards: bool = switch(False, "among several sums, only the fewest cards may be taken")
    redeal_kings: bool = switch(True, "a first table with 3 or 4 kings is dealt again")
    redeal_aces: bool = switch(False, "a first table with 2 or more aces is dealt again")
    first_table_bonus: TableBonus = choice(
        TableBonus.NONE, "the dealer takes a first table of 15 (or 30) as sweeps"
    )
    declarations: bool = switch(False, "Cirulla's hand declarations, with the matta")
    grande_piccola: bool = switch(False, "Cirulla's grande (5) and piccola (3+)")
    re_bello: Card | None = card("a second bonus card worth 1 point (e.g. 10D)")
    face: Face = choice(Face.ITALIAN, "the names of the cards in views; the codes never change")
    compulsory_capture: bool = switch(
        True, "a card that can take must take; off (Escoba), it may also be laid"
    )
    matta_wild_in_first_table: bool = switch(
        False, "Cirulla: the matta (7C) counts as any value in the first-table total"
    )
    piccola_stops_at_six: bool = switch(
        False, "Cirulla: the piccola's run of coins stops at the 6, not the 7"
    )
    #: The switches that decide captures, as one small key for the capture cache.
    capture_key: tuple[CaptureRule, bool, bool] = field(
        init=False, repr=False, compare=False, hash=False
    )
    #: Whether seats play in two teams (4 and 6 players): read on every capture.
    teams: bool = field(init=False, repr=False, compare=False, hash=False)
    #: The cards a hand is dealt, and the table (the deal's): read on every move.
    hand_size: int = field(init=False, repr=False, compare=False, hash=False)
    table_size: int = field(init=False, repr=False, compare=False, hash=False)
    #: The hash, worked out once: rules key caches that every move reads (the
    #: state codec's), and hashing seventeen fields each time cost more than the look-up.
    _hash: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        options.check_players(
            self.players,
            PLAYER_COUNTS,
            N_("Scopa is played by 2, 3, 4 or 6 players, not {players}"),
        )
        options.check(self)
        _check_combination(self)
        key = (self.capture, self.ace_takes_all, self.fewest_cards)
        object.__setattr__(self, "capture_key", key)
        object.__setattr__(self, "teams", self.players in (4, 6))
        object.__setattr__(self, "hand_size", DEAL_SIZES[self.deal][0])
        object.__setattr__(self, "table_size", DEAL_SIZES[self.deal][1])
        compared = tuple(getattr(self, f.name) for f in fields(self) if f.compare)
        object.__setattr__(self, "_hash", hash(compared))

    def __hash__(self) -> int:
        return self._hash

    @classmethod
    def preset(cls, variant: Variant | str = Variant.SCOPA, **overrides: object) -> ScopaRules:
        """The rules of ``variant``, with the switches in ``overrides`` set by the caller."""
        chosen = options.enum_value("variant", Variant, variant)
        unknown = sorted(set(overrides) - {f.name for f in fields(cls) if f.init})
        if unknown:
            options.refuse(unknown[0], "no Scopa option {given}", given=repr(unknown[0]))
        # Options by name, of as many types as the rules' fields: no dict's type but
        # this one matches them field by field; the rules check each value (options.check).
        values: dict[str, Any] = {**_PRESETS[chosen], **overrides, "variant": chosen}
        if values.get("deal") == DealRule.SCOPONE_TEN:
            # No first table: the redeal switches are off unless the caller set them.
            for name in ("redeal_kings", "redeal_aces"):
                if name not in overrides:
                    values[name] = False
        if "ace_sweep" in overrides and not values.get("ace_takes_all", False):
            options.refuse("ace_sweep", "ace_sweep applies only when ace_takes_all is on")
        if "players" not in overrides:
            values["players"] = DEFAULT_PLAYERS[chosen]
        return cls(**values)

    @property
    def sides(self) -> int:
        return 2 if self.teams else self.players

    def side_of(self, seat: int) -> int:
        """Seats 0+2(+4) against 1+3(+5) with teams; every player alone otherwise."""
        return seat % 2 if self.teams else seat


#: The options of enum type and of bool type, in the order the state codec packs them.
ENUM_FIELDS = options.enum_fields(ScopaRules)
BOOL_FIELDS = options.bool_fields(ScopaRules)

#: What each variant changes from plain Scopa (docs/variants.md, the presets table).
_PRESETS: dict[Variant, dict[str, object]] = {
    Variant.SCOPA: {},
    Variant.SCOPONE_SCIENTIFICO: {
        "deal": DealRule.SCOPONE_TEN,
        "redeal_kings": False,
        "target": 21,
    },
    Variant.SCOPONE_CLASSICO: {"deal": DealRule.SCOPONE_NINE, "target": 21},
    Variant.QUINDICI: {"capture": CaptureRule.QUINDICI, "redeal_kings": False},
    Variant.ESCOBA: {
        "capture": CaptureRule.QUINDICI,
        "redeal_kings": False,
        "first_table_bonus": TableBonus.PAIRS,
        "primiera": PrimieraRule.MOST_SEVENS,
        "target": 21,
        "face": Face.SPANISH,
        "compulsory_capture": False,
    },
    Variant.SCOPA_D_ASSI: {"ace_takes_all": True},
    Variant.CIRULLA: {
        "capture": CaptureRule.CIRULLA,
        "ace_takes_all": True,
        "ace_sweep": AceSweep.ALWAYS,
        "redeal_kings": False,
        "redeal_aces": True,
        "first_table_bonus": TableBonus.TOTAL,
        "declarations": True,
        "grande_piccola": True,
        "target": 51,
        "face": Face.FRENCH,
    },
    Variant.RE_BELLO: {"re_bello": Card.of(10, 0)},
}

TITLES: dict[Variant, str] = {
    Variant.SCOPA: "Scopa",
    Variant.SCOPONE_SCIENTIFICO: "Scopone scientifico",
    Variant.SCOPONE_CLASSICO: "Scopone classico",
    Variant.QUINDICI: "Scopa di Quindici",
    Variant.ESCOBA: "Escoba",
    Variant.SCOPA_D_ASSI: "Scopa d'Assi (Asso piglia tutto)",
    Variant.CIRULLA: "Cirulla",
    Variant.RE_BELLO: "Re bello",
}

VARIANT_PLAYERS: dict[Variant, tuple[int, ...]] = {
    variant: (4,)
    if variant in (Variant.SCOPONE_SCIENTIFICO, Variant.SCOPONE_CLASSICO)
    else (2, 3, 4)
    if variant is Variant.CIRULLA
    else PLAYER_COUNTS
    for variant in Variant
}

DEFAULT_PLAYERS: dict[Variant, int] = {
    variant: 4 if variant in (Variant.SCOPONE_SCIENTIFICO, Variant.SCOPONE_CLASSICO) else 2
    for variant in Variant
}


def preset_values(variant: Variant) -> dict[str, object]:
    """Every switch of ``variant`` (its changes over the plain defaults)."""
    return dict(_PRESETS[variant])


def _check_combination(rules: ScopaRules) -> None:
    """Refuse switches that make no sense together (docs/variants.md)."""
    # A player count the variant or the deal does not allow is INVALID_PLAYERS, as for
    # plain Scopa (docs/variants.md, Combinations to refuse; docs/api.md).
    if rules.deal is not DealRule.THREE and rules.players != 4:
        raise InvalidInput(
            Reason.INVALID_PLAYERS,
            "the Scopone deals are for 4 players, not {players}",
            {"option": "deal"},
            players=rules.players,
        )
    if rules.variant is Variant.CIRULLA and rules.players == 6:
        raise InvalidInput(
            Reason.INVALID_PLAYERS,
            "Cirulla is played by 2, 3 or 4 players, not {players}",
            {"option": "players"},
            players=rules.players,
        )
    if rules.declarations and rules.deal is not DealRule.THREE:
        options.refuse("declarations", "the hand declarations judge hands of 3 cards")
    if rules.deal is DealRule.SCOPONE_TEN and (
        rules.redeal_kings or rules.redeal_aces or rules.first_table_bonus is not TableBonus.NONE
    ):
        options.refuse("deal", "the 10-card Scopone deal has no first table to redeal or score")
    if rules.matta_wild_in_first_table and rules.first_table_bonus is TableBonus.NONE:
        options.refuse(
            "matta_wild_in_first_table",
            "matta_wild_in_first_table applies only with a first_table_bonus",
        )
    if rules.piccola_stops_at_six and not rules.grande_piccola:
        options.refuse(
            "piccola_stops_at_six", "piccola_stops_at_six applies only with grande_piccola"
        )
    if rules.napola and rules.grande_piccola:
        options.refuse(
            "napola", "the napola and the piccola would score the same run of coins twice"
        )
    if rules.re_bello == SETTEBELLO:
        options.refuse("re_bello", "the 7 of coins already scores as the settebello")
