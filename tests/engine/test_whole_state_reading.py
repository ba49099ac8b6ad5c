"""A state is read the quick way when it is whole, and the quick way takes exactly
what the careful way takes.

Each game reads its state bytes with ``_read_whole`` first (packing.decode_authentic):
cheap checks, for the states of tokens the server sealed. Whatever it does not
take goes the careful way (``_decode`` and ``_inconsistencies``), which says what
is wrong. So the quick reading must never take a state the careful one refuses,
nor read one differently: these tests hold it to that on every golden state and
on thousands of damaged copies of them, and check that it does take every state a
game reaches (else every call would pay for the careful reading).
"""

from __future__ import annotations

import json
import random
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mazzo.engine import (
    InvalidInput,
    Reason,
    briscola,
    get_game,
    load_state,
    packing,
    scopa,
    tressette,
)
from tests.engine.test_state_codec_golden import CASES, GOLDEN

MODULES: dict[str, ModuleType] = {"scopa": scopa, "tressette": tressette, "briscola": briscola}
SEED = 20261207


def _golden_states() -> list[tuple[str, bytes]]:
    """(game, the state's bytes without the registry's tag) of every golden case."""
    golden = json.loads(GOLDEN.read_text())
    return [
        (game, bytes.fromhex(state)[1:]) for name, game, _, _, _ in CASES for state in golden[name]
    ]


def _finished_states() -> list[tuple[str, bytes]]:
    """(game, bytes) of a game of each kind played to its end: a state whose winner
    is set, which the golden cases do not all reach."""
    finished = []
    for game, options, players in (
        ("scopa", {"target": 1}, 2),
        ("tressette", {"target": 1}, 4),
        ("briscola", {"target": 1}, 3),
    ):
        engine = get_game(game)
        choose = random.Random(SEED)
        state, _ = engine.new_game(engine.rules_from(options, players), seed=SEED)
        while not state.game_over:
            state, _ = engine.apply(state, choose.choice(engine.legal_moves(state)))
        finished.append((game, engine.encode(state)))
    return finished


GOLDEN_STATES = _golden_states()
FINISHED_STATES = _finished_states()


def _quick(game: str, data: bytes) -> Any:
    """The quick reading's state, or None when it does not take the bytes."""
    try:
        return MODULES[game]._read_whole(data)
    except packing.UNREAD:
        return None


def _careful(game: str, data: bytes) -> Any:
    """The careful reading's state, or None when it refuses the bytes (as corrupt)."""
    module = MODULES[game]
    try:
        return packing.decode_checked(data, module._decode, module._inconsistencies)
    except InvalidInput as refused:
        assert refused.reason is Reason.STATE_CORRUPT
        return None


def _damaged(data: bytes, rng: random.Random) -> list[bytes]:
    """Each byte set to 0, 0xFF, its neighbours and a random value; every cut; a byte
    and forty bytes appended."""
    copies = []
    for index, byte in enumerate(data):
        for value in {0, 0xFF, byte ^ 1, (byte + 1) % 256, (byte - 1) % 256, rng.randrange(256)}:
            if value != byte:
                copies.append(data[:index] + bytes((value,)) + data[index + 1 :])
    copies += [data[:length] for length in range(len(data))]
    copies += [data + b"\x00", data + rng.randbytes(40)]
    return copies


@pytest.mark.parametrize(("game", "data"), GOLDEN_STATES + FINISHED_STATES)
def test_every_golden_state_is_read_the_quick_way_as_the_careful_way_reads_it(
    game: str, data: bytes
) -> None:
    state = _quick(game, data)
    assert state is not None
    assert state == _careful(game, data)
    assert get_game(game).encode(state) == data


@pytest.mark.parametrize(
    ("game", "options", "players"),
    [
        ("scopa", {}, 2),
        ("scopa", {"variant": "cirulla"}, 4),
        ("scopa", {"variant": "scopone_scientifico"}, 4),
        ("scopa", {"variant": "re_bello"}, 3),
        ("scopa", {}, 6),
        ("tressette", {"napoletana": True}, 2),
        ("tressette", {}, 4),
        ("briscola", {}, 2),
        ("briscola", {}, 3),
        ("briscola", {}, 4),
    ],
)
def test_every_state_a_game_reaches_is_read_the_quick_way(
    game: str, options: dict[str, Any], players: int
) -> None:
    rules = get_game(game).rules_from(options, players)
    engine = get_game(game)
    choose = random.Random(SEED)
    for fresh in (False, True):
        state, _ = engine.new_game(rules, seed=SEED, fresh=fresh)
        while True:
            assert _quick(game, engine.encode(state)) == state
            if state.game_over:
                break
            entropy = choose.getrandbits(64) if state.fresh_draws else None
            state, _ = engine.apply(state, choose.choice(engine.legal_moves(state)), entropy)


