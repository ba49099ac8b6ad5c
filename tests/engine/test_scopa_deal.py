"""docs/rules.md, Seats, dealing, turn order; Scopa, Deal: who gets which card, redeals, seeds."""

from __future__ import annotations

import pytest

from mazzo.engine import DECK, InvalidInput, Reason, rng
from mazzo.engine.events import CardsDealt, Deal, HandScored, Redeal
from mazzo.engine.game import Move
from mazzo.engine.scopa import ScopaRules, ScopaState
from tests.engine.scopa_support import (
    card,
    cards,
    deals_of,
    dealt,
    dealt_to,
    deck_starting_with,
    expected_deal,
    hands_of,
    make_state,
    play_hand,
    shuffled_deck,
)

DEALS_PER_HAND = {2: 6, 3: 4, 4: 3, 6: 2}


def test_two_players_are_dealt_one_card_at_a_time_from_the_top_starting_after_the_dealer():
    deck = deck_starting_with("1D 1C 2D 2C 3D 3C 4S 5S 6S 7S 8B 9B")
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1, decks=[deck])
    # Dealer is seat 1: seat 0 takes the 1st, 3rd and 5th cards, seat 1 the others.
    assert state.dealer == 1
    assert hands_of(state) == (cards("1D 2D 3D"), cards("1C 2C 3C"))
    assert state.table == cards("4S 5S 6S 7S")
    assert state.stock[:2] == list(cards("8B 9B"))
    assert len(state.stock) == 30


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize("deck_seed", [1, 2, 3])
def test_the_deal_follows_the_explicit_deck_order_for_every_player_count(players, deck_seed):
    deck = shuffled_deck(deck_seed)
    kings = sum(c.rank == 10 for c in deck[3 * players : 3 * players + 4])
    assert kings < 3, "this deck would be redealt: pick another deck seed"
    state, events = ScopaState.new_game(ScopaRules(players=players), seed=1, decks=[deck])
    hands, table, stock = expected_deal(deck, players, players - 1)
    assert hands_of(state) == hands
    assert state.table == table
    assert len(state.table) == 4
    assert tuple(state.stock) == stock
    assert len(state.stock) == 40 - 3 * players - 4
    assert dealt_to(events) == dict(enumerate(hands))


@pytest.mark.parametrize(("players", "dealer"), [(2, 0), (3, 0), (3, 1), (4, 1), (6, 3)])
def test_a_non_default_first_dealer_deals_starting_with_the_seat_after_them(players, dealer):
    deck = shuffled_deck(7)
    state, _ = ScopaState.new_game(
        ScopaRules(players=players), seed=1, decks=[deck], first_dealer=dealer
    )
    leader = (dealer + 1) % players
    assert state.dealer == dealer
    assert state.to_play == leader
    assert state.hands[leader][0] == deck[0]
    assert state.hands[dealer][-1] == deck[3 * players - 1]
    assert dealt(state) == expected_deal(deck, players, dealer)


