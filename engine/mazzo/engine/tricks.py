"""What the trick-taking games share: dealing a hand, playing a card to the trick,
taking it, drawing winner first, the public part of a view and of a state check.

Tressette and Briscola state each rule once here and keep what is theirs (which
card takes a trick, what a draw shows, the scoring) in their own modules, so a
new trick game is its rules on top of these functions.

A trick game's state is a named tuple with at least the fields ``rules``,
``dealer``, ``hand_number``, ``to_play``, ``leader`` (who led the trick in
progress), ``hands`` (by seat), ``trick`` (in play order from the leader),
``stock`` (the top card first), ``piles`` (cards won, by side), ``scores``,
``rng``, ``decks``, ``winner`` and ``fresh_draws``, and the property
``game_over``; its rules a value with ``players``, ``sides`` and
``side_of(seat)``. The functions read those fields and change them with
``_replace``: the states stay the games' own types (typed ``Any`` here: a
``cast`` is a call, and these run on every move the bots try).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from mazzo.engine import deal
from mazzo.engine.cards import SUIT_OF, Card
from mazzo.engine.errors import InvalidInput, Reason, Text
from mazzo.engine.events import CardDrawn, Event, TrickWon
from mazzo.engine.game import Move, Status, check_turn, hands_fit, replace_at

Hands = tuple[tuple[Card, ...], ...]
#: Called after each card a seat draws: ``(state, seat, card, events) -> state``.
OnDraw = Callable[[Any, int, Card, list[Event]], Any]


# ---------------------------------------------------------------- dealing


class Dealt(NamedTuple):
    """A hand dealt: the hands, the cards set aside after them (Briscola's turn-up),
    the stock, and what the next deal starts from."""

    hands: Hands
    set_aside: tuple[Card, ...]
    stock: tuple[Card, ...]
    rng: int
    decks: tuple[tuple[Card, ...], ...]


def deal_hand(
    players: int,
    dealer: int,
    hand_size: int,
    rng_state: int,
    decks: tuple[tuple[Card, ...], ...],
    *,
    fresh: bool,
    removed: Card | None = None,
    set_aside: int = 0,
) -> Dealt:
    """The next deck (less ``removed``, wherever it lies) dealt ``hand_size`` cards a
    seat, one at a time after the dealer; then ``set_aside`` cards; the rest is the
    stock, in card order and with no generator state left when ``fresh``."""
    rng_state, deck, decks = deal.next_deck(rng_state, decks)
    if removed is not None:  # the others keep their order
        deck = tuple(c for c in deck if c != removed)
    hands, rest = deal.deal_round(deck, players, dealer, hand_size)
    aside, stock = rest[:set_aside], rest[set_aside:]
    if fresh:  # keep nothing that orders the cards still to come
        stock, rng_state = deal.unordered(stock), 0
    return Dealt(hands, aside, stock, rng_state, decks)


def opening(
    rules: Any,
    dealer: int,
    hand_number: int,
    scores: tuple[int, ...],
    dealt: Dealt,
    fresh: bool,
) -> dict[str, Any]:
    """The trick fields of a hand's first state: the seat after the dealer leads."""
    leader = (dealer + 1) % rules.players
    return {
        "rules": rules,
        "dealer": dealer,
        "hand_number": hand_number,
        "to_play": leader,
        "leader": leader,
        "hands": dealt.hands,
        "trick": (),
        "stock": dealt.stock,
        "piles": ((),) * rules.sides,
        "scores": scores,
        "rng": dealt.rng,
        "decks": dealt.decks,
        "fresh_draws": fresh,
    }


# ---------------------------------------------------------------- playing


def check_card_alone(state: Any, move: Move, refusal: str) -> None:
    """The checks of a trick game's move: :func:`check_turn`'s, then a card alone
    (``refusal``, the game's own ``TAKE_NOT_ALLOWED`` template, if it takes or lays)."""
    players = state.rules.players
    check_turn(
        move,
        players=players,
        to_play=state.to_play,
        hand=state.hands[move.seat] if 0 <= move.seat < players else (),
        game_over=state.winner is not None,  # the field, not the property: one call less
    )
    if move.take or move.lay:
        raise InvalidInput(Reason.TAKE_NOT_ALLOWED, refusal)


def play_card(state: Any, seat: int, card: Card, **more: Any) -> Any:
    """``card`` leaves ``seat``'s hand for the trick; the turn passes to the next seat.
    ``more``: the game's own fields that change with the card, in the same
    ``_replace`` (each one rebuilds the whole state: the costliest step of a play)."""
    hands = replace_at(state.hands, seat, tuple(c for c in state.hands[seat] if c != card))
    to_play = (seat + 1) % state.rules.players
    if more:
        return state._replace(hands=hands, trick=(*state.trick, card), to_play=to_play, **more)
    return state._replace(hands=hands, trick=(*state.trick, card), to_play=to_play)


class WinningIndex(Protocol):
    """A game's ``winning_index``: see :func:`winning_index_by`."""

    def __call__(self, trick: Sequence[Card], trump_suit: int | None = None) -> int: ...


def winning_index_by(strength: Sequence[int]) -> WinningIndex:
    """A game's ``winning_index(trick, trump_suit=None)``, its cards ranked by
    ``strength`` (by card index): the position in ``trick`` (complete or not) of the
    strongest trump if one was played, else of the strongest card of the suit led.
    A closure, not a function taking ``strength``: the bots' play-outs call it."""

    def winning_index(trick: Sequence[Card], trump_suit: int | None = None) -> int:
        suit = SUIT_OF[trick[0]]
        if trump_suit is not None and any(SUIT_OF[c] == trump_suit for c in trick):
            suit = trump_suit
        return max(
            (i for i, c in enumerate(trick) if SUIT_OF[c] == suit), key=lambda i: strength[trick[i]]
        )

    return winning_index


def finish_trick(
    state: Any,
    winner: int,
    events: list[Event],
    entropy: int | None,
    *,
    draws: bool,
    private: bool = False,
    under: str = "",
    reveal: bool = False,
    on_draw: OnDraw | None = None,
) -> tuple[Any, bool]:
    """The complete trick goes to ``winner``'s side's pile and the winner leads next;
    then, when ``draws``, a round of draws (:func:`draw_round`, with the other
    arguments). Returns the state and whether the hand is over (no card left in a
    hand): a fresh game then keeps this move's ``entropy`` to shuffle the next one."""
    side = state.rules.side_of(winner)
    events.append(TrickWon(winner, side, state.leader, state.trick))
    state = state._replace(
        piles=replace_at(state.piles, side, state.piles[side] + state.trick),
        trick=(),
        leader=winner,
        to_play=winner,
    )
    if draws:
        state = draw_round(
            state, winner, events, entropy, private=private, under=under, reveal=reveal,
            on_draw=on_draw,
        )  # fmt: skip
    if any(state.hands):
        return state, False
    if state.fresh_draws:
        state = state._replace(rng=deal.required_entropy(entropy))
    return state, True


def draw_round(
    state: Any,
    winner: int,
    events: list[Event],
    entropy: int | None,
    *,
    private: bool,
    under: str = "",
    reveal: bool = False,
    on_draw: OnDraw | None = None,
) -> Any:
    """Every seat draws one card, the winner first: the stock's top card, shown to
    the drawer alone when ``private``, else to all; once the stock is out, the card
    face up under it (the state's field named ``under``), shown to all.

    ``reveal``: each card drawn is added to the state's ``revealed`` (by seat, the
    cards in hand everyone has seen). ``on_draw`` follows each draw. A fresh game
    orders the stock with this move's ``entropy`` for the draws and keeps the rest
    in card order.
    """
    drawing = state
    stock = drawing.stock
    if drawing.fresh_draws:  # the cards drawn now are chosen now
        stock = deal.fresh_order(stock, entropy)
    last = getattr(drawing, under) if under else None
    hands = list(drawing.hands)
    shown = list(drawing.revealed) if reveal else []
    players = len(hands)
    for k in range(players):
        seat = (winner + k) % players
        if stock:
            card, stock = stock[0], stock[1:]
            events.append(CardDrawn(seat, card, private))
        else:  # the stock always runs out at the end of a round: the card under it is last
            assert last is not None, "the stock ran out inside a round of draws"
            card, last = last, None
            events.append(CardDrawn(seat, card))
        hands[seat] = (*hands[seat], card)
        if reveal:
            shown[seat] = (*shown[seat], card)
        if on_draw is not None:  # it sees the state with this draw made
            drawing = on_draw(_drawn(drawing, stock, hands, shown, under, last), seat, card, events)
            hands = list(drawing.hands)
            shown = list(drawing.revealed) if reveal else []
    if drawing.fresh_draws:
        stock = deal.unordered(stock)
    if reveal:
        return _drawn(drawing, stock, hands, shown, under, last)
    if under:  # Briscola's every trick while the stock lasts: no call more
        return drawing._replace(stock=stock, hands=tuple(hands), **{under: last})
    return drawing._replace(stock=stock, hands=tuple(hands))


def _drawn(
    state: Any,
    stock: tuple[Card, ...],
    hands: list[tuple[Card, ...]],
    shown: list[tuple[Card, ...]],
    under: str,
    last: Card | None,
) -> Any:
    """The state with the draws so far: one ``_replace``."""
    more: dict[str, Any] = {under: last} if under else {}
    if shown:
        more["revealed"] = tuple(shown)
    return state._replace(stock=stock, hands=tuple(hands), **more)


# ---------------------------------------------------------------- seeing


@dataclass(frozen=True, slots=True)
class TrickView:
    """What one seat of a trick game may see, the part every trick game shows:
    docs/rules.md, Hidden information. The games' views add their own fields."""

    seat: int
    side: int
    hand: tuple[Card, ...]
    trick: tuple[Card, ...]
    leader: int
    hand_sizes: tuple[int, ...]
    stock_size: int
    piles: Hands
    known: Hands  # by seat: other seats' cards this seat has seen or can deduce
    status: Status


#: :class:`TrickView`'s fields, in order.
PublicPart = tuple[
    int, int, tuple[Card, ...], tuple[Card, ...], int, tuple[int, ...], int, Hands, Hands, Status
]


def public_part(
    state: Any, seat: int, hand: tuple[Card, ...], stock_size: int, known: Hands, status: Status
) -> PublicPart:
    """:class:`TrickView`'s fields in order, for a game's view to start with."""
    return (
        seat,
        state.rules.side_of(seat),
        hand,
        state.trick,
        state.leader,
        tuple(len(h) for h in state.hands),
        stock_size,
        state.piles,
        known,
        status,
    )


# ---------------------------------------------------------------- checking a decoded state


def seats_out_of_range(state: Any) -> list[Text]:
    """The dealer, the leader and the winning side among the seats and the sides."""
    rules = state.rules
    problems = []
    if not (0 <= state.dealer < rules.players and 0 <= state.leader < rules.players):
        problems.append(Text("seat out of range"))
    if state.winner is not None and not 0 <= state.winner < rules.sides:
        problems.append(Text("winner out of range"))
    return problems


def trick_misfits(state: Any, stock_full_hand: int = 0) -> list[Text]:
    """The trick in progress fits the turn, and the hands fit the trick: seats that
    played to it hold one card fewer; at the end, none; while the stock lasts (with
    ``stock_full_hand`` set) the seat to play holds that many."""
    players = state.rules.players
    if len(state.trick) >= players or state.to_play != (state.leader + len(state.trick)) % players:
        return [Text("the trick does not fit the turn")]
    if state.game_over:
        fits = not any(state.hands) and not state.trick
    else:
        fits = hands_fit(state.hands, state.to_play, state.leader, len(state.trick)) and (
            not stock_full_hand
            or not state.stock_size
            or len(state.hands[state.to_play]) == stock_full_hand
        )
    return [] if fits else [Text("hand sizes do not fit the trick")]
