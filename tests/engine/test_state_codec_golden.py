"""Every game's state bytes, pinned byte for byte: a token a server wrote before a
change of the engine's code must still read, and a state must still write the
same bytes, so a refactoring of the codecs shows here first.

The cases (tests/engine/state_codec_golden.json) cover what the playthroughs of
tests/golden do not: games started fresh (no seed, entropy at each draw), games
dealt from explicit decks (some left for later hands), and each player count of
the trick games with the stock, the trick and the piles in every stage. Run this
file as a module to write the JSON again, after a deliberate change of a format.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import pytest

from mazzo.engine import DECK, Card, dump_state, get_game, load_state

GOLDEN = pathlib.Path(__file__).with_name("state_codec_golden.json")
#: Plies whose state bytes each case keeps: the deal, inside the first trick, after
#: draws, late in the hand, across a hand's end.
KEPT = (0, 1, 5, 11, 23, 47, 95, 191)


def _deck(shift: int) -> list[Card]:
    """A full deck in a fixed order that differs with ``shift``."""
    return [DECK[(7 * i + shift) % len(DECK)] for i in range(len(DECK))]


#: (name, game, players, options, how it starts: "seed", "fresh" or "decks").
CASES: tuple[tuple[str, str, int, dict[str, Any], str], ...] = (
    ("tressette-2-seed", "tressette", 2, {"target": 41}, "seed"),
    ("tressette-2-napoletana-fresh", "tressette", 2, {"napoletana": True}, "fresh"),
    ("tressette-4-decks", "tressette", 4, {"napoletana": True}, "decks"),
    ("tressette-4-seed", "tressette", 4, {}, "seed"),
    ("briscola-2-seed", "briscola", 2, {"target": 3}, "seed"),
    ("briscola-2-fresh", "briscola", 2, {}, "fresh"),
    ("briscola-3-decks", "briscola", 3, {"removed_two": "coins", "target": 2}, "decks"),
    ("briscola-3-seed", "briscola", 3, {"face": "french"}, "seed"),
    ("briscola-4-fresh", "briscola", 4, {"target": 2}, "fresh"),
    ("scopa-2-seed", "scopa", 2, {}, "seed"),
    ("scopa-4-cirulla-decks", "scopa", 4, {"variant": "cirulla"}, "decks"),
    ("scopa-3-fresh", "scopa", 3, {"variant": "escoba"}, "fresh"),
)


def _entropy(ply: int) -> int:
    return (0x9E3779B97F4A7C15 * (ply + 1)) & (2**64 - 1)


def played(game_name: str, players: int, options: dict[str, Any], start: str) -> list[str]:
    """The state bytes (hex) of one deterministic game at the plies of KEPT."""
    game = get_game(game_name)
    rules = game.rules_from(options, players)
    if start == "fresh":
        state, _ = game.new_game(rules, seed=_entropy(-1), fresh=True)
    elif start == "decks":
        state, _ = game.new_game(rules, seed=5, decks=[_deck(3), _deck(11)], first_dealer=0)
    else:
        state, _ = game.new_game(rules, seed=20_260_402)
    kept: list[str] = []
    for ply in range(max(KEPT) + 1):
        if ply in KEPT:
            kept.append(dump_state(state).hex())
        if game.status(state).game_over:
            break
        moves = game.legal_moves(state)
        state.apply(moves[(ply * 7 + 3) % len(moves)], _entropy(ply))
    return kept


def _load() -> dict[str, list[str]]:
    return dict(json.loads(GOLDEN.read_text()))


@pytest.mark.parametrize(
    ("name", "game", "players", "options", "start"), [pytest.param(*c, id=c[0]) for c in CASES]
)
def test_each_kept_state_encodes_to_the_pinned_bytes(
    name: str, game: str, players: int, options: dict[str, Any], start: str
) -> None:
    assert played(game, players, options, start) == _load()[name]


@pytest.mark.parametrize("name", [case[0] for case in CASES])
def test_each_pinned_token_reads_back_and_writes_the_same_bytes(name: str) -> None:
    for token in _load()[name]:
        data = bytes.fromhex(token)
        assert dump_state(load_state(data)) == data


def test_the_cases_cover_every_game_and_player_count_of_the_trick_games() -> None:
    covered = {(game, players) for _, game, players, _, _ in CASES}
    assert {("tressette", 2), ("tressette", 4)} <= covered
    assert {("briscola", n) for n in (2, 3, 4)} <= covered
    assert any(game == "scopa" for game, _ in covered)
    assert set(_load()) == {case[0] for case in CASES}


if __name__ == "__main__":  # write the golden again: python -m tests.engine.test_state_codec_golden
    cases = {name: played(game, n, options, start) for name, game, n, options, start in CASES}
    GOLDEN.write_text(json.dumps(cases, indent=1) + "\n")
    sys.exit(0)
