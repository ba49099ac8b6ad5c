"""The seeded generator: SplitMix64's published outputs, and unbiased shuffles."""

from __future__ import annotations

from collections import Counter

import pytest

from mazzo.engine import DECK, rng


def test_next_u64_gives_splitmix64s_reference_outputs():
    # Vigna's splitmix64.c seeded with 1234567: its first five outputs.
    state, outputs = 1234567, []
    for _ in range(5):
        state, value = rng.next_u64(state)
        outputs.append(value)
    assert outputs == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def reference_shuffle(state: int, items: list[int]) -> tuple[int, tuple[int, ...]]:
    """Fisher-Yates drawn with rng.below, one call per position."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state, j = rng.below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return state, tuple(out)


@pytest.mark.parametrize("seed", [0, 1, 2, 77, 2024, 2**63, 2**64 - 1])
def test_shuffled_draws_exactly_what_below_draws(seed):
    assert rng.shuffled(seed, DECK) == reference_shuffle(seed, list(DECK))


def test_shuffled_handles_sequences_longer_than_a_deck():
    items = list(range(100))
    assert rng.shuffled(5, items) == reference_shuffle(5, items)


def test_below_skips_the_draws_that_would_favour_low_values():
    # 2**64 is not a multiple of this bound: draws under 2**64 % bound are skipped.
    bound = 2**63 + 1
    reject = (1 << 64) % bound
    state, skipped = 0, 0
    for _ in range(100):
        expected_state, draw = rng.next_u64(state)
        while draw < reject:
            skipped += 1
            expected_state, draw = rng.next_u64(expected_state)
        assert rng.below(state, bound) == (expected_state, draw % bound)
        state = expected_state
    assert skipped > 0


def test_shuffled_puts_each_card_everywhere_about_equally():
    first_card = Counter(rng.shuffled(seed, DECK)[1][0] for seed in range(4000))
    assert set(first_card) == set(DECK)
    assert max(first_card.values()) < 3 * 4000 / 40
