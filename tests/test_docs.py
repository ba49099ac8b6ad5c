"""The docs match the wire: every reason, event kind and field is in the API reference,
every JSON example is what a live server takes, and no doc points outside the repository.

JSON examples are the fenced blocks and inline code spans of docs/*.md and
README.md that parse as a JSON object. A request example is sent to a live
gateway and must be accepted, unless the text right after it says it is
refused (``is refused``, ``gives 400``, ``is INVALID_...``, ``gives
INVALID_ARGUMENT``): then it must be refused as malformed input, with the
reason code the text names (``is refused: `INVALID_OPTION```). A ``"state"``
value stands for a real token (the README's game: 2-player Scopa, seed 42,
where seat 0 holds 6S 6B 9C); a bare move is validated in that game; an
options fragment (``{"variant": ...}``) is sent as the game's options. Any
other example must be a message of the API (or the error envelope of the
OpenAPI document), read strictly.
"""

from __future__ import annotations

import json
import pathlib
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest
from google.protobuf.message import Message

from mazzo.engine import Card, Reason
from mazzo.engine.scopa_rules import Face
from mazzo.service import i18n
from mazzo.service.errors import ServiceReason
from mazzo.service.handlers import EngineHandlers
from mazzo.service.json_mapping import JsonMappingError, parse_dict
from mazzo.service.metrics import Metrics
from mazzo.service.state_token import REASONS as STATE_REASONS
from mazzo.service.state_token import StateSealer
from mazzo.v1 import engine_pb2 as pb
from tests.service.support import http_call, running_stack

ROOT = pathlib.Path(__file__).parent.parent
API_DOC = (ROOT / "docs" / "api.md").read_text()
INTEGRATION_DOC = (ROOT / "docs" / "integration.md").read_text()
DOC_FILES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md", ROOT / "CHANGELOG.md"]
#: Every Markdown file a reader is sent to: the docs, and the arena's record.
LINKED_FILES = DOC_FILES + [ROOT / "benchmarks" / "RESULTS.md"]

# ---------------------------------------------------------------- the API reference


def test_every_reason_code_is_documented_in_the_api_reference() -> None:
    reasons = {r.value for r in Reason} | {r.value for r in ServiceReason} | set(STATE_REASONS)
    missing = sorted(r for r in reasons if f"| `{r}` |" not in API_DOC)
    assert missing == []


def _table_rows(heading: str) -> dict[str, str]:
    """The rows of the first table under ``heading`` in api.md, by their first cell."""
    section = API_DOC.split(heading, 1)[1]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            first, rest = line[2:].split(" |", 1)
            rows.setdefault(first.strip("`"), rest)
        elif rows and not line.startswith("|"):
            break
    return rows


def test_every_event_kind_is_described_in_the_api_reference() -> None:
    kinds = [f.json_name for f in pb.Event.DESCRIPTOR.oneofs_by_name["kind"].fields]
    described = _table_rows("## Status, views and events")
    assert [k for k in kinds if k not in described] == []
    for kind in kinds:
        message = pb.Event.DESCRIPTOR.fields_by_name[
            next(f.name for f in pb.Event.DESCRIPTOR.fields if f.json_name == kind)
        ].message_type
        row = described[kind]
        missing = [f.json_name for f in message.fields if f"`{f.json_name}`" not in row]
        assert missing == [], f"event {kind}: fields not described: {missing}"


def _messages() -> Iterator[Any]:
    pending = list(pb.DESCRIPTOR.message_types_by_name.values())
    while pending:
        message = pending.pop(0)
        if not message.GetOptions().map_entry:
            yield message
        pending.extend(message.nested_types)


def test_every_message_and_every_field_is_in_the_api_reference() -> None:
    rows = _table_rows("## Every message")
    assert [m.name for m in _messages() if m.name not in rows] == []
    for message in _messages():
        row = rows[message.name]
        missing = [f.json_name for f in message.fields if f"`{f.json_name}`" not in row]
        assert missing == [], f"{message.name}: fields missing from api.md: {missing}"


