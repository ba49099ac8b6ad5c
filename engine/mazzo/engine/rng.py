"""A tiny seeded generator whose whole state is one 64-bit integer.

The state travels inside the game state, so a game is reproducible from its
seed and its moves on every machine and every version of Python. Python's own
``random`` is not used: its state is 2.5 KB (too big for a token) and its
``shuffle`` is not promised to stay the same across versions.

The generator is SplitMix64 (Steele, Lea and Flood, 2014), the usual seeder of
the xoshiro family: one addition and a few xor-shift-multiplies per draw.
Bounded draws use rejection, so every shuffle is unbiased.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
MASK64 = (1 << 64) - 1
_GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def next_u64(state: int) -> tuple[int, int]:
    """Return ``(new_state, value)``: one 64-bit draw."""
    state = (state + _GOLDEN_GAMMA) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def below(state: int, bound: int) -> tuple[int, int]:
    """Return ``(new_state, value)`` with value uniform in ``0 .. bound-1``."""
    # Draws under `reject` would favour the low values: 2**64 is not a
    # multiple of `bound`.
    reject = (1 << 64) % bound
    while True:
        state, value = next_u64(state)
        if value >= reject:
            return state, value % bound


def shuffled(state: int, items: Sequence[T]) -> tuple[int, tuple[T, ...]]:
    """Fisher-Yates: return ``(new_state, items in a random order)``.

    The same draws as ``below(state, i + 1)`` for i from the last position down
    (tests/engine/test_rng.py holds it to that), with :func:`next_u64`'s step
    written out inline: every hand of every game shuffles a deck, and the calls
    cost more than the arithmetic.
    """
    out = list(items)
    size = len(out)
    rejects = _REJECT if size < len(_REJECT) else _rejects(size)
    for i in range(size - 1, 0, -1):
        bound = i + 1
        reject = rejects[bound]
        while True:
            state = (state + _GOLDEN_GAMMA) & MASK64
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            z ^= z >> 31
            if z >= reject:
                break
        j = z % bound
        out[i], out[j] = out[j], out[i]
    return state, tuple(out)


def _rejects(size: int) -> tuple[int, ...]:
    """below()'s rejection threshold for every bound up to ``size``."""
    return tuple((1 << 64) % bound if bound else 0 for bound in range(size + 1))


#: below()'s rejection threshold for the bounds of a 40-card shuffle.
_REJECT = _rejects(40)
