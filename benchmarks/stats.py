"""Figures (median of repeated runs, with min..max), tables, and the JSON results file."""

from __future__ import annotations

import json
import math
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Figure:
    """One measured quantity over repeated runs: the median and the range."""

    runs: tuple[float, ...]
    unit: str = ""

    @classmethod
    def of(cls, runs: Sequence[float], unit: str = "") -> Figure:
        if not runs:
            raise ValueError("a figure needs at least one run")
        return cls(tuple(float(r) for r in runs), unit)

    @property
    def median(self) -> float:
        return float(statistics.median(self.runs))

    @property
    def min(self) -> float:
        return min(self.runs)

    @property
    def max(self) -> float:
        return max(self.runs)

    def text(self) -> str:
        """``12.3 (11.9..12.8)``: three significant figures or more for big numbers."""
        if len(self.runs) == 1:
            return _num(self.median)
        return f"{_num(self.median)} ({_num(self.min)}..{_num(self.max)})"

    def as_json(self) -> dict[str, Any]:
        return {
            "median": self.median,
            "min": self.min,
            "max": self.max,
            "runs": list(self.runs),
            "unit": self.unit,
        }


def _num(value: float) -> str:
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:,.0f}"
    if magnitude >= 100:
        return f"{value:.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def ratio(numerator: Figure, denominator: Figure) -> Figure:
    """Run-by-run ratio of two figures measured in the same runs (same run count)."""
    runs = [n / d for n, d in zip(numerator.runs, denominator.runs, strict=True) if d]
    return Figure.of(runs or [0.0], "ratio")


def repeat(times: int, measure: Callable[[], float]) -> list[float]:
    return [measure() for _ in range(times)]


Cell = str | int | float | Figure | None


@dataclass
class Table:
    """A printed table, also written to the results file."""

    name: str
    title: str
    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: Cell) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.name}: {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(list(cells))

    def render(self) -> str:
        texts = [[_cell_text(c) for c in row] for row in self.rows]
        widths = [
            max([len(col)] + [len(row[i]) for row in texts]) for i, col in enumerate(self.columns)
        ]
        lines = [self.title, ""]
        lines.append("  ".join(c.ljust(w) for c, w in zip(self.columns, widths, strict=True)))
        lines.append("  ".join("-" * w for w in widths))
        for row in texts:
            cells = [
                t.ljust(w) if i == 0 else t.rjust(w)
                for i, (t, w) in enumerate(zip(row, widths, strict=True))
            ]
            lines.append("  ".join(cells))
        lines.extend(f"  {note}" for note in self.notes)
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "columns": self.columns,
            "rows": [[_cell_json(c) for c in row] for row in self.rows],
            "notes": self.notes,
        }


def _cell_text(cell: Cell) -> str:
    if cell is None:
        return "-"
    if isinstance(cell, Figure):
        return cell.text()
    if isinstance(cell, float):
        return _num(cell)
    return str(cell)


def _cell_json(cell: Cell) -> Any:
    return cell.as_json() if isinstance(cell, Figure) else cell


#: A 95% interval's half-width, in standard errors.
Z95 = 1.96


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95% interval (normal approximation over the pairs)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


#: An arena's duplicate pairs: each a list of its matches' counts.
Pairs = Sequence[Sequence[dict[str, Any]]]


def pair_win_rates(pairs: Pairs) -> list[float]:
    """A's share of each pair's matches won."""
    return [sum(match["a_won"] for match in pair) / len(pair) for pair in pairs]


def pair_margins(pairs: Pairs) -> list[float]:
    """A's points a hand over B's in each pair."""
    return [
        sum(m["points"][0] - m["points"][1] for m in pair) / max(1, sum(m["hands"] for m in pair))
        for pair in pairs
    ]


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    model = "unknown"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "git_commit": _git_commit(),
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=pathlib.Path(__file__).parent,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


#: A JSON array of numbers, strings, booleans or nulls, over lines.
_FLAT_ARRAY = re.compile(r"\[[^\[\]{}]*\]")
_LINE_BREAK = re.compile(r"\s*\n\s*")


def write_results(path: pathlib.Path, body: dict[str, Any]) -> None:
    """A results file (benchmarks.summaries builds what it holds): a field a
    line, an array of plain values on one (JSON strings hold no line break, so
    only the space between values is taken out)."""
    text = json.dumps(body, indent=1)
    text = _FLAT_ARRAY.sub(lambda array: _LINE_BREAK.sub(" ", array[0]), text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")