# ---------------------------------------------------------------- references outside


#: What points outside the repository: the team's rules file and folder, the
#: seed texts, issue numbers, first-person notes.
OUTSIDE = re.compile(
    r"shared folder|(?-i:RULES\.md)|\bseeds? 0\d\d\b|\bseed texts?\b|\bissues? #?\d+|\bthe issue\b"
    r"|(?-i:(?<![\w`])I (?=[a-z]))",
    re.IGNORECASE,
)


# ---------------------------------------------------------------- card names

#: Where the docs name cards: the Markdown a reader is sent to, the engine's, the
#: contract's comments and the OpenAPI document made from them.
CARD_NAMING_FILES = [
    *DOC_FILES,
    ROOT / "engine" / "README.md",
    ROOT / "proto" / "mazzo" / "v1" / "engine.proto",
    ROOT / "docs" / "openapi.json",
]


def _english_rank(face: Face, rank: int) -> str:
    with i18n.speaking("en"):
        return i18n.card_name(Card.parse(f"{rank}D"), face).split()[0]


def _passages(path: pathlib.Path) -> list[str]:
    """What a reader reads as one: a paragraph (a table is one), a run of comment lines,
    a string of the JSON document."""
    text = path.read_text()
    if path.suffix == ".json":
        found: list[str] = []
        pending: list[Any] = [json.loads(text)]
        while pending:
            value = pending.pop()
            if isinstance(value, str):
                found.append(value)
            elif isinstance(value, dict | list):
                pending.extend(value.values() if isinstance(value, dict) else value)
        return found
    if path.suffix == ".proto":
        return re.findall(r"(?:^[ \t]*//.*\n)+", text, re.MULTILINE)
    return re.split(r"\n\s*\n", text)


def test_the_docs_name_the_italian_decks_cards_as_the_servers_english_does() -> None:
    """The Italian deck's 8 is the knave in the server's English card names; the jack
    is the French and the Spanish decks' 8, named where one of those decks is."""
    italian = {_english_rank(Face.ITALIAN, rank) for rank in range(1, 11)}
    others = {_english_rank(face, rank) for face in (Face.FRENCH, Face.SPANISH)
              for rank in range(1, 11)} - italian  # fmt: skip
    assert italian >= {"knave", "knight", "king"} and others == {"jack", "queen"}
    wrong = [
        f"{path.name}: {passage.strip()[:100]!r}"
        for path in CARD_NAMING_FILES
        for passage in _passages(path)
        if re.search(rf"\b({'|'.join(others)})s?\b", passage, re.IGNORECASE)
        and not re.search(r"French|Spanish", passage)
    ]
    assert wrong == []


# ---------------------------------------------------------------- the token's size

#: The key ids the API reference sizes tokens with: a 2-byte one, and a development key's.
SHORT_KEY_ID, DEV_KEY_ID = "k1", "dev-0123456789ab"
#: The seeded games played at random whose tokens the range covers, per game and player count.
SIZED_SEEDS = range(3)


def _sealing(key_id: str) -> EngineHandlers:
    return EngineHandlers(StateSealer([(key_id, bytes(32))]), Metrics())


def _token_sizes(handlers: EngineHandlers) -> list[int]:
    """The size of every token of seeded games of every game and player count, played
    at random to their end."""
    sizes = []
    for game in handlers.get_catalog(pb.GetCatalogRequest()).games:
        for players, seed in ((n, seed) for n in game.player_counts for seed in SIZED_SEEDS):
            request = pb.NewGameRequest(players=players, seed=seed)
            getattr(request, game.name).SetInParent()
            answer: Any = handlers.new_game(request)
            choose = random.Random(seed).choice
            sizes.append(len(answer.state))
            while not answer.status.game_over:
                legal = handlers.legal_moves(pb.LegalMovesRequest(state=answer.state))
                move = choose(legal.moves)
                answer = handlers.play(pb.PlayRequest(state=answer.state, move=move))
                sizes.append(len(answer.state))
    return sizes


