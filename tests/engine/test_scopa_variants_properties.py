"""Property tests of the Scopa family: random full games of every variant preset, and
of random legal mixes of switches, pass the checks plain Scopa's games pass
(tests/engine/test_scopa_properties.py), with the variants' own events and scores.

At every step: the 40 cards are there once each; the legal moves are exactly
docs/variants.md's capture rules (written out by brute force here) and each one
resolves and applies; the state survives dump/load; no view shows a card its seat
may not see (declared cards are known to all). Over the game: every HandScored
total is the sum of its breakdown and the scores grow by it; the game ends with a
winner alone in the lead at or over the target; the same seed gives the same game.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mazzo.engine import DECK, IllegalMove, InvalidInput, Move, Reason, dump_state, load_state
from mazzo.engine.cards import Card
from mazzo.engine.events import (
    Capture,
    CardPlayed,
    CardsDealt,
    Deal,
    Declaration,
    Event,
    FirstTableTaken,
    GameOver,
    HandScored,
    LeftoversTaken,
    Redeal,
)
from mazzo.engine.game import game_winner
from mazzo.engine.scopa import ScopaRules, ScopaState, judge_hand
from mazzo.engine.scopa_rules import (
    VARIANT_PLAYERS,
    AceSweep,
    CaptureRule,
    DealRule,
    Face,
    PrimieraRule,
    TableBonus,
    Variant,
)
from tests.engine.scopa_support import all_cards, applied, cards_in, random_chooser, steps
from tests.engine.scopa_variants_support import preset

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
CHOICES = st.integers(min_value=0, max_value=2**32 - 1)


# ---------------------------------------------------------------- the rules, by brute force


def reference_takings(rules: ScopaRules, played: Card, table: tuple[Card, ...]) -> set:
    """docs/variants.md's captures (QUI-1, CIR-4, CIR-5, ASS-1, ASS-2, SCN-4) by brute force."""
    if rules.ace_takes_all and played.rank == 1 and table and all(t.rank != 1 for t in table):
        return {frozenset(table)}
    subsets = [
        frozenset(combo)
        for n in range(1, len(table) + 1)
        for combo in itertools.combinations(table, n)
    ]

    def fewest(found: set) -> set:
        if not rules.fewest_cards or not found:
            return found
        least = min(len(s) for s in found)
        return {s for s in found if len(s) == least}

    found: set = set()
    if rules.capture is not CaptureRule.QUINDICI:
        same = {s for s in subsets if len(s) == 1 and next(iter(s)).rank == played.rank}
        sums = {s for s in subsets if len(s) >= 2 and sum(c.rank for c in s) == played.rank}
        found |= same or fewest(sums)
    if rules.capture is not CaptureRule.SCOPA:
        found |= fewest({s for s in subsets if played.rank + sum(c.rank for c in s) == 15})
    return found or {frozenset()}


def expected_sweep(before: ScopaState, move: Move, last_card: bool) -> bool:
    """A capture emptying the table sweeps, but never on the last card; ASS-3 for aces."""
    if last_card or set(move.take) != set(before.table):
        return False
    rules = before.rules
    if not rules.ace_takes_all or move.card.rank != 1:
        return True
    if rules.ace_sweep is AceSweep.ALWAYS:
        return True
    if rules.ace_sweep is AceSweep.NEVER:
        return False
    return any(t.rank == 1 for t in before.table)  # ORDINARY: only an ace taking an ace


def void_table(rules: ScopaRules, table) -> bool:
    kings = sum(c.rank == 10 for c in table)
    aces = sum(c.rank == 1 for c in table)
    return (rules.redeal_kings and kings >= 3) or (rules.redeal_aces and aces >= 2)


def bonus_sweeps(rules: ScopaRules, table) -> int:
    """ESC-3 and CIR-3 written out; CIR-12, the matta as any value, by trying each."""
    values = [[c.rank] for c in table]
    if rules.matta_wild_in_first_table and Card.of(7, 1) in table:
        values[table.index(Card.of(7, 1))] = list(range(1, 11))
    return max(bonus_of_ranks(rules, ranks) for ranks in itertools.product(*values))


def bonus_of_ranks(rules: ScopaRules, ranks) -> int:
    total = sum(ranks)
    if rules.first_table_bonus is TableBonus.NONE or total not in (15, 30):
        return 0
    if total == 15:
        return 1
    if rules.first_table_bonus is TableBonus.TOTAL:
        return 2
    splits = any(sum(pair) == 15 for pair in itertools.combinations(ranks, 2))
    return 2 if splits else 0


# ---------------------------------------------------------------- checks at every step


def check_accounted(state: ScopaState) -> None:
    held = all_cards(state)
    assert len(held) == 40
    assert Counter(held) == Counter(DECK)


