"""The Tressette state stays small and its codec refuses what no game reaches."""

from __future__ import annotations

import dataclasses
import random

import pytest

from mazzo.engine import InvalidInput, Reason, dump_state, load_state
from mazzo.engine.tressette import TressetteRules, TressetteState
from tests.engine.tressette_support import make_state


def test_shown_cards_are_forgotten_when_the_stock_runs_out_so_the_state_stays_small():
    for seed in range(20):
        state, _ = TressetteState.new_game(TressetteRules(players=2, napoletana=True), seed=seed)
        chooser = random.Random(seed)
        while not state.game_over:
            state.apply(chooser.choice(state.legal_moves()))
            assert len(dump_state(state)) < 100
            if not state.stock:
                assert state.revealed == [[], []]


def test_unknown_option_bits_are_refused_as_corrupt():
    state, _ = TressetteState.new_game(TressetteRules(players=2), seed=1)
    data = bytearray(dump_state(state))
    # tag, format, players, target (2 bytes), then the flags: napoletana, fresh draws
    data[5] |= 0b100
    with pytest.raises(InvalidInput) as refused:
        load_state(bytes(data))
    assert refused.value.reason is Reason.STATE_CORRUPT


def test_four_players_with_a_stock_are_refused_as_corrupt():
    state = make_state(hands=["1D", "2D", "3D", "4D"], stock="5D", fill=0)
    with pytest.raises(InvalidInput) as refused:
        load_state(dump_state(state))
    assert refused.value.reason is Reason.STATE_CORRUPT


@pytest.mark.parametrize("napoletana", ["no", 1, None])
def test_napoletana_must_be_true_or_false(napoletana):
    with pytest.raises(InvalidInput) as refused:
        TressetteRules(napoletana=napoletana)
    assert refused.value.reason is Reason.INVALID_OPTION


def test_a_reloaded_state_equals_the_original_after_forgetting_shown_cards():
    state, _ = TressetteState.new_game(TressetteRules(players=2, napoletana=True), seed=3)
    state = dataclasses.replace(state, revealed=[[], []])
    assert load_state(dump_state(state)) == state
