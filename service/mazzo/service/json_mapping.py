"""The proto3 JSON mapping of the REST gateway: json_format's answers, compiled for speed.

``message_to_dict(m)`` returns exactly what
``json_format.MessageToDict(m, always_print_fields_with_no_presence=True)``
returns (same keys, same values, same key order), and ``parse(text, m)``
accepts exactly the texts ``json_format.Parse(text, m)`` accepts (but for
bytes that are not base64, below), building the same message, and refuses
the others with :class:`JsonMappingError`.
``message_to_json`` encodes the dict with orjson (compact UTF-8).

json_format walks the descriptors on every call: a 560-byte PlayResponse takes
it about 53 us to print and 110 us to parse here, against 14 and 30 with this
module (a PlayRequest: 19 us to parse, against 7; ``make bench``, table "REST
JSON"). This module walks them once per message type and keeps, for each
type, a table from field to a small converter closure; printing starts from
``ListFields()`` (the fields that are set, in field-number order, as
json_format does) and appends the unset fields without presence in
declaration order with precomputed default values. New messages
and fields in the proto need no change here.

What the mapping does (the proto3 JSON mapping, as json_format implements it):

- names: lowerCamelCase ``json_name`` out; in, the ``json_name`` or the proto
  field name; unknown names are refused, or skipped with
  ``ignore_unknown_fields`` (enum values of unknown names are refused either way).
- scalars: 64-bit integers as strings (in: numbers or strings), 32-bit as
  numbers; bytes as standard base64 (in: standard or URL-safe, padded or
  not, line breaks skipped); enums by name (in: names or numbers; unknown
  numbers kept, since proto3 enums are open); floats with "NaN", "Infinity",
  "-Infinity".
- presence: unset fields with presence (messages, oneof members, proto3
  ``optional``) are left out; fields without presence are always printed.
- repeated fields as lists, maps as objects with string keys.
- well-known types (Timestamp, Struct, Any, wrappers, ...) and extendable
  messages are handed to json_format itself, field by field.

json_format's parsing quirks are kept on purpose, so that the gateway accepts
what it always accepted: integers may come as ``"12"``, ``12.0`` or ``"1e1"``
(not ``true`` nor ``" 1"``); enums may come as numbers, numeric strings, or
even ``true`` / ``1.5`` (Python's ``int()`` of them); an empty list or string
stands for an empty message; ``null`` clears a field (not a repeated
google.protobuf.Value, which json_format fails to null); the two spellings of one
field may both appear (the last wins) unless the field has presence; duplicate
keys, ``NaN`` and ``Infinity`` are refused where json_format refuses them.

One refusal is this module's own: a bytes value with a character that is
neither of base64's two alphabets, padding nor a line break is refused, as
protojson (grpc-gateway's mapping) refuses it, where json_format skips the
character: ``"@@@!"`` would read as no bytes at all (a state token "missing",
an idempotency key silently dropped).
"""

from __future__ import annotations

import binascii
import json
import math
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, cast

import orjson
from google.protobuf import descriptor_pool, json_format
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message

__all__ = [
    "MAX_RECURSION_DEPTH",
    "JsonMappingError",
    "JsonValueError",
    "message_to_dict",
    "message_to_json",
    "parse",
    "parse_dict",
]

#: As json_format.Parse: a message nested deeper than this is refused.
MAX_RECURSION_DEPTH = 100

_FD = FieldDescriptor
_INT_TYPES = frozenset(
    (_FD.CPPTYPE_INT32, _FD.CPPTYPE_UINT32, _FD.CPPTYPE_INT64, _FD.CPPTYPE_UINT64)
)
_INT64_TYPES = frozenset((_FD.CPPTYPE_INT64, _FD.CPPTYPE_UINT64))
# Values that upb hands out exactly as json_format prints them.
_IDENTITY_TYPES = frozenset((_FD.CPPTYPE_INT32, _FD.CPPTYPE_UINT32, _FD.CPPTYPE_BOOL))
# json_format's float32 range: private to protobuf, so not in its stubs.
_FLOAT_MAX: float = type_checkers._FLOAT_MAX  # type: ignore[attr-defined]
_FLOAT_MIN: float = type_checkers._FLOAT_MIN  # type: ignore[attr-defined]
_UNPAIRED_SURROGATE = re.compile(
    "[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]"
)
_VALUE = "google.protobuf.Value"
_NULL_VALUE = "google.protobuf.NullValue"
_ENUM_JSON_EXTENSION = "pb.enumvalue.json"
#: json_format's spelling of an extension's key: "[full.name]".
_EXTENSION_NAME = re.compile(r"\[[a-zA-Z0-9\._]*\]$")

