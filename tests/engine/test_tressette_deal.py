"""docs/rules.md, Seats, dealing, turn order; Tressette, Deal: who gets which card,
seeds, options."""

from __future__ import annotations

import pytest

from mazzo.engine import DECK, InvalidInput, Reason, get_game, rng
from mazzo.engine.cards import Card
from mazzo.engine.events import CardsDealt, Deal, HandScored
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.tressette_support import (
    cards,
    deck_dealing,
    expected_deal,
    play_hand,
    shuffled_deck,
    start,
)

# ---------------------------------------------------------------- the deal


def test_two_players_are_dealt_ten_each_one_at_a_time_from_the_top_after_the_dealer():
    deck = shuffled_deck(1)
    state, _ = start(2, deck)
    # Dealer seat 1: seat 0 takes the 1st, 3rd, 5th... cards, seat 1 the 2nd, 4th...
    assert state.dealer == 1
    assert state.hands == [list(deck[0:20:2]), list(deck[1:20:2])]
    assert state.stock == list(deck[20:])
    assert len(state.stock) == 20
    assert state.trick == []
    assert state.piles == [[], []]


def test_two_players_with_seat_0_dealing_seat_1_takes_the_top_card_and_leads():
    deck = shuffled_deck(2)
    state, _ = start(2, deck, first_dealer=0)
    assert state.dealer == 0
    assert state.hands == [list(deck[1:20:2]), list(deck[0:20:2])]
    assert state.to_play == state.leader == 1
    assert state.stock == list(deck[20:])


def test_four_players_with_seat_1_dealing_spelled_out():
    deck = tuple(Card.of(rank, suit) for rank in range(1, 11) for suit in range(4))
    state, _ = start(4, deck, first_dealer=1)
    # Round after round seat 2 takes a coin, seat 3 a cup, seat 0 a sword, seat 1 a baton.
    assert state.hands == [
        list(cards("1S 2S 3S 4S 5S 6S 7S 8S 9S 10S")),
        list(cards("1B 2B 3B 4B 5B 6B 7B 8B 9B 10B")),
        list(cards("1D 2D 3D 4D 5D 6D 7D 8D 9D 10D")),
        list(cards("1C 2C 3C 4C 5C 6C 7C 8C 9C 10C")),
    ]
    assert state.stock == []
    assert state.to_play == state.leader == 2


@pytest.mark.parametrize(("players", "dealer"), [(2, 0), (2, 1), (4, 0), (4, 1), (4, 2), (4, 3)])
@pytest.mark.parametrize("deck_seed", [3, 4])
def test_the_deal_follows_the_explicit_deck_for_every_dealer(players, dealer, deck_seed):
    deck = shuffled_deck(deck_seed)
    state, events = start(players, deck, first_dealer=dealer)
    hands, stock = expected_deal(deck, players, dealer)
    assert state.hands == hands
    assert state.stock == stock
    assert len(stock) == (20 if players == 2 else 0)
    assert all(len(h) == 10 for h in state.hands)
    assert state.dealer == dealer
    assert state.to_play == state.leader == (dealer + 1) % players
    dealt = {e.seat: list(e.cards) for e in events if isinstance(e, CardsDealt)}
    assert dealt == dict(enumerate(hands))


def test_deck_dealing_builds_the_deck_that_deals_the_given_hands():
    hands = ("1D 2D 3D 4D 5D 6D 7D 8D 9D 10D", "1C 2C 3C 4C 5C 6C 7C 8C 9C 10C")
    state, _ = start(2, deck_dealing(hands, stock="7B 1S"))
    assert state.hands == [list(cards(h)) for h in hands]
    assert state.stock[:2] == list(cards("7B 1S"))


@pytest.mark.parametrize("players", [2, 4])
def test_the_default_first_dealer_is_the_last_seat_so_seat_0_leads(players):
    state, events = TressetteState.new_game(TressetteRules(players=players), seed=5)
    assert state.dealer == players - 1
    assert state.to_play == state.leader == 0
    assert state.hand_number == 1
    assert events[0].dealer == players - 1


@pytest.mark.parametrize("players", [2, 4])
def test_the_deal_events_show_the_counts_to_all_and_each_hand_to_its_seat_only(players):
    state, events = TressetteState.new_game(TressetteRules(players=players), seed=9)
    stock = 20 if players == 2 else 0
    assert events[0] == Deal(
        hand_number=1, dealer=players - 1, table=(), hand_sizes=(10,) * players, stock_size=stock
    )
    assert events[0].visible_to is None
    assert events[1:] == [CardsDealt(seat, tuple(state.hands[seat])) for seat in range(players)]
    assert [e.visible_to for e in events[1:]] == list(range(players))


@pytest.mark.parametrize("players", [2, 4])
def test_the_seat_after_the_dealer_leads_with_any_card_of_its_hand(players):
    state, _ = TressetteState.new_game(TressetteRules(players=players), seed=13, first_dealer=0)
    assert state.to_play == 1
    assert {m.card for m in state.legal_moves()} == set(state.hands[1])
    assert all(m.seat == 1 and not m.take for m in state.legal_moves())


# ---------------------------------------------------------------- hand after hand


@pytest.mark.parametrize("players", [2, 4])
def test_the_deal_and_the_lead_pass_to_the_next_seat_after_every_hand(players):
    state, _ = TressetteState.new_game(TressetteRules(players=players, target=1000), seed=11)
    for hand in range(1, players + 3):
        assert state.hand_number == hand
        assert state.dealer == (players - 1 + hand - 1) % players
        assert state.to_play == state.leader == (state.dealer + 1) % players
        assert all(len(h) == 10 for h in state.hands)
        assert len(state.stock) == (20 if players == 2 else 0)
        assert state.piles == [[], []]
        state, events = play_hand(state)
        deal = next(e for e in events if isinstance(e, Deal))
        assert events.index(deal) > next(
            i for i, e in enumerate(events) if isinstance(e, HandScored)
        )
        assert deal.hand_number == hand + 1
        assert deal.dealer == state.dealer