def _computer_tokens(handlers: EngineHandlers) -> tuple[int, int]:
    """The sizes of the API reference's two tokens with computers, at their start (seat
    0 leads: no computer has played)."""
    one = pb.NewGameRequest(
        players=2, seed=1, first_dealer=1, scopa=pb.ScopaOptions(),
        computers=[pb.ComputerSeat(seat=1, level="expert")],
    )  # fmt: skip
    five = pb.NewGameRequest(
        players=6, seed=1, first_dealer=5, scopa=pb.ScopaOptions(),
        computers=[pb.ComputerSeat(seat=seat, level="expert") for seat in range(1, 6)],
        clock=pb.Clock(move_seconds=60),
    )  # fmt: skip
    return len(handlers.new_game(one).state), len(handlers.new_game(five).state)


def test_the_token_sizes_the_api_reference_gives_are_those_sealed_under_each_key_id() -> None:
    text = " ".join(API_DOC.split())
    short = re.search(r"such as `k1`, a token is (\d+) to (\d+) bytes", text)
    dev = re.search(r"the same tokens are (\d+) to (\d+) bytes", text)
    computers = re.search(r"one computer, (\d+) bytes at its start; .* a clock, (\d+)\)", text)
    assert short and dev and computers, "the sizes are not where this test reads them"
    for key_id, said in ((SHORT_KEY_ID, short), (DEV_KEY_ID, dev)):
        sizes = _token_sizes(_sealing(key_id))
        assert (min(sizes), max(sizes)) == tuple(map(int, said.groups())), key_id
    assert _computer_tokens(_sealing(SHORT_KEY_ID)) == tuple(map(int, computers.groups()))
    # The formula: the plaintext (the time it was sealed, 8 bytes, and the payload),
    # the bytes every token adds, and the key id.
    overhead = re.search(r"A token is the plaintext plus (\d+) bytes plus the key id", text)
    assert overhead is not None
    for key_id in (SHORT_KEY_ID, DEV_KEY_ID):
        payload = bytes(100)
        sealed = StateSealer([(key_id, bytes(32))]).seal(payload)
        assert len(sealed) == 8 + len(payload) + int(overhead[1]) + len(key_id)
    extra = len(DEV_KEY_ID) - len(SHORT_KEY_ID)
    assert int(dev[1]) - int(short[1]) == extra and f"adds {extra}" in INTEGRATION_DOC


@pytest.mark.parametrize("path", LINKED_FILES, ids=lambda path: path.name)
def test_no_doc_refers_to_anything_outside_the_repository(path: pathlib.Path) -> None:
    text = " ".join(path.read_text().split())  # a phrase may break across lines
    found = sorted({text[m.start() : m.end() + 20] for m in OUTSIDE.finditer(text)})
    assert found == []


def test_the_reference_check_finds_what_it_looks_for() -> None:
    for text in (
        "see docs/rules.md in the shared folder",
        "as seed 003 says",
        "from the seed texts",
        "issue 5's targets",
        "see issue #12",
        "I checked the web site",
    ):
        assert OUTSIDE.search(text), text
    for text in ("started from seed 42", '`{"seed": "42"}`', "see docs/rules.md", "i re e i fanti"):
        assert not OUTSIDE.search(text), text


# ---------------------------------------------------------------- links between the docs

_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives a Markdown text's headings: lower case, punctuation
    dropped, spaces made hyphens (code blocks' lines are no headings)."""
    anchors, in_code = set(), False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def _broken_links(path: pathlib.Path) -> list[str]:
    """The relative links of ``path`` to a file that is not there, or to a
    heading its Markdown file does not have."""
    broken = []
    for target in _LINK.findall(path.read_text()):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: outside, not checked here
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists() or (
            anchor and linked.suffix == ".md" and anchor not in _anchors(linked.read_text())
        ):
            broken.append(target)
    return broken


@pytest.mark.parametrize("path", LINKED_FILES, ids=lambda path: path.name)
def test_every_link_between_the_docs_leads_to_a_file_and_heading_that_exist(
    path: pathlib.Path,
) -> None:
    assert _broken_links(path) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(
    tmp_path: pathlib.Path,
) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## Where the search runs\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n```sh\n# not a heading\n```\n"
        "[a](other.md#where-the-search-runs) [b](#page) [c](https://example.com/x#y)\n"
        "[d](missing.md) [e](other.md#nowhere) [f](#not-a-heading) [g](gone.md#page)\n"
    )
    assert _broken_links(page) == [
        "missing.md",
        "other.md#nowhere",
        "#not-a-heading",
        "gone.md#page",
    ]


