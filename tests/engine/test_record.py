"""Game records (mazzo.engine.record): written, read back the same, replayed to
the same result; malformed records and records that do not replay as they say
are refused with a message that says where."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazzo.engine import DECK, Card, Move, Reason, dump_state, get_game
from mazzo.engine.record import (
    FORMAT,
    GameRecord,
    RecordError,
    Result,
    dumps,
    from_dict,
    loads,
    replay,
    steps,
    to_dict,
)
from mazzo.engine.scopa_rules import ScopaRules
from mazzo.engine.tressette import TressetteRules
from tests.engine.players_support import SETUPS


def played(name: str, rules: Any, seed: int, **start: Any) -> tuple[list[Move], Any]:
    """A whole game of random moves: the moves and the last state."""
    game = get_game(name)
    state, _ = game.new_game(rules, seed=seed, **start)
    rng, moves = random.Random(seed), []
    while not state.status().game_over:
        moves.append(rng.choice(state.legal_moves()))
        state.apply(moves[-1])
    return moves, state


def finished(seed: int = 5) -> GameRecord:
    game, rules = get_game("scopa"), ScopaRules.preset("escoba")
    moves, final = played("scopa", rules, seed)
    return GameRecord.of(game, rules, seed=seed, moves=moves, final=final, seats=("Anna", "greedy"))


@pytest.mark.parametrize(("name", "rules"), [s[1:] for s in SETUPS], ids=[s[0] for s in SETUPS])
def test_a_record_written_by_the_library_replays_to_the_same_result(name: str, rules: Any) -> None:
    game = get_game(name)
    moves, final = played(name, rules, seed=11)
    record = GameRecord.of(game, rules, seed=11, moves=moves, final=final)
    read = loads(dumps(record))
    assert read == record
    assert read.rules() == rules
    assert dump_state(replay(read)) == dump_state(final)
    assert read.result == Result(game.status(final).scores, game.status(final).winning_side)


def test_decks_the_first_dealer_and_every_kind_of_option_are_written_and_read_back() -> None:
    game = get_game("scopa")
    rules = ScopaRules.preset("re_bello", players=3, napola=True, re_bello=Card.parse("9C"))
    decks = [tuple(reversed(DECK)), DECK]
    moves, final = played("scopa", rules, 3, decks=decks, first_dealer=0)
    record = GameRecord.of(
        game, rules, seed=3, moves=moves, final=final, decks=decks, first_dealer=0
    )
    data = json.loads(dumps(record))
    assert data["options"] == {"variant": "re_bello", "napola": True, "re_bello": "9C"}
    assert data["decks"][0][:2] == ["10B", "9B"] and data["first_dealer"] == 0
    assert data["seats"] == ["?", "?", "?"]
    assert loads(dumps(record)) == record
    assert dump_state(replay(record)) == dump_state(final)


def test_the_text_holds_a_move_a_line_in_the_formats_order_of_fields() -> None:
    record = finished()
    text = dumps(record)
    lines = text.splitlines()
    assert lines[1] == f' "format": "{FORMAT}",'
    keys = [key for key in json.loads(text)]
    assert keys == ["format", "game", "players", "options", "seats", "seed", "moves", "result"]
    for move in record.moves:
        assert f'  "{move}",' in lines or f'  "{move}"' in lines
    assert list(json.loads(text)) == list(to_dict(record))


def test_an_unfinished_game_has_no_result_and_replays_to_where_it_stopped() -> None:
    game, rules = get_game("tressette"), TressetteRules(players=4)
    moves, _ = played("tressette", rules, 2)
    state, _ = game.new_game(rules, seed=2)
    for move in moves[:10]:
        state.apply(move)
    record = GameRecord.of(game, rules, seed=2, moves=moves[:10], final=state)
    assert record.result is None and json.loads(dumps(record))["result"] is None
    assert dump_state(replay(loads(dumps(record)))) == dump_state(state)


def test_steps_play_the_record_move_by_move_with_each_moves_events() -> None:
    record = finished()
    state, _ = record.start()
    for step in steps(record):
        events = state.apply(step.move)
        assert step.move == record.moves[step.ply - 1]
        assert (dump_state(step.state), step.events) == (dump_state(state), events)
    assert step.ply == len(record.moves)


# ---------------------------------------------------------------- not as it says


def _changed(record: GameRecord, **changes: Any) -> GameRecord:
    return GameRecord(**{**{f: getattr(record, f) for f in record.__dataclass_fields__}, **changes})


def test_a_move_the_rules_refuse_stops_the_replay_at_its_ply_with_the_engines_reason() -> None:
    record = finished()
    moves = list(record.moves)
    moves[4] = moves[4]._replace(seat=1 - moves[4].seat)
    with pytest.raises(RecordError) as refused:
        replay(_changed(record, moves=tuple(moves)))
    assert (refused.value.ply, refused.value.reason) == (5, Reason.NOT_YOUR_TURN)
    assert f"move 5, {moves[4]}, is refused" in refused.value.message


def test_a_move_after_the_end_is_refused_as_game_over() -> None:
    record = finished()
    extra = (*record.moves, record.moves[-1])
    with pytest.raises(RecordError) as refused:
        replay(_changed(record, moves=extra))
    assert (refused.value.ply, refused.value.reason) == (len(extra), Reason.GAME_OVER)


def test_a_result_other_than_the_engines_is_refused() -> None:
    record = finished()
    other = Result(tuple(reversed(record.result.scores)), 1 - record.result.winning_side)  # type: ignore[union-attr]
    with pytest.raises(RecordError, match=r"the record says scores .*; the engine: scores"):
        replay(_changed(record, result=other))


def test_moves_that_stop_before_the_end_do_not_make_the_recorded_result() -> None:
    record = finished()
    with pytest.raises(RecordError, match="but the game goes on"):
        replay(_changed(record, moves=record.moves[:-1]))


def test_a_record_without_a_result_whose_game_ended_is_refused() -> None:
    with pytest.raises(RecordError, match="gives no result, but the game ended"):
        replay(_changed(finished(), result=None))


# ---------------------------------------------------------------- malformed


def _mutated(**changes: Any) -> dict[str, Any]:
    data = to_dict(finished())
    for key, value in changes.items():
        if value is None and key != "result":
            del data[key]
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    ("changes", "says", "reason"),
    [
        ({"format": "mazzo-play-record/1"}, "not a game record", None),
        ({"format": "mazzo-record/2"}, "of format 'mazzo-record/2'; this engine reads", None),
        ({"format": None}, "not a game record", None),
        ({"seeds": 3}, "has no field 'seeds'", None),
        ({"moves": None}, "the record has no 'moves'", None),
        ({"game": "poker"}, "game: no game 'poker'", Reason.INVALID_GAME),
        ({"game": 7}, "game must be text", None),
        ({"players": "2"}, "players must be an integer", None),
        ({"players": 5}, "options: Scopa is played by 2, 3, 4 or 6", Reason.INVALID_PLAYERS),
        ({"options": {"variant": "briscola"}}, "variant must be one of", Reason.INVALID_OPTION),
        ({"options": {"target": "21"}}, "target must be an integer", Reason.INVALID_OPTION),
        ({"options": {"trumps": True}}, "no option 'trumps'", Reason.INVALID_OPTION),
        ({"options": {"target": [21]}}, "target must be an integer, true/false or text", None),
        ({"options": []}, "options must be an object", None),
        ({"seats": ["Anna"]}, "seats names 1 seats for 2 players", None),
        ({"seats": ["Anna", 2]}, "each seat must be text", None),
        ({"seed": -1}, "seed: the seed must be an integer", Reason.INVALID_SEED),
        ({"seed": 2**64}, "seed: the seed must be an integer", Reason.INVALID_SEED),
        ({"seed": True}, "seed must be an integer", None),
        ({"moves": "0:7D"}, "moves must be a list", None),
        ({"moves": ["0:7D", "0:7Z"]}, "move 2: '0:7Z' is not a move", Reason.INVALID_CARD),
        ({"moves": ["0:7D", 7]}, "move 2 must be text", None),
        ({"decks": [["1D", "2D"]]}, "decks: a deck must hold the 40 cards", Reason.INVALID_DECK),
        ({"decks": [["1D", "1D"]]}, "deck 1: card(s) named twice", Reason.DUPLICATE_CARD),
        ({"decks": ["1D"]}, "deck 1 must be a list", None),
        (
            {"first_dealer": 2},
            "first_dealer: first dealer must be a seat 0..1",
            Reason.INVALID_SEAT,
        ),
        ({"result": {"scores": [1, 2]}}, "result must be null or", None),
        ({"result": {"scores": [1, "2"], "winning_side": 1}}, "each score must be", None),
    ],
)
def test_a_malformed_record_is_refused_saying_what_is_wrong(
    changes: dict[str, Any], says: str, reason: Reason | None
) -> None:
    with pytest.raises(RecordError) as refused:
        from_dict(_mutated(**changes))
    assert says in refused.value.message
    assert refused.value.reason == reason


@pytest.mark.parametrize("text", ["", "{", "[]", '"mazzo-record/1"', "null"])
def test_text_that_is_no_json_object_is_refused(text: str) -> None:
    with pytest.raises(RecordError, match="JSON"):
        loads(text)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(sorted(to_dict(finished())))


@settings(max_examples=200, deadline=None)
@given(FIELDS, JSON)
def test_any_field_changed_to_any_json_reads_as_a_record_or_is_refused_as_one(
    field: str, value: object
) -> None:
    data = to_dict(finished())
    data[field] = value
    try:
        from_dict(data)
    except RecordError as refused:
        assert refused.message
    # Read or refused, never another exception.
