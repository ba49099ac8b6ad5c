"""A state's bytes are read back exactly, or refused as STATE_CORRUPT.

Every call reads the state in its token, so the reader is on the hot path: it
maps the bytes to cards in one pass and leaves the checks of the whole state to
the game's ``inconsistencies``. These tests hold the reader to the codec: every
state a game reaches reads back equal, and bytes that are not a state a game
can reach (damaged copies of the golden states: bytes set, cut, added; and
states no single damaged byte makes) are refused, never read as another state
nor with another exception. What it takes, it writes back byte for byte.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mazzo.engine import InvalidInput, Reason, get_game, load_state
from tests.engine.test_state_codec_golden import CASES, GOLDEN

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
        state_class = get_game(game)
        choose = random.Random(SEED)
        state, _ = state_class.new_game(state_class.rules_from(options, players), seed=SEED)
        while not state.game_over:
            state.apply(choose.choice(state.legal_moves()))
        finished.append((game, state.encode()))
    return finished


GOLDEN_STATES = _golden_states()
FINISHED_STATES = _finished_states()


def _read(game: str, data: bytes) -> Any:
    """The state read from ``data``, or None when it is refused (as corrupt: any
    other refusal or exception fails the test)."""
    try:
        state = get_game(game).decode(data)
    except InvalidInput as refused:
        assert refused.reason is Reason.STATE_CORRUPT
        return None
    assert state.encode() == data  # what it takes, it would have written
    return state


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
def test_every_golden_state_reads_back_and_writes_the_same_bytes(game: str, data: bytes) -> None:
    assert _read(game, data) is not None


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
def test_every_state_a_game_reaches_reads_back_equal(
    game: str, options: dict[str, Any], players: int
) -> None:
    state_class = get_game(game)
    rules = state_class.rules_from(options, players)
    choose = random.Random(SEED)
    for fresh in (False, True):
        state, _ = state_class.new_game(rules, seed=SEED, fresh=fresh)
        while True:
            assert _read(game, state.encode()) == state
            if state.game_over:
                break
            entropy = choose.getrandbits(64) if state.fresh_draws else None
            state.apply(choose.choice(state.legal_moves()), entropy)


@pytest.mark.parametrize("game", ["scopa", "tressette", "briscola"])
def test_a_damaged_state_is_refused_or_read_as_the_bytes_say(game: str) -> None:
    rng = random.Random(SEED)
    taken = refused = 0
    for data in (d for g, d in GOLDEN_STATES + FINISHED_STATES if g == game):
        for copy in _damaged(data, rng):
            if _read(game, copy) is None:
                refused += 1
            else:
                taken += 1
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
def test_an_edited_state_is_refused_or_read_as_the_bytes_say(edited: tuple[str, bytes]) -> None:
    _read(*edited)


def test_load_state_refuses_a_cut_state_as_state_corrupt() -> None:
    game, data = GOLDEN_STATES[0]
    tag = get_game(game).tag
    with pytest.raises(InvalidInput) as refused:
        load_state(bytes((tag,)) + data[:-1])
    assert refused.value.reason is Reason.STATE_CORRUPT


def _mid_game(game: str, players: int) -> Any:
    """A state some plies into a seeded game, with cards in a pile."""
    state_class = get_game(game)
    choose = random.Random(SEED)
    state, _ = state_class.new_game(state_class.rules_from({}, players), seed=SEED)
    while not any(state.piles):
        state.apply(choose.choice(state.legal_moves()))
    return state


def _refused(state: Any, **fields: Any) -> bool:
    """Whether the bytes of ``state`` with ``fields`` set are refused."""
    return _read(state.name, dataclasses.replace(state, **fields).encode()) is None


def test_a_stock_at_a_table_of_four_is_refused() -> None:
    # No damage of a byte or two makes one (a card moves between two zones), so
    # the damaged copies above do not reach this check.
    state = _mid_game("tressette", 4)
    side = 0 if state.piles[0] else 1
    pile = state.piles[side]
    piles = [pile[1:] if s == side else p for s, p in enumerate(state.piles)]
    assert _refused(state, stock=pile[:1], piles=piles)


@pytest.mark.parametrize(("game", "players"), [("scopa", 2), ("tressette", 2), ("briscola", 2)])
def test_a_card_held_twice_is_refused(game: str, players: int) -> None:
    # Every card is still there, one of them twice: a pile also holds a card of
    # the first hand (no single damaged byte does this: a length changes too).
    state = _mid_game(game, players)
    piles = [state.piles[0] + state.hands[0][:1], *state.piles[1:]]
    assert _refused(state, piles=piles)


def test_declarations_for_another_number_of_sides_are_refused() -> None:
    assert _refused(_mid_game("scopa", 2), declared=[0])


def test_a_briscola_stock_without_its_turn_up_is_refused() -> None:
    state = _mid_game("briscola", 2)
    assert state.turn_up is not None and state.stock
    assert _refused(state, turn_up=None, stock=[*state.stock, state.turn_up])


def test_a_briscola_stock_that_ends_between_draws_is_refused() -> None:
    state = _mid_game("briscola", 2)
    piles = [state.piles[0] + state.stock[:1], *state.piles[1:]]
    assert _refused(state, stock=state.stock[1:], piles=piles)
