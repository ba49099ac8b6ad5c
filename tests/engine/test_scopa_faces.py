"""docs/variants.md, Deck faces: the names and printed indices of the 40 cards in the
Italian, French and Spanish decks; faces change names only, never codes or values."""

from __future__ import annotations

import pytest

from mazzo.engine import DECK, dump_state, load_state
from mazzo.engine.faces import card_index, card_name
from mazzo.engine.scopa import ScopaState
from mazzo.engine.scopa_rules import Face, Variant
from tests.engine.scopa_support import card, random_chooser, steps
from tests.engine.scopa_variants_support import preset

# The tables of docs/variants.md, Deck faces, by code rank 1..10 and suit D C S B.
RANKS = {
    Face.ITALIAN: "asso due tre quattro cinque sei sette fante cavallo re",
    Face.FRENCH: "ace two three four five six seven jack queen king",
    Face.SPANISH: "as dos tres cuatro cinco seis siete sota caballo rey",
}
SUITS = {
    Face.ITALIAN: "denari coppe spade bastoni",
    Face.FRENCH: "diamonds hearts spades clubs",
    Face.SPANISH: "oros copas espadas bastos",
}
OF = {Face.ITALIAN: "di", Face.FRENCH: "of", Face.SPANISH: "de"}
FRENCH_INDEX = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]
SPANISH_INDEX = ["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"]


def expected_name(code: str, face: Face) -> str:
    rank, suit = int(code[:-1]), "DCSB".index(code[-1])
    return f"{RANKS[face].split()[rank - 1]} {OF[face]} {SUITS[face].split()[suit]}"


@pytest.mark.parametrize("face", list(Face))
def test_every_card_has_the_name_of_the_tables(face):
    names = [card_name(c, face) for c in DECK]
    assert names == [expected_name(str(c), face) for c in DECK]
    assert len(set(names)) == 40


@pytest.mark.parametrize(
    ("code", "italian", "french", "spanish", "index"),
    [
        ("8S", "fante di spade", "jack of spades", "sota de espadas", "10"),
        ("9C", "cavallo di coppe", "queen of hearts", "caballo de copas", "11"),
        ("10B", "re di bastoni", "king of clubs", "rey de bastos", "12"),
        ("7D", "sette di denari", "seven of diamonds", "siete de oros", "7"),
        ("7C", "sette di coppe", "seven of hearts", "siete de copas", "7"),
        ("10D", "re di denari", "king of diamonds", "rey de oros", "12"),
        ("1B", "asso di bastoni", "ace of clubs", "as de bastos", "1"),
    ],
)
def test_the_named_examples(code, italian, french, spanish, index):
    played = card(code)
    assert card_name(played, Face.ITALIAN) == italian
    assert card_name(played, Face.FRENCH) == french
    assert card_name(played, Face.SPANISH) == spanish
    assert card_index(played, Face.SPANISH) == index


def test_a_french_face_prints_a_for_the_ace_and_j_q_k_for_eight_nine_ten():
    for c in DECK:
        assert card_index(c, Face.FRENCH) == FRENCH_INDEX[c.rank - 1]


def test_a_spanish_face_prints_ten_eleven_twelve_on_cards_worth_eight_nine_ten():
    for c in DECK:
        assert card_index(c, Face.SPANISH) == SPANISH_INDEX[c.rank - 1]
    sota = card("8D")
    assert (card_index(sota, Face.SPANISH), sota.rank) == ("10", 8)


def test_an_italian_face_prints_an_index_for_every_card():
    indices = {card_index(c, Face.ITALIAN) for c in DECK}
    assert len(indices) == 10
    assert {card_index(c, Face.ITALIAN) for c in DECK if c.rank <= 7} == set("A234567")


@pytest.mark.parametrize(
    ("variant", "face"),
    [(v, Face.SPANISH if v is Variant.ESCOBA else Face.FRENCH) for v in Variant]
    + [(v, Face.ITALIAN) for v in Variant],
)
def test_views_name_the_face_of_the_game(variant, face):
    rules = preset(variant, face=face)
    state, _ = ScopaState.new_game(rules, seed=3)
    for seat in range(rules.players):
        assert state.view(seat).face is face
    assert load_state(dump_state(state)).rules.face is face


@pytest.mark.parametrize("variant", list(Variant))
def test_the_preset_face_is_italian_but_escoba_spanish_and_cirulla_french(variant):
    expected = {Variant.ESCOBA: Face.SPANISH, Variant.CIRULLA: Face.FRENCH}
    assert preset(variant).face is expected.get(variant, Face.ITALIAN)


@pytest.mark.parametrize("variant", [Variant.SCOPA, Variant.ESCOBA, Variant.CIRULLA])
def test_a_face_changes_no_move_and_no_card_code(variant):
    """The same seed and choices give the same game move for move under every face."""
    games = []
    for face in Face:
        state, events = ScopaState.new_game(preset(variant, face=face), seed=11)
        trace = [(tuple(state.legal_moves()), tuple(events))]
        trace += [(s.move, tuple(s.events)) for s in steps(state, random_chooser(11))]
        games.append(trace)
    assert games[0] == games[1] == games[2]


def test_a_face_may_be_named_by_its_text():
    assert preset("scopa", face="spanish").face is Face.SPANISH