def test_four_players_with_seat_1_dealing_spelled_out():
    deck = deck_starting_with("1D 1C 1S 1B 2D 2C 2S 2B 3D 3C 3S 3B 4D 4C 4S 4B")
    state, _ = ScopaState.new_game(ScopaRules(players=4), seed=1, decks=[deck], first_dealer=1)
    assert hands_of(state) == (
        cards("1S 2S 3S"),
        cards("1B 2B 3B"),
        cards("1D 2D 3D"),
        cards("1C 2C 3C"),
    )
    assert state.table == cards("4D 4C 4S 4B")
    assert state.to_play == 2


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_default_first_dealer_is_the_last_seat_so_seat_0_leads(players):
    state, events = ScopaState.new_game(ScopaRules(players=players), seed=5)
    assert state.dealer == players - 1
    assert state.to_play == 0
    assert state.hand_number == 1
    deal = deals_of(events)[0]
    assert deal.dealer == players - 1
    assert deal.hand_number == 1


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_first_deal_events_show_the_table_the_counts_and_each_hand(players):
    state, events = ScopaState.new_game(ScopaRules(players=players), seed=9)
    assert isinstance(events[0], Deal)
    assert events[0].table == state.table
    assert events[0].hand_sizes == (3,) * players
    assert events[0].stock_size == 40 - 3 * players - 4
    assert [type(e) for e in events[1:]] == [CardsDealt] * players
    assert dealt_to(events) == dict(enumerate(hands_of(state)))


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_a_hand_has_6_4_3_or_2_deals_and_later_deals_add_nothing_to_the_table(players):
    state, _ = ScopaState.new_game(ScopaRules(players=players, target=1000), seed=3)
    stock_sizes = [len(state.stock)]
    deals = 1
    while True:
        before, mover = state.clone(), state.to_play
        move = state.legal_moves()[0]
        events = state.apply(move)
        if any(isinstance(e, HandScored) for e in events):
            break
        for deal in deals_of(events):
            deals += 1
            assert deal.table == ()
            assert deal.hand_sizes == (3,) * players
            assert mover == state.dealer  # the dealer played the last card of the round
            assert state.to_play == (state.dealer + 1) % players
            assert all(len(h) == 3 for h in state.hands)
            stock_sizes.append(deal.stock_size)
            assert deal.stock_size == len(state.stock)
            # The table is what the last play left; the deal added nothing.
            if move.take:
                assert state.table == tuple(c for c in before.table if c not in move.take)
            else:
                assert state.table == (*before.table, move.card)
    assert deals == DEALS_PER_HAND[players]
    step = 3 * players
    assert stock_sizes == list(range(40 - step - 4, -1, -step))


def test_a_later_deal_gives_three_more_cards_each_from_the_top_and_nothing_to_the_table():
    stock = cards("1B 2B 3B 4B 5B 6B")
    state = make_state(hands=["", "5C"], table="4D 6D", stock=stock, to_play=1, dealer=1, fill=0)
    events = state.apply(Move(1, card("5C")))
    (deal,) = deals_of(events)
    assert deal == Deal(hand_number=1, dealer=1, table=(), hand_sizes=(3, 3), stock_size=0)
    assert state.table == cards("4D 6D 5C")
    assert hands_of(state) == (cards("1B 3B 5B"), cards("2B 4B 6B"))
    assert state.stock == []
    assert state.to_play == 0
    assert dealt_to(events) == {0: cards("1B 3B 5B"), 1: cards("2B 4B 6B")}


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_dealer_passes_to_the_next_seat_after_every_hand(players):
    state, _ = ScopaState.new_game(ScopaRules(players=players, target=1000), seed=11)
    for hand in range(1, players + 2):
        assert state.hand_number == hand
        assert state.dealer == (players - 1 + hand - 1) % players
        assert state.to_play == (state.dealer + 1) % players
        state, events = play_hand(state)
        (deal,) = [d for d in deals_of(events) if d.hand_number == hand + 1]
        assert deal.dealer == state.dealer


def test_three_kings_on_the_first_table_redeal_from_the_next_deck_with_the_same_dealer():
    kings_deck = deck_starting_with("1D 2D 3D 4D 5D 6D 10D 10C 10S 7B")
    next_deck = shuffled_deck(4)
    state, events = ScopaState.new_game(
        ScopaRules(players=2), seed=1, decks=[kings_deck, next_deck]
    )
    assert events[0] == Redeal(dealer=1, table=cards("10D 10C 10S 7B"))
    assert isinstance(events[1], Deal)
    assert [e for e in events if isinstance(e, Redeal)] == [events[0]]
    assert events[0].visible_to is None
    assert state.dealer == 1
    assert dealt(state) == expected_deal(next_deck, 2, 1)
    assert state.decks == ()


