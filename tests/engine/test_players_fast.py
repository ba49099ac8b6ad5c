"""The searching players' play-outs: played as the engine plays, to the hand's end.

Every game's play-out plays on a clone of the game's own State
(:meth:`~mazzo.engine.state.State.step`): no rule is written again, and what is
held is the play-out's own (:func:`check_play_out`): the moves its rules of
thumb choose are legal, its result is the engine's score of the hand it played,
and the state it was given is left as it was, for the next move's play-out.

The rules are drawn from the catalog: every option of the game's ``options``
(every variant, switch, enum value, target and re bello card) and every player
count, each left unset or set; a mix the rules refuse is cut down, one refused
option at a time, to one they accept. From a position of a seeded game, a
simulated deal of the seat's view (as the intermediate makes), one of its legal
moves, then the rest of the hand by the play-out. Its moves, seen as it steps,
are replayed move by move through the engine's checked ``apply``: legal at every
move, the last one ending the hand, whose scores are the play-out's result.
"""

from __future__ import annotations

import random
from typing import Any
from unittest import mock

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mazzo.engine import Game, Move, get_game
from mazzo.engine.briscola import CARD_POINTS, BriscolaRules, BriscolaState
from mazzo.engine.events import Event, HandScored, TrickWon
from mazzo.engine.players import fast_briscola
from mazzo.engine.players.games import bots_of
from mazzo.engine.scopa import ScopaState
from mazzo.engine.scopa_rules import ScopaRules
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.options_support import catalog_rules

BRISCOLA = get_game("briscola")
#: How often the simulated players play at random: never, as the intermediate, always.
EXPLORE = st.sampled_from([0.0, 0.1, 1.0])
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
#: Random moves played before the position (a hand has at most 40), often few: the
#: first trick, where Tressette's hands declare their napoletane, and the first round.
PLIES = st.integers(min_value=0, max_value=40) | st.integers(min_value=0, max_value=3)


