"""How the player writes cards, seats, sides and a hand's scoring."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb
from mazzo_client.play.lang import N_, _, ngettext

# Primiera values of the standard scale, by rank (figures 10).
PRIMIERA_SCALE = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}
SUITS = "DCSB"
SEVENS_RULES = ("PRIMIERA_RULE_SEVENS", "PRIMIERA_RULE_MOST_SEVENS")
#: A sentence's start by verb: the human's, then another seat's ({seat}).
SUBJECTS = {
    "deal": (N_("You deal"), N_("{seat} deals")),
    "play": (N_("You play"), N_("{seat} plays")),
    "take": (N_("You take"), N_("{seat} takes")),
    "declare": (N_("You declare"), N_("{seat} declares")),
    "win": (N_("You win"), N_("{seat} wins")),
    "draw": (N_("You draw"), N_("{seat} draws")),
}
#: The bots' levels, as the player reads them.
LEVEL_NAMES = (N_("random"), N_("greedy"), N_("intermediate"), N_("expert"))
BOT = N_("bot")


def plural(count: int, word: str) -> str:
    """``3 cards``, in the chosen language (word: card, sweep or way)."""
    if word == "card":
        form = ngettext("{count} card", "{count} cards", count)
    elif word == "sweep":
        form = ngettext("{count} sweep", "{count} sweeps", count)
    else:
        form = ngettext("{count} way", "{count} ways", count)
    return form.format(count=count)


def rank(card: str) -> int:
    return int(card[:-1])


def suit(card: str) -> str:
    return card[-1]


@dataclass
class Names:
    """Card and suit names in the game's deck face: the catalog's faces, the view's
    own names. A card is named as the catalog's ``name`` where it stands alone (a
    list, a label) and as its ``accusative`` where it is a verb's or a
    preposition's object ("You play the three of swords")."""

    faces: Mapping[str, Mapping[str, str]]
    face: str = "FACE_ITALIAN"
    known: dict[str, str] = field(default_factory=dict)
    #: By face: each card's name as an object (the catalog's ``accusative``).
    objects: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: By face: each suit's name, by its letter.
    suits: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @classmethod
    def from_catalog(cls, catalog: pb.GetCatalogResponse) -> Names:
        faces = [f for g in catalog.games for f in g.faces]
        return cls(
            {f.name: {c.code: c.name for c in f.cards} for f in faces},
            objects={f.name: {c.code: c.accusative for c in f.cards} for f in faces},
            suits={f.name: {s.code: s.name for s in f.suits} for f in faces},
        )

    def learn(self, view: pb.View) -> None:
        if view.face:
            self.face = pb.Face.Name(view.face)
        self.known.update(view.card_names)

    def name(self, code: str) -> str:
        return self.known.get(code) or self.faces.get(self.face, {}).get(code, code)

    def is_card(self, code: str) -> bool:
        return code in self.known or any(code in face for face in self.faces.values())

    def card(self, code: str) -> str:
        """``sette di denari [7D]``: the face's name, then the code one types."""
        return self._with_code(self.name(code), code)

    def card_as_object(self, code: str) -> str:
        """``il sette di denari [7D]``, ``семёрку денариев [7D]``: the card as a verb's object."""
        return self._with_code(self.objects.get(self.face, {}).get(code) or self.name(code), code)

    def cards(self, codes: Iterable[str], empty: str = N_("nothing")) -> str:
        return ", ".join(self.card(c) for c in codes) or _(empty)

    def cards_as_objects(self, codes: Iterable[str], empty: str = N_("nothing")) -> str:
        return ", ".join(self.card_as_object(c) for c in codes) or _(empty)

    def suit(self, letter: str) -> str:
        """The suit's name in the face (``spade``, ``пики``); its letter if the catalog has none."""
        return self.suits.get(self.face, {}).get(letter) or letter

    @staticmethod
    def _with_code(name: str, code: str) -> str:
        return code if name == code else f"{name} [{code}]"


