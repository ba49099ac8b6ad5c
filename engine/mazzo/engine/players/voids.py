"""Tressette: the suits each seat has shown it lacks, read from a view.

A seat that did not follow the led suit had none of it. A view keeps each
side's won cards in play order, one trick after another, but not who led
each trick nor in what order the two sides' tricks came. Both follow from the
rules: the first trick is led by the seat after the dealer, each next one by
the winner of the last, and the last winner leads the trick in progress. So
the order is a merge of the two piles' tricks, and a small search over merges
(at most 11 x 11 positions x 4 leaders) finds every order that fits. A seat
is taken as void in a suit only when every fitting order says so.

Why it holds for the whole hand: with four players nobody draws; with two,
each drawn card is shown until it is played, so the cards a seat holds and
nobody has seen are cards it held when it showed the void.
"""

from __future__ import annotations

from collections.abc import Sequence

from mazzo.engine.cards import SUIT_OF, Card
from mazzo.engine.tressette import TressetteView, winning_index


def shown_voids(view: TressetteView) -> tuple[int, ...]:
    """By seat, a bit mask of the suits the seat certainly lacks (bit s: suit s)."""
    players = len(view.hand_sizes)
    voids = [0] * players
    _mark(voids, view.trick, view.leader, players)
    tricks = [
        [tuple(pile[i : i + players]) for i in range(0, len(pile), players)] for pile in view.piles
    ]
    first = (view.status.dealer + 1) % players
    for trick, leaders in _possible_leaders(tricks, first, view.leader, players):
        marks: list[list[int]] = []
        for leader in leaders:
            seen = [0] * players
            _mark(seen, trick, leader, players)
            marks.append(seen)
        for seat in range(players):
            common = ~0
            for seen in marks:
                common &= seen[seat]
            voids[seat] |= common if marks else 0
    return tuple(voids)


def _mark(voids: list[int], trick: Sequence[Card], leader: int, players: int) -> None:
    if not trick:
        return
    led = SUIT_OF[trick[0]]
    for position, card in enumerate(trick[1:], start=1):
        if SUIT_OF[card] != led:
            voids[(leader + position) % players] |= 1 << led


def _possible_leaders(
    tricks: list[list[tuple[Card, ...]]], first: int, last_leader: int, players: int
) -> list[tuple[tuple[Card, ...], set[int]]]:
    """For each completed trick, the seats that may have led it in some order of
    the tricks that fits the rules (forward and backward reachability)."""
    n0, n1 = len(tricks[0]), len(tricks[1])
    forward: dict[tuple[int, int], set[int]] = {(0, 0): {first}}

    def step(i: int, j: int, side: int, leader: int) -> int | None:
        trick = tricks[side][i if side == 0 else j]
        winner = (leader + winning_index(trick)) % players
        return winner if winner % 2 == side else None

    for i in range(n0 + 1):
        for j in range(n1 + 1):
            for leader in forward.get((i, j), ()):
                for side, (ni, nj) in ((0, (i + 1, j)), (1, (i, j + 1))):
                    if ni > n0 or nj > n1:
                        continue
                    winner = step(i, j, side, leader)
                    if winner is not None:
                        forward.setdefault((ni, nj), set()).add(winner)
    backward: dict[tuple[int, int], set[int]] = {(n0, n1): {last_leader}}
    for i in range(n0, -1, -1):
        for j in range(n1, -1, -1):
            if (i, j) == (n0, n1):
                continue
            ok = set()
            for leader in range(players):
                for side, (ni, nj) in ((0, (i + 1, j)), (1, (i, j + 1))):
                    if ni > n0 or nj > n1:
                        continue
                    winner = step(i, j, side, leader)
                    if winner is not None and winner in backward.get((ni, nj), ()):
                        ok.add(leader)
            backward[(i, j)] = ok
    leaders: dict[tuple[int, int], set[int]] = {}
    for (i, j), starts in forward.items():
        for leader in starts & backward.get((i, j), set()):
            for side, (ni, nj) in ((0, (i + 1, j)), (1, (i, j + 1))):
                if ni > n0 or nj > n1:
                    continue
                winner = step(i, j, side, leader)
                if winner is not None and winner in backward.get((ni, nj), ()):
                    key = (side, i if side == 0 else j)
                    leaders.setdefault(key, set()).add(leader)
    return [(tricks[side][k], seats) for (side, k), seats in sorted(leaders.items())]
