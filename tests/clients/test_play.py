"""`mazzo play` with its input from a pipe: every game and variant against every
bot level to the end, replays, seeds, hints and refusals.

The player runs in this process against one real server process that requires
a seat credential on every call for a seat (so every call the player makes
carries one). The human is scripted: it always answers 1, the first legal
move (and the first capture when a card has several).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf import json_format

from mazzo.engine import DECK, get_game
from mazzo.engine import record as library
from mazzo.engine.scopa_rules import ScopaRules
from mazzo_client.play.narrate import Narrator
from mazzo_client.play.record import load
from mazzo_client.play.text import PRIMIERA_SCALE, Names, Seating, rank
from tests.clients.play_support import (
    a_card_not_held,
    assert_consistent_ending,
    pb,
    play,
    replayed_scores,
)
from tests.service.processes import Served, started

LEVELS = ("random", "greedy", "intermediate", "expert")
GAMES = {
    "scopa-2": ("--game", "scopa", "--players", "2"),
    "scopa-3": ("--game", "scopa", "--players", "3"),
    "scopa-4": ("--game", "scopa", "--players", "4"),
    "scopa-6": ("--game", "scopa", "--players", "6"),
    "scopone-scientifico": ("--variant", "scopone-scientifico"),
    "scopone-classico": ("--variant", "scopone-classico"),
    "quindici": ("--variant", "quindici"),
    "escoba": ("--variant", "escoba"),
    "scopa-d-assi": ("--variant", "scopa-d-assi"),
    "cirulla": ("--game", "cirulla"),
    "re-bello": ("--variant", "re-bello", "--napola"),
    "tressette-2": ("--game", "tressette", "--players", "2", "--napoletana"),
    "tressette-4": ("--game", "tressette", "--players", "4"),
    "briscola-2": ("--game", "briscola", "--players", "2", "--face", "french"),
    "briscola-3": ("--game", "briscola", "--players", "3"),
    "briscola-4": ("--game", "briscola", "--players", "4"),
}
# Lean: a target of 1 ends a game after its first hand (or a few), and the
# searching bots run at most a few simulations a move (play-outs, or worlds).
FAST = ("--simulations", "4")


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    with started(MAZZO_REQUIRE_SEAT_CREDENTIALS="true") as served:
        served.wait_until_listening()
        yield served


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("game", GAMES)
def test_every_game_and_variant_plays_to_the_end_against_every_bot_level(
    server: Served, tmp_path: Path, game: str, level: str
) -> None:
    record = tmp_path / "game.json"
    run = play(
        *GAMES[game],
        *FAST,
        "--bots",
        level,
        "--server",
        server.grpc_target,
        "--record",
        str(record),
    )
    assert_consistent_ending(run)
    assert re.search(r"Your move \(1[-,]", run.out) and "scoring" in run.out
    assert replayed_scores(server.grpc_target, record) == run.server_scores


def test_a_scopa_hand_is_told_and_scored_card_by_card(server: Served) -> None:
    run = play(
        "--players",
        "2",
        "--bots",
        "greedy",
        "--seed",
        "42",
        "--target",
        "11",
        "--server",
        server.grpc_target,
    )
    assert_consistent_ending(run)
    out = run.out
    assert "Hand 1: seat 1 (greedy) deals; on the table: " in out
    assert re.search(r"^You are dealt: .+\[\w+\], .+\.$", out, re.M)
    assert re.search(r"^You play .+\[\w+\]\.$", out, re.M)
    assert re.search(r"^Seat 1 \(greedy\) plays .+\.$", out, re.M)
    assert re.search(r"^  (You take|Seat 1 \(greedy\) takes) .+", out, re.M)
    for table in re.findall(r"^Hand \d+ scoring\n((?:  .*\n)+)", out, re.M):
        rows = {line[2:18].strip(): line[18:].split("  ") for line in table.splitlines()}
        assert {
            "cards",
            "coins",
            "settebello",
            "primiera",
            "its cards",
            "sweeps",
            "napola",
            "hand total",
        } <= rows.keys()
        cards = [int(cell.split()[0]) for cell in _cells(table, "cards")]
        assert sum(cards) == 40  # every card ends in a pile
        # The primiera's cards are the ones this player saw taken: with all four
        # suits their values add up to the server's primiera.
        for value, its_cards in zip(
            _cells(table, "primiera"), _cells(table, "its cards"), strict=True
        ):
            shown = its_cards.split()
            if len(shown) == 4:
                assert int(value.split()[0]) == sum(PRIMIERA_SCALE[rank(c)] for c in shown)


def _cells(table: str, label: str) -> list[str]:
    line = next(line for line in table.splitlines() if line[2:18].strip() == label)
    return [cell.strip() for cell in re.split(r"\s{2,}", line[18:].strip())]


def test_a_recorded_game_replays_move_for_move_to_the_same_score(
    server: Served, tmp_path: Path
) -> None:
    record = tmp_path / "escoba.json"
    first = play(
        "--variant",
        "escoba",
        "--bots",
        "expert",
        "--target",
        "5",
        "--simulations",
        "4",
        "--record",
        str(record),
        "--server",
        server.grpc_target,
    )
    assert_consistent_ending(first)
    assert f"Watch this game again: mazzo play --replay {record}" in first.out
    again = play("--replay", str(record), "--server", server.grpc_target, answers="")
    assert_consistent_ending(again)
    assert "The replay ends as the record did." in again.out
    assert again.server_scores == first.server_scores
    assert _told(again.out) == _told(first.out)


def _told(out: str) -> list[str]:
    """The narration and the boards, without the menus and prompts."""
    starts = (
        "Hand ",
        "You play",
        "You are dealt",
        "Seat ",
        "  You",
        "  Seat",
        "Match:",
        "Game over",
        "Table:",
        "Your hand:",
    )
    return [line for line in out.splitlines() if line.startswith(starts)]


def test_a_replay_whose_moves_run_out_stops_with_an_error(server: Served, tmp_path: Path) -> None:
    record = tmp_path / "short.json"
    left = play(
        "--bots",
        "random",
        "--record",
        str(record),
        "--server",
        server.grpc_target,
        answers="1\n1\nq\n",
    )
    assert left.code == 0 and "You leave the game unfinished." in left.out
    again = play("--replay", str(record), "--server", server.grpc_target, answers="")
    assert again.code == 1
    assert "The record ends here, at move" in again.out


def test_the_record_is_the_engines_game_record_and_the_library_replays_it_to_its_result(
    server: Served, tmp_path: Path
) -> None:
    path = tmp_path / "cirulla.json"
    run = play(
        *("--variant", "cirulla", "--players", "3", "--bots", "greedy,random", "--target", "5"),
        *("--seat", "1", "--record", str(path), "--server", server.grpc_target),
    )
    assert_consistent_ending(run)
    record = library.loads(path.read_text())
    assert (record.game, record.players, record.seats) == (
        "scopa",
        3,
        ("greedy", "human", "random"),
    )
    assert record.options == {"target": 5, "variant": "cirulla"}
    assert record.result is not None and list(record.result.scores) == run.server_scores
    final = library.replay(record)  # every move legal, and the same result
    assert list(final.scores) == run.server_scores


def test_a_record_written_by_the_library_replays_through_the_server(
    server: Served, tmp_path: Path
) -> None:
    game, rules = get_game("scopa"), ScopaRules.preset("escoba", players=4, target=5)
    decks = [tuple(reversed(DECK))]
    state, _ = game.new_game(rules, seed=9, decks=decks, first_dealer=1)
    rng, moves = random.Random(9), []
    while not state.status().game_over:
        moves.append(rng.choice(state.legal_moves()))
        state.apply(moves[-1])
    seats = ("Anna", "human", "Bruno", "Carla")
    record = library.GameRecord.of(
        game, rules, seed=9, moves=moves, final=state, seats=seats, decks=decks, first_dealer=1
    )
    path = tmp_path / "library.json"
    path.write_text(library.dumps(record))
    again = play("--replay", str(path), "--server", server.grpc_target, answers="")
    assert again.code == 0, again.out[-2000:]
    assert "The replay ends as the record did." in again.out
    assert again.server_scores == list(game.status(state).scores)
    # The partner is named as such, not among the opponents.
    assert (
        "You are seat 1, your partner: seat 3 (Carla); against you: seat 0 (Anna), seat 2 (Bruno)."
        in again.out
    )
    # The record's own decks and first dealer: seat 1 deals the reversed deck.
    first_deal = re.search(r"^Hand 1: you deal; on the table: (.*)$", again.out, re.M)
    assert first_deal and all(f"[{c}]" in first_deal[1] for c in ("8S", "7S", "6S", "5S"))


def test_a_replay_that_ends_otherwise_than_its_record_says_so(
    server: Served, tmp_path: Path
) -> None:
    path = tmp_path / "quindici.json"
    play(
        *("--variant", "quindici", "--bots", "random", "--target", "3"),
        *("--record", str(path), "--server", server.grpc_target),
    )
    data = json.loads(path.read_text())
    data["result"]["winning_side"] = 1 - data["result"]["winning_side"]
    path.write_text(json.dumps(data))
    again = play("--replay", str(path), "--server", server.grpc_target, answers="")
    assert again.code == 1
    assert re.search(
        r"^The record ends at [\d ]+, side \d winning: this server ends", again.out, re.M
    )


def test_a_file_of_an_earlier_mazzo_play_still_replays(server: Served, tmp_path: Path) -> None:
    path = tmp_path / "tressette.json"
    first = play(
        *("--game", "tressette", "--bots", "random", "--target", "3"),
        *("--record", str(path), "--server", server.grpc_target),
    )
    replay = load(path)
    old = {  # mazzo-play-record/1, as mazzo play wrote it before the engine's records
        "format": "mazzo-play-record/1",
        "newGame": json_format.MessageToDict(replay.request),
        "humanSeat": 0,
        "bots": {"1": "random"},
        "moves": [
            json_format.MessageToDict(m, always_print_fields_with_no_presence=True)
            for m in replay.moves
        ],
        "finalScores": first.server_scores,
    }
    path.write_text(json.dumps(old))
    again = play("--replay", str(path), "--server", server.grpc_target, answers="")
    assert again.code == 0, again.out[-2000:]
    assert "The replay ends as the record did." in again.out
    assert _told(again.out) == _told(first.out)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("not json", "cannot read the record"),
        ('{"format": "mazzo-record/9"}', "of format 'mazzo-record/9'; this engine reads"),
        ('{"format": "mazzo-record/1", "game": "scopa", "players": 2, "seed": 1, '
         '"moves": ["0:7Z"]}', "move 1: '0:7Z' is not a move"),
        ('{"format": "mazzo-play-record/1", "newGame": {"players": 2}}', "without a seed"),
    ],
)  # fmt: skip
def test_a_file_that_is_no_record_is_refused_clearly(
    server: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    run = play("--replay", str(path), "--server", server.grpc_target, answers="")
    assert run.code == 2
    assert said in capsys.readouterr().err


def test_the_same_seed_and_options_deal_the_same_game(server: Served) -> None:
    args = (
        "--players",
        "3",
        "--bots",
        "random,greedy",
        "--seed",
        "7",
        "--target",
        "3",
        "--server",
        server.grpc_target,
    )
    first, second = play(*args), play(*args)
    assert_consistent_ending(first)
    assert first.out == second.out
    other = play(*args[:-4], "--seed", "8", "--target", "3", "--server", server.grpc_target)
    assert other.out != first.out


def test_a_hint_is_the_experts_move_before_each_of_yours(server: Served) -> None:
    run = play(
        "--bots",
        "random",
        "--hint",
        "--simulations",
        "4",
        "--target",
        "1",
        "--server",
        server.grpc_target,
    )
    assert_consistent_ending(run)
    prompts = len(re.findall(r"Your move \(1[-,]", run.out))
    hints = re.findall(r"^Hint \(expert\): (\d+)\) .+\.$", run.out, re.M)
    assert prompts > 0 and len(hints) == prompts


def test_typing_h_asks_for_a_hint_and_a_wrong_number_asks_again(server: Served) -> None:
    run = play(
        "--bots",
        "random",
        "--simulations",
        "4",
        "--server",
        server.grpc_target,
        answers="h\n99\nq\n",
    )
    assert run.code == 0
    assert re.search(r"^Hint \(expert\): \d+\) ", run.out, re.M)
    assert "Type a number from 1 to" in run.out


def test_escoba_offers_to_lay_a_card_that_could_take(server: Served) -> None:
    # Seed 5 deals seat 0 the 6 of coins with 5S 4S 9B 3S on the table: two ways
    # to make fifteen, or (Escoba takes no one by force) a lay.
    run = play(
        "--variant",
        "escoba",
        "--bots",
        "random",
        "--seed",
        "5",
        "--server",
        server.grpc_target,
        answers="1\n3\nq\n",
    )
    assert "1) six of coins [6D]: 2 ways to take or lay it" in run.out
    assert "With the six of coins [6D] you may:" in run.out
    assert "  3) lay it on the table without taking" in run.out
    after = run.out.split("You play the six of coins [6D].\n", 1)[1]
    assert not after.startswith("  You take")
    # Laid, it lies on the table: at the next board, or taken from it by the bot.
    assert re.search(r"^(Table: |  Seat 1 \(random\) takes ).*six of coins \[6D\]", after, re.M)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--variant", "briscola"), "no variant 'briscola'"),
        (("--game", "poker"), "no game 'poker'"),
        (("--variant", "cirulla", "--players", "6"), "Scopa is played by 2, 3, 4, not 6"),
        (("--game", "tressette", "--face", "french"), "Tressette takes no --face"),
        (("--game", "briscola", "--napola"), "Briscola takes no --napola"),
        (("--players", "4", "--bots", "expert,greedy"), "one for each of the 3 other seats"),
        (("--bots", "genius"), "--bots takes levels among random, greedy, intermediate, expert"),
        (("--seat", "2"), "--seat is from 0 to 1"),
    ],
)
def test_options_that_make_no_game_are_refused_clearly(
    server: Served, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], said: str
) -> None:
    run = play(*args, "--server", server.grpc_target)
    assert run.code == 2
    assert said in capsys.readouterr().err


def test_the_list_names_every_game_variant_face_and_level(server: Served) -> None:
    run = play("--list", "--server", server.grpc_target)
    assert run.code == 0
    for said in (
        "  scopa      Scopa, 2, 3, 4, 6 players",
        "  tressette  Tressette, 2, 4 players",
        "--variant escoba",
        "--variant scopone-scientifico",
        "--variant cirulla",
        "  briscola   Briscola, 2, 3, 4 players",
        "Deck faces (--face): french, italian, spanish",
        "Bot levels (--bots): random, greedy, intermediate, expert",
    ):
        assert said in run.out


def test_events_only_another_seat_may_see_are_never_told() -> None:
    seating = Seating(players=2, human=0, levels={1: "expert"})
    narrator = Narrator(seating, Names({}), "PRIMIERA_RULE_STANDARD", target=11)
    theirs = pb.Event(visible_to=1, cards_dealt=pb.CardsDealt(seat=1, cards=["7D", "1C", "2S"]))
    ours = pb.Event(visible_to=0, cards_dealt=pb.CardsDealt(seat=0, cards=["3B"]))
    public = pb.Event(card_played=pb.CardPlayed(seat=1, card="7D"))
    assert narrator.tell([theirs, ours, public]) == [
        "You are dealt: 3B.",
        "Seat 1 (expert) plays 7D.",
        "  It stays on the table.",
    ]


def test_the_face_option_names_the_cards_in_that_deck(server: Served) -> None:
    run = play("--face", "french", "--server", server.grpc_target, answers="q\n")
    hand = re.search(r"^Your hand: (.+)\.$", run.out, re.M)
    assert hand, run.out
    for card in hand[1].split(", "):  # e.g. "queen of hearts [9C]"
        assert re.fullmatch(r"\w+ of (diamonds|hearts|spades|clubs) \[\d+[DCSB]\]", card), card


def test_without_a_server_to_start_it_asks_for_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("mazzo_client.play.cli.server_installed", lambda: False)
    run = play("--list")
    assert run.code == 2
    assert "give --server HOST:PORT" in capsys.readouterr().err


def test_q_leaves_the_game_and_says_the_seed_that_deals_it_again(server: Served) -> None:
    run = play("--bots", "random", "--seed", "77", "--server", server.grpc_target, answers="q\n")
    assert run.code == 0  # leaving is the player's choice, not an error
    assert "You leave the game unfinished." in run.out
    assert "The same deals again: add --seed 77 to the same options." in run.out


def test_input_that_ends_before_the_game_does_is_an_error_but_still_says_the_seed(
    server: Served,
) -> None:
    run = play("--bots", "random", "--seed", "78", "--server", server.grpc_target, answers="1\n")
    assert run.code == 1
    assert "add --seed 78 to the same options." in run.out


def test_a_card_not_in_the_hand_is_answered_with_the_servers_reason(server: Served) -> None:
    first = play("--bots", "random", "--seed", "5", "--server", server.grpc_target, answers="q\n")
    absent = a_card_not_held(first.out)
    run = play(
        "--bots",
        "random",
        "--seed",
        "5",
        "--server",
        server.grpc_target,
        answers=f"{absent.lower()}\nq\n",
    )
    said = re.search(rf"^.*\[{absent}\]: (.*)$", run.out, re.M)
    assert said and "is not in seat 0's hand" in said[1], run.out[-1500:]
    assert "Type a number" not in run.out


def test_a_tressette_hand_and_its_moves_are_listed_by_suit_and_strength(server: Served) -> None:
    run = play(
        *("--game", "tressette", "--players", "2", "--bots", "random"),
        *("--seed", "9", "--server", server.grpc_target),
        answers="q\n",
    )
    hand = re.search(r"^Your hand: (.*)\.$", run.out, re.M)
    assert hand
    codes = re.findall(r"\[(\w+)\]", hand[1])
    strength = ["3", "2", "1", "10", "9", "8", "7", "6", "5", "4"]
    order = [("DCSB".index(code[-1]), strength.index(code[:-1])) for code in codes]
    assert len(codes) == 10 and order == sorted(order)
    moves = re.search(r"^Your moves:\n((?:  \d+\) .*\n)+)", run.out, re.M)
    assert moves
    listed = [re.findall(r"\[(\w+)\]", line)[0] for line in moves[1].splitlines()]
    assert listed == [code for code in codes if code in listed]


def test_a_single_choice_is_asked_as_1_not_as_a_range_of_one(server: Served) -> None:
    run = play(
        "--players", "2", "--bots", "random", "--target", "1", "--server", server.grpc_target
    )
    assert "(1-1" not in run.out
    assert "Your move (1, h for a hint, q to quit): " in run.out  # each hand's last card


def test_the_sweeps_row_gives_the_points_the_sweeps_made(server: Served) -> None:
    tables = []
    for seed in range(1, 40):
        run = play(
            *("--players", "2", "--bots", "greedy", "--target", "1", "--seed", str(seed)),
            *("--server", server.grpc_target),
        )
        tables += [line for line in run.out.splitlines() if line.startswith("  sweeps")]
        if any("(+" in line for line in tables):
            break
    cells = [cell for line in tables for cell in re.split(r"\s{2,}", line.strip())[1:]]
    assert all(re.fullmatch(r"0|(\d+) \(\+\1\)", cell) for cell in cells), tables
    assert any("(+" in cell for cell in cells)


@pytest.mark.parametrize(
    ("game", "rows"),
    [
        (("--game", "briscola", "--players", "3"), ["card points"]),
        (("--game", "tressette", "--players", "4"), ["card points", "last trick", "napoletana"]),
    ],
)
def test_each_hands_sheet_has_a_row_for_each_field_of_the_games_score(
    server: Served, game: tuple[str, ...], rows: list[str]
) -> None:
    run = play(*game, "--bots", "random", "--target", "1", "--seed", "9", *FAST,
               "--server", server.grpc_target)  # fmt: skip
    assert_consistent_ending(run)
    table = re.search(r"^Hand 1 scoring\n.*\n((?:  .*\n)+)Match: ", run.out, re.M)
    assert table, run.out[-1500:]
    labels = [line[2:18].strip() for line in table[1].splitlines()]
    assert labels == [*rows, "hand total"]


def test_lines_break_between_words_at_the_terminals_width(server: Served) -> None:
    game = ("--players", "2", "--bots", "random", "--target", "1", "--seed", "3")
    narrow = play(*game, "--server", server.grpc_target, columns=60)
    wide = play(*game, "--server", server.grpc_target)
    assert max(len(line) for line in wide.out.splitlines()) > 60  # there was something to break
    assert all(len(line) <= 60 for line in narrow.out.splitlines())
    assert narrow.out.split() == wide.out.split()  # the same words, none cut in two
