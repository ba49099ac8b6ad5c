"""The API reference lists every reason a caller can meet."""

from __future__ import annotations

import pathlib

from engine import Reason
from service.errors import ServiceReason
from service.state_token import REASONS as STATE_REASONS

API_DOC = (pathlib.Path(__file__).parent.parent / "docs" / "api.md").read_text()


def test_every_reason_code_is_documented_in_the_api_reference() -> None:
    reasons = {r.value for r in Reason} | {r.value for r in ServiceReason} | set(STATE_REASONS)
    missing = sorted(r for r in reasons if f"| `{r}` |" not in API_DOC)
    assert missing == []