ToDict = Callable[[Any], Any]
ParseInto = Callable[[Any, Message, int], None]
Setter = Callable[[Message, Any, int], None]


class JsonMappingError(ValueError):
    """The JSON is not the message in the proto3 JSON mapping; json_format refuses it too.

    ``path`` names where, from the top message: ``["move", "take", "[1]"]``;
    ``field`` is the field whose value was refused (the innermost), if any: a
    caller may answer some fields' refusals with reasons of their own.
    """

    def __init__(self, reason: str, path: list[str] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path if path is not None else []
        self.type_name = ""
        self.field: FieldDescriptor | None = None

    def __str__(self) -> str:
        where = self.type_name
        for part in self.path:
            where += part if part.startswith("[") or not where else "." + part
        return f"{where}: {self.reason}" if where else self.reason


class JsonValueError(JsonMappingError):
    """A value of a JSON type its field takes, but not one the field can hold: an
    integer out of range or not whole, a string that is not base64 (where a
    :class:`JsonMappingError` of another kind says the JSON is not the message)."""


# ---------------------------------------------------------------- public API


def message_to_dict(message: Message) -> dict[str, Any]:
    """``json_format.MessageToDict(message, always_print_fields_with_no_presence=True)``."""
    result: dict[str, Any] = _codec(_descriptor(message)).to_dict(message)
    return result


def message_to_json(message: Message, *, newline: bool = False) -> bytes:
    """:func:`message_to_dict` as compact UTF-8 JSON (orjson)."""
    body = _codec(_descriptor(message)).to_dict(message)
    return orjson.dumps(body, option=orjson.OPT_APPEND_NEWLINE if newline else None)


def parse(
    text: bytes | bytearray | str, message: Message, *, ignore_unknown_fields: bool = False
) -> Message:
    """Merge JSON ``text`` into ``message`` as ``json_format.Parse`` does; return it.

    Raises :class:`JsonMappingError` for anything json_format.Parse refuses
    (and for bytes that are not UTF-8, which it lets through as UnicodeDecodeError).
    With ``ignore_unknown_fields`` unknown field names are skipped, as
    json_format's option of that name skips them; unlike it, an enum value
    given by an unknown name is still refused (a misspelt rule must not turn
    into the default rule). Well-known types, handed to json_format, skip both.
    """
    if not isinstance(text, str):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise JsonMappingError(f"the body is not UTF-8 (at byte {error.start})") from None
    return parse_dict(decode(text), message, ignore_unknown_fields=ignore_unknown_fields)


def decode(text: str) -> Any:
    """The JSON value of ``text``, as json_format's ``json.loads`` reads it; what it
    refuses (or cannot hold: too many digits, too deep) is a :class:`JsonMappingError`."""
    try:
        # The standard library's parser, as json_format's: the same numbers
        # (big integers, NaN, Infinity) and the same refusals. orjson would keep
        # the last of two equal keys and read 2**64 as a float.
        if text.startswith("\ufeff"):  # as json.loads
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _DECODER.decode(text)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        raise JsonMappingError(f"not JSON: {error.msg.lower()} at {where}") from None
    except RecursionError:
        raise JsonMappingError("not JSON this server reads: nested too deeply") from None


def parse_dict(js: Any, message: Message, *, ignore_unknown_fields: bool = False) -> Message:
    """Merge a decoded JSON value into ``message`` as ``json_format.ParseDict`` does."""
    codec = _codec(_descriptor(message), ignore_unknown_fields)
    try:
        codec.parse_into(js, message, 1)
    except JsonMappingError as error:
        error.type_name = message.DESCRIPTOR.name
        raise
    except Exception as error:
        raise _wrapped(error, message.DESCRIPTOR.name) from error
    return message


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json_format's check: a key given twice in one object is refused."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        duplicate = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise JsonMappingError(f"duplicate key {_shown(duplicate)}")
    return result


def _integer(text: str) -> int:
    """A JSON integer, as json.loads reads it; past Python's limit on the digits an
    int is read from (sys.set_int_max_str_digits) int() raises a ValueError that
    json.loads lets through, and json_format refuses the text."""
    try:
        return int(text)
    except ValueError:
        digits = len(text.lstrip("-"))
        limit = sys.get_int_max_str_digits()
        raise JsonMappingError(
            f"not JSON this server reads: an integer of {digits} digits (at most {limit})"
        ) from None


#: json.loads(text, object_pairs_hook=...) builds a decoder on every call; this one is reused.
_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys, parse_int=_integer)