@pytest.mark.parametrize("game", sorted(MODULES))
def test_a_damaged_state_is_taken_the_quick_way_only_as_the_careful_way_takes_it(
    game: str,
) -> None:
    rng = random.Random(SEED)
    disagreements = []
    taken = refused = 0
    for data in (d for g, d in GOLDEN_STATES + FINISHED_STATES if g == game):
        for copy in _damaged(data, rng):
            quick, careful = _quick(game, copy), _careful(game, copy)
            if quick != careful:
                disagreements.append(copy.hex())
            taken += quick is not None
            refused += careful is None
    assert disagreements == []
    # Both kinds were tried: copies that still read (an rng byte changed, say) and
    # copies that do not.
    assert taken > 100 and refused > 1000


@st.composite
def _edited(draw: Any) -> tuple[str, bytes]:
    """A golden state with a few bytes set, inserted or deleted, or cut."""
    game, original = draw(st.sampled_from(GOLDEN_STATES))
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["set", "cut", "insert", "delete"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "set" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "cut":
            del data[at:]
        elif kind == "insert":
            data.insert(at, draw(st.integers(0, 255)))
        elif data:
            del data[at]
    return game, bytes(data)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edited())
def test_an_edited_state_is_taken_the_quick_way_only_as_the_careful_way_takes_it(
    edited: tuple[str, bytes],
) -> None:
    game, data = edited
    assert _quick(game, data) == _careful(game, data)


def test_load_state_refuses_what_neither_reading_takes_as_state_corrupt() -> None:
    game, data = GOLDEN_STATES[0]
    tag = {"scopa": 1, "tressette": 2, "briscola": 3}[game]
    with pytest.raises(InvalidInput) as refused:
        load_state(bytes((tag,)) + data[:-1])
    assert refused.value.reason is Reason.STATE_CORRUPT


def test_a_stock_at_a_table_of_four_is_refused_both_ways() -> None:
    # No damage of a byte or two makes one (a card moves between two zones), so
    # the damaged copies above do not reach this check.
    engine = get_game("tressette")
    state, _ = engine.new_game(engine.rules_from({}, 4), seed=SEED)
    choose = random.Random(SEED)
    while not any(state.piles):
        state, _ = engine.apply(state, choose.choice(engine.legal_moves(state)))
    side = 0 if state.piles[0] else 1
    pile = state.piles[side]
    piles = tuple(pile[1:] if s == side else p for s, p in enumerate(state.piles))
    data = engine.encode(state._replace(stock=pile[:1], piles=piles))
    assert _quick("tressette", data) is None
    assert _careful("tressette", data) is None


def _mid_game(game: str, players: int) -> Any:
    """A state some plies into a seeded game, with cards in a pile."""
    engine = get_game(game)
    choose = random.Random(SEED)
    state, _ = engine.new_game(engine.rules_from({}, players), seed=SEED)
    while not any(state.piles):
        state, _ = engine.apply(state, choose.choice(engine.legal_moves(state)))
    return state


@pytest.mark.parametrize(("game", "players"), [("scopa", 2), ("tressette", 2), ("briscola", 2)])
def test_a_card_held_twice_is_refused_both_ways(game: str, players: int) -> None:
    # Every card is still there, one of them twice: a pile also holds a card of
    # the first hand (no single damaged byte does this: a length changes too).
    state = _mid_game(game, players)
    piles = (state.piles[0] + state.hands[0][:1], *state.piles[1:])
    data = get_game(game).encode(state._replace(piles=piles))
    assert _quick(game, data) is None
    assert _careful(game, data) is None


def test_declarations_for_another_number_of_sides_are_refused_both_ways() -> None:
    state = _mid_game("scopa", 2)
    data = get_game("scopa").encode(state._replace(declared=(0,)))
    assert _quick("scopa", data) is None
    assert _careful("scopa", data) is None


def test_a_briscola_stock_without_its_turn_up_is_refused_both_ways() -> None:
    state = _mid_game("briscola", 2)
    assert state.turn_up is not None and state.stock
    data = get_game("briscola").encode(
        state._replace(turn_up=None, stock=(*state.stock, state.turn_up))
    )
    assert _quick("briscola", data) is None
    assert _careful("briscola", data) is None


def test_a_briscola_stock_that_ends_between_draws_is_refused_both_ways() -> None:
    state = _mid_game("briscola", 2)
    piles = (state.piles[0] + state.stock[:1], *state.piles[1:])
    data = get_game("briscola").encode(state._replace(stock=state.stock[1:], piles=piles))
    assert _quick("briscola", data) is None
    assert _careful("briscola", data) is None
