"""The points of a hand of Scopa and its variants (docs/rules.md, docs/variants.md)."""

from __future__ import annotations

from collections.abc import Sequence

from mazzo.engine.cards import COINS, DECK_SIZE, RANKS, SETTEBELLO, Card
from mazzo.engine.events import SideScore
from mazzo.engine.game import unique_best
from mazzo.engine.scopa_rules import PrimieraRule, ScopaRules

#: Primiera values of ranks 1..10 (index 0 unused).
PRIMIERA_SCALE = (0, 16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
#: The sevens rule compares counts of these ranks, in this order.
SEVENS_ORDER = (7, 6, 5, 4, 3, 2, 1)
GRANDE = (Card.of(8, COINS), Card.of(9, COINS), Card.of(10, COINS))
GRANDE_POINTS = 5
#: The piccola's run of coins stops at the 7 (the jack to the king are the
#: grande's), or at the 6 with ``piccola_stops_at_six``.
PICCOLA_TOP = 7
PICCOLA_SHORT_TOP = 6


def score_hand(
    rules: ScopaRules,
    piles: Sequence[Sequence[Card]],
    sweeps: Sequence[int],
    declared: Sequence[int] = (),
) -> tuple[SideScore, ...]:
    """Every side's points for one hand; ``declared`` holds Cirulla's declarations by side."""
    masks = [pile_mask(p) for p in piles]
    suits = [_suit_fields(m) for m in masks]
    counts = [len(p) for p in piles]
    coins = [_coins(m).bit_count() for m in masks]
    totals = [_primiera_of_suits(s) for s in suits]
    cards_winner = unique_best(counts)
    coins_winner = unique_best(coins)
    primiera_winner = _primiera_winner(rules.primiera, suits, totals)
    re_bello = 0 if rules.re_bello is None else 1 << rules.re_bello
    piccola_top = PICCOLA_SHORT_TOP if rules.piccola_stops_at_six else PICCOLA_TOP
    return tuple(
        SideScore(
            side,
            counts[side],
            coins[side],
            totals[side],
            int(cards_winner == side),
            int(coins_winner == side),
            mask >> SETTEBELLO & 1,
            int(primiera_winner == side),
            sweeps[side],
            _run_points(mask, 10) if rules.napola else 0,
            int(mask & re_bello != 0),
            _grande(mask) if rules.grande_piccola else 0,
            _run_points(mask, piccola_top) if rules.grande_piccola else 0,
            declared[side] if declared else 0,
        )
        for side, mask in enumerate(masks)
    )


# A pile is scored as a 40-bit mask, bit c for card c (suit * 10 + rank - 1): one
# pass over the cards, then every point is a few bit operations on the mask.
_BIT = tuple(1 << c for c in range(DECK_SIZE))
_SUIT_BITS = (1 << 10) - 1
_SUIT_SHIFTS = (0, 10, 20, 30)
#: The best primiera value among the ranks present in one suit's 10 bits.
_SUIT_PRIMIERA = tuple(
    max((PRIMIERA_SCALE[rank] for rank in RANKS if bits >> (rank - 1) & 1), default=0)
    for bits in range(1 << 10)
)
_GRANDE_BITS = sum(1 << c for c in GRANDE)


def _coins(mask: int) -> int:
    """The coins' 10 bits, the ace lowest."""
    return mask >> _SUIT_SHIFTS[COINS] & _SUIT_BITS


def pile_mask(pile: Sequence[Card]) -> int:
    """The pile's cards as bits (a pile holds each card once)."""
    return sum(map(_BIT.__getitem__, pile))


def _suit_fields(mask: int) -> list[int]:
    return [mask >> shift & _SUIT_BITS for shift in _SUIT_SHIFTS]


def _primiera_of_suits(suits: list[int]) -> int:
    return sum(_SUIT_PRIMIERA[bits] for bits in suits)


def primiera_total(pile: Sequence[Card]) -> int:
    """Sum over the suits present of the best card's primiera value."""
    return _primiera_of_suits(_suit_fields(pile_mask(pile)))


def _count_rank(suits: list[int], rank: int) -> int:
    return sum(bits >> (rank - 1) & 1 for bits in suits)


def primiera_winner_of(rule: PrimieraRule, piles: Sequence[Sequence[Card]]) -> int | None:
    """The side that wins the primiera point under ``rule``; ``None`` on a tie."""
    suits = [_suit_fields(pile_mask(p)) for p in piles]
    return _primiera_winner(rule, suits, [_primiera_of_suits(s) for s in suits])


def _primiera_winner(rule: PrimieraRule, suits: list[list[int]], totals: list[int]) -> int | None:
    """``suits``: each pile's four suit fields; ``totals``: each pile's primiera."""
    if rule is PrimieraRule.MOST_SEVENS:
        return unique_best([_count_rank(s, 7) for s in suits])
    if rule is PrimieraRule.SEVENS:
        return unique_best([tuple(_count_rank(s, r) for r in SEVENS_ORDER) for s in suits])
    complete = [all(s) for s in suits]
    if rule is PrimieraRule.LENIENT and not any(complete):
        # Every side lacks a suit: compare what they have.
        return unique_best(totals)
    eligible = [total if full else -1 for total, full in zip(totals, complete, strict=True)]
    if max(eligible) < 0:
        return None
    return unique_best(eligible)


def _run_points(mask: int, top: int) -> int:
    """The unbroken run of coins from the ace, up to ``top``, when it reaches the 3."""
    coins = _coins(mask)
    run = min((~coins & (coins + 1)).bit_length() - 1, top)  # trailing ones
    return run if run >= 3 else 0


def napola_points(pile: Sequence[Card]) -> int:
    """Length of the run of coins from the ace, when it reaches the 3; else 0."""
    return _run_points(pile_mask(pile), 10)


def piccola_points(pile: Sequence[Card], top: int = PICCOLA_TOP) -> int:
    """Cirulla: ace, 2 and 3 of coins make 3, one more for each next coin up to ``top``."""
    return _run_points(pile_mask(pile), top)


def _grande(mask: int) -> int:
    return GRANDE_POINTS if mask & _GRANDE_BITS == _GRANDE_BITS else 0


def grande_points(pile: Sequence[Card]) -> int:
    """Cirulla: the jack, knight and king of coins make 5."""
    return _grande(pile_mask(pile))
