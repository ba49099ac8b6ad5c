"""engine/README.md, the library's guide, says what the library does: each of its
Python examples runs, and each game record it shows is read and replayed.

(Its first example also runs where only the engine is installed:
tests/test_packaging.py.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mazzo.engine.record import FORMAT, from_dict, replay

GUIDE = (Path(__file__).resolve().parents[2] / "engine" / "README.md").read_text()
EXAMPLES = re.findall(r"```python\n(.*?)```", GUIDE, re.S)
RECORDS = [
    block
    for block in re.findall(r"```json\n(.*?)```", GUIDE, re.S)
    if json.loads(block).get("format") == FORMAT
]


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"example-{n}" for n in range(len(EXAMPLES))])
def test_every_python_example_of_the_guide_runs(example: str, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(example)
    done = subprocess.run(
        [sys.executable, script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_the_guide_shows_a_record_that_reads_and_replays() -> None:
    assert RECORDS
    for block in RECORDS:
        replay(from_dict(json.loads(block)))
