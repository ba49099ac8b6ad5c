"""Generate docs/openapi.json, the OpenAPI 3.1 document of the REST gateway, from proto/.

    python tools/gen_openapi.py           # (re)write docs/openapi.json
    python tools/gen_openapi.py --check   # exit 1 when docs/openapi.json is not what proto/ gives

`make openapi` runs the first. The proto files are compiled with the same
protoc and include path as tools/gen_proto.py, into a descriptor set that
keeps the comments (the generated Python code does not), and the document is
built from it:

- every RPC with a google.api.http annotation is an operation on its route
  (body "*": the request message is the JSON body; a GET takes no body);
- every message is a schema in the proto3 JSON mapping as the gateway speaks
  it: lowerCamelCase names, 64-bit integers as strings, bytes as base64,
  enums by name, maps as objects, a oneof as "at most one of" its members;
- refusals are the AIP-193 envelope, whose `reason` lists every reason the
  code defines (mazzo.engine.errors.Reason, mazzo.service.errors.ServiceReason and the
  state token's), read from the code so that the list cannot drift;
- each operation declares every status its route refuses with, each with the
  envelope's schema: the server's own account of them
  (mazzo.service.rest.refusal_statuses, from the verb and the request's fields),
  which tests/service/test_openapi.py holds to what a served gateway answers.

The descriptions are the proto comments. The output is deterministic (sorted
schemas, fixed key order), so the committed file changes only with proto/ or
the reasons.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tempfile
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from google.api import annotations_pb2, http_pb2  # noqa: E402
from google.protobuf import descriptor_pb2  # noqa: E402

from tools.gen_proto import PROTO_DIR, _include_dirs  # noqa: E402

OUTPUT = ROOT / "docs" / "openapi.json"
PACKAGE = "mazzo.v1"
SERVICE = "Engine"

FDP = descriptor_pb2.FieldDescriptorProto
_INT32 = {FDP.TYPE_INT32, FDP.TYPE_SINT32, FDP.TYPE_SFIXED32}
_UINT32 = {FDP.TYPE_UINT32, FDP.TYPE_FIXED32}
_INT64 = {FDP.TYPE_INT64, FDP.TYPE_SINT64, FDP.TYPE_SFIXED64}
_UINT64 = {FDP.TYPE_UINT64, FDP.TYPE_FIXED64}

#: Each status an operation may refuse with: its response's name and when it is given
#: (its gRPC code and reason, where it has one, come from mazzo.service.errors).
REFUSALS = {
    400: (
        "BadRequest",
        "INVALID_ARGUMENT (malformed input: the JSON body, a card, an option, the state"
        " token, ...; the HTTP layer's BAD_REQUEST for malformed HTTP) or FAILED_PRECONDITION"
        " (an illegal move in a valid state, e.g. NOT_YOUR_TURN).",
    ),
    403: (
        "Forbidden",
        "PERMISSION_DENIED: a seat credential not valid for this game"
        " (SEAT_CREDENTIAL_INVALID), used for another seat (SEAT_NOT_PERMITTED), or missing"
        " where the server requires one (SEAT_CREDENTIAL_REQUIRED).",
    ),
    408: (
        "RequestTimeout",
        "the request did not arrive whole within MAZZO_HTTP_READ_TIMEOUT of its first byte;"
        " the connection is closed.",
    ),
    409: (
        "Conflict",
        "ABORTED (STATE_VERSION_MISMATCH): `expectedPly` is not the state's ply (metadata `ply`).",
    ),
    413: ("ContentTooLarge", "a body over MAZZO_MAX_REQUEST_BYTES."),
    414: ("UriTooLong", "a request target (path and query) over {target} bytes."),
    415: ("UnsupportedMediaType", "a body with a Content-Encoding: the gateway reads plain JSON."),
    431: ("HeadersTooLarge", "the request line and headers over {header} bytes."),
}


# ---------------------------------------------------------------- descriptors


def descriptor_set() -> descriptor_pb2.FileDescriptorSet:
    """proto/ compiled with its imports and comments, as tools/gen_proto.py compiles it."""
    from grpc_tools import protoc

    with tempfile.TemporaryDirectory(prefix="mazzo-openapi-") as tmp:
        out = pathlib.Path(tmp) / "descriptors.binpb"
        sources = sorted(str(p.relative_to(PROTO_DIR)) for p in PROTO_DIR.rglob("*.proto"))
        args = ["protoc", *(f"-I{d}" for d in _include_dirs())]
        args += ["--include_imports", "--include_source_info", f"--descriptor_set_out={out}"]
        if protoc.main(args + sources) != 0:
            raise SystemExit("protoc failed")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _comments(file: descriptor_pb2.FileDescriptorProto) -> dict[tuple[int, ...], str]:
    """Leading comments by source path (message 4/i, field 4/i/2/j, enum 5/i, ...)."""
    found = {}
    for location in file.source_code_info.location:
        text = location.leading_comments.strip()
        if text:
            lines = [line.strip() for line in text.splitlines()]
            found[tuple(location.path)] = " ".join(line for line in lines if line)
    return found


class Contract:
    """The messages, enums and service of the package, with their comments."""

    def __init__(self, files: descriptor_pb2.FileDescriptorSet) -> None:
        self.messages: dict[str, tuple[descriptor_pb2.DescriptorProto, str, dict[int, str]]] = {}
        #: The comments of each message's oneofs, by message and oneof name.
        self.oneof_comments: dict[str, dict[str, str]] = {}
        self.enums: dict[str, tuple[descriptor_pb2.EnumDescriptorProto, str, dict[int, str]]] = {}
        self.service: descriptor_pb2.ServiceDescriptorProto | None = None
        self.method_comments: dict[str, str] = {}
        for file in files.file:
            if file.package != PACKAGE:
                continue
            comments = _comments(file)
            for i, message in enumerate(file.message_type):
                self._add_message(message, f".{PACKAGE}", (4, i), comments)
            for i, enum in enumerate(file.enum_type):
                self._add_enum(enum, f".{PACKAGE}", (5, i), comments)
            for i, service in enumerate(file.service):
                if service.name == SERVICE:
                    self.service = service
                    for j, method in enumerate(service.method):
                        self.method_comments[method.name] = comments.get((6, i, 2, j), "")
        if self.service is None:
            raise SystemExit(f"no service {PACKAGE}.{SERVICE} in proto/")

    def _add_message(
        self,
        message: descriptor_pb2.DescriptorProto,
        scope: str,
        path: tuple[int, ...],
        comments: dict[tuple[int, ...], str],
    ) -> None:
        full = f"{scope}.{message.name}"
        fields = {j: comments.get((*path, 2, j), "") for j in range(len(message.field))}
        self.messages[full] = (message, comments.get(path, ""), fields)
        self.oneof_comments[full] = {
            oneof.name: comments.get((*path, 8, k), "")
            for k, oneof in enumerate(message.oneof_decl)
        }
        for j, nested in enumerate(message.nested_type):
            self._add_message(nested, full, (*path, 3, j), comments)
        for j, enum in enumerate(message.enum_type):
            self._add_enum(enum, full, (*path, 4, j), comments)

    def _add_enum(
        self,
        enum: descriptor_pb2.EnumDescriptorProto,
        scope: str,
        path: tuple[int, ...],
        comments: dict[tuple[int, ...], str],
    ) -> None:
        values = {j: comments.get((*path, 2, j), "") for j in range(len(enum.value))}
        self.enums[f"{scope}.{enum.name}"] = (enum, comments.get(path, ""), values)


# ---------------------------------------------------------------- schemas


def schema_name(full_name: str) -> str:
    """`.mazzo.v1.View` -> `View`; nested types keep their parent: `GameInfo.Entry`."""
    return full_name.removeprefix(f".{PACKAGE}.")


def _ref(full_name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{schema_name(full_name)}"}


def _json_name(field: descriptor_pb2.FieldDescriptorProto) -> str:
    if field.json_name:
        return field.json_name
    head, *rest = field.name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _scalar_schema(field: descriptor_pb2.FieldDescriptorProto) -> dict[str, Any]:
    kind = field.type
    if kind in _INT32:
        return {"type": "integer", "format": "int32"}
    if kind in _UINT32:
        return {"type": "integer", "format": "int32", "minimum": 0}
    if kind in _INT64:
        return {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"}
    if kind in _UINT64:
        return {"type": "string", "format": "uint64", "pattern": "^[0-9]+$"}
    if kind == FDP.TYPE_BOOL:
        return {"type": "boolean"}
    if kind == FDP.TYPE_STRING:
        return {"type": "string"}
    if kind == FDP.TYPE_BYTES:
        return {"type": "string", "format": "byte", "contentEncoding": "base64"}
    if kind in (FDP.TYPE_FLOAT, FDP.TYPE_DOUBLE):
        return {"type": "number"}
    raise SystemExit(f"gen_openapi: no JSON schema for field {field.name} (type {kind})")


#: The well-known types the contract uses, as proto3's JSON mapping writes them.
_WELL_KNOWN: dict[str, dict[str, Any]] = {
    ".google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
}


def _value_schema(contract: Contract, field: descriptor_pb2.FieldDescriptorProto) -> dict[str, Any]:
    if field.type_name in _WELL_KNOWN:
        return dict(_WELL_KNOWN[field.type_name])
    if field.type in (FDP.TYPE_MESSAGE, FDP.TYPE_ENUM):
        if not field.type_name.startswith(f".{PACKAGE}."):
            raise SystemExit(f"gen_openapi: {field.name}: types outside {PACKAGE} are not mapped")
        return _ref(field.type_name)
    return _scalar_schema(field)


def _map_entry(contract: Contract, field: descriptor_pb2.FieldDescriptorProto) -> Any:
    entry = contract.messages.get(field.type_name)
    if entry is not None and entry[0].options.map_entry:
        return entry[0]
    return None


def _field_schema(contract: Contract, field: descriptor_pb2.FieldDescriptorProto) -> dict[str, Any]:
    entry = _map_entry(contract, field)
    if entry is not None:
        value = next(f for f in entry.field if f.name == "value")
        return {"type": "object", "additionalProperties": _value_schema(contract, value)}
    schema = _value_schema(contract, field)
    if field.label == FDP.LABEL_REPEATED:
        return {"type": "array", "items": schema}
    return schema


def _described(schema: dict[str, Any], description: str) -> dict[str, Any]:
    if not description:
        return schema
    if "$ref" in schema:  # siblings of $ref are allowed in 3.1; keep the reference first
        return {**schema, "description": description}
    return {"description": description, **schema}


def message_schema(
    contract: Contract,
    message: descriptor_pb2.DescriptorProto,
    description: str,
    field_comments: dict[int, str],
    oneof_comments: dict[str, str],
) -> dict[str, Any]:
    properties = {}
    for index, field in enumerate(message.field):
        comment = field_comments.get(index, "")
        if field.proto3_optional:
            comment = (comment + " " if comment else "") + "Optional: left out when not set."
        properties[_json_name(field)] = _described(_field_schema(contract, field), comment)
    schema: dict[str, Any] = {"type": "object"}
    if description:
        schema = {"description": description, **schema}
    schema["properties"] = properties
    oneofs = _real_oneofs(message)
    if oneofs:
        schema["allOf"] = [_at_most_one(members) for members in oneofs.values()]
        notes = [
            f"Oneof `{name}`, at most one of {', '.join(f'`{m}`' for m in members)}:"
            f" {oneof_comments.get(name) or 'one value.'}"
            for name, members in oneofs.items()
        ]
        schema["description"] = " ".join(filter(None, [description, *notes]))
        schema = {"description": schema.pop("description"), **schema}
    return schema


def _real_oneofs(message: descriptor_pb2.DescriptorProto) -> dict[str, list[str]]:
    """The oneofs written in the proto (not those proto3 `optional` makes), by name."""
    members: dict[str, list[str]] = {}
    for field in message.field:
        if field.HasField("oneof_index") and not field.proto3_optional:
            name = message.oneof_decl[field.oneof_index].name
            members.setdefault(name, []).append(_json_name(field))
    return members


def _at_most_one(members: list[str]) -> dict[str, Any]:
    """Exactly one member present, or none."""
    present = [{"required": [m]} for m in members]
    return {"oneOf": [*present, {"not": {"anyOf": present}}]}


def enum_schema(
    enum: descriptor_pb2.EnumDescriptorProto, description: str, value_comments: dict[int, str]
) -> dict[str, Any]:
    notes = [
        f"`{value.name}`: {value_comments[i]}"
        for i, value in enumerate(enum.value)
        if value_comments.get(i)
    ]
    text = " ".join(filter(None, [description, *notes]))
    schema: dict[str, Any] = {"type": "string", "enum": [v.name for v in enum.value]}
    return {"description": text, **schema} if text else schema


# ---------------------------------------------------------------- errors


def reasons() -> list[str]:
    """Every reason the code defines, engine and service, in the order they are defined."""
    from mazzo.engine.errors import Reason
    from mazzo.service.errors import ServiceReason
    from mazzo.service.state_token import REASONS as STATE_REASONS

    found = [r.value for r in Reason] + [r.value for r in ServiceReason] + list(STATE_REASONS)
    return list(dict.fromkeys(found))


def _status_codes() -> list[str]:
    """The gRPC codes a REST refusal may carry: the handlers', the HTTP layer's, INTERNAL."""
    from mazzo.service.errors import HTTP_REFUSALS
    from mazzo.service.handlers import FIELD_REFUSALS, INPUT_REFUSALS

    codes = [*INPUT_REFUSALS, *FIELD_REFUSALS.values(), *(c for c, _ in HTTP_REFUSALS.values())]
    return list(dict.fromkeys(code.name for code in codes))


def refusal_responses() -> dict[str, Any]:
    """A response for each status of REFUSALS, and for any other (a bug: INTERNAL, 500)."""
    from mazzo.service.errors import HTTP_REFUSALS
    from mazzo.service.http_server import MAX_HEADER_BYTES
    from mazzo.service.rest import MAX_TARGET_BYTES

    envelope = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    responses = {}
    for status, (name, when) in REFUSALS.items():
        text = when.format(target=f"{MAX_TARGET_BYTES:,}", header=f"{MAX_HEADER_BYTES:,}")
        if status in HTTP_REFUSALS and status != 400:
            code, reason = HTTP_REFUSALS[status]
            text = f"{code.name} ({reason.value}): {text}"
        responses[name] = {"description": f"HTTP {status}. {text}", "content": envelope}
    responses["Internal"] = {
        "description": (
            "Any other status: INTERNAL (HTTP 500), a bug, logged; the caller's state stays"
            " valid. See Reason for the codes of every refusal."
        ),
        "content": envelope,
    }
    return responses


def error_schemas() -> dict[str, Any]:
    return {
        "Error": {
            "description": (
                "A refused call (AIP-193): the HTTP status, the gRPC status name, a readable"
                " message and one google.rpc.ErrorInfo whose `reason` is stable. A refused"
                " call changes nothing: the caller's state token stays valid."
            ),
            "type": "object",
            "properties": {
                "error": {
                    "type": "object",
                    "properties": {
                        "code": {"type": "integer", "description": "The HTTP status."},
                        "status": {"type": "string", "enum": _status_codes()},
                        "message": {"type": "string"},
                        "details": {
                            "type": "array",
                            "items": {"$ref": "#/components/schemas/ErrorInfo"},
                            "minItems": 1,
                            "maxItems": 1,
                        },
                    },
                    "required": ["code", "status", "message", "details"],
                },
            },
            "required": ["error"],
        },
        "ErrorInfo": {
            "description": (
                "Why: `reason` is one of the stable codes (see docs/api.md for when each is"
                " given); `metadata` adds short strings a program may read, e.g. `seatToPlay`."
            ),
            "type": "object",
            "properties": {
                "@type": {"const": "type.googleapis.com/google.rpc.ErrorInfo"},
                "reason": {"$ref": "#/components/schemas/Reason"},
                "domain": {"const": "mazzo"},
                "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["@type", "reason", "domain", "metadata"],
        },
        "Reason": {
            "description": "The stable reason codes of refusals.",
            "type": "string",
            "enum": reasons(),
        },
    }


# ---------------------------------------------------------------- operations


def _route(rule: http_pb2.HttpRule) -> tuple[str, str]:
    verb = rule.WhichOneof("pattern")
    if verb is None or verb == "custom":
        raise SystemExit("gen_openapi: only get/post/put/patch/delete routes are mapped")
    path = getattr(rule, verb)
    if "{" in path:
        raise SystemExit(f"gen_openapi: path parameters are not mapped yet ({path})")
    return verb, path


def operations(contract: Contract) -> dict[str, Any]:
    from mazzo.service.rest import refusal_statuses

    assert contract.service is not None
    paths: dict[str, Any] = {}
    for method in contract.service.method:
        if not method.options.HasExtension(annotations_pb2.http):
            continue
        rule = method.options.Extensions[annotations_pb2.http]
        verb, path = _route(rule)
        comment = contract.method_comments.get(method.name, "")
        operation: dict[str, Any] = {
            "operationId": method.name,
            "summary": comment.split(". ")[0].rstrip("."),
            "description": comment,
            "tags": [SERVICE],
            "x-grpc-method": f"/{PACKAGE}.{SERVICE}/{method.name}",
        }
        request = contract.messages[method.input_type][0]
        if verb != "get":
            if rule.body != "*":
                raise SystemExit(f'gen_openapi: {method.name}: only body "*" is mapped')
            operation["requestBody"] = {
                "required": False,
                "content": {"application/json": {"schema": _ref(method.input_type)}},
            }
        elif request.field:
            raise SystemExit(f"gen_openapi: {method.name}: GET query parameters are not mapped")
        operation["responses"] = {
            "200": {
                "description": "The answer.",
                "content": {"application/json": {"schema": _ref(method.output_type)}},
            },
        }
        for status in refusal_statuses(verb.upper(), [field.name for field in request.field]):
            if status not in REFUSALS:
                raise SystemExit(f"gen_openapi: HTTP {status} ({method.name}) is not described")
            name = REFUSALS[status][0]
            operation["responses"][str(status)] = {"$ref": f"#/components/responses/{name}"}
        operation["responses"]["default"] = {"$ref": "#/components/responses/Internal"}
        paths.setdefault(path, {})[verb] = operation
    return paths


# ---------------------------------------------------------------- the document


DESCRIPTION = (
    "Mazzo is a stateless rules engine for Italian card games (Scopa and its variants,"
    " Tressette, Briscola). The caller keeps the game as an opaque sealed token (`state`); every"
    " call carries it, and Mazzo checks and applies the move and returns the new token,"
    " the events and a public summary. This is the REST gateway of the gRPC service"
    f" `{PACKAGE}.{SERVICE}`, in the proto3 JSON mapping: lowerCamelCase names, every"
    " field without presence printed (defaults included), 64-bit integers as strings,"
    " bytes as base64, enums by name. Unknown fields in a request are ignored unless the"
    " server runs with MAZZO_STRICT_JSON=true. Cards are written rank then suit: 1D..10D,"
    " suits D (coins), C (cups), S (swords), B (batons); 8 knave, 9 knight, 10 king."
)


def build_document(files: descriptor_pb2.FileDescriptorSet | None = None) -> dict[str, Any]:
    contract = Contract(files if files is not None else descriptor_set())
    schemas: dict[str, Any] = {}
    for full, (message, comment, field_comments) in contract.messages.items():
        if not message.options.map_entry:
            schemas[schema_name(full)] = message_schema(
                contract, message, comment, field_comments, contract.oneof_comments[full]
            )
    for full, (enum, comment, value_comments) in contract.enums.items():
        schemas[schema_name(full)] = enum_schema(enum, comment, value_comments)
    clash = set(schemas) & set(error_schemas())
    if clash:
        raise SystemExit(f"gen_openapi: proto types clash with the error schemas: {clash}")
    schemas.update(error_schemas())
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Mazzo",
            "version": PACKAGE.rsplit(".", 1)[-1],
            "description": DESCRIPTION,
        },
        "tags": [{"name": SERVICE, "description": f"The service {PACKAGE}.{SERVICE}."}],
        "paths": operations(contract),
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "responses": refusal_responses(),
        },
    }


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--output", type=pathlib.Path, default=OUTPUT)
    args = parser.parse_args(argv)
    text = render(build_document())
    if args.check:
        if not args.output.exists() or args.output.read_text() != text:
            print(f"{args.output} differs from proto/: run `make openapi`", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