@dataclass(frozen=True)
class Seating:
    """Who sits where: the human's seat and the bots' levels."""

    players: int
    human: int
    levels: Mapping[int, str]

    @property
    def teams(self) -> bool:
        return self.players in (4, 6)

    @property
    def sides(self) -> int:
        return 2 if self.teams else self.players

    def side(self, seat: int) -> int:
        return seat % 2 if self.teams else seat

    def partners(self) -> list[int]:
        """The human's partners: the other seats of the human's side."""
        human_side = self.side(self.human)
        return [
            s
            for s in range(self.players)
            if self.teams and s != self.human and self.side(s) == human_side
        ]

    def seat_name(self, seat: int, *, partner_said: bool = True) -> str:
        """``seat 2 (greedy, your partner)``; without the partner's mark when
        ``partner_said`` is false (where the sentence says it)."""
        if seat == self.human:
            return _("you")
        level = _(self.levels.get(seat, BOT))
        if partner_said and seat in self.partners():
            return _("seat {seat} ({level}, your partner)").format(seat=seat, level=level)
        return _("seat {seat} ({level})").format(seat=seat, level=level)

    def subject(self, seat: int, verb: str) -> str:
        """``You take`` / ``Seat 1 (expert) takes``: a sentence's start."""
        yours, theirs = SUBJECTS[verb]
        if seat == self.human:
            return _(yours)
        name = self.seat_name(seat)
        return _(theirs).format(seat=f"{name[0].upper()}{name[1:]}")

    def side_name(self, side: int) -> str:
        if not self.teams:
            return self.seat_name(side).split(" (")[0]
        seats = "+".join(str(s) for s in range(self.players) if self.side(s) == side)
        template = _("us ({seats})") if side == self.side(self.human) else _("them ({seats})")
        return template.format(seats=seats)

    def scores(self, scores: Sequence[int]) -> str:
        return ", ".join(f"{self.side_name(side)}: {score}" for side, score in enumerate(scores))


def best_primiera_cards(pile: Iterable[str], rule: str) -> list[str]:
    """The cards a side's primiera is made of: its best card of each suit on the
    scale, or its sevens where the primiera counts sevens."""
    cards = list(pile)
    if rule in SEVENS_RULES:
        return sorted((c for c in cards if rank(c) == 7), key=lambda c: SUITS.index(suit(c)))
    best = []
    for s in SUITS:
        of_suit = [c for c in cards if suit(c) == s]
        if of_suit:
            best.append(max(of_suit, key=lambda c: PRIMIERA_SCALE[rank(c)]))
    return best


LABEL_WIDTH = 16
COLUMN_WIDTH = 18


Row = tuple[str, Sequence[str]]  # a label and its cells, one a side


def _rows(rows: Sequence[Row]) -> list[str]:
    """The rows in columns: the labels' as wide as the longest needs (at least
    LABEL_WIDTH), each side's COLUMN_WIDTH, wider where a cell is."""
    width = max([LABEL_WIDTH - 1, *(len(label) for label, _cells in rows)]) + 1
    columns = max((len(cells) for _label, cells in rows), default=0)
    widths = [
        max([COLUMN_WIDTH - 1, *(len(cells[k]) for _l, cells in rows if k < len(cells))]) + 1
        for k in range(columns)
    ]
    return [
        f"  {label:<{width}}"
        + "".join(f"{cell:<{widths[k]}}" for k, cell in enumerate(cells)).rstrip()
        for label, cells in rows
    ]


def _points(value: object, point: int) -> str:
    return f"{value} (+{point})" if point else f"{value}"


def _thirds(thirds: int) -> str:
    whole, rest = divmod(thirds, 3)
    return f"{whole} {rest}/3" if rest else f"{whole}"


@dataclass(frozen=True)
class ScoreRow:
    """A row of the score sheet: its label (translated when shown) and how one
    side's cell is written from the game's score message (its field of the row's
    name by default). ``beside``: the fields the cell writes too, which get no row
    of their own; ``when_scored``: shown only when a side scored any; ``made_of``:
    the label of a row below it, the primiera's cards worked out from the piles
    with the game's primiera option."""

    label: str
    cell: Callable[[Any, str], str] | None = None
    beside: tuple[str, ...] = ()
    when_scored: bool = False
    made_of: str = ""


