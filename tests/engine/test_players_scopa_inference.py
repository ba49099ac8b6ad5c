"""What the other seat's plays this round say of its hand (2-player Scopa):
mazzo.engine.players.scopa_inference."""

from __future__ import annotations

import dataclasses
import random

import pytest

from mazzo.engine.cards import Card
from mazzo.engine.players import determinize, greedy, scopa_inference
from mazzo.engine.players.base import Budget
from mazzo.engine.players.fast_scopa import BOTS
from mazzo.engine.players.search import Evaluation
from mazzo.engine.scopa import ScopaRules, ScopaState, Variant
from tests.engine.scopa_support import cards, make_state


def names(zone: frozenset[Card]) -> set[str]:
    return {str(c) for c in zone}


def a_lay_of_the_2_on_5_and_4():
    """Dealer 1, so seat 0 led this round: on a table of 5D and 4S it laid 2B.
    Seat 1 is to play."""
    state = make_state(
        hands=["7C 6S", "3S 8B 10C"], table="5D 4S 2B", dealer=1, to_play=1, fill="stock"
    )
    return dataclasses.replace(state, round_plays=(cards("2B"),))


def a_lay_a_taking_and_a_lay():
    """Dealer 1: seat 0 laid 2B on 5D 4S, seat 1 took 4S with 4C, seat 0 laid
    9S on what was left (it holds 6C). Seat 1 is to play."""
    state = make_state(
        hands=["6C", "3S 8B"],
        table="5D 2B 9S",
        piles=["", "4C 4S"],
        dealer=1,
        to_play=1,
        fill="stock",
    )
    return dataclasses.replace(state, round_plays=(cards("2B"), cards("4C 4S"), cards("9S")))


def test_the_tables_each_play_was_made_on_come_back_from_the_plays():
    assert scopa_inference.tables_played_on(a_lay_a_taking_and_a_lay().view(1)) == [
        (0, cards("5D 4S")),
        (1, cards("5D 2B 4S")),
        (0, cards("5D 2B")),
    ]


def test_the_tables_of_a_whole_game_come_back_from_its_states():
    state, _ = ScopaState.new_game(ScopaRules(), seed=5)
    rng = random.Random(5)
    tables: list[tuple[int, tuple[Card, ...]]] = []
    checked = 0
    while state.winner is None:
        if not state.round_plays:
            tables = []
        found = scopa_inference.tables_played_on(state.view(state.to_play))
        assert found is not None
        kept = tables[len(tables) - len(found) :]  # each seat's last two plays
        assert len(found) == min(len(tables), 4)
        assert [(seat, sorted(t)) for seat, t in found] == [(seat, sorted(t)) for seat, t in kept]
        checked += len(found)
        move = rng.choice(state.legal_moves())
        tables.append((state.to_play, tuple(state.table)))
        state.apply(move)
    assert checked > 100


def test_a_lay_names_the_cards_with_which_the_rules_of_thumb_would_have_taken_more():
    (better,) = scopa_inference.telling_plays(a_lay_of_the_2_on_5_and_4().view(1))
    # A 9 sweeps 5 and 4. A 10 or an 8 is a cheaper card to lay than the 2, but
    # by less than MARGIN: no news. A 4 taking the 4 would leave 5 and 2, which
    # one card sweeps: the rules of thumb rate it below the lay.
    assert names(better) == {"9B", "9C", "9D", "9S"}


def test_a_cheaper_card_to_lay_tells_without_the_margin(monkeypatch):
    monkeypatch.setattr(scopa_inference, "MARGIN", 0.0)
    (better,) = scopa_inference.telling_plays(a_lay_of_the_2_on_5_and_4().view(1))
    assert names(better) == {"9B", "9C", "9D", "9S", "10B", "10S", "8C", "8S"}


def test_a_play_the_rules_of_thumb_would_not_make_with_the_cards_played_since_says_nothing():
    # Seat 0 laid 2B on 5D 4S while it held 9S, which sweeps them: not the rules'
    # play, so only its later lay of 9S tells (a 7 would have swept 5D 2B).
    (better,) = scopa_inference.telling_plays(a_lay_a_taking_and_a_lay().view(1))
    assert names(better) == {"7B", "7C", "7D", "7S"}


def test_the_own_plays_and_a_table_of_more_than_two_tell_nothing():
    state = a_lay_of_the_2_on_5_and_4()
    assert scopa_inference.telling_plays(state.view(0)) == []  # its own lay
    four = make_state(
        hands=["7C 6S", "3S 8B 10C", "1B 2S 3C", "6D 7B 8D"],
        table="5D 4S 2B",
        dealer=3,
        to_play=1,
        fill="stock",
    )
    assert (
        scopa_inference.telling_plays(dataclasses.replace(four, round_plays=(cards("2B"),)).view(1))
        == []
    )


@pytest.mark.parametrize("variant", [Variant.SCOPA, Variant.ESCOBA, Variant.QUINDICI])
def test_a_greedy_players_own_hand_breaks_none_of_its_plays(variant):
    """The model is the greedy player's rules of thumb: where the other seat is
    that player, its true hand fits every play that tells, and a random hand
    often does not (so the plays do tell)."""
    rules = ScopaRules.preset(variant)
    told = broken_at_random = 0
    for seed in range(6):
        state, _ = ScopaState.new_game(rules, seed=seed)
        rng = random.Random(seed)
        while state.winner is None:
            seat = state.to_play
            seen = state.view(seat)
            telling = scopa_inference.telling_plays(seen)
            other = state.hands[1 - seat]
            assert all(better.isdisjoint(other) for better in telling)
            if telling:
                told += 1
                dealt = determinize.deal_unseen(seen, rng)[0][1 - seat]
                broken_at_random += any(not better.isdisjoint(dealt) for better in telling)
            state.apply(greedy.choose(seen, state.legal_moves(), Budget(1), rng).move)
    assert told > 100
    assert broken_at_random > told / 10


def test_the_worlds_lean_to_the_hands_the_plays_point_at():
    seen = a_lay_of_the_2_on_5_and_4().view(1)
    (better,) = scopa_inference.telling_plays(seen)
    rng = random.Random(3)
    plain = determinize.even_dealer(seen)
    inferred = scopa_inference.inferring(seen, determinize.even_dealer(seen))

    def breaking(deal) -> int:
        return sum(not better.isdisjoint(deal(rng)[0][0]) for _ in range(400))

    assert breaking(plain) > 60  # 4 of the 32 unseen cards: a hand of two holds one 24% of the time
    assert breaking(inferred) < 10  # kept 2% of the time, after 30 tries at most


def test_worlds_asked_inferred_lean_to_the_plays_and_independent_worlds_do_not():
    seen = a_lay_of_the_2_on_5_and_4().view(1)
    (better,) = scopa_inference.telling_plays(seen)

    def breaking(**how) -> int:
        world = BOTS.searcher(seen, **how)
        rng = random.Random(4)
        return sum(
            not better.isdisjoint(world(rng, Evaluation(), lambda _: True, 0).hands[0])
            for _ in range(200)
        )

    assert breaking(even=True, inferred=True) < 5
    assert breaking() > 25
