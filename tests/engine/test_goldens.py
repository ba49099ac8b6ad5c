"""The golden playthroughs of tests/golden replay as recorded, event for event.

Each file is one seeded game of a game or variant (tests/engine/goldens.py
lists them). Its moves are replayed through the engine's record replay, and
the events of every ply, the state bytes where the file keeps them and the
final status must be the file's. A change of behaviour fails here first; `make
golden` then writes the files again, and their diff is what to review.
"""

from __future__ import annotations

from typing import Any

import pytest

from mazzo.engine.record import replay, steps
from mazzo.engine.scopa_rules import VARIANT_PLAYERS
from mazzo.engine.tressette import TressetteState
from tests.engine.goldens import (
    FOLDER,
    FORMAT,
    SETUPS,
    Setup,
    again,
    dumps,
    features,
    golden_of,
    load,
    record_of,
)

IDS = [setup.name for setup in SETUPS]


def replayed(golden: dict[str, Any]) -> dict[str, Any]:
    """The golden as the engine plays its moves today."""
    record = record_of(golden)
    return golden_of(record, record.start(), list(steps(record)))


def first_difference(expected: dict[str, Any], found: dict[str, Any]) -> str:
    """Where two goldens first differ, in play order, said so that a person sees the ply."""
    for key in expected.keys() - {"plies", "status"}:
        if expected.get(key) != found.get(key):
            return f"{key}: the file has {expected.get(key)}, the engine {found.get(key)}"
    for number, (old, new) in enumerate(
        zip(expected["plies"], found["plies"], strict=False), start=1
    ):
        if old != new:
            return f"ply {number} ({old['move']}): the file has {old}, the engine {new}"
    if len(expected["plies"]) != len(found["plies"]):
        return f"{len(expected['plies'])} plies in the file, {len(found['plies'])} replayed"
    return f"status: the file has {expected['status']}, the engine {found['status']}"


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_the_golden_playthrough_replays_event_for_event(setup: Setup) -> None:
    golden = load(setup)
    found = replayed(golden)
    assert found == golden, first_difference(golden, found)


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_the_golden_is_a_game_record_that_replays_to_its_result(setup: Setup) -> None:
    record = record_of(load(setup))
    final = replay(record)
    assert final.winner == record.result.winning_side  # type: ignore[union-attr]


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_the_golden_plays_its_setup_and_shows_what_it_is_there_for(setup: Setup) -> None:
    golden = load(setup)
    assert golden["format"] == FORMAT
    assert (golden["game"], golden["players"], golden["options"]) == (
        setup.game,
        setup.players,
        setup.options,
    )
    assert setup.shows <= features(golden), sorted(setup.shows - features(golden))
    kept = [ply for ply in golden["plies"] if "state" in ply]
    assert golden["start"]["state"] and len(kept) >= 3


@pytest.mark.parametrize("setup", SETUPS, ids=IDS)
def test_make_golden_on_an_unchanged_engine_writes_the_same_file(setup: Setup) -> None:
    assert dumps(again(setup)) == setup.path.read_text()


def test_every_golden_file_has_its_setup_and_every_setup_its_file() -> None:
    assert {path.name for path in FOLDER.glob("*.json")} == {s.path.name for s in SETUPS}


def test_the_goldens_cover_every_variant_at_each_player_count_and_both_tressettes() -> None:
    played = {
        (s.options.get("variant", "scopa"), s.players)
        for s in SETUPS
        if s.game == "scopa" and set(s.options) <= {"variant"}
    }
    assert played == {(v.value, n) for v, counts in VARIANT_PLAYERS.items() for n in counts}
    tressette = {
        (s.players, s.options.get("napoletana", False)) for s in SETUPS if s.game == "tressette"
    }
    assert tressette == {
        (n, napoletana) for n in TressetteState.player_counts for napoletana in (False, True)
    }