def position(game: Game, rules: Any, seed: int, plies: int) -> tuple[Any, random.Random]:
    """The state after up to ``plies`` random moves of the first hand of a seeded game
    (before the move that ends it)."""
    state, _ = game.new_game(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        after = state.clone()
        after.apply(rng.choice(after.legal_moves()))
        if after.hand_number != state.hand_number or after.winner is not None:
            break
        state = after
    return state, rng


def engine_move(state: Any, stepped: Move) -> Move:
    """The engine's move for a move as a play-out steps it: the same, but for a
    Scopa card stepped with an empty taking, which ``step`` lays, and which the
    engine's ``apply`` spells as a lay (``lay=True``) where the card could take."""
    if not isinstance(state, ScopaState) or stepped.take:
        return stepped
    could_take = any(m.card == stepped.card and m.take for m in state.legal_moves())
    return stepped._replace(lay=could_take)


def engine_events(state: Any, moves: list[Move]) -> list[Event]:
    """The events of ``moves`` replayed on a clone of ``state`` through the engine's
    checked ``apply``, each legal: the last one ends the hand, none before it does.
    Up to the hand's scores."""
    state = state.clone()
    told: list[Event] = []
    for number, stepped in enumerate(moves, start=1):
        move = engine_move(state, stepped)
        assert move in state.legal_moves(), move
        events = state.apply(move)
        ends = any(isinstance(e, HandScored) for e in events)
        assert ends == (number == len(moves)), (move, events)
        told += events
    return told[: 1 + next(i for i, e in enumerate(told) if isinstance(e, HandScored))]


def simulated_position(game: Game, rules: Any, seed: int, plies: int) -> tuple[Any, Move]:
    """A simulated deal of the view of the seat to play in a :func:`position`, and
    one of its legal moves, as the intermediate plays them out."""
    state, rng = position(game, rules, seed, plies)
    seen = state.view(state.to_play)
    simulated = bots_of(game.name).simulator(seen)(rng)
    return simulated, rng.choice(simulated.legal_moves())


def check_play_out(
    state_type: type[ScopaState] | type[TressetteState] | type[BriscolaState],
    rules: Any,
    seed: int,
    plies: int,
    explore: float,
) -> None:
    """The play-out's moves, seen as it steps its clone of the state, replayed
    through the engine's checked ``apply``: legal, ``move`` first, the last one
    ending the hand, whose score is the play-out's result."""
    game = get_game(state_type.name)
    simulated, move = simulated_position(game, rules, seed, plies)
    untouched = simulated.clone()
    play_out = bots_of(game.name).play_out
    with mock.patch.object(state_type, "step", autospec=True, side_effect=state_type.step) as step:
        totals = play_out(simulated, move, random.Random(seed), explore)
    assert simulated == untouched  # played on a clone: the next move's play-out starts here too
    played = [call.args[1] for call in step.call_args_list]
    assert played[0] == move
    told = engine_events(simulated, played)
    scored = told[-1]
    assert isinstance(scored, HandScored)
    # Briscola's play-out counts card points: the hand's winner follows from them.
    points = "card_points" if state_type is BriscolaState else "total"
    assert totals == tuple(getattr(side, points) for side in scored.sides)


@settings(max_examples=250, derandomize=True)
@given(rules=catalog_rules(ScopaState), seed=SEEDS, plies=PLIES, explore=EXPLORE)
def test_scopa_play_outs_play_legal_moves_and_score_the_hand_as_the_engine(
    rules: ScopaRules, seed: int, plies: int, explore: float
) -> None:
    check_play_out(ScopaState, rules, seed, plies, explore)


@settings(max_examples=300, derandomize=True)
@given(rules=catalog_rules(TressetteState), seed=SEEDS, plies=PLIES, explore=EXPLORE)
def test_tressette_play_outs_play_legal_cards_and_score_the_hand_as_the_engine(
    rules: TressetteRules, seed: int, plies: int, explore: float
) -> None:
    check_play_out(TressetteState, rules, seed, plies, explore)


@settings(max_examples=200, derandomize=True)
@given(rules=catalog_rules(BriscolaState), seed=SEEDS, plies=PLIES, explore=EXPLORE)
def test_briscola_play_outs_play_legal_cards_and_count_the_hand_as_the_engine(
    rules: BriscolaRules, seed: int, plies: int, explore: float
) -> None:
    check_play_out(BriscolaState, rules, seed, plies, explore)


def won_in(events: list[Event], seat: int) -> int:
    """``seat``'s card points over the other's in the tricks ``events`` tell of."""
    return sum(
        (1 if e.side == seat else -1) * sum(CARD_POINTS[c] for c in e.cards)
        for e in events
        if isinstance(e, TrickWon)
    )


def margin_after(state: BriscolaState, move: Move, seat: int) -> int:
    """``seat``'s card points over the other's from ``move`` to the hand's end, both
    playing at their best after it: a minimax through the engine's own moves,
    tricks and scoring."""
    after = state.clone()
    events = after.apply(move)
    if any(isinstance(e, HandScored) for e in events):
        return won_in(events, seat)
    worths = [margin_after(after, reply, seat) for reply in after.legal_moves()]
    return won_in(events, seat) + (max(worths) if after.to_play == seat else min(worths))


@settings(max_examples=300, derandomize=True)
@given(seed=SEEDS, plies=st.integers(min_value=34, max_value=39))
def test_two_player_briscola_play_outs_play_the_known_end_of_a_hand_at_its_best(
    seed: int, plies: int
) -> None:
    # With the stock gone every card is known: the play-out plays the rest as a
    # perfect player would, whichever card the seat starts with.
    state, _ = position(BRISCOLA, BriscolaRules(players=2), seed, plies)
    assume(state.turn_up is None)
    seat = state.to_play
    before = state.worth_won()
    for move in state.legal_moves():
        totals = fast_briscola.play_out(state, move, random.Random(seed), 0.0)
        gained = [total - start for total, start in zip(totals, before, strict=True)]
        assert gained[seat] - gained[1 - seat] == margin_after(state, move, seat), move