def _shown(value: Any) -> str:
    """``repr(value)`` for an error message, cut short: a caller's value may be 64 KB long."""
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


_SHOWN_CHARS = 40


def _wrapped(
    error: Exception, type_name: str = "", path: list[str] | None = None
) -> JsonMappingError:
    # Written for the caller: what protobuf refused, never its exception's text.
    wrapped = JsonMappingError("a value this field cannot take (wrong type or out of range)", path)
    wrapped.type_name = type_name
    return wrapped


# ---------------------------------------------------------------- compiled codecs


class _Codec:
    """The two compiled functions of one message type (in one parsing mode)."""

    __slots__ = ("to_dict", "parse_into")

    def __init__(self) -> None:
        self.to_dict: ToDict = _not_compiled
        self.parse_into: ParseInto = _not_compiled


def _not_compiled(*args: Any) -> Any:
    raise RuntimeError("json_mapping: codec used while being compiled")


class _InProgress(dict[Descriptor, _Codec]):
    """The codecs of one compilation, by type, and the parsing mode they are compiled for."""

    def __init__(self, ignore_unknown: bool) -> None:
        super().__init__()
        self.ignore_unknown = ignore_unknown


#: By parsing mode (index 1: unknown fields ignored), then by type; the mode is
#: compiled in, so the strict and the lenient parsers each pay nothing for the other.
_CODECS: tuple[dict[Descriptor, _Codec], dict[Descriptor, _Codec]] = ({}, {})
_COMPILING = threading.RLock()


def _descriptor(message: Message) -> Descriptor:
    """``message.DESCRIPTOR``. The stubs give upb's descriptor class as a second type:
    the one the upb backend hands out, whose objects are Descriptor instances
    (isinstance holds), so it is typed as Descriptor here, as everywhere in this module."""
    return cast(Descriptor, message.DESCRIPTOR)


def _codec(descriptor: Descriptor, ignore_unknown: bool = False) -> _Codec:
    codec = _CODECS[ignore_unknown].get(descriptor)
    if codec is not None:
        return codec
    with _COMPILING:
        in_progress = _InProgress(ignore_unknown)
        codec = _compiled(descriptor, in_progress)
        # Published together: a codec may call the others it was compiled with.
        _CODECS[ignore_unknown].update(in_progress)
        return codec


def _compiled(descriptor: Descriptor, in_progress: _InProgress) -> _Codec:
    """The codec of ``descriptor``, compiling it (and the types it uses) if needed.

    Recursive types refer to the codec object, whose functions are filled in
    once compiled, so a type may contain itself.
    """
    codec = _CODECS[in_progress.ignore_unknown].get(descriptor) or in_progress.get(descriptor)
    if codec is not None:
        return codec
    codec = _Codec()
    in_progress[descriptor] = codec
    if _delegated(descriptor):
        codec.to_dict = _delegate_to_dict
        codec.parse_into = (
            _delegate_parse_into_ignoring_unknown
            if in_progress.ignore_unknown
            else _delegate_parse_into
        )
    else:
        codec.to_dict = _compile_to_dict(descriptor, in_progress)
        codec.parse_into = _compile_parse_into(descriptor, in_progress)
    return codec


def _delegated(descriptor: Descriptor) -> bool:
    """Well-known types have JSON forms of their own; extensions need the pool."""
    return descriptor.file.name.startswith("google/protobuf/") or bool(descriptor.extension_ranges)


