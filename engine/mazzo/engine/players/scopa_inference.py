"""What the other seat's plays this round say of its hand, at a Scopa table of two.

Every seat saw the round's plays (the state keeps each seat's last two,
:attr:`mazzo.engine.scopa.ScopaState.round_plays`: each card played and what it
took). Going back from the table as it is, they give the table each play was
made on (:func:`tables_played_on`). A seat that laid a card, or took little,
where the rules of thumb would have taken more, most likely held no card that
takes more: the greedy player's values of its plays
(:func:`~mazzo.engine.players.fast_scopa.valued_plays`) are the model of
that seat, as the world search's model of its replies is.

So each of the other seat's plays this round that those rules explain (their
best play with the cards that seat played since, it included, is worth no
more than what it played) names the unseen cards with which the rules would
have played better by more than :data:`MARGIN` (:func:`telling_plays`). A
world whose other hand holds one of them breaks that play, and is kept only
:data:`KEEP` of the time for each play it breaks (rejection sampling, at most
:data:`~mazzo.engine.players.determinize.TRIES` deals a world, then the last
one dealt): the worlds lean to the
hands the plays point at, without ruling out a player who plays otherwise.

At any table, with declarations on (Cirulla), the plays also tell what a
seat did not declare (:func:`undeclared`): a fact, not a leaning, which every
deal keeps to (:func:`declarations_kept`).
"""

from __future__ import annotations

import random

from mazzo.engine.cards import Card
from mazzo.engine.players.determinize import Deal, Dealt, redealt, unseen_cards
from mazzo.engine.players.fast_scopa import valued_plays
from mazzo.engine.scopa import ScopaView, judge_hand
from mazzo.engine.scopa_rules import ScopaRules

#: The share of worlds kept, for each of the other seat's plays a world
#: breaks. The arena's pilots (1,000 matches each, 20 worlds a move against
#: greedy, every preference of the rules of thumb read) chose 0.02 over 0.2
#: and over 0 (a rule that never bends).
KEEP = 0.02
#: How much better, by the rules of thumb's values, a play the seat could have
#: made must be for its play to say it could not: 4, so that a taking missed
#: tells (a taking is worth its cards, a lay costs one) and a cheaper card to
#: lay does not. The rules of thumb's every preference (0) read the greedy
#: player best (+2.6 points of matches against it at 20 worlds a move, 1,000
#: matches, where 4 gave +1.9) but misread a search: the true hand of a
#: classic perfect-information search broke a play that told in 38% of its
#: positions, a random hand in 47%; at 4, 17% against 30%. At 20 worlds a move
#: against that search, 0 lost 1.4 points of matches, 4 none
#: (benchmarks/RESULTS.md).
MARGIN = 4.0
#: Values closer than this are a tie (the rules of thumb then choose at random).
_TIE = 1e-9


def _seats_of_plays(view: ScopaView) -> list[int]:
    """By play the view keeps of this round, oldest first, the seat that made
    it: going back from the seat to play, each play's seat played just before."""
    players = len(view.hand_sizes)
    to_play = view.seat if view.status.seat_to_play is None else view.status.seat_to_play
    return [(to_play - back) % players for back in range(len(view.round_plays), 0, -1)]


def tables_played_on(view: ScopaView) -> list[tuple[int, tuple[Card, ...]]] | None:
    """By play the view keeps of this round, oldest first: its seat and the
    table it was played on (None should the plays not fit the table)."""
    plays = view.round_plays
    seats = _seats_of_plays(view)
    after = list(view.table)
    tables: list[tuple[int, tuple[Card, ...]]] = []
    for back in range(1, len(plays) + 1):  # the last play first
        card, *taken = plays[-back]
        if taken:
            before = after + taken
        elif card in after:
            before = [c for c in after if c != card]
        else:
            return None
        tables.append((seats[-back], tuple(before)))
        after = before
    tables.reverse()
    return tables


def telling_plays(view: ScopaView) -> list[frozenset[Card]]:
    """For each play of the other seat this round that the rules of thumb
    explain, the unseen cards with which they would have played better by
    more than :data:`MARGIN`."""
    assert view.rules is not None, "a view from mazzo.engine.scopa.view carries its rules"
    if len(view.hand_sizes) != 2:
        return []
    tables = tables_played_on(view)
    if tables is None:
        return []
    other, rules = 1 - view.seat, view.rules
    unseen = unseen_cards(view)
    telling = []
    for index, (seat, table) in enumerate(tables):
        if seat != other:
            continue
        card, *taken = view.round_plays[index]
        played = _worth(card, frozenset(taken), table, rules)
        # What it played since is not a card it kept back: those must not beat it either.
        since = [view.round_plays[j][0] for j in range(index, len(tables)) if tables[j][0] == other]
        if played is None or any(
            v > played + _TIE for v, _, _ in valued_plays(since, table, rules)
        ):
            continue  # not the rules of thumb's play: it says nothing by them
        better = frozenset(
            c for v, c, _ in valued_plays(unseen, table, rules) if v > played + MARGIN
        )
        if better:
            telling.append(better)
    return telling


def _worth(
    card: Card, taken: frozenset[Card], table: tuple[Card, ...], rules: ScopaRules
) -> float | None:
    """What the rules of thumb make of playing ``card`` to take ``taken``
    (None: not a play of ``card`` on ``table``)."""
    for value, _, take in valued_plays((card,), table, rules):
        if take == taken:
            return value
    return None


def inferring(view: ScopaView, deal: Deal) -> Deal:
    """``deal``, its worlds kept or dealt again by what the other seat's plays
    this round say (:data:`KEEP`); ``deal`` itself where they
    say nothing."""
    telling = telling_plays(view)
    if not telling:
        return deal
    other = 1 - view.seat

    def kept(dealt: Dealt, rng: random.Random) -> bool:
        broken = sum(1 for better in telling if not better.isdisjoint(dealt[0][other]))
        return not broken or rng.random() < KEEP**broken

    return redealt(deal, kept)


def undeclared(view: ScopaView) -> list[tuple[int, tuple[Card, ...]]]:
    """The other seats that played this round and declared nothing, each with
    the cards it played this round: with declarations on (Cirulla), a hand of
    three declares when its first card is played, so those cards and the rest
    of its hand make no declaration. A seat whose plays this round the view
    no longer keeps all of (three seats or more) is left out."""
    rules = view.rules
    assert rules is not None, "a view from mazzo.engine.scopa.view carries its rules"
    if not rules.declarations:
        return []
    seats = _seats_of_plays(view)
    found = []
    for seat in range(len(view.hand_sizes)):
        played = rules.hand_size - view.hand_sizes[seat]
        if seat == view.seat or view.known[seat] or not view.hand_sizes[seat] or played < 1:
            continue  # its own hand, a declared one (shown), an empty one, or none played yet
        plays = zip(view.round_plays, seats, strict=True)
        cards = tuple(play[0] for play, by in plays if by == seat)
        if len(cards) == played:
            found.append((seat, cards))
    return found


def declarations_kept(view: ScopaView, deal: Deal) -> Deal:
    """``deal``, dealt again while it gives a seat of :func:`undeclared` a hand
    it would have declared (a fact, not a leaning: no deal that breaks it is
    kept, unless :data:`~mazzo.engine.players.determinize.TRIES` all do)."""
    silent = undeclared(view)
    if not silent:
        return deal

    def kept(dealt: Dealt, rng: random.Random) -> bool:
        hands = dealt[0]
        return all(judge_hand((*cards, *hands[seat])) is None for seat, cards in silent)

    return redealt(deal, kept)
