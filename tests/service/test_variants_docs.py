"""docs/variants.md names the API's enum values as the API spells them (its
NewGame bodies are sent to a server, and their refusals checked for the reason
the page names, with every other JSON example of the docs: tests/test_docs.py)."""

from __future__ import annotations

import pathlib
import re

from mazzo.engine import Reason

PAGE = (pathlib.Path(__file__).parents[2] / "docs" / "variants.md").read_text()


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