def _delegate_to_dict(message: Message) -> Any:
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def _delegate_parse_into(js: Any, message: Message, depth: int) -> None:
    # json_format counts this message as depth 1; keep the global limit.
    json_format.ParseDict(js, message, max_recursion_depth=MAX_RECURSION_DEPTH + 1 - depth)


def _delegate_parse_into_ignoring_unknown(js: Any, message: Message, depth: int) -> None:
    json_format.ParseDict(
        js,
        message,
        ignore_unknown_fields=True,
        max_recursion_depth=MAX_RECURSION_DEPTH + 1 - depth,
    )


# ---------------------------------------------------------------- printing


def _compile_to_dict(descriptor: Descriptor, in_progress: _InProgress) -> ToDict:
    by_field: dict[FieldDescriptor, tuple[str, ToDict | None]] = {}
    defaults: list[tuple[str, int, Any]] = []  # (name, 0 scalar / 1 list / 2 dict, value)
    for field in descriptor.fields:
        by_field[field] = (field.json_name, _field_printer(field, in_progress))
        if field.has_presence:
            continue
        if _is_map(field):
            defaults.append((field.json_name, 2, None))
        elif _is_repeated(field):
            defaults.append((field.json_name, 1, None))
        else:
            single = _value_printer(field, in_progress)
            default = field.default_value
            defaults.append((field.json_name, 0, default if single is None else single(default)))

    def to_dict(message: Message) -> dict[str, Any]:
        js: dict[str, Any] = {}
        for field, value in message.ListFields():
            name, convert = by_field[field]
            try:
                js[name] = value if convert is None else convert(value)
            except ValueError as error:  # a well-known value with no JSON form, as json_format
                raise json_format.SerializeToJsonError(
                    f"Failed to serialize {field.name} field: {error}."
                ) from error
        for name, kind, default in defaults:
            if name not in js:
                js[name] = default if kind == 0 else [] if kind == 1 else {}
        return js

    return to_dict


def _field_printer(field: FieldDescriptor, in_progress: _InProgress) -> ToDict | None:
    """Converter of a field's whole value: a scalar, a message, a list or a map."""
    if _is_map(field):
        entry = _message_type(field)
        key_field = entry.fields_by_name["key"]
        value_convert = _value_printer(entry.fields_by_name["value"], in_progress)
        key_text: Callable[[Any], str] = (
            _bool_key_text if key_field.cpp_type == _FD.CPPTYPE_BOOL else str
        )
        if value_convert is None:
            return lambda m: {key_text(k): v for k, v in m.items()}
        convert_value = value_convert
        return lambda m: {key_text(k): convert_value(v) for k, v in m.items()}
    convert = _value_printer(field, in_progress)
    if not _is_repeated(field):
        return convert
    if convert is None:
        return list
    convert_item = convert
    return lambda values: [convert_item(v) for v in values]


def _bool_key_text(key: Any) -> str:
    return "true" if key else "false"


def _value_printer(field: FieldDescriptor, in_progress: _InProgress) -> ToDict | None:
    """Converter of one value of the field's type; None when the value prints as it is."""
    cpp_type = field.cpp_type
    if cpp_type == _FD.CPPTYPE_MESSAGE:
        codec = _compiled(_message_type(field), in_progress)
        return lambda message: codec.to_dict(message)
    if cpp_type in _IDENTITY_TYPES:
        return None
    if cpp_type == _FD.CPPTYPE_STRING:
        return _print_bytes if field.type == _FD.TYPE_BYTES else None
    if cpp_type in _INT64_TYPES:
        return str
    if cpp_type == _FD.CPPTYPE_DOUBLE:
        return _print_double
    if cpp_type == _FD.CPPTYPE_FLOAT:
        return _print_float
    if cpp_type == _FD.CPPTYPE_ENUM:
        return _enum_printer(_enum_type(field))
    raise TypeError(f"json_mapping: unknown field type {field.full_name}")  # pragma: no cover


def _print_bytes(value: bytes) -> str:
    return binascii.b2a_base64(value, newline=False).decode("ascii")


def _print_double(value: float) -> Any:
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"


def _print_float(value: float) -> Any:
    if math.isfinite(value):
        return type_checkers.ToShortestFloat(value)
    return _print_double(value)


