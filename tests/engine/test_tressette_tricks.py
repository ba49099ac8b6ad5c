"""docs/rules.md, Tressette, Trick: follow suit, the strongest card of the led suit
wins; refusals."""

from __future__ import annotations

import itertools

import pytest

from mazzo.engine import IllegalMove, InvalidInput, Move, Reason, dump_state
from mazzo.engine.cards import SUITS, Card
from mazzo.engine.events import CardPlayed, TrickWon
from mazzo.engine.tressette import TressetteRules, winning_index
from tests.engine.tressette_support import (
    ORDER,
    card,
    cards,
    deck_dealing,
    illegal,
    make_state,
    play,
    refusal,
    start,
)

# Seat 0 leads; seat 1 holds cups and swords, no coins.
HANDS_2 = ("4C 1D 2D 3D 5B 6B 7B 8B 9B 10B", "5C 3C 3S 1S 2S 4S 5S 6S 7S 3B")


def moves_of(state) -> set[Card]:
    return {m.card for m in state.legal_moves()}


# ---------------------------------------------------------------- leading and following


def test_the_leader_may_play_any_card_even_with_the_stock_full():
    state, _ = start(2, deck_dealing(HANDS_2))
    assert len(state.stock) == 20
    assert moves_of(state) == set(cards(HANDS_2[0]))
    for c in cards(HANDS_2[0]):
        assert state.resolve(Move(0, c)) == Move(0, c)


def test_following_suit_is_compulsory_while_the_stock_is_still_full():
    state, _ = start(2, deck_dealing(HANDS_2))
    state, _ = play(state, "4C")
    assert len(state.stock) == 20
    assert state.to_play == 1
    assert moves_of(state) == set(cards("5C 3C"))
    for other in cards("3S 1S 2S 4S 5S 6S 7S 3B"):
        err = illegal(state, Move(1, other))
        assert err.reason is Reason.MUST_FOLLOW_SUIT
        assert err.details == {"ledSuit": "C"}


def test_following_suit_is_compulsory_once_the_stock_is_gone():
    state = make_state(hands=["5D 8B", "2D"], trick="4D", leader=1, fill=1)
    assert state.stock == []
    assert moves_of(state) == {card("5D")}
    err = illegal(state, Move(0, card("8B")))
    assert err.reason is Reason.MUST_FOLLOW_SUIT
    assert err.details == {"ledSuit": "D"}


@pytest.mark.parametrize("led", ["4D", "4C", "4S", "4B"])
def test_the_led_suit_is_named_by_its_letter(led):
    suit = card(led).suit
    follower = Card.of(5, suit)
    other = Card.of(5, (suit + 1) % 4)
    state = make_state(hands=[[follower, other], "6D"], trick=led, leader=1, fill=1)
    err = illegal(state, Move(0, other))
    assert err.details == {"ledSuit": SUITS[suit]}


def test_the_led_suit_is_the_first_cards_not_the_strongest_cards():
    # Four players: 4C led, a 3 of coins discarded; the third seat must follow cups.
    state = make_state(
        hands=["5D 7B", "6D 9B", "1C 2D 8S", "10S 9S 8B"],
        trick="4C 3D",
        leader=0,
        rules=TressetteRules(players=4),
        fill=0,
    )
    assert state.to_play == 2
    assert moves_of(state) == {card("1C")}
    assert illegal(state, Move(2, card("2D"))).details == {"ledSuit": "C"}


def test_a_player_void_in_the_led_suit_may_play_any_card():
    state, _ = start(2, deck_dealing(HANDS_2))
    state, _ = play(state, "1D")
    assert moves_of(state) == set(cards(HANDS_2[1]))
    for c in cards(HANDS_2[1]):
        assert state.resolve(Move(1, c)) == Move(1, c)


