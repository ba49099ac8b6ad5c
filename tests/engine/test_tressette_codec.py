"""The compact Tressette state codec: dump_state / load_state round trips and corrupt bytes."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mazzo.engine import InvalidInput, Reason, dump_state, game_of, get_game, load_state
from mazzo.engine.state import MAX_HAND_NUMBER, MAX_SCORE
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.tressette_support import (
    deck_dealing,
    make_state,
    random_chooser,
    shuffled_deck,
    steps,
    walk,
)


def game_states(players: int, seed: int, **rules_kw) -> list[TressetteState]:
    first, _, played = walk(players, seed, seed, **rules_kw)
    return [first] + [s.after for s in played]


def assert_corrupt(data: bytes) -> None:
    with pytest.raises(InvalidInput) as err:
        load_state(data)
    assert err.value.reason is Reason.STATE_CORRUPT


def corrupted(state: TressetteState, **changes) -> bytes:
    """The bytes of a state changed in a way no game reaches."""
    return dump_state(dataclasses.replace(state, **changes))


def mid_game(players: int = 2, step: int = 7, **rules_kw) -> TressetteState:
    """A state in the middle of a trick, with cards drawn and shown (2 players)."""
    state = game_states(players, seed=4, **rules_kw)[step]
    assert state.trick and not state.game_over
    return state


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("napoletana", [False, True], ids=["plain", "napoletana"])
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_state_of_a_game_round_trips(players, napoletana, seed):
    states = game_states(players, seed, napoletana=napoletana)
    assert states[-1].game_over
    for state in states:
        data = dump_state(state)
        assert load_state(data) == state
        assert dump_state(load_state(data)) == data


def test_states_with_declared_napoletane_and_shown_cards_round_trip():
    deck = deck_dealing(
        ("4C 1D 2D 3D 5B 6B 7B 8B 9B 3C", "5C 2C 3S 1S 2S 4S 5S 6S 7S 3B"), stock="1C 9C"
    )
    state, _ = TressetteState.new_game(TressetteRules(napoletana=True), seed=5, decks=[deck])
    states = [state] + [s.after for s in steps(state, random_chooser(5))]
    assert any(s.declared != [0, 0] and any(s.revealed) for s in states)
    for s in states:
        assert load_state(dump_state(s)) == s


@pytest.mark.parametrize(
    "rules",
    [
        TressetteRules(players=2, target=1, napoletana=True),
        TressetteRules(players=2, target=1000, napoletana=False),
        TressetteRules(players=4, target=41, napoletana=True),
        TressetteRules(players=4, target=21, napoletana=False),
    ],
)
def test_the_rules_options_round_trip(rules):
    state, _ = TressetteState.new_game(rules, seed=2**64 - 1)
    loaded = load_state(dump_state(state))
    assert loaded.rules == rules
    assert loaded == state


def test_pending_explicit_decks_round_trip():
    decks = [shuffled_deck(1), shuffled_deck(2), shuffled_deck(3)]
    state, _ = TressetteState.new_game(TressetteRules(players=4), seed=5, decks=decks)
    assert len(state.decks) == 2
    assert load_state(dump_state(state)) == state


def test_the_largest_values_in_range_round_trip():
    state = make_state(
        hands=["7D 1S", "4B"],
        trick="3C",
        leader=1,
        stock="",
        rules=TressetteRules(players=2, target=1000, napoletana=True),
        scores=[MAX_SCORE, 999],
        napoletana=[12, 12],
        declared=[15, 15],
        revealed=["7D 1S", ""],
        hand_number=MAX_HAND_NUMBER,
        dealer=0,
        rng=2**64 - 1,
        fill=0,
    )
    assert load_state(dump_state(state)) == state


def test_a_finished_game_round_trips_with_its_winner():
    state = make_state(hands=["", ""], scores=(21, 7), winner=0, fill=0)
    loaded = load_state(dump_state(state))
    assert loaded.winner == 0
    assert loaded == state


def test_the_registry_names_the_game_of_a_state():
    state, _ = TressetteState.new_game(TressetteRules(), seed=1)
    assert game_of(state) is get_game("tressette")
    assert game_of(load_state(dump_state(state))) is get_game("tressette")
    assert dump_state(state)[0] == 2


@pytest.mark.parametrize("seed", [0, 1, 8, 2**64 - 1])
def test_a_seeded_two_player_state_is_under_100_bytes(seed):
    state, _ = TressetteState.new_game(TressetteRules(players=2, napoletana=True), seed=seed)
    assert len(dump_state(state)) < 100


def test_a_seeded_two_player_state_stays_small_all_game_long():
    # Under 100 bytes at every deal; during a hand the cards shown from the hands
    # (drawn, declared) add a byte each, at most 20, so never over 102.
    for seed in (8, 9):
        for state in game_states(2, seed, napoletana=True):
            size = len(dump_state(state))
            assert size <= 102
            if not state.piles[0] and not state.piles[1] and not state.trick:
                assert size < 100


# ---------------------------------------------------------------- corrupt bytes


@pytest.mark.parametrize("players", [2, 4])
def test_every_truncation_of_a_state_is_refused_as_state_corrupt(players):
    data = dump_state(mid_game(players, napoletana=True))
    for length in range(len(data)):
        assert_corrupt(data[:length])


def test_trailing_bytes_are_refused_as_state_corrupt():
    data = dump_state(mid_game())
    assert_corrupt(data + b"\x00")
    assert_corrupt(data + b"\xff")
    assert_corrupt(data + data)


@pytest.mark.parametrize("tag", [0, 1, 3, 0x7F, 0xFF])
def test_a_wrong_game_tag_is_refused_as_state_corrupt(tag):
    data = dump_state(mid_game())
    assert_corrupt(bytes((tag,)) + data[1:])


@pytest.mark.parametrize("fmt", [0, 2, 0xFF])
def test_an_unknown_format_is_refused_as_state_corrupt(fmt):
    data = bytearray(dump_state(mid_game()))
    data[1] = fmt
    assert_corrupt(bytes(data))


def test_bytes_that_are_no_state_at_all_are_refused_as_state_corrupt():
    assert_corrupt(b"")
    assert_corrupt(b"\x02")
    assert_corrupt(b"\x02\x01")
    assert_corrupt(bytes(200))
    assert_corrupt(b"\x02" + bytes(range(255)))


def test_a_card_twice_is_refused_as_state_corrupt():
    state = mid_game()
    assert_corrupt(corrupted(state, stock=[*state.stock[:-1], state.hands[0][0]]))
    assert_corrupt(corrupted(state, piles=[state.piles[0], [*state.piles[1], state.trick[0]]]))
    hands = [state.hands[0], [*state.hands[1][:-1], state.hands[0][0]]]
    assert_corrupt(corrupted(state, hands=hands))


def test_a_missing_card_is_refused_as_state_corrupt():
    state = mid_game()
    assert_corrupt(corrupted(state, stock=state.stock[1:]))


def test_a_byte_naming_no_card_is_refused_as_state_corrupt():
    state = make_state(hands=["7D", "4B"], stock="1B 2B 3B 4C 5C 6C", fill=0)
    data = dump_state(state)
    at = data.index(bytes(state.stock))
    for bad in (40, 99, 255):
        broken = bytearray(data)
        broken[at + 2] = bad
        assert_corrupt(bytes(broken))


def test_a_shown_card_that_is_not_in_its_hand_is_refused_as_state_corrupt():
    state = mid_game()
    opponent = state.hands[1][0]
    assert_corrupt(corrupted(state, revealed=[[opponent], []]))
    assert_corrupt(corrupted(state, revealed=[[], [state.stock[0]]]))
    assert_corrupt(corrupted(state, revealed=[[state.trick[0]], []]))


@pytest.mark.parametrize("players", [2, 4])
def test_a_trick_that_does_not_fit_the_turn_is_refused_as_state_corrupt(players):
    state = mid_game(players)
    assert_corrupt(corrupted(state, to_play=(state.to_play + 1) % players))
    assert_corrupt(corrupted(state, leader=(state.leader + 1) % players))


def test_a_full_four_card_trick_left_on_the_table_is_refused_as_state_corrupt():
    state = make_state(
        hands=["7D", "4B", "1C", "2C"],
        trick="5S 6S 7S 8S",
        leader=1,
        rules=TressetteRules(players=4),
        fill=0,
    )
    assert state.to_play == 1
    assert_corrupt(dump_state(state))


def test_a_full_two_card_trick_left_on_the_table_is_refused_as_state_corrupt():
    state = make_state(hands=["7D", "4B"], trick="5S 6S", leader=0, fill=0)
    assert len(state.trick) == 2 and state.to_play == 0
    assert_corrupt(dump_state(state))


def test_hand_sizes_that_do_not_fit_the_trick_are_refused_as_state_corrupt():
    # Seat 0 led the 5S, so it holds one card fewer than seat 1, not as many.
    assert_corrupt(dump_state(make_state(hands=["7D 8D", "4B 1B"], trick="5S", fill=0)))
    # Nobody has played: the hands are the same size.
    assert_corrupt(dump_state(make_state(hands=["7D", "4B 1B"], fill=0)))
    # The seat to play holds nothing.
    assert_corrupt(dump_state(make_state(hands=["", ""], fill=0)))
    # ... while the same with one card fewer for seat 0 is a real state.
    fine = make_state(hands=["7D", "4B 1B"], trick="5S", fill=0)
    assert load_state(dump_state(fine)) == fine


@pytest.mark.parametrize(
    "changes",
    [
        {"dealer": 2},
        {"dealer": 0xFE},
        {"leader": 2, "to_play": 1},
        {"winner": 2},
        {"winner": 0},  # over, but cards still in hand
        {"hand_number": 0},
    ],
    ids=["dealer-2", "dealer-254", "leader-2", "winner-2", "over-with-cards", "hand-0"],
)
def test_a_state_no_game_can_reach_is_refused_as_state_corrupt(changes):
    assert_corrupt(corrupted(mid_game(), **changes))


@pytest.mark.parametrize(
    "changes",
    [
        {"scores": (MAX_SCORE + 1, 0)},
        {"scores": (0, 2**32 - 1)},
        {"hand_number": MAX_HAND_NUMBER + 1},
        {"hand_number": 2**32 - 1},
        {"napoletana": [13, 0]},
        {"declared": [16, 0]},
    ],
    ids=["score", "score-max", "hand-number", "hand-number-max", "napoletana", "declared"],
)
def test_a_counter_past_its_range_is_refused_as_state_corrupt(changes):
    with pytest.raises(InvalidInput) as err:
        load_state(corrupted(mid_game(), **changes))
    assert err.value.reason is Reason.STATE_CORRUPT
    assert "out of range" in err.value.message


def test_a_player_count_or_target_tressette_does_not_allow_is_refused_as_state_corrupt():
    data = dump_state(mid_game())
    for players in (0, 1, 3, 5):
        broken = bytearray(data)
        broken[2] = players
        assert_corrupt(bytes(broken))
    for target in (0, 1001, 0xFFFF):
        broken = bytearray(data)
        broken[3:5] = target.to_bytes(2, "big")
        assert_corrupt(bytes(broken))


def test_a_pending_deck_that_is_not_the_40_cards_is_refused_as_state_corrupt():
    state, _ = TressetteState.new_game(
        TressetteRules(), seed=1, decks=[shuffled_deck(1), shuffled_deck(2)]
    )
    deck = shuffled_deck(3)
    assert_corrupt(corrupted(state, decks=((*deck[:-1], deck[0]),)))


# ---------------------------------------------------------------- fuzz


@st.composite
def damaged(draw):
    players = draw(st.sampled_from([2, 4]))
    seed = draw(st.integers(0, 2**64 - 1))
    napoletana = draw(st.booleans())
    rules = TressetteRules(players=players, napoletana=napoletana)
    state, _ = TressetteState.new_game(rules, seed=seed)
    choose = random_chooser(seed)
    for _ in range(draw(st.integers(0, 45))):  # into the hand, draws and shown cards included
        state.apply(choose(state))
    data = bytearray(dump_state(state))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["set", "cut", "insert", "delete"]))
        if kind == "set":
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        elif kind == "cut":
            del data[draw(st.integers(0, len(data) - 1)) :]
        elif kind == "insert":
            data.insert(draw(st.integers(0, len(data))), draw(st.integers(0, 255)))
        elif data:
            del data[draw(st.integers(0, len(data) - 1))]
        if not data:
            break
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged())
def test_damaged_bytes_load_as_a_state_or_raise_state_corrupt_never_anything_else(data):
    try:
        state = load_state(data)
    except InvalidInput as err:
        assert err.reason is Reason.STATE_CORRUPT
    else:
        assert isinstance(state, TressetteState)
        # Whatever loads is a state the codec writes and reads back unchanged.
        assert load_state(dump_state(state)) == state
