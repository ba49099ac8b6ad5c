"""Mazzo's rules engine: pure Python, no I/O, no clock, no global randomness.

The public names::

    from mazzo.engine import Card, Move, get_game, dump_state, load_state
    from mazzo.engine.scopa import ScopaRules

    game = get_game("scopa")  # a game is its State class
    state, events = game.new_game(ScopaRules(players=2), seed=42)
    events = state.apply(state.legal_moves()[0])  # in place
"""

from mazzo.engine.cards import DECK, Card, parse_cards
from mazzo.engine.errors import InvalidInput, Reason, RuleError
from mazzo.engine.game import IllegalMove, Move, Status
from mazzo.engine.options import OptionSpec
from mazzo.engine.registry import GAMES, Game, dump_state, game_of, get_game, load_state
from mazzo.engine.state import State

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
    "State",
    "Status",
    "dump_state",
    "game_of",
    "get_game",
    "load_state",
    "parse_cards",
]