def _enum_printer(enum: EnumDescriptor) -> ToDict:
    if enum.full_name == _NULL_VALUE:
        return lambda number: None
    names = _enum_names_by_number(enum)
    closed = enum.is_closed

    def print_enum(number: int) -> Any:
        name = names.get(number)
        if name is not None:
            return name
        if closed:
            raise json_format.SerializeToJsonError(
                "Enum field contains an integer value which can not mapped to an enum value."
            )
        return number

    return print_enum


def _enum_names_by_number(enum: EnumDescriptor) -> dict[int, str]:
    extension = _enum_json_extension()
    names = {}
    for number, value in enum.values_by_number.items():
        name = value.name
        if extension is not None and value.GetOptions().HasExtension(extension):
            name = value.GetOptions().Extensions[extension].string
        names[number] = name
    return names


def _enum_json_extension() -> Any:
    """The option that renames enum values in JSON, when its proto is loaded."""
    try:
        return descriptor_pool.Default().FindExtensionByName(_ENUM_JSON_EXTENSION)
    except KeyError:
        return None


# ---------------------------------------------------------------- parsing


def _compile_parse_into(descriptor: Descriptor, in_progress: _InProgress) -> ParseInto:
    full_name = descriptor.full_name
    # A key is a field's json_name or its proto name; the json_name wins a tie.
    entries: dict[str, tuple[Setter, str | None, FieldDescriptor]] = {}
    for field in descriptor.fields:
        oneof = field.containing_oneof
        entries.setdefault(
            field.name, (_field_setter(field, in_progress), oneof.name if oneof else None, field)
        )
    for field in descriptor.fields:
        entries[field.json_name] = entries[field.name]
    known = [f.json_name for f in descriptor.fields]
    ignore_unknown = in_progress.ignore_unknown

    def parse_into(js: Any, message: Message, depth: int) -> None:
        if depth > MAX_RECURSION_DEPTH:
            raise JsonMappingError(f"message too deep (at most {MAX_RECURSION_DEPTH} levels)")
        if not isinstance(js, dict):
            # json_format iterates the value: an empty list or string is an empty message.
            if isinstance(js, list | tuple | str) and not js:
                return
            # With unknown fields ignored, json_format takes the items of a string
            # or an array for keys, and skips them when none is a field.
            if ignore_unknown and isinstance(js, list | tuple | str) and _none_known(js):
                return
            raise JsonMappingError(f"{full_name} must be a JSON object, not {_kind(js)}")
        # json_format also refuses a key met twice, or spelled as a oneof's name;
        # neither can happen: object keys are unique, and protobuf refuses a
        # json_name equal to a oneof's name. Only the oneofs need counting.
        oneofs_seen: set[str] | None = None
        for key, value in js.items():
            entry = entries.get(key)
            if entry is None:
                # A newer caller's field: skipped, as protojson does; not an
                # extension's "[name]", which json_format refuses all the same.
                if ignore_unknown and not _EXTENSION_NAME.match(key):
                    continue
                raise JsonMappingError(f"{full_name} has no field {_shown(key)} (fields: {known})")
            setter, oneof, field = entry
            if oneof is not None and value is not None:
                # A oneof (or an `optional` field, whose presence is a oneof) takes one value.
                if oneofs_seen is None:
                    oneofs_seen = set()
                elif oneof in oneofs_seen:
                    raise JsonMappingError(f"more than one value for oneof {oneof!r}", [key])
                oneofs_seen.add(oneof)
            try:
                setter(message, value, depth)
            except JsonMappingError as error:
                error.path.insert(0, key)
                error.field = error.field or field
                raise
            except Exception as error:
                wrapped = _wrapped(error, path=[key])
                wrapped.field = field
                raise wrapped from error

    def _none_known(keys: list[Any] | tuple[Any, ...] | str) -> bool:
        return all(
            isinstance(key, str) and key not in entries and not _EXTENSION_NAME.match(key)
            for key in keys
        )

    return parse_into


def _field_setter(field: FieldDescriptor, in_progress: _InProgress) -> Setter:
    if _is_map(field):
        return _map_setter(field, in_progress)
    if _is_repeated(field):
        if field.cpp_type == _FD.CPPTYPE_MESSAGE:
            return _repeated_message_setter(field, in_progress)
        return _repeated_scalar_setter(field)
    if field.cpp_type == _FD.CPPTYPE_MESSAGE:
        return _message_setter(field, in_progress)
    return _scalar_setter(field)


