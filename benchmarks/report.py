"""A results file as Markdown tables, for docs/performance.md.

python -m benchmarks.report benchmarks/results/latest.json
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

from benchmarks.stats import Figure, _cell_text


def _cell(cell: Any) -> str:
    if isinstance(cell, dict) and "runs" in cell:
        return _cell_text(Figure.of(cell["runs"], cell.get("unit", "")))
    return _cell_text(cell)


def markdown(results: dict[str, Any]) -> str:
    about = results["machine"]
    load = about.get("load_average_at_start") or []
    lines = [
        f"Measured {results['measured_at']} at commit {about.get('git_commit')}: "
        f"{about['nproc']} x {about['cpu_model']}, Python {about['python']}, "
        f"load average at the start {' '.join(f'{x:.2f}' for x in load)}.",
    ]
    for table in results["tables"]:
        lines += ["", f"**{table['title']}**", ""]
        lines.append("| " + " | ".join(table["columns"]) + " |")
        lines.append("|" + "|".join("---" for _ in table["columns"]) + "|")
        for row in table["rows"]:
            lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
        if table["notes"]:
            lines += ["", " ".join(table["notes"])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    print(markdown(json.loads(pathlib.Path(args[0]).read_text())), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