@pytest.mark.parametrize("players", [2, 4])
def test_explicit_decks_are_used_one_per_hand_then_the_seeded_generator(players):
    first, second = shuffled_deck(21), shuffled_deck(22)
    seed = 77
    state, _ = TressetteState.new_game(
        TressetteRules(players=players, target=1000), seed=seed, decks=[first, second]
    )
    assert (state.hands, state.stock) == expected_deal(first, players, players - 1)
    assert len(state.decks) == 1
    assert state.rng == seed  # no shuffle yet
    state, _ = play_hand(state)
    assert (state.hands, state.stock) == expected_deal(second, players, 0)
    assert state.decks == ()
    assert state.rng == seed
    state, _ = play_hand(state)
    rng_after, third = rng.shuffled(seed, DECK)
    assert (state.hands, state.stock) == expected_deal(third, players, 1)
    assert state.rng == rng_after


@pytest.mark.parametrize("players", [2, 4])
def test_a_seeded_game_deals_the_generators_shuffle(players):
    state, _ = TressetteState.new_game(TressetteRules(players=players), seed=2024)
    rng_after, deck = rng.shuffled(2024, DECK)
    assert (state.hands, state.stock) == expected_deal(deck, players, players - 1)
    assert state.rng == rng_after


@pytest.mark.parametrize("players", [2, 4])
def test_the_same_seed_deals_the_same_game_and_another_seed_another(players):
    rules = TressetteRules(players=players)
    a, events_a = TressetteState.new_game(rules, seed=99)
    b, events_b = TressetteState.new_game(rules, seed=99)
    assert a == b
    assert events_a == events_b
    c, _ = TressetteState.new_game(rules, seed=100)
    assert c.hands != a.hands


@pytest.mark.parametrize("seed", [0, 2**64 - 1])
def test_the_extreme_seeds_are_accepted_and_shuffle_like_any_other(seed):
    state, _ = TressetteState.new_game(TressetteRules(), seed=seed)
    assert (state.hands, state.stock) == expected_deal(rng.shuffled(seed, DECK)[1], 2, 1)


# ---------------------------------------------------------------- refused options


@pytest.mark.parametrize("players", [0, 1, 3, 5, 6, 2.0, True, "2"])
def test_players_other_than_2_or_4_are_refused_invalid_players(players):
    with pytest.raises(InvalidInput) as refused:
        TressetteRules(players=players)
    assert refused.value.reason is Reason.INVALID_PLAYERS


@pytest.mark.parametrize("target", [0, -1, 1001, 21.0, "21", None, True])
def test_a_target_outside_1_to_1000_is_refused_invalid_option(target):
    with pytest.raises(InvalidInput) as refused:
        TressetteRules(target=target)
    assert refused.value.reason is Reason.INVALID_OPTION
    assert refused.value.details == {"option": "target"}


@pytest.mark.parametrize("target", [1, 21, 31, 41, 1000])
def test_any_target_from_1_to_1000_is_accepted(target):
    state, _ = TressetteState.new_game(TressetteRules(target=target), seed=1)
    assert state.rules.target == target


def test_the_defaults_are_two_players_target_21_and_no_napoletana():
    rules = TressetteRules()
    assert (rules.players, rules.target, rules.napoletana) == (2, 21, False)


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "1", None])
def test_a_seed_outside_64_bits_is_refused_invalid_seed(seed):
    with pytest.raises(InvalidInput) as refused:
        TressetteState.new_game(TressetteRules(), seed=seed)
    assert refused.value.reason is Reason.INVALID_SEED


@pytest.mark.parametrize(("players", "dealer"), [(2, 2), (2, -1), (4, 4), (4, 7)])
def test_a_first_dealer_that_is_no_seat_is_refused_invalid_seat(players, dealer):
    with pytest.raises(InvalidInput) as refused:
        TressetteState.new_game(TressetteRules(players=players), seed=1, first_dealer=dealer)
    assert refused.value.reason is Reason.INVALID_SEAT
    assert refused.value.details == {"option": "first_dealer"}


@pytest.mark.parametrize(
    "deck",
    [DECK[:-1], (*DECK[:-1], DECK[0]), (*DECK, DECK[0])],
    ids=["39-cards", "a-card-twice", "41-cards"],
)
def test_an_explicit_deck_that_is_not_the_40_cards_is_refused_invalid_deck(deck):
    with pytest.raises(InvalidInput) as refused:
        TressetteState.new_game(TressetteRules(), seed=1, decks=[shuffled_deck(1), deck])
    assert refused.value.reason is Reason.INVALID_DECK


# ---------------------------------------------------------------- the catalog


def test_the_registry_offers_tressette_for_2_and_4_with_its_options():
    game = get_game("tressette")
    assert game.name == TressetteState.name == "tressette"
    assert game.player_counts == TressetteState.player_counts == (2, 4)
    assert game.options == TressetteState.options
    options = {o.name: o for o in game.options}
    assert set(options) == {"target", "napoletana"}
    assert (options["target"].type, options["target"].default) == ("int", 21)
    assert (options["target"].min, options["target"].max) == (1, 1000)
    assert (options["napoletana"].type, options["napoletana"].default) == ("bool", False)


def test_the_registry_game_is_the_state_class():
    assert get_game("tressette") is TressetteState
