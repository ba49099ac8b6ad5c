"""A view's ``cardNames`` names exactly the cards the view shows, no more, no fewer.

Whole random games of every game, player count and Scopa variant the catalog
lists, through the handlers: at every ply, every seat's view and the spectator's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.message import Message

from mazzo.engine.cards import DECK
from mazzo.service.handlers import EngineHandlers
from mazzo.service.metrics import Metrics
from mazzo.service.state_token import StateSealer
from mazzo.v1 import engine_pb2 as pb
from tests.service.support import KEYS

CARD_CODES = frozenset(str(card) for card in DECK)
HANDLERS = EngineHandlers(StateSealer(list(KEYS)), Metrics())


def _games() -> Iterator[pb.NewGameRequest]:
    """A NewGame request for every game at every player count (with its switches
    off, as by default, and on: Tressette's napoletana), and for every Scopa variant
    at each of its own, with the least target each game takes (whole games, shorter)."""
    for info in HANDLERS.get_catalog(pb.GetCatalogRequest()).games:
        least_target = next(o.min for o in info.options if o.name == "target")
        switches = [o.name for o in info.options if o.type == "bool"]
        for players in info.player_counts:
            for switched in (False, True) if switches and not info.variants else (False,):
                request = pb.NewGameRequest(players=players)
                options = getattr(request, info.name)
                options.target = least_target
                for switch in switches:
                    setattr(options, switch, switched)
                yield request
        for variant in info.variants:
            for players in variant.player_counts:
                request = pb.NewGameRequest(players=players)
                request.scopa.variant = pb.ScopaVariant.Value(variant.name)
                request.scopa.target = least_target
                yield request


GAMES = list(_games())


def cards_shown(message: Message) -> set[str]:
    """Every card code in any field of ``message`` (and the messages in it), but
    for the names themselves: the cards the view shows."""
    shown: set[str] = set()
    for field, value in message.ListFields():
        if field.name == "card_names":
            continue
        for item in value if field.is_repeated else (value,):
            if field.message_type is not None:
                shown |= cards_shown(item)
            elif isinstance(item, str) and item in CARD_CODES:
                shown.add(item)
    return shown


def _views(state: bytes, players: int) -> Iterator[tuple[str, pb.View]]:
    for seat in range(players):
        yield f"seat {seat}", HANDLERS.view(pb.ViewRequest(state=state, seat=seat)).view
    yield "spectator", HANDLERS.view(pb.ViewRequest(state=state, spectator=True)).view


def _label(request: pb.NewGameRequest) -> str:
    name = request.WhichOneof("game")
    options: Any = getattr(request, name)
    variant = f"-{pb.ScopaVariant.Name(options.variant)}" if name == "scopa" else ""
    switched = "-switches-on" if name == "tressette" and options.napoletana else ""
    return f"{name}{variant}-{request.players}{switched}"


@pytest.mark.parametrize("request_", GAMES, ids=_label)
def test_a_views_card_names_name_exactly_the_cards_it_shows(request_: pb.NewGameRequest) -> None:
    choose = random.Random(_label(request_)).choice
    request_.seed = 11
    answer: Any = HANDLERS.new_game(request_)
    plies = 0
    while True:
        for whose, view in _views(answer.state, request_.players):
            assert set(view.card_names) == cards_shown(view), (whose, plies)
        if answer.status.game_over:
            break
        moves = HANDLERS.legal_moves(pb.LegalMovesRequest(state=answer.state)).moves
        answer = HANDLERS.play(pb.PlayRequest(state=answer.state, move=choose(moves)))
        plies += 1
