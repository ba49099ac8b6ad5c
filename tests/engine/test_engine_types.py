"""The engine is typed by its contract (mazzo.engine.state: State, Rules, View), not
by Any: mypy then checks what a game, a player or a caller of the registry hands
another. Where a value has no better type (JSON values, options by name), the
Any says why beside it, and stays rare."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import mazzo.engine

ENGINE = Path(mazzo.engine.__file__).parent
#: The engine's lines that use Any, at most: values no type of theirs fits (a
#: record's JSON, Scopa's presets by option name). A ratchet: a new one is a
#: choice made on purpose, with its reason beside it.
MOST_ANY_LINES = 2


def _any_lines(source: str) -> dict[int, bool]:
    """The lines that use the name ``Any`` (its import aside), each with whether a
    comment beside it, or just above it, says why."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    commented = {token.start[0] for token in tokens if token.type == tokenize.COMMENT}
    lines = source.splitlines()
    uses: dict[int, bool] = {}
    for token in tokens:
        if token.type != tokenize.NAME or token.string != "Any":
            continue
        row = token.start[0]
        if token.line.lstrip().startswith(("from ", "import ")):
            continue
        above = lines[row - 2].lstrip() if row > 1 else ""
        uses[row] = row in commented or above.startswith("#")
    return uses


def _engine_any_lines() -> dict[str, bool]:
    found: dict[str, bool] = {}
    for path in sorted(ENGINE.rglob("*.py")):
        for row, explained in _any_lines(path.read_text(encoding="utf-8")).items():
            found[f"{path.relative_to(ENGINE)}:{row}"] = explained
    return found


def test_every_any_left_in_the_engine_says_why_beside_it() -> None:
    unexplained = [where for where, explained in _engine_any_lines().items() if not explained]
    assert unexplained == []


def test_the_engine_uses_any_on_few_lines() -> None:
    uses = _engine_any_lines()
    assert len(uses) <= MOST_ANY_LINES, sorted(uses)


def test_a_comment_only_explains_the_any_beside_or_just_above_it() -> None:
    source = (
        "from typing import Any\n"
        "# a comment above\n"
        "a: Any = 1\n"
        "\n"
        "b: Any = 2  # a comment beside\n"
        "c: Any = 3\n"
        'd = "Any"  # text, not the name\n'
    )
    assert _any_lines(source) == {3: True, 5: True, 6: False}
