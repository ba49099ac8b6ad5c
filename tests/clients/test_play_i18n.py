"""`mazzo play` in Italian: its own words (gettext), the server's card names and
refusals (accept-language), chosen by --lang or by $LANG; English otherwise."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from unittest import mock

import pytest

from mazzo_client.play import lang
from tests.clients.play_support import SERVER_STATUS, a_card_not_held, play
from tests.service.processes import Served, started

ITALIAN_SUITS = re.compile(
    r"\b(asso|due|tre|quattro|cinque|sei|sette|fante|cavallo|re) di (denari|coppe|spade|bastoni) \["
)


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    with started() as served:
        served.wait_until_listening()
        yield served


def test_a_whole_game_in_italian_with_lang(server: Served) -> None:
    run = play("--lang", "it", "--bots", "random", "--seed", "11", "--server", server.grpc_target)
    assert run.code == 0, run.out[-2000:]
    out = run.out
    assert "Una partita a scopa, 2 giocatori, ai 11. Sei il posto 0" in out
    assert re.search(r"^La tua mano: .+\.$", out, re.M)
    assert re.search(r"^La tua mossa \(1-\d+, h per un consiglio, q per uscire\): ", out, re.M)
    assert re.search(r"^Giochi ", out, re.M) and re.search(
        r"^Posto 1 \(casuale\) gioca ", out, re.M
    )
    assert ITALIAN_SUITS.search(out)
    assert re.search(r"^Conteggio della mano 1$", out, re.M)
    assert re.search(r"^Partita finita\. .+ Punteggio finale: .+\.$", out, re.M)
    assert "Le stesse distribuzioni di nuovo: aggiungi --seed 11 alle stesse opzioni." in out
    for english in ("Your hand:", "Your move", "You play", "Game over.", "Hand 1 scoring"):
        assert english not in out, english
    assert " of coins" not in out and " of swords" not in out
    assert SERVER_STATUS.search(out)  # the line programs read stays as it was


def test_a_card_not_in_the_hand_gets_the_servers_reason_in_italian(server: Served) -> None:
    first = play(
        "--lang",
        "it",
        "--bots",
        "random",
        "--seed",
        "5",
        "--server",
        server.grpc_target,
        answers="q\n",
    )
    absent = a_card_not_held(first.out, "La tua mano")
    run = play(
        "--lang",
        "it",
        "--bots",
        "random",
        "--seed",
        "5",
        "--server",
        server.grpc_target,
        answers=f"{absent.lower()}\nq\n",
    )
    said = re.search(rf"^.*\[{absent}\]: (.*)$", run.out, re.M)
    assert said, run.out
    assert said[1] == f"{absent} non è nella mano del posto 0."
    assert "Lasci la partita a metà." in run.out


@pytest.mark.parametrize(
    ("environment", "arguments", "opening"),
    [
        ({"LANG": "it_IT.UTF-8"}, (), "Una partita a scopa"),
        ({"LANG": "es_MX.UTF-8"}, (), "Una partida de scopa"),
        ({"LANG": "it_IT.UTF-8"}, ("--lang", "fr"), "Une partie de scopa"),
        ({"LANG": "de_DE.UTF-8"}, (), "A game of scopa"),
        ({"LANG": "C.UTF-8"}, (), "A game of scopa"),
        ({}, ("--lang", "xx"), "A game of scopa"),
    ],
)
def test_the_language_comes_from_lang_else_the_environment_else_english(
    server: Served, environment: dict[str, str], arguments: tuple[str, ...], opening: str
) -> None:
    with mock.patch.dict(os.environ, environment):
        if not environment:
            os.environ.pop("LANG", None)
        run = play(*arguments, "--bots", "random", "--server", server.grpc_target, answers="q\n")
    assert opening in run.out, run.out[:500]


def test_the_catalog_found_names_the_language_sent_to_the_server() -> None:
    assert lang.choose("it_IT.UTF-8") == "it"
    assert lang.choose("ru") == "ru"
    assert lang.choose("pt_BR") == "en"
    assert lang.choose("en_GB") == "en"