def check_moves(state: ScopaState) -> None:
    moves = state.legal_moves()
    seat = state.to_play
    assert moves and all(m.seat == seat for m in moves)
    assert len(set(moves)) == len(moves)
    for played in state.hands[seat]:
        mine = {m.take for m in moves if m.card == played and not m.lay}
        assert mine == reference_takings(state.rules, played, state.table), (played, state.table)
        could_take = mine != {frozenset()}
        laid = Move(seat, played, frozenset(), lay=True)
        may_lay = could_take and not state.rules.compulsory_capture
        assert [m for m in moves if m.card == played and m.lay] == ([laid] if may_lay else [])
        bare = Move(seat, played)
        if len(mine) == 1 and not may_lay:
            assert state.resolve(bare).take == next(iter(mine))
        else:
            with pytest.raises(IllegalMove) as err:
                state.resolve(bare)
            assert err.value.reason is Reason.CAPTURE_CHOICE_REQUIRED
            choices = {(m.take, m.lay) for m in err.value.choices}
            assert choices == {(t, False) for t in mine} | (
                {(frozenset(), True)} if may_lay else set()
            )
        if could_take and state.rules.compulsory_capture:
            with pytest.raises(IllegalMove) as err:
                state.resolve(laid)
            assert err.value.reason is Reason.MUST_TAKE
        else:
            assert state.resolve(laid) == laid
    for move in moves:
        assert state.resolve(move) == move
        after, events = applied(state, move)
        check_accounted(after)
        assert CardPlayed(seat, move.card) in events


def check_view(state: ScopaState, seat: int) -> None:
    seen = state.view(seat)
    assert (seen.seat, seen.side) == (seat, state.rules.side_of(seat))
    assert seen.hand == tuple(state.hands[seat])
    assert seen.table == state.table
    assert seen.hand_sizes == tuple(len(h) for h in state.hands)
    assert seen.stock_size == len(state.stock)
    assert (seen.piles, seen.sweeps) == (tuple(map(tuple, state.piles)), tuple(state.sweeps))
    assert seen.status == state.status()
    assert seen.face is state.rules.face
    shown_known = {c for cards in seen.known for c in cards}
    for other, known in enumerate(seen.known):
        if other == seat:
            assert known == ()
        else:
            assert known == tuple(c for c in state.hands[other] if c in state.revealed)
    names = {f.name for f in dataclasses.fields(seen)}
    assert not names & {"hands", "stock", "rng", "decks", "revealed"}
    hidden = set(state.stock) | {
        c
        for other, hand in enumerate(state.hands)
        if other != seat
        for c in hand
        if c not in state.revealed
    }
    shown = set(cards_in(seen))
    assert not shown & hidden
    assert shown <= set(state.table).union(*state.piles, state.hands[seat], shown_known)


def check_step_events(before: ScopaState, move: Move, after: ScopaState, events: list) -> None:
    rules = before.rules
    for e in events:
        assert e.visible_to == (e.seat if isinstance(e, CardsDealt) else None)
    scored = next((i for i, e in enumerate(events) if isinstance(e, HandScored)), None)
    this_hand = events if scored is None else events[: scored + 1]
    next_hand = [] if scored is None else events[scored + 1 :]
    # The play: an optional declaration, the card, then what it took.
    declared = [e for e in this_hand if isinstance(e, Declaration)]
    fresh = len(before.hands[move.seat]) == rules.hand_size
    judged = judge_hand(before.hands[move.seat]) if rules.declarations and fresh else None
    if judged is None:
        assert declared == []
        assert this_hand[0] == CardPlayed(move.seat, move.card)
    else:
        kind, points, matta = judged
        assert this_hand[:2] == [
            Declaration(
                move.seat,
                rules.side_of(move.seat),
                kind,
                tuple(before.hands[move.seat]),
                points,
                matta,
            ),
            CardPlayed(move.seat, move.card),
        ]
    face_up = {move.card} | set(before.table) | set().union(*before.piles)
    face_up |= {c for e in declared for c in e.cards}
    for e in this_hand:
        if e.visible_to is None:
            assert set(cards_in(e)) <= face_up, e
    last_card = not before.stock and sum(len(h) for h in before.hands) == 1
    captured = [e for e in this_hand if isinstance(e, Capture)]
    if move.take:
        (capture,) = captured
        assert (capture.seat, capture.side, capture.card) == (
            move.seat,
            rules.side_of(move.seat),
            move.card,
        )
        assert set(capture.taken) == set(move.take)
        assert capture.sweep == expected_sweep(before, move, last_card)
    else:
        assert captured == []
    leftovers = [e for e in this_hand if isinstance(e, LeftoversTaken)]
    if leftovers:
        (left,) = leftovers
        assert last_card and left.side == (
            rules.side_of(move.seat) if move.take else before.last_capture_side
        )
    # The next hand's deal: a void table redealt, the bonus taken, every hand dealt.
    if next_hand and not after.game_over:
        check_hand_start(after, next_hand)
    for seat in range(rules.players):
        visible = [e for e in next_hand or events if not isinstance(e, Redeal)]
        shown = {c for e in visible if e.visible_to in (None, seat) for c in cards_in(e)}
        hidden = set(after.stock) | {
            c for s, h in enumerate(after.hands) if s != seat for c in h if c not in after.revealed
        }
        assert not shown & hidden, seat