def _scalar_setter(field: FieldDescriptor) -> Setter:
    name = field.name
    convert = _scalar_converter(field)
    null_is_zero = field.cpp_type == _FD.CPPTYPE_ENUM and _enum_type(field).full_name == _NULL_VALUE

    def set_scalar(message: Message, value: Any, depth: int) -> None:
        if value is None:
            if null_is_zero:
                setattr(message, name, 0)
            else:
                message.ClearField(name)
            return
        setattr(message, name, convert(value))

    return set_scalar


def _message_setter(field: FieldDescriptor, in_progress: _InProgress) -> Setter:
    name = field.name
    message_type = _message_type(field)
    codec = _compiled(message_type, in_progress)
    null_value = message_type.full_name == _VALUE

    def set_message(message: Message, value: Any, depth: int) -> None:
        if value is None:
            if null_value:
                getattr(message, name).null_value = 0
            else:
                message.ClearField(name)
            return
        sub = getattr(message, name)
        sub.SetInParent()
        codec.parse_into(value, sub, depth + 1)

    return set_message


def _repeated_scalar_setter(field: FieldDescriptor) -> Setter:
    name = field.name
    convert = _scalar_converter(field)
    cpp_type = field.cpp_type
    plain_strings = cpp_type == _FD.CPPTYPE_STRING and field.type != _FD.TYPE_BYTES
    plain_ints = cpp_type in _INT_TYPES

    def set_repeated(message: Message, value: Any, depth: int) -> None:
        target = _cleared(message, name, value, _ARRAY)
        if target is None:
            return
        if plain_strings and _ascii_strings(value):
            target.extend(value)
            return
        if plain_ints and all(type(item) is int for item in value):
            target.extend(value)
            return
        converted = []
        for index, item in enumerate(value):
            if item is None:
                raise JsonMappingError("null is not allowed in a repeated field", [f"[{index}]"])
            try:
                converted.append(convert(item))
            except JsonMappingError as error:
                error.path.insert(0, f"[{index}]")
                raise
            except Exception as error:
                raise _wrapped(error, path=[f"[{index}]"]) from error
        target.extend(converted)

    return set_repeated


#: (the JSON types a container field takes, what to call it in an error)
_ARRAY = ((list, tuple), "a repeated field takes a JSON array")
_OBJECT = (dict, "a map field takes a JSON object")


def _cleared(
    message: Message, name: str, value: Any, takes: tuple[type | tuple[type, ...], str]
) -> Any:
    """Empty the repeated or map field ``name`` for ``value``: its container,
    or None for a JSON null (the field stays empty). ``takes``: _ARRAY or _OBJECT."""
    message.ClearField(name)
    if value is None:
        return None
    json_types, expected = takes
    if not isinstance(value, json_types):
        raise JsonMappingError(f"{expected}, not {_kind(value)}")
    return getattr(message, name)


def _ascii_strings(values: list[Any] | tuple[Any, ...]) -> bool:
    """Every item a str with nothing to check (no surrogates): one C-level pass."""
    try:
        return "".join(values).isascii()
    except TypeError:
        return False


def _repeated_message_setter(field: FieldDescriptor, in_progress: _InProgress) -> Setter:
    name = field.name
    message_type = _message_type(field)
    codec = _compiled(message_type, in_progress)
    null_allowed = message_type.full_name == _VALUE

    def set_repeated(message: Message, value: Any, depth: int) -> None:
        if value is None and null_allowed:
            # json_format reads a null for a google.protobuf.Value as its null
            # value, and fails to set one on a repeated field's list: refused.
            raise JsonMappingError("null is not a list of google.protobuf.Value")
        target = _cleared(message, name, value, _ARRAY)
        if target is None:
            return
        parse_into = codec.parse_into
        for index, item in enumerate(value):
            sub = target.add()
            if item is None and not null_allowed:
                raise JsonMappingError("null is not allowed in a repeated field", [f"[{index}]"])
            try:
                parse_into(item, sub, depth + 1)
            except JsonMappingError as error:
                error.path.insert(0, f"[{index}]")
                raise

    return set_repeated


