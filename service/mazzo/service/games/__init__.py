"""Every game's codec hooks, by game name (mazzo.service.games.base).

A game joins the wire with its proto messages and one module here, listed
below: nothing else in the service names a game.
"""

from __future__ import annotations

from mazzo.service.games import briscola, scopa, tressette
from mazzo.service.games.base import GameCodec

CODECS: dict[str, GameCodec] = {
    codec.name: codec for codec in (scopa.CODEC, tressette.CODEC, briscola.CODEC)
}

__all__ = ["CODECS", "GameCodec"]