def check_hand_start(state: ScopaState, events: list[Event]) -> None:
    """The events that start a hand: redeals, the deal, the cards dealt, the bonus."""
    rules = state.rules
    redeals = [e for e in events if isinstance(e, Redeal)]
    for e in redeals:
        assert e.dealer == state.dealer and void_table(rules, e.table)
    (deal,) = [e for e in events if isinstance(e, Deal)]
    assert (deal.dealer, deal.hand_number) == (state.dealer, state.hand_number)
    assert len(deal.table) == rules.table_size
    assert not void_table(rules, deal.table)
    assert deal.hand_sizes == (rules.hand_size,) * rules.players
    dealt = [e for e in events if isinstance(e, CardsDealt)]
    assert [(e.seat, e.cards) for e in dealt] == list(enumerate(map(tuple, state.hands)))
    bonus = [e for e in events if isinstance(e, FirstTableTaken)]
    sweeps = bonus_sweeps(rules, deal.table)
    side = rules.side_of(state.dealer)
    if sweeps:
        assert bonus == [FirstTableTaken(state.dealer, side, deal.table, sweeps)]
        assert state.table == () and tuple(state.piles[side]) == deal.table
        assert state.sweeps[side] == sweeps and state.last_capture_side == side
    else:
        assert bonus == []
        assert state.table == deal.table and state.piles == [[]] * rules.sides
    assert state.to_play == (state.dealer + 1) % rules.players
    assert state.declared == [] and state.revealed == []


def check_hand_scored(rules: ScopaRules, e: HandScored, counted: dict, scores: tuple) -> None:
    for s in e.sides:
        assert s.total == (
            s.cards_point
            + s.denari_point
            + s.settebello_point
            + s.primiera_point
            + s.sweeps
            + s.napola
            + s.re_bello_point
            + s.grande
            + s.piccola
            + s.declarations
        )
        assert s.sweeps == counted["sweeps"][s.side]
        assert s.declarations == counted["declarations"][s.side]
        assert s.napola == 0 or (rules.napola and 3 <= s.napola <= 10)
        assert s.grande in ((0, 5) if rules.grande_piccola else (0,))
        assert s.piccola in ((0, 3, 4, 5, 6, 7) if rules.grande_piccola else (0,))
    assert [s.side for s in e.sides] == list(range(rules.sides))
    assert sum(s.cards for s in e.sides) == 40
    assert sum(s.denari for s in e.sides) == 10
    assert sum(s.settebello_point for s in e.sides) == 1
    assert sum(s.re_bello_point for s in e.sides) == (rules.re_bello is not None)
    assert sum(s.grande for s in e.sides) <= 5
    for point in ("cards_point", "denari_point", "primiera_point"):
        assert sum(getattr(s, point) for s in e.sides) <= 1
    assert e.scores == tuple(a + s.total for a, s in zip(scores, e.sides, strict=True))


def play_checked(rules: ScopaRules, seed: int, choice_seed: int, *, every_move: bool = True):
    """One random game, checked at every step; its trace."""
    state, events = ScopaState.new_game(rules, seed=seed)
    check_accounted(state)
    check_hand_start(state, events)
    trace: list = [(state, events)]
    scores = (0,) * rules.sides
    counted = {"sweeps": Counter(), "declarations": Counter()}
    for e in events:
        if isinstance(e, FirstTableTaken):
            counted["sweeps"][e.side] += e.sweeps
    game_over = None
    for step in steps(state, random_chooser(choice_seed)):
        before, after, events = step.before, step.after, step.events
        assert game_over is None
        if every_move:
            check_moves(before)
        check_accounted(after)
        assert load_state(dump_state(after)) == after
        for seat in range(rules.players):
            check_view(after, seat)
        check_step_events(before, step.move, after, events)
        for e in events:
            if isinstance(e, Capture):
                counted["sweeps"][e.side] += e.sweep
            elif isinstance(e, Declaration):
                counted["declarations"][e.side] += e.points
            elif isinstance(e, HandScored):
                check_hand_scored(rules, e, counted, scores)
                scores = e.scores
                counted = {"sweeps": Counter(), "declarations": Counter()}
            elif isinstance(e, FirstTableTaken):
                counted["sweeps"][e.side] += e.sweeps
            elif isinstance(e, GameOver):
                game_over = e
        if game_over is None:
            if after.hand_number == before.hand_number:
                assert after.to_play == (before.to_play + 1) % rules.players
                assert after.dealer == before.dealer
            else:
                assert after.hand_number == before.hand_number + 1
                assert after.dealer == (before.dealer + 1) % rules.players
                assert after.scores == scores
        trace.append((step.move, after, events))
    final = trace[-1][1]
    assert game_over is not None and final.game_over
    assert game_over.scores == scores == final.scores
    assert final.winner == game_over.winning_side == game_winner(scores, rules.target)
    best = max(scores)
    assert scores[final.winner] == best >= rules.target
    assert scores.count(best) == 1
    return trace