def test_four_kings_on_the_first_table_redeal():
    kings_deck = deck_starting_with("1D 2D 3D 4D 5D 6D 10D 10C 10S 10B")
    next_deck = shuffled_deck(4)
    state, events = ScopaState.new_game(
        ScopaRules(players=2), seed=1, decks=[kings_deck, next_deck]
    )
    assert events[0] == Redeal(dealer=1, table=cards("10D 10C 10S 10B"))
    assert dealt(state) == expected_deal(next_deck, 2, 1)


def test_two_kings_on_the_first_table_do_not_redeal():
    deck = deck_starting_with("1D 2D 3D 4D 5D 6D 10D 10C 9S 7B")
    state, events = ScopaState.new_game(
        ScopaRules(players=2), seed=1, decks=[deck, shuffled_deck(4)]
    )
    assert not [e for e in events if isinstance(e, Redeal)]
    assert state.table == cards("10D 10C 9S 7B")
    assert state.decks == (shuffled_deck(4),)


def test_kings_in_the_hands_do_not_redeal():
    deck = deck_starting_with("10D 10C 10S 10B 5D 6D 1D 2C 9S 7B")
    state, events = ScopaState.new_game(ScopaRules(players=2), seed=1, decks=[deck])
    assert not [e for e in events if isinstance(e, Redeal)]
    assert hands_of(state) == (cards("10D 10S 5D"), cards("10C 10B 6D"))


def test_a_redeal_with_a_non_default_dealer_keeps_that_dealer():
    # Three players, dealer 0: 9 cards to the hands, then the table.
    kings_deck = deck_starting_with("1D 2D 3D 4D 5D 6D 7D 8D 9D 10D 10C 1C 10S")
    next_deck = shuffled_deck(8)
    state, events = ScopaState.new_game(
        ScopaRules(players=3), seed=1, decks=[kings_deck, next_deck], first_dealer=0
    )
    assert events[0] == Redeal(dealer=0, table=cards("10D 10C 1C 10S"))
    assert state.dealer == 0
    assert state.to_play == 1
    assert dealt(state) == expected_deal(next_deck, 3, 0)


def test_a_redeal_without_another_explicit_deck_uses_the_seeded_generator():
    kings_deck = deck_starting_with("1D 2D 3D 4D 5D 6D 10D 10C 10S 7B")
    state, events = ScopaState.new_game(ScopaRules(players=2), seed=77, decks=[kings_deck])
    _, seeded = rng.shuffled(77, DECK)
    assert isinstance(events[0], Redeal)
    assert dealt(state) == expected_deal(seeded, 2, 1)


def test_repeated_redeals_each_use_the_next_deck_and_report_each_void_table():
    first = deck_starting_with("1D 2D 3D 4D 5D 6D 10D 10C 10S 7B")
    second = deck_starting_with("1C 2C 3C 4C 5C 6C 10B 10C 10S 10D")
    third = shuffled_deck(4)
    state, events = ScopaState.new_game(ScopaRules(players=2), seed=1, decks=[first, second, third])
    assert [e.table for e in events if isinstance(e, Redeal)] == [
        cards("10D 10C 10S 7B"),
        cards("10B 10C 10S 10D"),
    ]
    assert hands_of(state) == expected_deal(third, 2, 1)[0]


def test_a_void_table_in_a_later_hand_is_redealt_too_by_the_new_dealer():
    hand1 = shuffled_deck(4)
    kings = deck_starting_with("1D 2D 3D 4D 5D 6D 10D 10C 10S 10B")
    hand2 = shuffled_deck(5)
    state, _ = ScopaState.new_game(
        ScopaRules(players=2, target=1000), seed=1, decks=[hand1, kings, hand2]
    )
    state, events = play_hand(state)
    redeals = [e for e in events if isinstance(e, Redeal)]
    assert redeals == [Redeal(dealer=0, table=cards("10D 10C 10S 10B"))]
    assert state.dealer == 0
    assert state.hand_number == 2
    assert dealt(state) == expected_deal(hand2, 2, 0)


