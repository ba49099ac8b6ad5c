"""Translation between the protobuf messages of mazzo.v1 and engine values.

Nothing here knows a rule: it spells cards, moves, events and views the way
the wire does, and reads requests into engine values (refusing malformed ones
with the engine's own reasons).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine import Card, Game, Move, Status, parse_cards
from engine import events as ev
from engine.cards import SUITS
from engine.errors import InvalidInput, Reason
from engine.scopa import PrimieraRule, ScopaRules, ScopaView
from engine.tressette import TressetteRules, TressetteView
from mazzo.v1 import engine_pb2 as pb

DEFAULT_PLAYERS = 2

#: Engine enum options by their wire enum; the wire name is PRIMIERA_RULE_ + value.
_PRIMIERA_TO_PB = {
    rule: pb.PrimieraRule.Value(f"PRIMIERA_RULE_{rule.name}") for rule in PrimieraRule
}
_PRIMIERA_FROM_PB = {number: rule for rule, number in _PRIMIERA_TO_PB.items()}
_PRIMIERA_FROM_PB[pb.PRIMIERA_RULE_UNSPECIFIED] = PrimieraRule.STANDARD


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
    players = request.players or DEFAULT_PLAYERS
    if game == "tressette":
        tressette = request.tressette
        return game, TressetteRules(
            players=players, napoletana=tressette.napoletana, **_target(tressette)
        )
    scopa = request.scopa
    if scopa.primiera not in _PRIMIERA_FROM_PB:
        raise InvalidInput(
            Reason.INVALID_OPTION,
            f"unknown primiera rule {scopa.primiera}",
            {"option": "primiera"},
        )
    return game, ScopaRules(
        players=players,
        napola=scopa.napola,
        primiera=_PRIMIERA_FROM_PB[scopa.primiera],
        **_target(scopa),
    )


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
    if isinstance(view, ScopaView):
        message.table.extend(card_names(view.table))
        message.piles.extend(_piles_to_pb(view.piles, view.sweeps))
    else:
        message.trick.extend(card_names(view.trick))
        message.leader = view.leader
        message.piles.extend(_piles_to_pb(view.piles))
        message.known.extend(
            pb.KnownCards(seat=seat, cards=card_names(cards))
            for seat, cards in enumerate(view.known)
            if seat != view.seat
        )
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
}


def events_to_pb(events: Sequence[ev.Event]) -> list[pb.Event]:
    out = []
    for event in events:
        message = _EVENT_WRITERS[type(event)](event)
        if event.visible_to is not None:
            message.visible_to = event.visible_to
        out.append(message)
    return out


def _option_default(value: int | bool | str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _enum_names(option: str, values: Sequence[str]) -> list[str]:
    """The catalog names enum values as the wire does (PRIMIERA_RULE_STANDARD)."""
    if option == "primiera":
        return [pb.PrimieraRule.Name(_PRIMIERA_TO_PB[PrimieraRule(v)]) for v in values]
    return list(values)


def game_info_to_pb(game: Game) -> pb.GameInfo:
    options = []
    for spec in game.options:
        allowed = _enum_names(spec.name, spec.allowed)
        default = (
            _enum_names(spec.name, [str(spec.default)])[0]
            if spec.type == "enum"
            else _option_default(spec.default)
        )
        options.append(
            pb.OptionInfo(
                name=spec.name,
                type=spec.type,
                default_value=default,
                allowed_values=allowed,
                min=spec.min,
                max=spec.max,
                description=spec.description,
            )
        )
    return pb.GameInfo(
        name=game.name,
        title=game.title,
        description=game.description,
        player_counts=game.player_counts,
        options=options,
    )
