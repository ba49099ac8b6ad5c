"""docs/variants.md: every NewGame body it shows is accepted by the server, or
refused with the reason the page gives ("is refused: `REASON`")."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from mazzo.engine import Reason
from tests.service.support import http_call

PAGE = (pathlib.Path(__file__).parents[2] / "docs" / "variants.md").read_text()
#: A JSON object in a code span, and the reason that may follow it.
SPAN = re.compile(r"`(\{[^`]*\})`(?:\s+is refused: `([A-Z_]+)`)?")


def examples() -> list[tuple[dict, str | None]]:
    found = []
    for match in SPAN.finditer(PAGE):
        body = json.loads(match.group(1))
        if "scopa" in body:
            found.append((body, match.group(2)))
    return found


EXAMPLES = examples()


def test_the_page_shows_new_game_bodies_and_refusals():
    assert len(EXAMPLES) >= 10
    assert {reason for _, reason in EXAMPLES} >= {None, "INVALID_OPTION", "INVALID_CARD"}


@pytest.mark.parametrize(("body", "reason"), EXAMPLES, ids=[json.dumps(b) for b, _ in EXAMPLES])
def test_every_new_game_body_in_variants_md_is_answered_as_the_page_says(
    rest_port: int, body: dict, reason: str | None
):
    reply = http_call(rest_port, "POST", "/v1/games", body)
    if reason is None:
        assert reply.status == 200, reply.body
        assert reply.json()["status"]["game"] == "scopa"
    else:
        assert reply.status == 400, reply.body
        (detail,) = reply.json()["error"]["details"]
        assert detail["reason"] == reason


def test_every_enum_value_the_page_names_is_spelled_as_the_api_takes_it():
    from mazzo.v1 import engine_pb2 as pb

    wire = {
        name for enum in pb.DESCRIPTOR.enum_types_by_name.values() for name in enum.values_by_name
    }
    prefixes = ("SCOPA_VARIANT_", "DEAL_", "CAPTURE_", "ACE_SWEEP_", "TABLE_BONUS_", "BONUS_")
    prefixes += ("PRIMIERA_RULE_", "FACE_")
    named = set(re.findall(r"`([A-Z][A-Z_]+)`", PAGE))
    reasons = {r.value for r in Reason}
    enums = {n for n in named if n.startswith(prefixes) and not n.endswith("_")} - reasons
    assert enums and enums <= wire, sorted(enums - wire)
