"""Property tests: random full Tressette games, random legal moves, every rule at every step.

Each example plays a whole game (to the default target 21) from a random seed,
choosing random legal moves, and checks each step against :class:`Referee`, a
separate, plain writing of docs/rules.md: which cards may be played, who wins a
trick, who draws what, when a napoletana is declared, what a hand scores, when
the game ends. The engine's events for a step must be exactly the referee's.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mazzo.engine import DECK, IllegalMove, Move, Reason, dump_state, load_state
from mazzo.engine.cards import Card
from mazzo.engine.events import (
    CardDrawn,
    CardPlayed,
    CardsDealt,
    Deal,
    Event,
    GameOver,
    HandScored,
    NapoletanaDeclared,
    TressetteSideScore,
    TrickWon,
)
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.tressette_support import ORDER, all_cards, napoletana_of, random_chooser, steps

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
CHOICES = st.integers(min_value=0, max_value=2**32 - 1)
GAME_SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
THIRDS = {1: 3, 2: 1, 3: 1, 8: 1, 9: 1, 10: 1}


def reference_cards(state: TressetteState) -> set[Card]:
    """docs/rules.md: follow the led suit when you can; otherwise (or leading) any card."""
    hand = state.hands[state.to_play]
    if state.trick:
        same = {c for c in hand if c.suit == state.trick[0].suit}
        if same:
            return same
    return set(hand)


def reference_winner(leader: int, trick: tuple[Card, ...], players: int) -> int:
    led = trick[0].suit
    followers = [i for i, c in enumerate(trick) if c.suit == led]
    best = min(followers, key=lambda i: ORDER.index(trick[i].rank))
    return (leader + best) % players


def check_accounted(state: TressetteState) -> None:
    held = all_cards(state)
    assert len(held) == 40
    assert Counter(held) == Counter(DECK)


def check_moves(state: TressetteState) -> None:
    """The legal moves are exactly docs/rules.md's; each resolves and applies; the rest
    are refused."""
    moves = state.legal_moves()
    seat = state.to_play
    assert moves, "a game in progress always has a move"
    assert len(set(moves)) == len(moves)
    assert all(m.seat == seat and m.take == frozenset() for m in moves)
    assert {m.card for m in moves} == reference_cards(state)
    for move in moves:
        assert state.resolve(move) == move
        after = state.clone()
        events = after.apply(move)
        check_accounted(after)
        assert CardPlayed(seat, move.card) in events
    for other in set(state.hands[seat]) - reference_cards(state):
        with pytest.raises(IllegalMove) as err:
            state.resolve(Move(seat, other))
        assert err.value.reason is Reason.MUST_FOLLOW_SUIT
    for wrong_seat in range(state.rules.players):
        if wrong_seat != seat and state.hands[wrong_seat]:
            with pytest.raises(IllegalMove) as err:
                state.resolve(Move(wrong_seat, state.hands[wrong_seat][0]))
            assert err.value.reason is Reason.NOT_YOUR_TURN


class Referee:
    """What docs/rules.md says one step's events are, from the state before it and the
    history of the hand (who has played, what was declared, what each side took)."""

    def __init__(self, rules: TressetteRules):
        self.rules = rules
        self.new_hand()

    def new_hand(self) -> None:
        self.has_played: set[int] = set()
        self.declared: set[tuple[int, int]] = set()
        self.napoletana = [0, 0]
        self.taken: list[list[Card]] = [[], []]

    def declare(self, seat: int, hand: set[Card], suits, events: list[Event]) -> None:
        if not self.rules.napoletana:
            return
        for suit in suits:
            cards = napoletana_of(suit)
            if (seat, suit) not in self.declared and hand >= set(cards):
                self.declared.add((seat, suit))
                self.napoletana[seat % 2] += 3
                events.append(NapoletanaDeclared(seat, seat % 2, suit, cards, 3))

    def step(self, before: TressetteState, move: Move) -> list[Event]:
        """The events up to the end of the hand (the next deal is checked apart)."""
        players = self.rules.players
        seat, played = move.seat, move.card
        hands = [set(h) for h in before.hands]
        events: list[Event] = []
        if seat not in self.has_played:
            self.has_played.add(seat)
            self.declare(seat, hands[seat], range(4), events)
        hands[seat].discard(played)
        events.append(CardPlayed(seat, played))
        trick = (*before.trick, played)
        if len(trick) < players:
            return events
        winner = reference_winner(before.leader, trick, players)
        events.append(TrickWon(winner, winner % 2, before.leader, trick))
        self.taken[winner % 2] += trick
        stock = list(before.stock)
        if stock:
            assert players == 2
            for drawer in (winner, 1 - winner):
                drawn = stock.pop(0)
                hands[drawer].add(drawn)
                events.append(CardDrawn(drawer, drawn))
                self.declare(drawer, hands[drawer], [drawn.suit], events)
        if any(hands):
            return events
        sides = []
        for side in (0, 1):
            thirds = sum(THIRDS.get(c.rank, 0) for c in self.taken[side])
            sides.append(
                TressetteSideScore(
                    side, thirds, thirds // 3, int(winner % 2 == side), self.napoletana[side]
                )
            )
        scores = tuple(old + s.total for old, s in zip(before.scores, sides, strict=True))
        events.append(HandScored(before.hand_number, tuple(sides), scores))
        leaders = [side for side in (0, 1) if scores[side] == max(scores)]
        if max(scores) >= self.rules.target and len(leaders) == 1:
            events.append(GameOver(leaders[0], scores))
        self.new_hand()
        return events


def play_checked(players: int, seed: int, choice_seed: int, napoletana: bool) -> list:
    """Play one random game checking every rule at every step; return its trace."""
    rules = TressetteRules(players=players, napoletana=napoletana)
    state, events = TressetteState.new_game(rules, seed=seed)
    check_accounted(state)
    referee = Referee(rules)
    trace: list = [(state, events)]
    hands_scored: list[HandScored] = []
    for step in steps(state, random_chooser(choice_seed)):
        before, after, events = step.before, step.after, step.events
        check_moves(before)
        check_accounted(after)
        expected = referee.step(before, step.move)
        assert events[: len(expected)] == expected
        rest = events[len(expected) :]
        for e in expected:
            if isinstance(e, HandScored):
                hands_scored.append(e)
                for s in e.sides:
                    assert s.total == s.card_points + s.last_trick_point + s.napoletana
                    if not napoletana:
                        assert s.napoletana == 0
                assert sum(s.card_points + s.last_trick_point for s in e.sides) == 11
                assert after.scores == e.scores
        if rest:  # the next hand's deal: by the next dealer, led by the seat after
            assert not after.game_over
            assert rest[0] == Deal(
                before.hand_number + 1,
                (before.dealer + 1) % players,
                (),
                (10,) * players,
                20 if players == 2 else 0,
            )
            assert rest[1:] == [CardsDealt(s, tuple(after.hands[s])) for s in range(players)]
            assert after.dealer == (before.dealer + 1) % players
            assert after.to_play == after.leader == (after.dealer + 1) % players
            assert after.hand_number == before.hand_number + 1
            assert (after.napoletana, after.piles) == ([0, 0], [[], []])
        elif not after.game_over:
            assert after.hand_number == before.hand_number
            assert after.dealer == before.dealer
            won = [e for e in events if isinstance(e, TrickWon)]
            assert after.to_play == (won[0].seat if won else (before.to_play + 1) % players)
        assert all(e.visible_to == e.seat for e in events if isinstance(e, CardsDealt))
        assert all(e.visible_to is None for e in events if not isinstance(e, CardsDealt))
        trace.append((step.move, after, events))
    final = trace[-1][1]
    assert final.game_over
    over = trace[-1][2][-1]
    assert isinstance(over, GameOver)
    assert over.scores == final.scores == hands_scored[-1].scores
    assert final.winner == over.winning_side
    assert final.scores[final.winner] >= rules.target
    assert final.scores[final.winner] > final.scores[1 - final.winner]
    for earlier in hands_scored[:-1]:
        assert max(earlier.scores) < rules.target or earlier.scores[0] == earlier.scores[1]
    # Scores grow by exactly each hand's totals.
    totals = [0, 0]
    for scored in hands_scored:
        totals = [t + s.total for t, s in zip(totals, scored.sides, strict=True)]
        assert tuple(totals) == scored.scores
    return trace


@pytest.mark.parametrize("players", [2, 4])
@GAME_SETTINGS
@given(seed=SEEDS, choice_seed=CHOICES, napoletana=st.booleans())
def test_random_games_keep_every_rule_at_every_step(players, seed, choice_seed, napoletana):
    play_checked(players, seed, choice_seed, napoletana)


@pytest.mark.parametrize("players", [2, 4])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, choice_seed=CHOICES, napoletana=st.booleans())
def test_the_same_seed_and_choices_give_the_same_game(players, seed, choice_seed, napoletana):
    def trace() -> list:
        rules = TressetteRules(players=players, napoletana=napoletana)
        state, events = TressetteState.new_game(rules, seed=seed)
        out: list = [(state, events)]
        out += [(s.move, s.after, s.events) for s in steps(state, random_chooser(choice_seed))]
        return out

    assert trace() == trace()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, choice_seed=CHOICES, players=st.sampled_from([2, 4]), napoletana=st.booleans())
def test_a_game_resumed_from_its_bytes_at_every_step_goes_on_exactly_as_the_original(
    players, seed, choice_seed, napoletana
):
    rules = TressetteRules(players=players, napoletana=napoletana)
    original, _ = TressetteState.new_game(rules, seed=seed)
    rnd_a, rnd_b = random.Random(choice_seed), random.Random(choice_seed)
    resumed = load_state(dump_state(original))
    while not original.game_over:
        events_a = original.apply(rnd_a.choice(original.legal_moves()))
        resumed = load_state(dump_state(resumed))
        events_b = resumed.apply(rnd_b.choice(resumed.legal_moves()))
        assert events_a == events_b
        assert original == resumed
    assert resumed.game_over


@pytest.mark.parametrize("players", [2, 4])
def test_many_seeded_hands_total_exactly_11_plus_declarations(players):
    for napoletana in (False, True):
        rules = TressetteRules(players=players, napoletana=napoletana)
        state, _ = TressetteState.new_game(rules, seed=7)
        hands = declared = 0
        for step in steps(state, random_chooser(7)):
            declared += sum(isinstance(e, NapoletanaDeclared) for e in step.events)
            for e in step.events:
                if isinstance(e, HandScored):
                    hands += 1
                    assert sum(s.total for s in e.sides) == 11 + 3 * declared
                    declared = 0
        assert hands >= 2
