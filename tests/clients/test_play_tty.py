"""`mazzo play` as a person plays it: the installed console script in a
pseudo-terminal (pexpect), with the server it starts for the session, through
a whole game of 2-player Scopa and of 2-player Tressette against the expert.

Every wait is on what the screen shows, with a generous bound; the final score
is checked against the server's own, by replaying the recorded moves on a
server this test starts. The last test checks that the suite's own gRPC use
never stops a forked child from starting its program (tests/suite_env.py).
"""

from __future__ import annotations

import io
import os
import re
import socket
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path

import grpc
import pexpect
import pytest

from tests.clients.play_support import replayed_scores, scores_said
from tests.service.processes import Served, started
from tests.suite_env import without_suite_settings

MAZZO = Path(sys.executable).with_name("mazzo")  # installed with mazzo-client
WAIT = 60.0
# "(1-3, ...)" for three choices, "(1, ...)" for one.
MOVE_PROMPT = r"Your move \(1(?:-(\d+))?, h for a hint, q to quit\): "
CAPTURE_PROMPT = r"Which capture \(1(?:-(\d+))?\)\? "
GAME_OVER = r"Game over\. [^\r\n]* Final score: ([^\r\n]*)\.\r\n"


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    with started() as served:
        served.wait_until_listening()
        yield served


def spawn(*args: str) -> tuple[pexpect.spawn, io.StringIO]:
    # The terminal's size is the pty's: pytest-xdist's workers set $COLUMNS and $LINES.
    env = {
        k: v
        for k, v in without_suite_settings(os.environ).items()
        if not k.startswith("MAZZO_") and k not in ("COLUMNS", "LINES")
    }
    screen = io.StringIO()
    child = pexpect.spawn(
        str(MAZZO),
        ["play", *args],
        env=env,
        encoding="utf-8",
        timeout=WAIT,
        dimensions=(40, 400),  # wide: these tests read whole lines (wrapping: test_play.py)
    )
    child.logfile_read = screen
    return child, screen


def play_whole_game(child: pexpect.spawn) -> tuple[int, str]:
    """Answer every prompt to the end: the last choice at one move, the first at
    the others, a hint and a wrong number once. Returns the moves made and the
    final score line."""
    moves, asked_for_hint = 0, False
    while True:
        seen = child.expect([MOVE_PROMPT, CAPTURE_PROMPT, GAME_OVER])
        if seen == 2:
            return moves, child.match[1]
        choices = int(child.match[1] or 1)
        if seen == 0 and not asked_for_hint:
            asked_for_hint = True
            child.sendline("h")
            child.expect(r"Hint \(expert\): \d+\) ")
            child.expect(MOVE_PROMPT)
            child.sendline(str(choices + 1))
            child.expect("Type 1" if choices == 1 else f"Type a number from 1 to {choices}")
            child.expect(MOVE_PROMPT)
        child.sendline(str(choices) if moves % 2 else "1")
        moves += seen == 0


def finish(child: pexpect.spawn, screen: io.StringIO) -> str:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, screen.getvalue()[-3000:]
    return screen.getvalue().replace("\r\n", "\n")


def assert_local_server_stopped(out: str) -> None:
    """The server it started is gone once it exits: its port refuses connections."""
    host, port = re.search(r"listens on (\S+):(\d+)\.\)", out).groups()  # type: ignore[union-attr]
    with pytest.raises(ConnectionRefusedError), socket.create_connection((host, int(port)), 5):
        pass


def assert_scored_and_consistent(out: str, final: str, record: Path, server: Served) -> None:
    status = re.search(r"^Server status: game over, scores ([\d ]+), winning side", out, re.M)
    assert status, out[-2000:]
    printed = [int(s) for s in status[1].split()]
    assert scores_said(final.strip()) == printed
    assert replayed_scores(server.grpc_target, record) == printed
    matches = re.findall(r"^Match: (.*) \(playing to \d+\)$", out, re.M)
    assert scores_said(matches[-1]) == printed