# ---------------------------------------------------------------- JSON examples


@dataclass(frozen=True)
class Example:
    path: pathlib.Path
    line: int
    value: dict[str, Any]
    refused: bool
    #: The reason code the text says it is refused with, if it names one.
    reason: str | None = None

    def __str__(self) -> str:
        return f"{self.path.name}:{self.line} {json.dumps(self.value)[:80]}"


#: Fenced blocks of JSON (no language, or json): blocks in another language, such
#: as a gRPC service config, are not messages of the API.
_FENCE = re.compile(r"```(?:json)?\n(.*?)```", re.S)
_ANY_FENCE = re.compile(r"```[^\n]*\n.*?```", re.S)
_INLINE = re.compile(r"`([^`\n]+)`")
_SAYS_REFUSED = re.compile(
    r"^\W*(is|gives|returns|answers)\s+(refused|400|`?INVALID_|`?FAILED_PRECONDITION)"
)
_NAMES_REASON = re.compile(r"^\W*is refused:\s+`([A-Z][A-Z_]+)`")


def examples(path: pathlib.Path) -> list[Example]:
    text = path.read_text()
    found = []
    spans = [(m.start(1), m.end(1)) for m in _FENCE.finditer(text)]
    outside = _ANY_FENCE.sub(lambda m: " " * len(m.group(0)), text)
    spans += [(m.start(1), m.end(1)) for m in _INLINE.finditer(outside)]
    for start, end in sorted(spans):
        candidate = text[start:end].strip()
        if not candidate.startswith("{"):
            continue
        try:
            value = json.loads(candidate)
        except ValueError:
            continue  # a sketch such as {"state", "events"}, not JSON
        after = " ".join(text[end + 1 : end + 80].split())
        refused = bool(_SAYS_REFUSED.match(after))
        named = _NAMES_REASON.match(after)
        line = text.count("\n", 0, start) + 1
        found.append(Example(path, line, value, refused, named[1] if named else None))
    return found


def _names(message: type[Message]) -> set[str]:
    return {n for f in message.DESCRIPTOR.fields for n in (f.name, f.json_name)}


@pytest.fixture(scope="module")
def gateway() -> Iterator[tuple[int, str]]:
    """A live gateway, and the token of the README's game."""
    with running_stack(rest=True) as stack:
        game = http_call(
            stack.http_port, "POST", "/v1/games", {"players": 2, "scopa": {}, "seed": "42"}
        )
        assert game.status == 200
        yield stack.http_port, game.json()["state"]


def _with_state(body: dict[str, Any], state: str) -> dict[str, Any]:
    return {**body, "state": state} if isinstance(body.get("state"), str) else body


def _request_of(value: dict[str, Any], state: str) -> tuple[str, dict[str, Any]] | None:
    """The route and body an example stands for; None when it is no request."""
    keys = set(value)
    if "state" in keys:
        route = (
            "/v1/games:play"
            if "move" in keys
            else "/v1/games:view"
            if "seat" in keys
            else "/v1/games:legalMoves"
        )
        return route, _with_state(value, state)
    if keys <= _names(pb.NewGameRequest) and keys & {"players", "scopa", "tressette", "briscola"}:
        return "/v1/games", value
    if keys <= _names(pb.Move) and "card" in keys:
        return "/v1/games:validate", {"state": state, "move": value}
    if keys and keys <= _names(pb.TressetteOptions) and keys - _names(pb.ScopaOptions):
        return "/v1/games", {"tressette": value}
    if keys and keys <= _names(pb.ScopaOptions):
        return "/v1/games", {"scopa": value}
    return None


