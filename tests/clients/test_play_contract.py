"""`mazzo play` knows no game by name: its options are the fields of the game's
options message, its score sheet the fields of the game's score message, its
board the game's part of the view. Checked here without a server, on the
catalog the server would answer and on messages made by hand."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence

import pytest
from babel.messages.pofile import read_po

from mazzo.engine import GAMES
from mazzo.service import codec
from mazzo_client.play import cli, lang
from mazzo_client.play.cli import UsageError, new_game_request, option_value
from mazzo_client.play.narrate import Narrator
from mazzo_client.play.session import view_part_fields
from mazzo_client.play.text import SCORE_ROWS, Names, Seating, scoring_table
from tests.clients.play_support import pb

SEATING = Seating(players=2, human=0, levels={1: "expert"})


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    lang.choose("en")
    yield
    lang.choose("en")


def catalog(*extra: pb.GameInfo, order: Sequence[str] = ()) -> pb.GetCatalogResponse:
    """The catalog the server answers (its games in ``order`` first), as this client reads it."""
    names = [*order, *(name for name in GAMES if name not in order)]
    served = [codec.game_info_to_pb(GAMES[name]) for name in names]
    games = [pb.GameInfo.FromString(game.SerializeToString()) for game in served]
    return pb.GetCatalogResponse(games=[*games, *extra])


def args(*argv: str) -> argparse.Namespace:
    return cli.parser().parse_args(["play", *argv])


# ---------------------------------------------------------------- options


def test_a_variant_named_as_the_game_sets_the_variant_field_and_its_players() -> None:
    request = new_game_request(args("--game", "scopone-scientifico"), catalog())
    assert request.WhichOneof("game") == "scopa"
    assert pb.ScopaVariant.Name(request.scopa.variant) == "SCOPA_VARIANT_SCOPONE_SCIENTIFICO"
    assert request.players == 4


def test_each_switch_and_option_is_set_through_its_field_of_that_name() -> None:
    request = new_game_request(
        args("--game", "tressette", "--napoletana", "--target", "31", "--players", "4"), catalog()
    )
    assert (request.tressette.napoletana, request.tressette.target, request.players) == (
        True,
        31,
        4,
    )
    briscola = new_game_request(args("--game", "briscola", "--face", "spanish"), catalog())
    assert pb.Face.Name(briscola.briscola.face) == "FACE_SPANISH"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("--game", "tressette", "--variant", "escoba"), "Tressette takes no --variant"),
        (("--game", "briscola", "--napoletana"), "Briscola takes no --napoletana"),
        (("--game", "scopa", "--variant", "nope"), "no variant 'nope': choose from scopa, "),
    ],
)
def test_an_option_the_games_message_lacks_is_refused_by_its_name(
    argv: tuple[str, ...], said: str
) -> None:
    with pytest.raises(UsageError) as refused:
        new_game_request(args(*argv), catalog())
    assert said in str(refused.value)


def test_without_game_the_catalogs_first_is_played() -> None:
    request = new_game_request(args(), catalog(order=["briscola"]))
    assert request.WhichOneof("game") == "briscola"
    assert request.players == 2


def test_a_catalog_game_this_clients_api_lacks_is_left_out_of_the_choices() -> None:
    unknown = pb.GameInfo(name="poker", title="Poker", player_counts=[2])
    with pytest.raises(UsageError) as refused:
        new_game_request(args("--game", "poker"), catalog(unknown))
    assert "no game 'poker'" in str(refused.value)
    lines = cli.listing(catalog(unknown))
    assert any("poker" in line for line in lines)  # listed as the server has it
    assert not any("--variant" in line and "poker" in line for line in lines)


@pytest.mark.parametrize(
    ("argv", "rule"),
    [
        (("--game", "scopa"), "PRIMIERA_RULE_STANDARD"),  # the catalog's default
        (("--variant", "escoba"), "PRIMIERA_RULE_MOST_SEVENS"),  # the variant's preset
        (("--game", "tressette"), ""),  # no such option
        (("--game", "briscola"), ""),
    ],
)
def test_the_primiera_rule_is_read_as_an_option_of_the_game(
    argv: tuple[str, ...], rule: str
) -> None:
    served = catalog()
    assert option_value(new_game_request(args(*argv), served), served, "primiera") == rule


def test_a_primiera_set_in_the_request_wins_over_the_variants() -> None:
    request = new_game_request(args("--variant", "escoba"), catalog())
    request.scopa.primiera = pb.PrimieraRule.Value("PRIMIERA_RULE_LENIENT")
    assert option_value(request, catalog(), "primiera") == "PRIMIERA_RULE_LENIENT"


# ---------------------------------------------------------------- the views


def test_the_game_part_of_a_view_says_whether_a_card_stays_on_a_table() -> None:
    assert "table" in view_part_fields("scopa")
    assert "trick" in view_part_fields("tressette") and "table" not in view_part_fields("briscola")
    assert view_part_fields(None) == {} and view_part_fields("poker") == {}
    played = pb.Event(card_played=pb.CardPlayed(seat=1, card="7D"))
    table = Narrator(SEATING, Names({}), "", target=11, table=True)
    trick = Narrator(SEATING, Names({}), "", target=11, table=False)
    assert "  It stays on the table." in table.tell([played])
    assert trick.tell([played]) == ["Seat 1 (expert) plays 7D."]


# ---------------------------------------------------------------- the score sheet


def labels(table: list[str]) -> list[str]:
    """The row labels of a scoring table (its heading, its sides and the match left out)."""
    return [line[2:18].strip() for line in table[2:-1]]


def scored(*sides: pb.SideScore) -> pb.HandScored:
    return pb.HandScored(hand_number=1, sides=sides, scores=[s.total for s in sides])


def test_briscolas_sheet_is_its_score_messages_one_field_then_the_total() -> None:
    hand = scored(
        pb.SideScore(side=0, total=1, briscola=pb.BriscolaScore(card_points=71)),
        pb.SideScore(side=1, total=0, briscola=pb.BriscolaScore(card_points=49)),
    )
    table = scoring_table(hand, {}, SEATING, "", target=1)
    assert labels(table) == ["card points", "hand total"]
    assert table[2].split()[-2:] == ["71", "49"]


def test_a_field_written_beside_another_gets_no_row_of_its_own() -> None:
    hand = scored(
        pb.SideScore(side=0, total=8, tressette=pb.TressetteScore(thirds=22, card_points=7)),
        pb.SideScore(side=1, total=4, tressette=pb.TressetteScore(thirds=11, card_points=3)),
    )
    table = scoring_table(hand, {}, SEATING, "", target=21)
    assert labels(table) == ["card points", "last trick", "napoletana", "hand total"]
    assert "7 1/3 (7)" in table[2] and "3 2/3 (3)" in table[2]


def test_scopas_sheet_lists_its_fields_in_the_tables_order_and_its_variants_only_when_scored() -> (
    None
):
    plain = pb.ScopaScore(cards=22, cards_point=1, primiera=78, primiera_point=1, sweeps=2)
    hand = scored(
        pb.SideScore(side=0, total=4, scopa=plain),
        pb.SideScore(side=1, total=1, scopa=pb.ScopaScore(cards=18, denari=6, denari_point=1)),
    )
    piles = {0: ["7D", "7C", "6S", "1B"], 1: ["2D"]}
    table = scoring_table(hand, piles, SEATING, "PRIMIERA_RULE_STANDARD", target=11)
    rows = ["cards", "coins", "settebello", "primiera", "its cards", "sweeps", "napola"]
    assert labels(table) == [*rows, "hand total"]
    assert "22 (+1)" in table[2] and "2 (+2)" in table[7]
    assert table[6].split()[2:] == ["7D", "7C", "6S", "1B", "2D"]
    with_grande = pb.ScopaScore(grande=5)
    hand = scored(
        pb.SideScore(side=0, total=5, scopa=with_grande),
        pb.SideScore(side=1, scopa=pb.ScopaScore()),
    )
    assert "grande" in labels(scoring_table(hand, {}, SEATING, "", target=11))


def test_a_score_field_of_no_row_gets_one_named_by_its_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = {name: row for name, row in SCORE_ROWS.items() if name != "last_trick_point"}
    monkeypatch.setattr("mazzo_client.play.text.SCORE_ROWS", rows)
    hand = scored(
        pb.SideScore(side=0, tressette=pb.TressetteScore(last_trick_point=1)),
        pb.SideScore(side=1, tressette=pb.TressetteScore()),
    )
    table = scoring_table(hand, {}, SEATING, "", target=21)
    assert labels(table) == ["card points", "napoletana", "last trick point", "hand total"]


def test_every_rows_label_is_in_each_languages_catalog_with_its_translation() -> None:
    words = {row.label for row in SCORE_ROWS.values()} | {
        row.made_of for row in SCORE_ROWS.values() if row.made_of
    }
    for language in ("it", "es", "fr", "ru"):
        po = lang.LOCALE_DIR / language / "LC_MESSAGES" / f"{lang.DOMAIN}.po"
        with po.open("rb") as file:
            translated = {m.id: m.string for m in read_po(file) if m.id}
        missing = {word for word in words if not translated.get(word)}
        assert not missing, (language, missing)
        lang.choose(language)
        assert [lang._(word) for word in sorted(words)] == [translated[w] for w in sorted(words)]


def test_a_label_longer_than_the_column_widens_it_so_cells_stay_apart() -> None:
    lang.choose("it")  # "punti delle carte", "totale della mano": 17 letters
    hand = scored(
        pb.SideScore(side=0, total=6, tressette=pb.TressetteScore(thirds=19, card_points=6)),
        pb.SideScore(side=1, total=5, tressette=pb.TressetteScore(thirds=13, card_points=4)),
    )
    header, *rows = scoring_table(hand, {}, SEATING, "", target=11)[1:-1]
    first = header.index(lang._("you"))  # where the first side's column starts
    longest = max(len(lang._(SCORE_ROWS["thirds"].label)), len(lang._("hand total")))
    assert first == 2 + longest + 1
    for row in rows:  # each label ends before it, each first cell starts there
        assert row[first - 1] == " " and row[first] != " ", rows