def _map_setter(field: FieldDescriptor, in_progress: _InProgress) -> Setter:
    name = field.name
    entry = _message_type(field)
    key_convert = _scalar_converter(entry.fields_by_name["key"], key=True)
    value_field = entry.fields_by_name["value"]
    codec = (
        _compiled(_message_type(value_field), in_progress)
        if value_field.cpp_type == _FD.CPPTYPE_MESSAGE
        else None
    )
    value_convert = None if codec is not None else _scalar_converter(value_field)

    def set_map(message: Message, value: Any, depth: int) -> None:
        target = _cleared(message, name, value, _OBJECT)
        if target is None:
            return
        for key, item in value.items():
            try:
                converted_key = key_convert(key)
                if codec is not None:
                    codec.parse_into(item, target[converted_key], depth + 1)
                else:
                    target[converted_key] = value_convert(item)  # type: ignore[misc]
            except JsonMappingError as error:
                error.path.insert(0, f"[{_shown(key)}]")
                raise
            except Exception as error:
                raise _wrapped(error, path=[f"[{_shown(key)}]"]) from error

    return set_map


# ---------------------------------------------------------------- scalar values in


def _scalar_converter(field: FieldDescriptor, *, key: bool = False) -> Callable[[Any], Any]:
    """JSON value -> Python value for the field's type, as json_format converts it.

    Ranges are left to protobuf itself: assigning an out-of-range integer raises.
    """
    cpp_type = field.cpp_type
    if cpp_type in _INT_TYPES:
        return _int_in_range(*_INT_RANGES[cpp_type])
    if cpp_type == _FD.CPPTYPE_BOOL:
        return _to_bool_key if key else _to_bool
    if cpp_type == _FD.CPPTYPE_STRING:
        return _to_bytes if field.type == _FD.TYPE_BYTES else _to_string
    if cpp_type == _FD.CPPTYPE_ENUM:
        return _enum_converter(_enum_type(field))
    if cpp_type == _FD.CPPTYPE_FLOAT:
        return _to_float32
    if cpp_type == _FD.CPPTYPE_DOUBLE:
        return _to_double
    raise TypeError(f"json_mapping: not a scalar field {field.full_name}")  # pragma: no cover


def _to_int(value: Any) -> int:
    if type(value) is int:
        return value
    # json_format's _ConvertInteger, step by step.
    if isinstance(value, float) and not value.is_integer():
        raise JsonValueError(f"not an integer: {_shown(value)}")
    if isinstance(value, str) and " " in value:
        raise JsonValueError(f"not an integer: {_shown(value)}")
    if isinstance(value, bool):
        raise JsonMappingError(f"not an integer: {_shown(value)}")
    if not isinstance(value, int | float | str):
        raise JsonMappingError(f"expected an integer, not {_kind(value)}")
    try:
        return int(value)
    except ValueError:
        try:
            number = float(value)
        except ValueError:
            raise JsonValueError(f"not an integer: {_shown(value)}") from None
        if not number.is_integer():
            raise JsonValueError(f"not an integer: {_shown(value)}") from None
        return int(number)


_INT_RANGES = {
    _FD.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    _FD.CPPTYPE_UINT32: (0, 2**32 - 1),
    _FD.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    _FD.CPPTYPE_UINT64: (0, 2**64 - 1),
}


def _int_in_range(low: int, high: int) -> Callable[[Any], int]:
    """:func:`_to_int`, refusing what the field cannot hold (protobuf would raise)."""

    def to_int(value: Any) -> int:
        number = _to_int(value)
        if not low <= number <= high:
            raise JsonValueError(f"integer out of range ({low}..{high})")
        return number

    return to_int


def _to_bool(value: Any) -> bool:
    if type(value) is not bool:
        raise JsonMappingError(f"expected true or false, not {_shown(value)}")
    return value


def _to_bool_key(value: Any) -> bool:
    if value == "true":
        return True
    if value == "false":
        return False
    raise JsonMappingError(f'expected "true" or "false", not {_shown(value)}')


def _to_string(value: Any) -> str:
    if not isinstance(value, str):
        raise JsonMappingError(f"expected a string, not {_kind(value)}")
    if not value.isascii() and _UNPAIRED_SURROGATE.search(value):
        raise JsonMappingError("unpaired surrogate in a string")
    return value


