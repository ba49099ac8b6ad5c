"""Players the arena measures the engine's levels against, never Suggest levels.

``pimc`` (:mod:`benchmarks.baselines.pimc`), the classic perfect-information
Monte Carlo search, and ``ismcts`` (:mod:`benchmarks.baselines.ismcts`), an
information-set Monte Carlo tree search: yardsticks for research, built on the
engine's public pieces (its world searches, deals and evaluation) and kept out
of the ``mazzo-engine`` distribution. ``python -m benchmarks.arena`` plays them
by name (benchmarks/RESULTS.md keeps what they measured).
"""

from __future__ import annotations

#: The players only the arena knows, by the name its rows give them.
ARENA_ONLY = ("pimc", "ismcts")
