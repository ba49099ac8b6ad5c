"""The performance targets against the figures of this run: met or not, and by how much."""

from __future__ import annotations

from typing import Any

from benchmarks.stats import Figure, Table

ENGINE_ROW = "Scopa, 2 players, to 11"
ENGINE_PLIES_PER_S = 100_000
TOKEN_BYTES = 200
TOKEN_US = 20.0


def summary(tables: list[Table]) -> Table | None:
    """The targets table, from whichever of the tables this run produced."""
    by_name = {t.name: t for t in tables}
    table = Table(
        "targets",
        "Performance targets in this run",
        ["target", "bar", "measured (median)", "met"],
    )
    engine = by_name.get("engine_games")
    if engine is not None:
        for row in engine.rows:
            if row[0] == ENGINE_ROW and isinstance(row[2], Figure):
                _add(
                    table,
                    "engine: random 2-player Scopa, plies/s",
                    ENGINE_PLIES_PER_S,
                    row[2],
                    True,
                )
    sizes = by_name.get("token_sizes")
    if sizes is not None:
        largest = max((_median(cell) for row in sizes.rows for cell in row[2:4]), default=0)
        _add(table, "token: largest, any game and position, bytes", TOKEN_BYTES, largest, False)
    times = by_name.get("token_times")
    if times is not None and times.rows:
        for column, what in ((1, "seal"), (2, "open")):
            worst = max(_median(row[column]) for row in times.rows)
            _add(table, f"token: {what}, slowest game, us", TOKEN_US, worst, False)
    ratios = by_name.get("service_ratios")
    if ratios is not None:
        for row in ratios.rows:
            if not str(row[2]).startswith(">= "):
                continue  # a calibration row
            bar = float(str(row[2]).removeprefix(">= "))
            _add(table, f"{row[0]}: calls/s vs baseline", bar, row[1], True)
    return table if table.rows else None


def _median(cell: Any) -> float:
    return cell.median if isinstance(cell, Figure) else float(cell)


def _add(table: Table, what: str, bar: float, measured: Any, at_least: bool) -> None:
    value = _median(measured)
    met = value >= bar if at_least else value < bar
    sign = ">=" if at_least else "<"
    table.add(what, f"{sign} {bar:g}", measured, "yes" if met else "NO")
