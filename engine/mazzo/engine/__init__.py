"""Mazzo's rules engine: pure Python, no I/O, no clock, no global randomness.

The public names::

    from mazzo.engine import Card, Move, get_game, dump_state, load_state
    from mazzo.engine.scopa import ScopaRules

    game = get_game("scopa")
    state, events = game.new_game(ScopaRules(players=2), seed=42)
    state, events = game.apply(state, game.legal_moves(state)[0])
"""

from mazzo.engine.cards import DECK, Card, parse_cards
from mazzo.engine.errors import InvalidInput, Reason, RuleError
from mazzo.engine.game import Game, IllegalMove, Move, Status
from mazzo.engine.options import OptionSpec
from mazzo.engine.registry import GAMES, dump_state, game_of, get_game, load_state

__all__ = [
    "DECK",
    "GAMES",
    "Card",
    "Game",
    "IllegalMove",
    "InvalidInput",
    "Move",
    "OptionSpec",
    "Reason",
    "RuleError",
    "Status",
    "dump_state",
    "game_of",
    "get_game",
    "load_state",
    "parse_cards",
]