def test_every_seat_of_four_follows_suit_or_discards_freely_when_void():
    state = make_state(
        hands=["4D 1S", "5B 2S", "3C 1B", "7D 9C"],
        leader=1,
        rules=TressetteRules(players=4),
        fill=1,
    )
    assert moves_of(state) == set(cards("5B 2S"))
    state, _ = play(state, "2S")
    assert moves_of(state) == set(cards("3C 1B"))  # seat 2: no swords
    state, _ = play(state, "1B")
    assert moves_of(state) == set(cards("7D 9C"))  # seat 3: no swords
    state, _ = play(state, "9C")
    assert moves_of(state) == {card("1S")}  # seat 0 holds a sword


# ---------------------------------------------------------------- who wins


def pairs_by_strength():
    """Every (stronger, weaker) pair of ranks by docs/rules.md's order."""
    return list(itertools.combinations(ORDER, 2))


@pytest.mark.parametrize(("strong", "weak"), pairs_by_strength())
def test_the_stronger_card_of_the_led_suit_wins_whoever_plays_it(strong, weak):
    for leader_rank, follower_rank, winner in ((strong, weak, 1), (weak, strong, 0)):
        led, follow = Card.of(leader_rank, 2), Card.of(follower_rank, 2)
        state = make_state(hands=[[follow, card("4B")], "5B"], trick=[led], leader=1, fill=0)
        events = state.apply(Move(0, follow))
        assert events[-1] == TrickWon(winner, winner, 1, (led, follow))


def test_the_strength_order_is_3_2_ace_king_knight_jack_7_6_5_4():
    cups = [Card.of(rank, 1) for rank in (4, 5, 6, 7, 8, 9, 10, 1, 2, 3)]
    for i in range(1, len(cups)):
        # Each card beats every card before it in that list, however the trick was led.
        for j in range(i):
            assert winning_index((cups[j], cups[i])) == 1
            assert winning_index((cups[i], cups[j])) == 0


def test_a_4_of_cups_led_beats_a_discarded_3_of_coins():
    state = make_state(hands=["4C 5S", "3D 6S"], leader=0, fill=0)
    after, events = play(state, "4C", "3D")
    assert events[-1] == TrickWon(0, 0, 0, cards("4C 3D"))
    assert after.to_play == after.leader == 0
    assert after.piles[0][-2:] == list(cards("4C 3D"))


def test_a_discard_cannot_win_even_when_it_outranks_every_card_played():
    # Four players: 5S led; the others discard a 3, a 2 and an ace of other suits.
    state = make_state(
        hands=["3C 6D", "5S 7D", "2D 6B", "1B 6C"],
        leader=1,
        rules=TressetteRules(players=4),
        fill=0,
    )
    after, events = play(state, "5S", "2D", "1B", "3C")
    assert events[-1] == TrickWon(1, 1, 1, cards("5S 2D 1B 3C"))
    assert after.to_play == after.leader == 1
    assert after.piles[1][-4:] == list(cards("5S 2D 1B 3C"))


def test_four_players_the_last_to_play_can_win_and_their_pair_takes_the_trick():
    state = make_state(
        hands=["4B 5D", "5B 6D", "9C 7D", "2B 8D"],
        leader=0,
        rules=TressetteRules(players=4),
        fill=0,
    )
    after, events = play(state, "4B", "5B", "7D", "2B")
    assert events[-1] == TrickWon(3, 1, 0, cards("4B 5B 7D 2B"))
    assert after.piles[1] == list(cards("4B 5B 7D 2B"))
    assert after.to_play == after.leader == 3


def test_four_players_a_trick_won_by_seat_2_goes_to_side_0():
    state = make_state(
        hands=["4C 5D", "10C 6D", "1C 7D", "5C 8D"],
        leader=3,
        rules=TressetteRules(players=4),
        fill=1,
    )
    before_pile = state.piles[0]
    after, events = play(state, "5C", "4C", "10C", "1C")
    assert events[-1] == TrickWon(2, 0, 3, cards("5C 4C 10C 1C"))
    assert after.piles[0] == [*before_pile, *cards("5C 4C 10C 1C")]
    assert after.to_play == after.leader == 2


