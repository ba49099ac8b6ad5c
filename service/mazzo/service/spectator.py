"""The public view of a game, for spectators: what every seat's view has in common.

No game's rules are needed: a field of a view that reads the same from every
seat (the table or the trick, the hand sizes, the piles, the status, the
public facts) is public; one that differs (the seat, its side, its hand) is
someone's own and is blanked. Of the cards ``known`` in other hands, the public
view keeps those every other seat knows, when there are at least two other
seats: with a single other seat its knowledge may come from its own hand (in
two-player Tressette with the stock gone each seat deduces the other's hand),
which a spectator does not see. The public events (draws, declarations) still
tell a spectator every card shown aloud.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mazzo.engine import Game


def public_view(game: Game, state: Any) -> Any:
    """The view of no seat: every seat's view with what differs between them blanked."""
    players = state.rules.players
    views = [state.view(seat) for seat in range(players)]
    first = views[0]
    changes: dict[str, Any] = {}
    for field in dataclasses.fields(first):
        value = getattr(first, field.name)
        if field.name == "known":
            changes["known"] = _commonly_known(views, players)
        elif any(getattr(view, field.name) != value for view in views[1:]):
            # Someone's own: an empty value of its kind (no hand, seat 0, side 0).
            changes[field.name] = type(value)()
    return dataclasses.replace(first, **changes)


def _commonly_known(views: list[Any], players: int) -> tuple[tuple[Any, ...], ...]:
    """By seat, the cards of its hand that every other seat knows (see the module)."""
    if players < 3 or not views[0].known:
        return tuple(() for _ in range(players)) if views[0].known else ()
    known = []
    for holder in range(players):
        others = [set(view.known[holder]) for seat, view in enumerate(views) if seat != holder]
        common = set.intersection(*others)
        some_other = views[(holder + 1) % players]
        known.append(tuple(card for card in some_other.known[holder] if card in common))
    return tuple(known)
