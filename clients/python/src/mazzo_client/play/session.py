"""One game: the human at one seat (typing, or a record replayed), bots at the others."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb
from mazzo_client.client import MazzoClient
from mazzo_client.messages import computer, idempotency_key
from mazzo_client.play import record
from mazzo_client.play.lang import N_, _, ngettext
from mazzo_client.play.narrate import Narrator
from mazzo_client.play.record import HUMAN, Replay
from mazzo_client.play.text import Names, Seating, plural

HINT_LEVEL = "expert"
QUIT = ("q", "quit", "exit")
HINT = ("h", "hint", "?")


def numbers(count: int) -> str:
    """``1-3`` for three choices; ``1`` for one."""
    return "1" if count == 1 else f"1-{count}"


def type_a_number(count: int) -> str:
    return _("Type 1") if count == 1 else _("Type a number from 1 to {count}").format(count=count)


class Console:
    """Lines out, answers in; what is typed into a pipe is echoed, as a terminal would.

    Lines longer than ``width`` (0: no limit) break between words, the rest of
    a line indented under its start, so a terminal never cuts a word in two.
    """

    def __init__(self, stdin: TextIO, stdout: TextIO, width: int = 0) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.width = width
        self.echo = not stdin.isatty()

    def say(self, *lines: str) -> None:
        for line in lines:
            for part in self._wrapped(line):
                self.stdout.write(part + "\n")
        self.stdout.flush()

    def _wrapped(self, line: str) -> list[str]:
        if not self.width or len(line) <= self.width:
            return [line]
        indent = line[: len(line) - len(line.lstrip())]
        return textwrap.wrap(
            line,
            self.width,
            subsequent_indent=indent + "  ",
            break_long_words=False,
            break_on_hyphens=False,
        )

    def ask(self, prompt: str) -> str | None:
        """The answer, stripped; None at the end of the input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.say("")
            return None
        if self.echo:
            self.say(line.rstrip("\n"))
        return line.strip()


@dataclass(frozen=True)
class Settings:
    """What the command line chose."""

    request: pb.NewGameRequest  # with its seed
    seating: Seating
    primiera_rule: str
    hint: bool = False
    think_ms: int = 0
    simulations: int = 0
    record_path: Path | None = None
    replay: Replay | None = None


def view_part_fields(game: str | None) -> Mapping[str, Any]:
    """The fields of a game's own part of a View (the oneof's field named as the
    game), by name; none for no game, or one this client's API does not know."""
    field = pb.View.DESCRIPTOR.fields_by_name.get(game or "")
    if field is None or field.message_type is None:
        return {}
    return field.message_type.fields_by_name


class Left(Exception):
    """The human left the game: ``chosen`` when they typed q, not when the input
    or the record being replayed ran out."""

    def __init__(self, chosen: bool = False) -> None:
        super().__init__()
        self.chosen = chosen