def _with_point(value_of: Callable[[Any], object], point: str) -> Callable[[Any, str], str]:
    """A cell of a value and, when the side made any, the points it made: ``20 (+1)``."""
    return lambda score, _name: _points(value_of(score), getattr(score, point))


#: The score sheet's rows, keyed by the field of a game's score message (the
#: SideScore's oneof) they write, in the order they are shown. A field of no row
#: here gets one of its own after them, named by its words.
SCORE_ROWS: dict[str, ScoreRow] = {
    "cards": ScoreRow(N_("cards"), _with_point(lambda s: s.cards, "cards_point"), ("cards_point",)),
    "denari": ScoreRow(
        N_("coins"), _with_point(lambda s: s.denari, "denari_point"), ("denari_point",)
    ),
    "settebello_point": ScoreRow(
        N_("settebello"),
        _with_point(lambda s: _("yes") if s.settebello_point else "-", "settebello_point"),
    ),
    "primiera": ScoreRow(
        N_("primiera"),
        _with_point(lambda s: s.primiera or _("none"), "primiera_point"),
        ("primiera_point",),
        made_of=N_("its cards"),
    ),
    "sweeps": ScoreRow(N_("sweeps"), _with_point(lambda s: s.sweeps, "sweeps")),
    "napola": ScoreRow(N_("napola")),
    "re_bello_point": ScoreRow(N_("re bello"), when_scored=True),
    "grande": ScoreRow(N_("grande"), when_scored=True),
    "piccola": ScoreRow(N_("piccola"), when_scored=True),
    "declarations": ScoreRow(N_("declarations"), when_scored=True),
    # Points in thirds, with the whole points they make.
    "thirds": ScoreRow(
        N_("card points"),
        lambda s, _name: f"{_thirds(s.thirds)} ({s.card_points})",
        ("card_points",),
    ),
    "card_points": ScoreRow(N_("card points")),
    "last_trick_point": ScoreRow(N_("last trick")),
    "napoletana": ScoreRow(N_("napoletana")),
}


def scoring_table(
    scored: pb.HandScored,
    piles: Mapping[int, Sequence[str]],
    seating: Seating,
    primiera_rule: str,
    target: int,
) -> list[str]:
    """The hand's scoring, one column per side, then the match score."""
    sides = sorted(scored.sides, key=lambda s: s.side)
    rows: list[Row] = [("", [seating.side_name(s.side) for s in sides])]
    game = (sides[0].WhichOneof("game") or "") if sides else ""
    if game:  # the rows of the game's score message, field by field
        rows += _score_rows(sides, [getattr(s, game) for s in sides], piles, primiera_rule)
    rows.append((_("hand total"), [str(s.total) for s in sides]))
    lines = [_("Hand {number} scoring").format(number=scored.hand_number), *_rows(rows)]
    match = _("Match: {scores} (playing to {target})")
    lines.append(match.format(scores=seating.scores(scored.scores), target=target))
    return lines


def _score_rows(
    sides: Sequence[pb.SideScore],
    scores: Sequence[Any],
    piles: Mapping[int, Sequence[str]],
    primiera_rule: str,
) -> list[Row]:
    """A row for each field of the sides' score messages: SCORE_ROWS' first, in its
    order, then any other in the message's."""
    fields = [field.name for field in scores[0].DESCRIPTOR.fields]
    written_beside = {b for name in fields if name in SCORE_ROWS for b in SCORE_ROWS[name].beside}
    shown = [name for name in SCORE_ROWS if name in fields and name not in written_beside]
    shown += [name for name in fields if name not in SCORE_ROWS and name not in written_beside]
    rows: list[Row] = []
    for name in shown:
        row = SCORE_ROWS.get(name) or ScoreRow(name.replace("_", " "))
        if row.when_scored and not any(getattr(s, name) for s in scores):
            continue
        cell = row.cell or (lambda score, field: str(getattr(score, field)))
        rows.append((_(row.label), [cell(s, name) for s in scores]))
        if row.made_of:
            cards = [best_primiera_cards(piles.get(s.side, ()), primiera_rule) for s in sides]
            rows.append(("  " + _(row.made_of), [" ".join(c) or "-" for c in cards]))
    return rows