def _error_envelope_problem(value: dict[str, Any]) -> str | None:
    document = json.loads((ROOT / "docs" / "openapi.json").read_text())
    schema = {"components": document["components"], "$ref": "#/components/schemas/Error"}
    try:
        jsonschema.Draft202012Validator(schema).validate(value)
    except jsonschema.ValidationError as error:
        return f"not the error envelope: {error.message}"
    return None


def _message_problem(value: dict[str, Any]) -> str | None:
    """None when the example reads strictly as some message of the API."""
    for descriptor in pb.DESCRIPTOR.message_types_by_name.values():
        try:
            parse_dict(value, getattr(pb, descriptor.name)())
        except JsonMappingError:
            continue
        if set(value) <= _names(getattr(pb, descriptor.name)):
            return None
    return "no message of the API reads it"


def _problem(example: Example, port: int, state: str) -> str | None:
    value = example.value
    if "error" in value:
        return _error_envelope_problem(value)
    if set(value) == {"status"}:  # what the probes answer
        answer = http_call(port, "GET", "/healthz").json()
        return None if answer == value else f"GET /healthz answers {answer}"
    request = _request_of(value, state)
    if request is None:
        return _message_problem(value)
    route, body = request
    reply = http_call(port, "POST", route, body)
    status = reply.json().get("error", {}).get("status") if reply.status != 200 else "OK"
    if example.refused:
        if status != "INVALID_ARGUMENT":
            return f"said refused, got {status}"
        reasons = [detail.get("reason") for detail in reply.json()["error"]["details"]]
        if example.reason and reasons != [example.reason]:
            return f"said refused with {example.reason}, got {reasons}"
        return None
    # A well-formed move the rules forbid (FAILED_PRECONDITION) is accepted input.
    if status in ("OK", "FAILED_PRECONDITION"):
        return None
    return f"refused: {reply.body.decode()[:200]}"


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda path: path.name)
def test_every_json_example_in_the_docs_is_what_the_server_takes(
    path: pathlib.Path, gateway: tuple[int, str]
) -> None:
    port, state = gateway
    problems = [f"{e}: {p}" for e in examples(path) if (p := _problem(e, port, state))]
    assert problems == []


def test_the_examples_are_found_and_a_bad_one_is_caught(
    tmp_path: pathlib.Path, gateway: tuple[int, str]
) -> None:
    readme = examples(ROOT / "README.md")
    assert len(readme) >= 10
    assert {"players": 2, "scopa": {}} in [e.value for e in readme]
    # docs/variants.md starts games of each variant, and names why some are refused.
    variants = [e for e in examples(ROOT / "docs" / "variants.md") if "scopa" in e.value]
    assert len(variants) >= 10
    assert {e.reason for e in variants} >= {None, "INVALID_OPTION", "INVALID_CARD"}
    doc = tmp_path / "bad.md"
    doc.write_text(
        'Start with `{"scopa": {"deal": "DEAL_THREE"}}`, or `{"scopa": {"target": 0}}`.\n\n'
        '`{"reBello": "7D"}` is INVALID_ARGUMENT; `{"reBello": "6D"}` is refused.\n'
        '`{"scopa": {"target": -1}}` is refused: `INVALID_CARD`.\n'
    )
    found = examples(doc)
    assert [e.refused for e in found] == [False, False, True, True, True]
    assert found[-1].reason == "INVALID_CARD"
    port, state = gateway
    verdicts = [_problem(e, port, state) for e in found]
    assert verdicts[0] is not None and verdicts[1] is not None  # refused, said accepted
    assert verdicts[2] is None  # refused, as said
    assert verdicts[3] is not None  # accepted, said refused
    assert verdicts[4] is not None and "said refused with INVALID_CARD" in verdicts[4]