class Session:
    def __init__(self, client: MazzoClient, console: Console, settings: Settings, names: Names):
        self.client = client
        self.console = console
        self.settings = settings
        self.seating = settings.seating
        self.names = names
        has_table = "table" in view_part_fields(settings.request.WhichOneof("game"))
        self.narrator = Narrator(
            self.seating, names, settings.primiera_rule, target=0, table=has_table
        )
        self.moves: list[pb.Move] = []  # every move played, for the record
        self.credentials: dict[int, str] = {}

    @property
    def human(self) -> int:
        return self.seating.human

    @property
    def computer_seats(self) -> bool:
        """Whether the server plays the bots (computer seats): one Play per move of
        the human. Not for a record (it lists every move as played, which the
        bots' Suggest gives), a replay (it plays the recorded moves) or a
        simulations limit (Suggest's)."""
        settings = self.settings
        return settings.replay is None and settings.record_path is None and not settings.simulations

    def run(self) -> int:
        """Play to the end; 0 when the game ended (and a replay matched its record)."""
        started = self._new_game()
        state, status = started.state, started.status
        self._tell(started.events, state, status)
        try:
            while not status.game_over:
                seat = status.seat_to_play
                move = (
                    self._human_move(state, status)
                    if seat == self.human
                    else self._bot_move(state, status)
                )
                played = self.client.play(
                    state,
                    move,
                    credential=self.credentials[seat],
                    expected_ply=status.ply,
                    idempotency_key=idempotency_key(),
                )
                self.moves.append(move)
                state, status = played.state, played.status
                self._tell(played.events, state, status)
        except (Left, KeyboardInterrupt) as left:
            self.console.say(_("You leave the game unfinished."))
            self._save(None)
            self._say_how_to_play_again()
            return 0 if isinstance(left, Left) and left.chosen else 1
        return self._finish(status)

    def _new_game(self) -> pb.NewGameResponse:
        request = self.settings.request
        game = request.WhichOneof("game")
        started = self.client.new_game(
            request.players,
            options=getattr(request, game) if game else None,
            seed=request.seed,
            decks=[list(deck.cards) for deck in request.decks],
            first_dealer=request.first_dealer if request.HasField("first_dealer") else None,
            events_seat=self.human,  # the public events and the human's own
            computers=[
                computer(seat, self.seating.levels[seat], self.settings.think_ms)
                for seat in range(request.players)
                if seat != self.human
            ]
            if self.computer_seats
            else (),
        )
        self.credentials = {c.seat: c.credential for c in started.seat_credentials}
        self.narrator.target = started.status.target
        self.console.say(self._opening(started.status))
        self._view(started.state)
        return started

    def _opening(self, status: pb.Status) -> str:
        """Who plays with whom: the human's seat, partners (a game of teams) and opponents."""
        seating = self.seating
        partners = seating.partners()
        others = [s for s in range(seating.players) if s != seating.human and s not in partners]
        with_partners = ""
        if partners:
            names = ", ".join(seating.seat_name(s, partner_said=False) for s in partners)
            your = ngettext(", your partner: {names}", ", your partners: {names}", len(partners))
            with_partners = your.format(names=names)
        opening = _(
            "A game of {game}, {players} players, to {target}. "
            "You are seat {seat}{partners}; against you: {others}."
        )
        return opening.format(
            game=status.game,
            players=seating.players,
            target=status.target,
            seat=seating.human,
            partners=with_partners,
            others=", ".join(seating.seat_name(s) for s in others),
        )

    def _view(self, state: bytes) -> pb.View:
        """The human seat's view (its card names learnt)."""
        view = self.client.view(state, self.human, credential=self.credentials[self.human]).view
        self.names.learn(view)
        return view

    def _tell(self, events: Sequence[pb.Event], state: bytes, status: pb.Status) -> None:
        visible = [e for e in events if self.narrator.visible(e)]
        self.console.say(*self.narrator.tell(visible))
        kinds = {e.WhichOneof("kind") for e in visible}
        if "deal" in kinds and "cards_dealt" not in kinds and not status.game_over:
            # A deal made by a bot's move: its answer carries no card of ours.
            hand = self._view(state).hand
            self.console.say(_("You are dealt: {cards}.").format(cards=self.names.cards(hand)))

    # ------------------------------------------------------------ the bots

    def _bot_move(self, state: bytes, status: pb.Status) -> pb.Move:
        seat = status.seat_to_play
        if self.settings.replay is not None:
            return self._recorded_move(status)
        suggested = self.client.suggest(
            state,
            seat,
            self.seating.levels[seat],
            budget_ms=self.settings.think_ms,
            simulations=self.settings.simulations,
            seed=self._suggest_seed(status),
            credential=self.credentials[seat],
            timeout=60,
        )
        return suggested.move

    def _suggest_seed(self, status: pb.Status) -> int:
        """The bots' seed at each ply: a game played again from its seed, with a
        simulations limit, finds the same bot moves for the same human moves."""
        return (self.settings.request.seed * 1_000_003 + status.ply) % 2**64

    def _recorded_move(self, status: pb.Status) -> pb.Move:
        assert self.settings.replay is not None
        moves = self.settings.replay.moves
        if status.ply >= len(moves):
            self.console.say(f"The record ends here, at move {status.ply}, before the game's end.")
            raise Left
        return moves[status.ply]

    # ------------------------------------------------------------ the human

    def _human_move(self, state: bytes, status: pb.Status) -> pb.Move:
        credential = self.credentials[self.human]
        view = self._view(state)
        self.console.say("", *self._board(view))
        if self.settings.replay is not None:
            return self._recorded_move(status)
        legal = self.client.legal_moves(state, credential=credential).moves
        by_card: dict[str, list[pb.Move]] = {}
        for move in legal:
            by_card.setdefault(move.card, []).append(move)
        in_hand = list(view.hand)  # the server's order: Tressette's by suit and strength
        cards = sorted(by_card, key=lambda c: in_hand.index(c) if c in in_hand else len(in_hand))
        self.console.say(_("Your moves:"))
        for number, card in enumerate(cards, 1):
            self.console.say(f"  {number}) {self._card_choice(card, by_card[card])}")
        if self.settings.hint:
            self.console.say(self._hint(state, status, cards))
        while True:
            question = _("Your move ({numbers}, h for a hint, q to quit): ")
            answer = self._ask(question.format(numbers=numbers(len(cards))))
            if answer in HINT:
                self.console.say(self._hint(state, status, cards))
                continue
            picked = self._pick(answer, cards)
            if picked is None:
                self.console.say(self._why_not(state, answer, len(cards)))
                continue
            choices = by_card[picked]
            return choices[0] if len(choices) == 1 else self._pick_capture(picked, choices)

    def _why_not(self, state: bytes, answer: str, count: int) -> str:
        """What to say to an answer that is no move: the server's reason when it
        names a card (not in the hand, must follow suit, ...)."""
        code = answer.upper()
        if self.names.is_card(code):
            move = pb.Move(seat=self.human, card=code)
            checked = self.client.validate(state, move, credential=self.credentials[self.human])
            if not checked.legal:
                return f"{self.names.card(code)}: {checked.message}."
        return _("{type_a_number}, or a card's code.").format(type_a_number=type_a_number(count))

    def _ask(self, prompt: str) -> str:
        answer = self.console.ask(prompt)
        if answer is None:
            raise Left
        if answer.lower() in QUIT:
            raise Left(chosen=True)
        return answer.lower()

    @staticmethod
    def _pick(answer: str, options: Sequence[str]) -> str | None:
        """The option numbered ``answer`` (from 1), or the one spelled so (a card code)."""
        if answer.isdigit() and 1 <= int(answer) <= len(options):
            return options[int(answer) - 1]
        return next((o for o in options if o.lower() == answer), None)

    def _pick_capture(self, card: str, choices: Sequence[pb.Move]) -> pb.Move:
        self.console.say(_("With {card} you may:").format(card=self.names.card_as_object(card)))
        for number, move in enumerate(choices, 1):
            self.console.say(f"  {number}) {self._what_it_does(move)}")
        options = [str(n) for n in range(1, len(choices) + 1)]
        while True:
            question = _("Which capture ({numbers})? ").format(numbers=numbers(len(choices)))
            picked = self._pick(self._ask(question), options)
            if picked is not None:
                return choices[int(picked) - 1]
            self.console.say(f"{type_a_number(len(choices))}.")

    def _card_choice(self, card: str, moves: Sequence[pb.Move]) -> str:
        if len(moves) == 1:
            does = self._what_it_does(moves[0])
            return self.names.card(card) + (f": {does}" if does else "")
        takes = sum(1 for m in moves if m.take)
        ways = plural(takes, "way")
        if any(m.lay for m in moves):
            return _("{card}: {ways} to take or lay it").format(
                card=self.names.card(card), ways=ways
            )
        return _("{card}: {ways} to take").format(card=self.names.card(card), ways=ways)

    def _what_it_does(self, move: pb.Move) -> str:
        if move.take:
            return _("take {cards}").format(cards=self.names.cards_as_objects(move.take))
        if move.lay:
            return _("lay it on the table without taking")
        has_table = self.narrator.table
        return _("to the table") if has_table else ""

    def _hint(self, state: bytes, status: pb.Status, cards: Sequence[str]) -> str:
        suggested = self.client.suggest(
            state,
            self.human,
            HINT_LEVEL,
            budget_ms=self.settings.think_ms,
            simulations=self.settings.simulations,
            seed=self._suggest_seed(status),
            credential=self.credentials[self.human],
            timeout=60,
        )
        move = suggested.move
        number = cards.index(move.card) + 1 if move.card in cards else "?"
        does = self._what_it_does(move)
        expects = (
            _(", expecting {points} points this hand").format(
                points=f"{suggested.expected_points:.1f}"
            )
            if suggested.HasField("expected_points")
            else ""
        )
        does = f": {does}" if does else ""
        hint = _("Hint ({level}): {number}) {card}{does}{expects}.")
        card = self.names.card(move.card)
        return hint.format(
            level=_(HINT_LEVEL), number=number, card=card, does=does, expects=expects
        )

    def _board(self, view: pb.View) -> list[str]:
        status = view.status
        heading = _("Hand {number}, move {move}. Score: {scores} (to {target}).")
        scores = self.seating.scores(status.scores)
        lines = [
            heading.format(
                number=status.hand_number, move=status.ply + 1, scores=scores, target=status.target
            )
        ]
        others = [
            f"{self.seating.seat_name(seat)}: {plural(size, 'card')}"
            for seat, size in enumerate(view.hand_sizes)
            if seat != self.human
        ]
        stock = _("; stock {size}").format(size=view.stock_size) if view.stock_size else ""
        lines.append(_("Hands: {hands}.").format(hands="; ".join(others) + stock))
        for known in view.known:
            if known.cards and known.seat != self.human:
                said = _("Known in {seat}'s hand: {cards}.")
                seat = self.seating.seat_name(known.seat)
                lines.append(said.format(seat=seat, cards=self.names.cards(known.cards)))
        taken = [
            f"{self.seating.side_name(p.side)}: {plural(len(p.cards), 'card')}"
            + (f", {plural(p.sweeps, 'sweep')}" if p.sweeps else "")
            for p in view.piles
        ]
        lines.append(_("Taken: {piles}.").format(piles="; ".join(taken)))
        lines += self._game_part(view)
        lines.append(_("Your hand: {cards}.").format(cards=self.names.cards(view.hand)))
        return lines

    def _game_part(self, view: pb.View) -> list[str]:
        """The lines of the game's own part of the view (the oneof's field set): its
        trick, its table, its trumps, by the fields it has."""
        part = view.WhichOneof("game")
        if part is None:
            return []
        own = getattr(view, part)
        fields = own.DESCRIPTOR.fields_by_name
        status = view.status
        lines: list[str] = []
        if "trick" in fields:
            by = _("{card} by {seat}")
            played = [
                by.format(
                    card=self.names.card(card),
                    seat=self.seating.seat_name((own.leader + i) % status.players),
                )
                for i, card in enumerate(own.trick)
            ]
            lines.append(_("Trick: {cards}.").format(cards="; ".join(played) or _("you lead")))
        if "table" in fields:
            table = self.names.cards(own.table, N_("empty"))
            lines.append(_("Table: {cards}.").format(cards=table))
        if "trump_card" in fields and (own.trump_card or own.trump_suit):
            turn_up = (
                _(", the turn-up {card}").format(card=self.names.card(own.trump_card))
                if own.trump_card
                else ""
            )
            suit = self.names.suit(own.trump_suit)
            lines.append(_("Trumps: {suit}{turn_up}.").format(suit=suit, turn_up=turn_up))
        return lines

    # ------------------------------------------------------------ the end

    def _finish(self, status: pb.Status) -> int:
        self._save(status)
        # This line stays English: programs (and the tests) read it.
        scores = " ".join(str(s) for s in status.scores)
        self.console.say(
            f"Server status: game over, scores {scores}, winning side {status.winning_side}, "
            f"{status.ply} moves, seed {self.settings.request.seed}."
        )
        replay = self.settings.replay
        if replay is not None:
            if not replay.ends_as(status):
                self.console.say(
                    f"The record ends {replay.ending}: this server ends the game at {scores}, "
                    f"side {status.winning_side} winning."
                )
                return 1
            self.console.say(_("The replay ends as the record did."))
            return 0
        self._say_how_to_play_again()
        if self.settings.record_path is not None:
            again = _("Watch this game again: mazzo play --replay {path}")
            self.console.say(again.format(path=self.settings.record_path))
        return 0

    def _say_how_to_play_again(self) -> None:
        if self.settings.replay is None:
            seed = self.settings.request.seed
            again = _("The same deals again: add --seed {seed} to the same options.")
            self.console.say(again.format(seed=seed))

    def _save(self, final: pb.Status | None) -> None:
        """Write the record (``final``: the status at the end; ``None``, left unfinished)."""
        if self.settings.record_path is not None and self.settings.replay is None:
            seats = [
                HUMAN if seat == self.human else self.seating.levels[seat]
                for seat in range(self.seating.players)
            ]
            record.save(self.settings.record_path, self.settings.request, seats, self.moves, final)