def test_explicit_decks_are_used_one_per_hand_then_the_seeded_generator():
    d1, d2 = shuffled_deck(4), shuffled_deck(5)
    state, _ = ScopaState.new_game(ScopaRules(players=2, target=1000), seed=99, decks=[d1, d2])
    assert dealt(state) == expected_deal(d1, 2, 1)
    assert state.decks == (d2,)
    state, _ = play_hand(state)
    assert state.hand_number == 2
    assert dealt(state) == expected_deal(d2, 2, 0)
    assert state.decks == ()
    state, _ = play_hand(state)
    assert state.hand_number == 3
    # The third hand is shuffled by the generator: as a fresh game from seed 99
    # with the same dealer would deal its first hand.
    fresh, _ = ScopaState.new_game(ScopaRules(players=2, target=1000), seed=99, first_dealer=1)
    assert dealt(state) == dealt(fresh)


def test_a_seeded_game_shuffles_with_the_seeded_generator():
    state, _ = ScopaState.new_game(ScopaRules(players=3), seed=2024)
    _, deck = rng.shuffled(2024, DECK)
    assert dealt(state) == expected_deal(deck, 3, 2)


def test_the_same_seed_gives_the_same_game():
    a, a_events = ScopaState.new_game(ScopaRules(players=4), seed=123456789)
    b, b_events = ScopaState.new_game(ScopaRules(players=4), seed=123456789)
    assert a == b
    assert a_events == b_events
    a2, _ = play_hand(a)
    b2, _ = play_hand(b)
    assert a2 == b2


def test_different_seeds_give_different_deals():
    deals = set()
    for seed in (0, 1, 2, 3, 2**64 - 1):
        state, _ = ScopaState.new_game(ScopaRules(players=2), seed=seed)
        deals.add(dealt(state))
    assert len(deals) == 5


def test_each_hand_of_a_seeded_game_gets_a_new_shuffle():
    state, _ = ScopaState.new_game(ScopaRules(players=2, target=1000), seed=5)
    first = dealt(state)
    state, _ = play_hand(state)
    assert dealt(state) != first


@pytest.mark.parametrize(("players", "dealer"), [(2, 2), (2, -1), (3, 3), (4, 7), (6, 6)])
def test_a_first_dealer_that_is_not_a_seat_is_refused_as_invalid_seat(players, dealer):
    with pytest.raises(InvalidInput) as err:
        ScopaState.new_game(ScopaRules(players=players), seed=1, first_dealer=dealer)
    assert err.value.reason is Reason.INVALID_SEAT


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70])
def test_a_seed_outside_64_bits_is_refused_as_invalid_seed(seed):
    with pytest.raises(InvalidInput) as err:
        ScopaState.new_game(ScopaRules(players=2), seed=seed)
    assert err.value.reason is Reason.INVALID_SEED


def test_the_extreme_seeds_are_accepted():
    ScopaState.new_game(ScopaRules(players=2), seed=0)
    ScopaState.new_game(ScopaRules(players=2), seed=2**64 - 1)


@pytest.mark.parametrize("players", [0, 1, 5, 7, 8, -2])
def test_scopa_refuses_other_player_counts_as_invalid_players(players):
    with pytest.raises(InvalidInput) as err:
        ScopaRules(players=players)
    assert err.value.reason is Reason.INVALID_PLAYERS


@pytest.mark.parametrize("target", [0, -11, 1001])
def test_a_target_outside_1_to_1000_is_refused_as_invalid_option(target):
    with pytest.raises(InvalidInput) as err:
        ScopaRules(players=2, target=target)
    assert err.value.reason is Reason.INVALID_OPTION
    assert err.value.details.get("option") == "target"


def test_the_default_target_is_11():
    assert ScopaRules().target == 11
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1)
    assert state.view(0).status.target == 11