def test_the_winner_leads_the_next_trick_even_when_the_other_led():
    state, _ = start(2, deck_dealing(HANDS_2))
    state, events = play(state, "4C", "5C")
    assert events[:3] == [
        CardPlayed(0, card("4C")),
        CardPlayed(1, card("5C")),
        TrickWon(1, 1, 0, cards("4C 5C")),
    ]
    assert state.to_play == state.leader == 1
    assert state.trick == []
    assert moves_of(state) == set(state.hands[1])


def test_the_trick_in_progress_is_kept_in_play_order_from_the_leader():
    state = make_state(
        hands=["4C 5D", "10C 6D", "1C 7D", "5C 8D"],
        leader=2,
        rules=TressetteRules(players=4),
        fill=1,
    )
    state, _ = play(state, "1C", "5C")
    assert state.trick == list(cards("1C 5C"))
    assert state.leader == 2
    assert state.to_play == 0


# ---------------------------------------------------------------- refusals


def test_a_seat_out_of_turn_is_refused_not_your_turn():
    state, _ = start(2, deck_dealing(HANDS_2))
    err = illegal(state, Move(1, card("5C")))
    assert err.reason is Reason.NOT_YOUR_TURN
    assert err.details == {"seatToPlay": "0"}


def test_a_card_not_in_the_hand_is_refused_card_not_in_hand():
    state, _ = start(2, deck_dealing(HANDS_2))
    for text in ("5C", "1C", "9C"):  # the opponent's card, a stock card
        assert illegal(state, Move(0, card(text))).reason is Reason.CARD_NOT_IN_HAND


def test_a_card_already_played_to_the_trick_is_not_in_hand():
    state, _ = start(2, deck_dealing(HANDS_2))
    state, _ = play(state, "4C")
    assert illegal(state, Move(1, card("4C"))).reason is Reason.CARD_NOT_IN_HAND


@pytest.mark.parametrize(("players", "seat"), [(2, -1), (2, 2), (2, 3), (4, 4), (4, -2)])
def test_a_seat_that_does_not_exist_is_refused_invalid_seat(players, seat):
    state, _ = start(players, seed=3)
    err = refusal(state, Move(seat, state.hands[0][0]))
    assert isinstance(err, InvalidInput)
    assert err.reason is Reason.INVALID_SEAT


def test_a_move_with_a_take_is_refused_take_not_allowed():
    state, _ = start(2, deck_dealing(HANDS_2))
    err = refusal(state, Move(0, card("4C"), frozenset(cards("5C"))))
    assert isinstance(err, InvalidInput)
    assert err.reason is Reason.TAKE_NOT_ALLOWED
    with pytest.raises(InvalidInput) as refused:
        state.resolve(Move(0, card("4C"), frozenset(cards("9C"))))
    assert refused.value.reason is Reason.TAKE_NOT_ALLOWED


def test_no_legal_move_carries_a_take():
    state, _ = start(4, seed=8)
    assert all(m.take == frozenset() for m in state.legal_moves())


def test_a_finished_game_refuses_every_move_game_over():
    state = make_state(hands=["", ""], scores=(22, 9), winner=0, fill=0)
    assert state.legal_moves() == []
    for seat in (0, 1):
        err = refusal(state, Move(seat, card("4C")))
        assert isinstance(err, IllegalMove)
        assert err.reason is Reason.GAME_OVER


def test_a_refused_move_leaves_the_state_and_its_bytes_unchanged():
    state, _ = start(2, deck_dealing(HANDS_2))
    state, _ = play(state, "4C")
    data = dump_state(state)
    for move in (
        Move(1, card("3S")),
        Move(0, card("1D")),
        Move(1, card("9C")),
        Move(1, card("5C"), frozenset(cards("4C"))),
    ):
        with pytest.raises((IllegalMove, InvalidInput)):
            state.apply(move)
        assert dump_state(state) == data
    state.apply(Move(1, card("5C")))
    assert state.piles[1] == list(cards("4C 5C"))
