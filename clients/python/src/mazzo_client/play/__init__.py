"""`mazzo play`: a game in the terminal against the computer players.

It speaks to a Mazzo server only through the public API (``MazzoClient``):
a server it starts for the session (``python -m mazzo.service`` on free ports
of 127.0.0.1, when the server package is installed) or the one given by
``--server``. The human's calls carry the human seat's credential, the bots'
Suggest and Play calls their own, so the screen shows only what the human's
seat may see. See the client's README for the options.
"""

from mazzo_client.play.cli import main

__all__ = ["main"]