# ---------------------------------------------------------------- the presets

PRESET_GAMES = [(v, n) for v in Variant for n in VARIANT_PLAYERS[v]]


@pytest.mark.parametrize(("variant", "players"), PRESET_GAMES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, choice_seed=CHOICES)
def test_random_games_of_every_preset_keep_every_rule_at_every_step(
    variant, players, seed, choice_seed
):
    play_checked(preset(variant, players=players), seed, choice_seed)


@pytest.mark.parametrize("variant", list(Variant))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, choice_seed=CHOICES)
def test_the_same_seed_and_choices_give_the_same_game_in_every_variant(variant, seed, choice_seed):
    def trace() -> list:
        state, events = ScopaState.new_game(preset(variant), seed=seed)
        out: list = [(state, events)]
        out += [(s.move, s.after, s.events) for s in steps(state, random_chooser(choice_seed))]
        return out

    assert trace() == trace()


@pytest.mark.parametrize("variant", list(Variant))
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, choice_seed=CHOICES)
def test_a_game_resumed_from_its_bytes_goes_on_as_the_original(variant, seed, choice_seed):
    state, _ = ScopaState.new_game(preset(variant), seed=seed)
    rnd_a, rnd_b = random.Random(choice_seed), random.Random(choice_seed)
    original, resumed = state, load_state(dump_state(state))
    while not original.game_over:
        original, events_a = applied(original, rnd_a.choice(original.legal_moves()))
        resumed, events_b = applied(
            load_state(dump_state(resumed)), rnd_b.choice(resumed.legal_moves())
        )
        assert events_a == events_b and original == resumed


# ---------------------------------------------------------------- random mixes of switches


@st.composite
def mixes(draw) -> ScopaRules:
    """A random set of switches on a random variant; refused mixes are dropped."""
    variant = draw(st.sampled_from(list(Variant)))
    deal = draw(
        st.sampled_from([DealRule.THREE] * 3 + [DealRule.SCOPONE_NINE, DealRule.SCOPONE_TEN])
    )
    players = 4 if deal is not DealRule.THREE else draw(st.sampled_from(VARIANT_PLAYERS[variant]))
    switches: dict = {"players": players, "deal": deal, "target": draw(st.integers(1, 21))}
    switches["capture"] = draw(st.sampled_from(list(CaptureRule)))
    switches["primiera"] = draw(st.sampled_from(list(PrimieraRule)))
    switches["face"] = draw(st.sampled_from(list(Face)))
    for name in (
        "ace_takes_all",
        "fewest_cards",
        "declarations",
        "grande_piccola",
        "napola",
        "compulsory_capture",
    ):
        switches[name] = draw(st.booleans())
    if switches["ace_takes_all"] and draw(st.booleans()):
        switches["ace_sweep"] = draw(st.sampled_from(list(AceSweep)))
    if deal is not DealRule.SCOPONE_TEN:
        switches["redeal_kings"] = draw(st.booleans())
        switches["redeal_aces"] = draw(st.booleans())
        switches["first_table_bonus"] = draw(st.sampled_from(list(TableBonus)))
    else:
        switches["declarations"] = False
    if switches["napola"]:
        switches["grande_piccola"] = False
    if deal is not DealRule.THREE:
        switches["declarations"] = False
    if switches.get("first_table_bonus", TableBonus.NONE) is not TableBonus.NONE:
        switches["matta_wild_in_first_table"] = draw(st.booleans())
    if switches["grande_piccola"]:
        switches["piccola_stops_at_six"] = draw(st.booleans())
    re_bello = draw(st.sampled_from([None, *(c for c in DECK if str(c) != "7D")]))
    switches["re_bello"] = re_bello
    try:
        return preset(variant, **switches)
    except InvalidInput:  # pragma: no cover - the draws above avoid the refusals
        assume(False)
        raise


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=mixes(), seed=SEEDS, choice_seed=CHOICES)
def test_random_mixes_of_switches_keep_every_rule_at_every_step(rules, seed, choice_seed):
    play_checked(rules, seed, choice_seed)
