"""The compact state codec: dump_state / load_state round trips and corrupt bytes."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mazzo.engine import InvalidInput, Reason, dump_state, game_of, load_state
from mazzo.engine.scopa import PrimieraRule, ScopaRules, ScopaState
from mazzo.engine.state import MAX_HAND_NUMBER, MAX_SCORE
from tests.engine.scopa_support import (
    card,
    cards,
    make_state,
    random_chooser,
    replaced,
    shuffled_deck,
    steps,
)


def game_states(players: int, seed: int, **rules_kw) -> list[ScopaState]:
    state, _ = ScopaState.new_game(ScopaRules(players=players, **rules_kw), seed=seed)
    return [state] + [s.after for s in steps(state, random_chooser(seed))]


def assert_corrupt(data: bytes) -> None:
    with pytest.raises(InvalidInput) as err:
        load_state(data)
    assert err.value.reason is Reason.STATE_CORRUPT


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_every_state_of_a_game_round_trips(players):
    states = game_states(players, seed=players)
    assert states[-1].game_over
    for state in states:
        data = dump_state(state)
        assert load_state(data) == state
        assert dump_state(load_state(data)) == data


@pytest.mark.parametrize(
    "rules",
    [
        ScopaRules(players=2, target=1000, napola=True, primiera=PrimieraRule.SEVENS),
        ScopaRules(players=3, target=1, primiera=PrimieraRule.LENIENT),
        ScopaRules(players=4, target=21, napola=True),
        ScopaRules(players=6, target=16, primiera=PrimieraRule.STANDARD),
    ],
)
def test_the_rules_options_round_trip(rules):
    state, _ = ScopaState.new_game(rules, seed=2**64 - 1)
    loaded = load_state(dump_state(state))
    assert loaded.rules == rules
    assert loaded.rules.primiera is rules.primiera
    assert loaded == state


def test_pending_explicit_decks_round_trip():
    decks = [shuffled_deck(1), shuffled_deck(2), shuffled_deck(3)]
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=5, decks=decks)
    assert len(state.decks) == 2
    assert load_state(dump_state(state)) == state


def test_extreme_values_round_trip():
    state = make_state(
        hands=["7D", "4B"],
        table="3C",
        to_play=1,
        dealer=0,
        rules=ScopaRules(players=2, target=1000),
        scores=[999, 1000],
        sweeps=[30, 0],
        last_capture_side=1,
        hand_number=5000,
        rng=2**64 - 1,
        winner=None,
        fill="stock",
    )
    assert load_state(dump_state(state)) == state


@pytest.mark.parametrize(
    "changes",
    [
        {"scores": [MAX_SCORE + 1, 0]},
        {"scores": [0, 2**32 - 1]},
        {"hand_number": MAX_HAND_NUMBER + 1},
        {"hand_number": 2**32 - 1},
        {"sweeps": [41, 0]},
        {"declared": [131, 0]},
    ],
    ids=["score", "score-max", "hand-number", "hand-number-max", "sweeps", "declared"],
)
def test_a_counter_past_its_range_is_refused_as_state_corrupt(changes):
    fields = {"hands": ["7D", "4B"], "table": "3C", "to_play": 1, "dealer": 0, "fill": "stock"}
    declared = changes.pop("declared", None)
    state = make_state(**fields, **changes)
    if declared is not None:
        state = replaced(state, declared=declared)
    with pytest.raises(InvalidInput) as err:
        load_state(dump_state(state))
    assert err.value.reason is Reason.STATE_CORRUPT
    assert "out of range" in err.value.message


def test_the_largest_counters_in_range_round_trip():
    fields = {"hands": ["7D", "4B"], "table": "3C", "to_play": 1, "dealer": 0, "fill": "stock"}
    state = replaced(
        make_state(**fields, scores=[MAX_SCORE, 0], sweeps=[40, 0], hand_number=MAX_HAND_NUMBER),
        declared=[130, 0],
    )
    assert load_state(dump_state(state)) == state


def test_a_state_with_no_last_capture_and_no_winner_round_trips():
    state = make_state(hands=["7D", "4B"], table="", fill=0)
    loaded = load_state(dump_state(state))
    assert loaded.last_capture_side is None
    assert loaded.winner is None
    assert loaded == state


def test_the_registry_names_the_game_of_a_state():
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1)
    assert game_of(state) is ScopaState
    assert game_of(load_state(dump_state(state))) is ScopaState


def test_a_seeded_two_player_state_stays_under_120_bytes_all_game_long():
    for state in game_states(2, seed=8):
        assert len(dump_state(state)) < 120


# ---------------------------------------------------------------- the round's plays


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_state_keeps_each_seats_last_two_plays_of_the_round(players):
    state, _ = ScopaState.new_game(ScopaRules(players=players), seed=players)
    chooser = random_chooser(players)
    for step in steps(state, chooser):
        after = step.after
        if after.game_over or after.hand_number != step.before.hand_number:
            assert not after.round_plays  # a new hand, or none
        elif any(len(h) > len(b) for h, b in zip(after.hands, step.before.hands, strict=True)):
            assert not after.round_plays  # a deal starts the round again
        else:
            taken = tuple(c for c in step.before.table if c not in after.table)
            assert after.round_plays[-1] == (step.move.card, *taken)
            kept = list(step.before.round_plays)[-(2 * players - 1) :]
            assert list(after.round_plays)[:-1] == kept
            assert len(after.round_plays) <= 2 * players


def test_the_view_shows_the_rounds_plays():
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=3)
    for step in steps(state, random_chooser(3)):
        for seat in (0, 1):
            assert step.after.view(seat).round_plays == tuple(step.after.round_plays)


def test_a_state_of_format_3_reads_as_one_whose_rounds_plays_are_unknown():
    # Format 3 had no round's plays: a token a server wrote before them (a seeded
    # game of two, five plies in) still reads, with none.
    old = bytes.fromhex(
        "010302000b000000000000000008ff010000000101ff001a738b42658e0d650000000000000000"
        "00000000000122031927131e150a0020140f08230918121b07111e0c02041d210b06260e1710250d"
        "1f05031c011a032403160000"
    )
    state = load_state(old)
    assert not state.round_plays
    assert sum(map(len, state.hands)) == 1  # five of the round's six cards played
    assert load_state(dump_state(state)) == state  # and it writes as format 4


def test_a_state_of_format_4_written_as_format_3_reads_back_without_its_plays():
    state = game_states(2, seed=4)[3]
    assert state.round_plays
    data = dump_state(replaced(state, round_plays=[]))
    assert data[1] == 4 and data[-2:] == bytes(2)  # no plays, no decks
    as_format_3 = data[:1] + bytes([3]) + data[2:-2] + data[-1:]
    assert load_state(as_format_3) == replaced(state, round_plays=[])


@pytest.mark.parametrize(
    "plays",
    [
        ("7D",),  # one play where two cards were played
        ("7D", "4B"),  # cards still in a hand
        ("1C", "1C"),  # the same card played twice
        ("1C", ""),  # a play of no card
    ],
)
def test_round_plays_that_do_not_fit_the_cards_played_are_refused_as_corrupt(plays):
    # Dealer 1: seat 0 led; each seat played one card (1C laid, 2C laid).
    state = make_state(hands=["6D 2S", "4B 5B"], table="1C 2C", dealer=1, fill="stock")
    state = replaced(state, round_plays=[cards(p) if p else () for p in plays])
    assert_corrupt(dump_state(state))


def test_round_plays_that_fit_the_cards_played_read_back():
    state = make_state(hands=["6D 2S", "4B 5B"], table="1C 2C", dealer=1, fill="stock")
    state = replaced(state, round_plays=[cards("1C"), cards("2C")])
    assert load_state(dump_state(state)) == state


# ---------------------------------------------------------------- corrupt bytes


def test_every_truncation_of_a_state_is_refused_as_state_corrupt():
    state = game_states(3, seed=2)[17]
    data = dump_state(state)
    for length in range(len(data)):
        assert_corrupt(data[:length])


def test_trailing_bytes_are_refused_as_state_corrupt():
    data = dump_state(ScopaState.new_game(ScopaRules(players=2), seed=1)[0])
    assert_corrupt(data + b"\x00")
    assert_corrupt(data + data)


@pytest.mark.parametrize("tag", [0, 2, 3, 0x7F, 0xFF])
def test_a_wrong_game_tag_is_refused_as_state_corrupt(tag):
    data = dump_state(ScopaState.new_game(ScopaRules(players=2), seed=1)[0])
    assert_corrupt(bytes((tag,)) + data[1:])


def test_empty_bytes_are_refused_as_state_corrupt():
    assert_corrupt(b"")


def test_bytes_that_are_no_state_at_all_are_refused_as_state_corrupt():
    assert_corrupt(b"\x01")
    assert_corrupt(b"\x01hello, world")
    assert_corrupt(bytes(200))
    assert_corrupt(b"\x01" + bytes(range(255)))


def corrupted(state: ScopaState, **changes) -> bytes:
    """The bytes of a state changed in a way no game reaches."""
    return dump_state(replaced(state, **changes))


def test_a_card_twice_is_refused_as_state_corrupt():
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1)
    twice = [*state.stock[:-1], state.hands[0][0]]
    assert_corrupt(corrupted(state, stock=twice))
    table_twice = (*state.table, state.table[0])
    assert_corrupt(corrupted(state, table=table_twice, stock=state.stock[:-1]))


def test_a_missing_card_is_refused_as_state_corrupt():
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1)
    assert_corrupt(corrupted(state, stock=state.stock[1:]))


def test_an_extra_card_is_refused_as_state_corrupt():
    state = make_state(hands=["7D", "4B"], table="3C", fill="stock")
    assert_corrupt(corrupted(state, piles=[[card("7D")], []]))


def test_a_pending_deck_that_is_not_the_40_cards_is_refused_as_state_corrupt():
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1)
    deck = shuffled_deck(1)
    assert_corrupt(corrupted(state, decks=((*deck[:-1], deck[0]),)))


@pytest.mark.parametrize(
    "changes",
    [{"dealer": 2}, {"to_play": 2}, {"to_play": 7}, {"dealer": 5}],
    ids=["dealer-2", "to-play-2", "to-play-7", "dealer-5"],
)
def test_a_seat_out_of_range_is_refused_as_state_corrupt(changes):
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1)
    assert_corrupt(corrupted(state, **changes))


def test_a_byte_naming_no_card_is_refused_as_state_corrupt():
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1)
    data = dump_state(state)
    # The stock's cards are the only run of 30 card bytes; change the last one to 40.
    stock = bytes(state.stock)
    at = data.index(stock)
    for bad in (40, 99, 255):
        broken = bytearray(data)
        broken[at + len(stock) - 1] = bad
        assert_corrupt(bytes(broken))


def test_a_players_count_scopa_does_not_allow_is_refused_as_state_corrupt():
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1)
    rules = copy.copy(ScopaRules(players=2))
    object.__setattr__(rules, "players", 5)
    data = corrupted(state, rules=rules)  # encodes players=5 without checking it
    assert_corrupt(data)


@st.composite
def damaged(draw):
    players = draw(st.sampled_from([2, 3, 4, 6]))
    seed = draw(st.integers(0, 2**64 - 1))
    state, _ = ScopaState.new_game(ScopaRules(players=players), seed=seed)
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
        assert isinstance(state, ScopaState)
        # Whatever loads is a state the codec writes back byte for byte.
        assert dump_state(state) == data


@pytest.mark.parametrize(
    "changes",
    [
        {"winner": 2},
        {"last_capture_side": 5},
        {"hand_number": 0},
        {"winner": 0},  # over, but cards still in hand
    ],
)
def test_a_state_no_game_can_reach_is_refused_as_corrupt(changes):
    state = make_state(hands=["7D 2C", "4B 5B"], table="3C", fill="stock")
    data = dump_state(replaced(state, **changes))
    with pytest.raises(InvalidInput) as refused:
        load_state(data)
    assert refused.value.reason is Reason.STATE_CORRUPT


@pytest.mark.parametrize(
    "hands, to_play, dealer",
    [
        (["7D", "4B 5B"], 0, 1),  # the leader holds fewer cards than the seat after it
        (["", "4B"], 0, 1),  # the seat to play holds nothing
        (["7D 2C", "4B"], 1, 0),  # seat 1 leads: seat 0 has not played yet, so holds 1 less
    ],
)
def test_hand_sizes_that_do_not_fit_the_turn_are_refused_as_corrupt(hands, to_play, dealer):
    state = make_state(hands=hands, to_play=to_play, dealer=dealer, fill="stock")
    with pytest.raises(InvalidInput) as refused:
        load_state(dump_state(state))
    assert refused.value.reason is Reason.STATE_CORRUPT


def test_hand_sizes_after_some_seats_played_this_round_are_accepted():
    # Dealer 1: seat 0 leads and has played; seat 1 to play holds one card more.
    state = make_state(hands=["7D", "4B 5B"], to_play=1, dealer=1, fill="stock")
    assert load_state(dump_state(state)) == state


def test_unknown_option_bits_are_refused_as_corrupt():
    state, _ = ScopaState.new_game(ScopaRules(players=2), seed=1)
    data = bytearray(dump_state(state))
    data[12] |= 0x80  # tag, format, players, target (2), seven enums, then the switch bits
    assert_corrupt(bytes(data))