def test_a_whole_game_of_scopa_in_a_terminal_against_the_expert(
    server: Served, tmp_path: Path
) -> None:
    record = tmp_path / "scopa.json"
    child, screen = spawn(
        "--game",
        "scopa",
        "--players",
        "2",
        "--bots",
        "expert",
        "--simulations",
        "20",
        "--record",
        str(record),
    )
    moves, final = play_whole_game(child)
    out = finish(child, screen)
    assert moves >= 18  # at least one whole hand of 3 deals of 3 cards
    assert "A game of scopa, 2 players, to 11. You are seat 0; against you: seat 1 (expert)." in out
    assert re.search(r"^Hand 1: seat 1 \(expert\) deals; on the table: .+\]\.$", out, re.M)
    assert re.search(r"^You are dealt: (.+ \[\w+\](, )?){3}\.$", out, re.M)
    assert re.search(r"^Table: .+\.$", out, re.M) and re.search(r"^Your hand: .+\.$", out, re.M)
    assert re.search(r"^Your moves:\n  1\) .+\[\w+\]", out, re.M)
    assert re.search(r"^You play .+ \[\w+\]\.$", out, re.M)
    assert re.search(r"^Seat 1 \(expert\) plays .+ \[\w+\]\.$", out, re.M)
    assert re.search(r"^  (You take|Seat 1 \(expert\) takes) .+\.$", out, re.M)
    assert re.search(r"^Seat 1 \(expert\) deals 3 cards each; \d+ left in the stock\.$", out, re.M)
    table = re.search(r"^Hand 1 scoring\n {18}you {15}seat 1\n((?:  .*\n)+)Match: ", out, re.M)
    assert table, out
    labels = [line[2:18].strip() for line in table[1].splitlines()]
    assert labels == [
        "cards",
        "coins",
        "settebello",
        "primiera",
        "its cards",
        "sweeps",
        "napola",
        "hand total",
    ]
    assert_scored_and_consistent(out, final, record, server)
    assert_local_server_stopped(out)
    assert_no_card_of_the_bot_shown_before_it_is_played(out.split("Hand 1 scoring")[0])


def assert_no_card_of_the_bot_shown_before_it_is_played(first_hand: str) -> None:
    """Plain Scopa shows no card of another hand: each card the bot plays in the
    first hand is on the screen for the first time when it is played. A first
    table dealt again (three or four kings) shuffles every card shown so far
    back into the deck."""
    shown: set[str] = set()
    played = 0
    for line in first_hand.splitlines():
        if "the cards are dealt again" in line:
            shown.clear()
            continue
        codes = re.findall(r"\[(\w+)\]", line)
        if line.startswith("Seat 1 (expert) plays"):
            assert codes[0] not in shown, line
            played += 1
        shown.update(codes)
    assert played >= 18


def test_a_whole_game_of_tressette_in_a_terminal_against_the_expert(
    server: Served, tmp_path: Path
) -> None:
    record = tmp_path / "tressette.json"
    child, screen = spawn(
        "--game",
        "tressette",
        "--players",
        "2",
        "--target",
        "11",
        "--simulations",
        "20",
        "--record",
        str(record),
    )
    moves, final = play_whole_game(child)
    out = finish(child, screen)
    assert moves >= 20  # a whole hand: 20 tricks
    assert "A game of tressette, 2 players, to 11." in out
    assert re.search(r"^Trick: (you lead|.+ by seat 1 \(expert\))\.$", out, re.M)
    assert re.search(r"^  (You win|Seat 1 \(expert\) wins) the trick \(.+\)\.$", out, re.M)
    assert re.search(r"^  You draw .+ \[\w+\]\.$", out, re.M)
    assert re.search(r"^  Seat 1 \(expert\) draws .+ \[\w+\]\.$", out, re.M)
    table = re.search(r"^Hand 1 scoring\n {18}you {15}seat 1\n((?:  .*\n)+)Match: ", out, re.M)
    assert table, out
    labels = [line[2:18].strip() for line in table[1].splitlines()]
    assert labels == ["card points", "last trick", "napoletana", "hand total"]
    assert_scored_and_consistent(out, final, record, server)
    assert_local_server_stopped(out)


def test_a_program_starts_in_a_terminal_while_this_process_has_grpc_calls_in_flight() -> None:
    """The terminal tests fork this process, which has live gRPC channels, to run
    ``mazzo``. A forked child must reach its program every time, not die first in
    a polling thread gRPC restarted in it (with fork support on, some of forty
    forks did every time, while gRPC watched a channel and made calls)."""
    server = grpc.server(ThreadPoolExecutor(2))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    done = threading.Event()

    def call_until_done(channel: grpc.Channel) -> None:
        unknown = channel.unary_unary("/mazzo.test.Nothing/Call")
        while not done.is_set():
            with suppress(grpc.RpcError):  # UNIMPLEMENTED: a call made all the same
                unknown(b"", timeout=WAIT)

    def watched(connectivity: grpc.ChannelConnectivity) -> None:
        pass

    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        threads_before = set(threading.enumerate())
        channel.subscribe(watched, try_to_connect=True)  # gRPC polls it in a thread of its own
        pollers = set(threading.enumerate()) - threads_before
        caller = threading.Thread(target=call_until_done, args=(channel,), daemon=True)
        caller.start()
        outputs = []
        for _ in range(40):
            child = pexpect.spawn("/bin/echo", ["started"], encoding="utf-8", timeout=WAIT)
            child.expect(pexpect.EOF)
            outputs.append(child.before.strip())
            child.close()
        done.set()
        caller.join(WAIT)
        channel.unsubscribe(watched)
        for poller in pollers:  # it ends soon once nothing watches: close the channel after
            poller.join(WAIT)
    server.stop(None)
    assert outputs == ["started"] * 40
