"""The points of a hand of Scopa and its variants (docs/rules.md, docs/variants.md)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import COINS, RANK_OF, SETTEBELLO, SUIT_OF, Card
from engine.events import SideScore
from engine.game import unique_best
from engine.scopa_rules import PrimieraRule, ScopaRules

#: Primiera values of ranks 1..10 (index 0 unused).
PRIMIERA_SCALE = (0, 16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
#: The sevens rule compares counts of these ranks, in this order.
SEVENS_ORDER = (7, 6, 5, 4, 3, 2, 1)
GRANDE = (Card.of(8, COINS), Card.of(9, COINS), Card.of(10, COINS))
GRANDE_POINTS = 5
#: The piccola's run of coins stops at the 7: the jack to the king are the grande's.
PICCOLA_TOP = 7


def score_hand(
    rules: ScopaRules,
    piles: Sequence[Sequence[Card]],
    sweeps: Sequence[int],
    declared: Sequence[int] = (),
) -> tuple[SideScore, ...]:
    """Every side's points for one hand; ``declared`` holds Cirulla's declarations by side."""
    counts = [len(p) for p in piles]
    coins = [sum(1 for c in p if SUIT_OF[c] == COINS) for p in piles]
    cards_winner = unique_best(counts)
    coins_winner = unique_best(coins)
    primiera_winner = primiera_winner_of(rules.primiera, piles)
    return tuple(
        SideScore(
            side=side,
            cards=counts[side],
            denari=coins[side],
            primiera=primiera_total(pile),
            cards_point=int(cards_winner == side),
            denari_point=int(coins_winner == side),
            settebello_point=int(SETTEBELLO in pile),
            primiera_point=int(primiera_winner == side),
            sweeps=sweeps[side],
            napola=napola_points(pile) if rules.napola else 0,
            re_bello_point=int(rules.re_bello is not None and rules.re_bello in pile),
            grande=grande_points(pile) if rules.grande_piccola else 0,
            piccola=piccola_points(pile) if rules.grande_piccola else 0,
            declarations=declared[side] if declared else 0,
        )
        for side, pile in enumerate(piles)
    )


def primiera_total(pile: Sequence[Card]) -> int:
    """Sum over the suits present of the best card's primiera value."""
    best = [0, 0, 0, 0]
    for card in pile:
        best[SUIT_OF[card]] = max(best[SUIT_OF[card]], PRIMIERA_SCALE[RANK_OF[card]])
    return sum(best)


def _has_every_suit(pile: Sequence[Card]) -> bool:
    return len({SUIT_OF[c] for c in pile}) == 4


def _count_rank(pile: Sequence[Card], rank: int) -> int:
    return sum(1 for c in pile if RANK_OF[c] == rank)


def primiera_winner_of(rule: PrimieraRule, piles: Sequence[Sequence[Card]]) -> int | None:
    """The side that wins the primiera point under ``rule``; ``None`` on a tie."""
    if rule is PrimieraRule.MOST_SEVENS:
        return unique_best([_count_rank(p, 7) for p in piles])
    if rule is PrimieraRule.SEVENS:
        return unique_best([tuple(_count_rank(p, r) for r in SEVENS_ORDER) for p in piles])
    complete = [_has_every_suit(p) for p in piles]
    if rule is PrimieraRule.LENIENT and not any(complete):
        # Every side lacks a suit: compare what they have.
        return unique_best([primiera_total(p) for p in piles])
    totals = [primiera_total(p) if full else -1 for p, full in zip(piles, complete, strict=True)]
    if max(totals) < 0:
        return None
    return unique_best(totals)


def _coin_run(pile: Sequence[Card], top: int = 10) -> int:
    """Length of the unbroken run of coins from the ace, up to ``top``."""
    coins = {RANK_OF[c] for c in pile if SUIT_OF[c] == COINS}
    run = 0
    while run < top and run + 1 in coins:
        run += 1
    return run


def napola_points(pile: Sequence[Card]) -> int:
    """Length of the run of coins from the ace, when it reaches the 3; else 0."""
    run = _coin_run(pile)
    return run if run >= 3 else 0


def piccola_points(pile: Sequence[Card]) -> int:
    """Cirulla: ace, 2 and 3 of coins make 3, one more for each next coin up to the 7."""
    run = _coin_run(pile, PICCOLA_TOP)
    return run if run >= 3 else 0


def grande_points(pile: Sequence[Card]) -> int:
    """Cirulla: the jack, knight and king of coins make 5."""
    return GRANDE_POINTS if all(c in pile for c in GRANDE) else 0
