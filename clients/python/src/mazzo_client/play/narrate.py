"""The events of a game, told as they happen, from one seat's point of view."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb
from mazzo_client.play.lang import _
from mazzo_client.play.text import Names, Seating, plural, scoring_table


@dataclass
class Narrator:
    """Turns events into lines; keeps the piles of the hand for its scoring table.

    Only the events the human's seat may see are told: public ones and the
    human's own (an answer to a bot's call also carries that bot's own events,
    which are skipped here).
    """

    seating: Seating
    names: Names
    primiera_rule: str
    target: int
    #: The game's part of a view has a table: a card played takes, or stays on it.
    table: bool = True
    piles: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    hands_scored: list[pb.HandScored] = field(default_factory=list)
    hand_number: int = 0

    def visible(self, event: pb.Event) -> bool:
        return not event.HasField("visible_to") or event.visible_to == self.seating.human

    def tell(self, events: Iterable[pb.Event]) -> list[str]:
        told = [e for e in events if self.visible(e)]
        lines: list[str] = []
        for event, after in zip(told, [*told[1:], None], strict=True):
            lines += self.tell_one(event)
            if self.table and event.HasField("card_played") and not _is_capture(after):
                lines.append("  " + _("It stays on the table."))
        return lines

    def tell_one(self, event: pb.Event) -> list[str]:
        kind = event.WhichOneof("kind")
        teller = getattr(self, f"_{kind}", None)
        return teller(getattr(event, kind)) if teller is not None and kind else []

    # One method per event kind (the oneof's field names).

    def _deal(self, deal: pb.Deal) -> list[str]:
        deals = self.seating.subject(deal.dealer, "deal")
        if deal.hand_number == self.hand_number:  # the same hand: more cards from the stock
            each = plural(max(deal.hand_sizes, default=0), "card")
            more = _("{deals} {each} each; {left} left in the stock.")
            return [more.format(deals=deals, each=each, left=deal.stock_size)]
        self.hand_number = deal.hand_number
        said = _("Hand {number}: {deals}").format(
            number=deal.hand_number, deals=f"{deals[0].lower()}{deals[1:]}"
        )
        if deal.table:
            said += _("; on the table: {cards}").format(cards=self.names.cards(deal.table))
        return [said + "."]

    def _cards_dealt(self, dealt: pb.CardsDealt) -> list[str]:
        return [_("You are dealt: {cards}.").format(cards=self.names.cards(dealt.cards))]

    def _redeal(self, redeal: pb.Redeal) -> list[str]:
        table = self.names.cards(redeal.table)
        return [
            _("The first table ({table}) does not stand: the cards are dealt again.").format(
                table=table
            )
        ]

    def _card_played(self, played: pb.CardPlayed) -> list[str]:
        card = self.names.card_as_object(played.card)
        return [f"{self.seating.subject(played.seat, 'play')} {card}."]

    def _capture(self, capture: pb.Capture) -> list[str]:
        self.piles[capture.side] += [capture.card, *capture.taken]
        taken = self.names.cards_as_objects(capture.taken)
        said = f"  {self.seating.subject(capture.seat, 'take')} {taken}"
        return [said + (" - " + _("SCOPA! a sweep.") if capture.sweep else ".")]

    def _leftovers_taken(self, leftovers: pb.LeftoversTaken) -> list[str]:
        self.piles[leftovers.side] += leftovers.cards
        cards = self.names.cards(leftovers.cards)
        if not self.seating.teams:  # the side is a seat: "You take ...", "Seat 1 takes ..."
            who = self.seating.subject(leftovers.side, "take")
            return [_("{who} the cards left on the table: {cards}.").format(who=who, cards=cards)]
        whose = self.seating.side_name(leftovers.side)
        left = _("The cards left on the table go to {whose}: {cards}.")
        return [left.format(whose=whose, cards=cards)]

    def _first_table_taken(self, taken: pb.FirstTableTaken) -> list[str]:
        self.piles[taken.side] += taken.cards
        dealer = self.seating.seat_name(taken.dealer)
        sweeps = f", {plural(taken.sweeps, 'sweep')}" if taken.sweeps else ""
        adds_up = _("The first table adds up: the dealer, {dealer}, takes it{sweeps}.")
        return [adds_up.format(dealer=dealer, sweeps=sweeps)]

    def _declaration(self, declared: pb.Declaration) -> list[str]:
        matta = (
            _(", the matta standing for {value}").format(value=declared.matta_value)
            if declared.HasField("matta_value")
            else ""
        )
        who = self.seating.subject(declared.seat, "declare")
        cards = self.names.cards(declared.cards)
        said = _("{who} {kind} ({cards}){matta}: {points} points.")
        return [
            said.format(
                who=who, kind=declared.kind, cards=cards, matta=matta, points=declared.points
            )
        ]

    def _trick_won(self, trick: pb.TrickWon) -> list[str]:
        self.piles[trick.side] += trick.cards
        said = _("{who} the trick ({cards}).")
        who = self.seating.subject(trick.seat, "win")
        return ["  " + said.format(who=who, cards=self.names.cards(trick.cards))]

    def _card_drawn(self, drawn: pb.CardDrawn) -> list[str]:
        card = self.names.card_as_object(drawn.card)
        return [f"  {self.seating.subject(drawn.seat, 'draw')} {card}."]

    def _napoletana_declared(self, declared: pb.NapoletanaDeclared) -> list[str]:
        who = self.seating.subject(declared.seat, "declare")
        cards = self.names.cards(declared.cards)
        suit = self.names.suit(declared.suit)
        said = _("{who} a napoletana of {suit} ({cards}): {points} points.")
        return [said.format(who=who, suit=suit, cards=cards, points=declared.points)]

    def _hand_scored(self, scored: pb.HandScored) -> list[str]:
        table = scoring_table(scored, self.piles, self.seating, self.primiera_rule, self.target)
        self.hands_scored.append(scored)
        self.piles = defaultdict(list)
        return ["", *table, ""]

    def _game_over(self, over: pb.GameOver) -> list[str]:
        won = self.seating.side(self.seating.human) == over.winning_side
        if won:
            verdict = _("Your side wins!") if self.seating.teams else _("You win!")
        elif self.seating.teams:
            verdict = _("The other side wins.")
        else:
            verdict = f"{self.seating.subject(over.winning_side, 'win')}."
        over_text = _("Game over. {verdict} Final score: {scores}.")
        return [over_text.format(verdict=verdict, scores=self.seating.scores(over.scores))]


def _is_capture(event: pb.Event | None) -> bool:
    return event is not None and event.HasField("capture")