#: Base64's URL-safe alphabet read as the standard one.
_URL_SAFE = bytes.maketrans(b"-_", b"+/")


def _to_bytes(value: Any) -> bytes:
    # Standard or URL-safe (or both), padded or not, line breaks skipped, as
    # protojson reads them; any other character is refused (the module's docstring).
    if not isinstance(value, str):
        raise JsonMappingError(f"expected a base64 string, not {_kind(value)}")
    if not value.isascii():
        raise JsonValueError("not base64")
    encoded = value.encode("ascii")
    if b"\n" in encoded or b"\r" in encoded:
        encoded = encoded.replace(b"\r", b"").replace(b"\n", b"")
    data = encoded.rstrip(b"=").translate(_URL_SAFE)
    try:
        return binascii.a2b_base64(data + b"=" * (-len(data) % 4), strict_mode=True)
    except binascii.Error:
        raise JsonValueError("not base64") from None


def _to_double(value: Any) -> float:
    return _to_floating(value, float32=False)


def _to_float32(value: Any) -> float:
    return _to_floating(value, float32=True)


def _to_floating(value: Any, *, float32: bool) -> float:
    # json_format's _ConvertFloat, step by step.
    if isinstance(value, float):
        if math.isnan(value):
            raise JsonMappingError('a bare NaN is not allowed: write "NaN"')
        if math.isinf(value):
            raise JsonMappingError('a number out of range: write "Infinity" or "-Infinity"')
        if float32 and not _FLOAT_MIN <= value <= _FLOAT_MAX:
            raise JsonMappingError("float value out of range")
    if value == "nan":
        raise JsonMappingError('write "NaN", not "nan"')
    try:
        return float(value)
    except OverflowError:  # an integer past the largest double
        raise JsonMappingError('a number out of range: write "Infinity" or "-Infinity"') from None
    except ValueError:
        if value == "-Infinity":
            return float("-inf")
        if value == "Infinity":
            return float("inf")
        if value == "NaN":
            return float("nan")
        raise JsonMappingError(f"not a number: {_shown(value)}") from None


def _enum_converter(enum: EnumDescriptor) -> Callable[[Any], int]:
    by_name = {name: value.number for name, value in enum.values_by_name.items()}
    extension = _enum_json_extension()
    if extension is not None:
        for value in enum.values:
            options = value.GetOptions()
            if options.HasExtension(extension) and options.Extensions[extension].HasField("string"):
                by_name.setdefault(options.Extensions[extension].string, value.number)
    # protobuf's own table, as json_format looks numbers up in it (upb reads the
    # number as an int32: 2**32 finds the value 0).
    by_number = enum.values_by_number
    closed = enum.is_closed
    full_name = enum.full_name

    def to_enum(value: Any) -> int:
        number = by_name.get(value)
        if number is not None:
            return number
        # As json_format: anything int() takes is a number ("2", 2.5, true);
        # not an infinity (OverflowError), which json_format lets through.
        try:
            number = int(value)
        except (ValueError, OverflowError):
            raise JsonMappingError(f"{_shown(value)} is not a value of {full_name}") from None
        known = by_number.get(number)
        if known is not None:
            return int(known.number)
        if closed:
            raise JsonMappingError(f"{_shown(value)} is not a value of {full_name}")
        return number

    return to_enum


# ---------------------------------------------------------------- helpers


def _is_repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def _is_map(field: FieldDescriptor) -> bool:
    if field.type != _FD.TYPE_MESSAGE:
        return False
    entry = _message_type(field)
    return entry.has_options and entry.GetOptions().map_entry


def _message_type(field: FieldDescriptor) -> Descriptor:
    """The type of a message (or map) field; protobuf sets it on every such field."""
    message_type = field.message_type
    if message_type is None:  # pragma: no cover
        raise TypeError(f"json_mapping: {field.full_name} is not a message field")
    return message_type


def _enum_type(field: FieldDescriptor) -> EnumDescriptor:
    """The type of an enum field; protobuf sets it on every such field."""
    enum_type = field.enum_type
    if enum_type is None:  # pragma: no cover
        raise TypeError(f"json_mapping: {field.full_name} is not an enum field")
    return enum_type


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "null" if value is None else "a number"
    )
