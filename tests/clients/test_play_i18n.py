"""`mazzo play` in Italian: its own words (gettext), the server's card names and
refusals (accept-language), chosen by --lang or by $LANG; English otherwise."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from unittest import mock

import pytest

from mazzo_client import MazzoClient, pb
from mazzo_client.play import lang
from mazzo_client.play.narrate import Narrator
from mazzo_client.play.session import Console, Session, Settings
from mazzo_client.play.text import Names, Seating
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


#: What `mazzo play` says where a template takes a card, in each language: you play
#: the 3 of swords; seat 1 plays the ace of coins; you take the 2 of cups and that ace;
#: you draw the king of batons; you take the cards left (a list: their names); a
#: card's captures offered ("with ...") and one of them ("take ..."); Briscola's trumps
#: (the suit's name) and turn-up (its name). A card after a verb or a preposition is
#: the catalog's accusative: Russian declines it, the others set the article.
CARD_LINES = {
    "en": [
        "You play the three of swords [3S].",
        "Seat 1 (greedy) plays the ace of coins [1D].",
        "  You take the two of cups [2C], the ace of coins [1D].",
        "  You draw the king of batons [10B].",
        "You take the cards left on the table: two of cups [2C].",
        "With the three of swords [3S] you may:",
        "take the two of cups [2C]",
        "Trumps: swords, the turn-up knave of swords [8S].",
    ],
    "it": [
        "Giochi il tre di spade [3S].",
        "Posto 1 (goloso) gioca l'asso di denari [1D].",
        "  Prendi il due di coppe [2C], l'asso di denari [1D].",
        "  Peschi il re di bastoni [10B].",
        "Prendi le carte rimaste in tavola: due di coppe [2C].",
        "Con il tre di spade [3S] puoi:",
        "prendi il due di coppe [2C]",
        "Briscola: spade, la carta scoperta fante di spade [8S].",
    ],
    "es": [
        "Juegas el tres de espadas [3S].",
        "Asiento 1 (codicioso) juega el as de oros [1D].",
        "  Tomas el dos de copas [2C], el as de oros [1D].",
        "  Robas el rey de bastos [10B].",
        "Tomas las cartas que quedan en la mesa: dos de copas [2C].",
        "Con el tres de espadas [3S] puedes:",
        "toma el dos de copas [2C]",
        "Triunfo: espadas, la carta vuelta sota de espadas [8S].",
    ],
    "fr": [
        "Vous jouez le trois d'épées [3S].",
        "Place 1 (glouton) joue l'as de deniers [1D].",
        "  Vous prenez le deux de coupes [2C], l'as de deniers [1D].",
        "  Vous piochez le roi de bâtons [10B].",
        "Vous prenez les cartes restées sur la table : deux de coupes [2C].",
        "Avec le trois d'épées [3S] vous pouvez :",
        "prendre le deux de coupes [2C]",
        "Atout : épées, la retourne valet d'épées [8S].",
    ],
    "ru": [
        "Вы играете тройку мечей [3S].",
        "Место 1 (жадный) играет туза денариев [1D].",
        "  Вы берёте двойку кубков [2C], туза денариев [1D].",
        "  Вы добираете короля жезлов [10B].",
        "Вы берёте оставшиеся на столе карты: двойка кубков [2C].",
        "Сыграв тройку мечей [3S], можно:",
        "взять двойку кубков [2C]",
        "Козыри: мечи, открытая карта — валет мечей [8S].",
    ],
}


def _card_lines(target: str, locale: str) -> list[str]:
    """The lines of CARD_LINES as `mazzo play` says them in ``locale``, from the
    server's catalog in that language."""
    with MazzoClient(target, metadata=[("accept-language", locale)]) as mazzo:
        names = Names.from_catalog(mazzo.catalog())
    seating = Seating(players=2, human=0, levels={1: "greedy"})
    narrator = Narrator(seating, names, primiera_rule="", target=11)
    events = [
        pb.Event(card_played=pb.CardPlayed(seat=0, card="3S")),
        pb.Event(card_played=pb.CardPlayed(seat=1, card="1D")),
        pb.Event(capture=pb.Capture(seat=0, side=0, card="3S", taken=["2C", "1D"])),
        pb.Event(card_drawn=pb.CardDrawn(seat=0, card="10B")),
        pb.Event(leftovers_taken=pb.LeftoversTaken(side=0, cards=["2C"])),
    ]
    lines = [line for event in events for line in narrator.tell_one(event)]
    out = io.StringIO()
    settings = Settings(pb.NewGameRequest(players=2, scopa=pb.ScopaOptions()), seating, "")
    session = Session(None, Console(io.StringIO("1\n"), out), settings, names)  # type: ignore[arg-type]
    take = pb.Move(seat=0, card="3S", take=["2C"])
    session._pick_capture("3S", [take, pb.Move(seat=0, card="3S", take=["1D"])])
    lines.append(out.getvalue().splitlines()[0])
    lines.append(session._what_it_does(take))
    briscola = pb.BriscolaView(trump_card="8S", trump_suit="S")
    view = pb.View(briscola=briscola, status=pb.Status(players=2))
    lines += [line for line in session._game_part(view) if "8S" in line]
    return lines


@pytest.mark.parametrize("locale", sorted(CARD_LINES))
def test_the_templates_that_take_a_card_are_grammatical_in_each_language(
    server: Served, locale: str
) -> None:
    assert lang.choose(locale) == locale
    try:
        assert _card_lines(server.grpc_target, locale) == CARD_LINES[locale]
    finally:
        lang.choose("en")
