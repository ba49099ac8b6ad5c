"""The grammars of ``make fuzz``: JSON texts and protobuf wire bytes, from the request messages.

Both are written out as text or bytes by hand, not through ``json.dumps`` or
``SerializeToString``, so that they can hold what no encoder writes: numbers
of any length and exponent, lone surrogates, invalid escapes, duplicate keys,
nesting up to the body limit; wrong wire types, overflowing and truncated
varints, lengths that lie, invalid UTF-8, unmatched groups.

:class:`JsonGrammar` draws, for a request message's descriptor, objects whose
fields take either a value of their type (so that the request goes deep into
the handlers) or any JSON value at all, of every kind, with the literals at
and past every limit of Python's json module and of its int and float
conversion. :class:`WireGrammar` does the same for the protobuf encoding.
"""

from __future__ import annotations

import base64
import random
import sys
from collections.abc import Callable, Sequence

from google.protobuf.descriptor import Descriptor, FieldDescriptor

#: Python's limit on the digits of an int read from text (sys.set_int_max_str_digits).
INT_DIGITS = sys.get_int_max_str_digits() or 4300
#: The server's default request limit (MAZZO_MAX_REQUEST_BYTES), to nest up to and past.
BODY_LIMIT = 65536
DIGITS = "0123456789"
CARDS = ("7D", "1C", "10B", "9S", "0D", "11C", "7X", "", "7d", " 7D", "7D7D")

# ---------------------------------------------------------------- JSON literals

#: Lengths of numbers, in digits: around 32- and 64-bit integers, doubles, and int's text limit.
DIGIT_COUNTS = (1, 2, 9, 10, 11, 19, 20, 21, 39, 309, 310, 400,
                INT_DIGITS - 1, INT_DIGITS, INT_DIGITS + 1, 2 * INT_DIGITS, 20_000)  # fmt: skip
#: Exact integers at the edges of every protobuf integer type.
EDGE_INTEGERS = tuple(
    str(n)
    for n in (0, 1, -1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32 - 1, 2**32,
              2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, -(2**64), 10**30)
)  # fmt: skip
#: Exponents around float32's and float64's ranges, and far past them.
EXPONENTS = ("0", "1", "-1", "+2", "38", "39", "-45", "-46", "308", "309", "-323", "-324",
             "-325", "400", "-400", "99999", "9" * 25, "-" + "9" * 25,
             "1" + "0" * INT_DIGITS)  # fmt: skip
#: Floats at the edges: the largest finite doubles and floats, just past them, subnormals.
EDGE_FLOATS = ("1.7976931348623157e308", "1.7976931348623159e308", "-1.8e308",
               "3.4028234663852886e38", "3.4028236e38", "-3.5e38", "1.4e-45", "5e-324",
               "2e-324", "-0.0", "0e0", "0.0", "1.0", "1e2", "2147483648.0", "1.5",
               "1e-7")  # fmt: skip
#: What Python's json reads that JSON has not, and what neither reads.
CONSTANTS = ("NaN", "Infinity", "-Infinity", "true", "false", "null")
NOT_NUMBERS = ("01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "1_0", "--1", "1.2.3",
               "-NaN", "infinity", "nan", "True", "None", "undefined", "1e1.5", "١")  # fmt: skip
#: Strings that json_format's conversions read as numbers, enums or bools (or nearly).
NUMBER_STRINGS = ("NaN", "Infinity", "-Infinity", "nan", "inf", "-inf", "1e400", "-1e400",
                  " 1", "\\t4", "1_0", "0x10", "1.0", "1e3", "true", "-0", "")  # fmt: skip
#: Pieces of a string's JSON text: escapes of every kind, lone and paired surrogates,
#: non-ASCII characters (raw and escaped), and a few that are not JSON.
STRING_PIECES = ("a", "Z", "7D", " ", "_", '\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r",
                 "\\t", "\\u0000", "\\u001f", "\\u007f", "\\u00e9", "\\u20ac", "\\uFEFF",
                 "\\uFFFF", "\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\uD83C\\uDCA1",
                 "\\udc00\\ud800", "é", "€", "\U0001f0a1")  # fmt: skip
#: And pieces that are not JSON (the last a raw lone surrogate: not UTF-8 once encoded).
BAD_STRING_PIECES = ("\\x41", "\\u12", "\\U0001F0A1", "\\", "\x00", "\n", "\x1f", "\\'",
                     "\ud800")  # fmt: skip
#: Lengths of strings, in pieces.
STRING_LENGTHS = (0, 1, 2, 8, 30, 200, 1000, 5000, 12_000)
#: Depths of nesting: around the mapping's 100 levels, Python's recursion limit, the body limit.
DEPTHS = (2, 31, 32, 99, 100, 101, 102, 998, 999, 1000, 1001, 5000, BODY_LIMIT // 2)


def body_bytes(text: str) -> bytes:
    """A JSON text as a body: UTF-8, raw lone surrogates written as their (invalid) bytes."""
    return text.encode("utf-8", "surrogatepass")


class JsonGrammar:
    """JSON texts of every kind, and request messages in JSON with any part wrong.

    ``states``: real state tokens, so that a body can reach past the token check.
    """

    def __init__(self, rng: random.Random, states: Sequence[bytes]) -> None:
        self.rng = rng
        self.states = states

    # -------------------------------------------------- scalars

    def literal(self) -> str:
        """A scalar: a number, string or constant at or past a limit, or no JSON at all."""
        draw = self.rng.randrange(10)
        if draw < 2:
            return self.integer()
        if draw < 4:
            return self.floating()
        if draw < 7:
            return self.string()
        if draw < 8:
            return self.rng.choice(CONSTANTS)
        if draw < 9:
            return f'"{self.rng.choice(NUMBER_STRINGS + EDGE_INTEGERS)}"'
        return self.rng.choice(NOT_NUMBERS)

    def integer(self) -> str:
        rng = self.rng
        if rng.random() < 0.4:
            return rng.choice(EDGE_INTEGERS)
        if rng.random() < 0.3:
            return str(rng.randint(-5, 60))
        digits = rng.choice(DIGIT_COUNTS)
        sign = rng.choice(("", "", "-"))
        return sign + rng.choice("123456789") + "".join(rng.choices(DIGITS, k=digits - 1))

    def floating(self) -> str:
        rng = self.rng
        if rng.random() < 0.4:
            return rng.choice(EDGE_FLOATS)
        whole = self.integer().lstrip("-") if rng.random() < 0.7 else "0"
        text = rng.choice(("", "-")) + whole
        if rng.random() < 0.6:
            text += "." + "".join(rng.choices(DIGITS, k=rng.choice(DIGIT_COUNTS)))
        if rng.random() < 0.6:
            text += rng.choice("eE") + rng.choice(EXPONENTS)
        return text

    def string(self, pieces: Sequence[str] = STRING_PIECES) -> str:
        """A JSON string, of up to 12,000 pieces; now and then one that is not JSON."""
        rng = self.rng
        chosen = rng.choices(pieces, k=rng.choice(STRING_LENGTHS))
        if rng.random() < 0.05:
            chosen.insert(rng.randrange(len(chosen) + 1), rng.choice(BAD_STRING_PIECES))
        if rng.random() < 0.02:
            return '"' + "".join(chosen)  # never closed
        return '"' + "".join(chosen) + '"'

    def state(self) -> str:
        """A bytes field: mostly a real token (whole or damaged), as base64 of either alphabet."""
        rng = self.rng
        token = rng.choice(self.states) if self.states else b""
        if rng.random() < 0.4:
            token = damaged_token(rng, token)
        encode = base64.b64encode if rng.random() < 0.8 else base64.urlsafe_b64encode
        text = encode(token).decode()
        return f'"{text.rstrip("=") if rng.random() < 0.1 else text}"'

    # -------------------------------------------------- containers

    def value(self, depth: int = 0) -> str:
        """Any JSON value: a literal, an array, an object (duplicate keys too), or deep nesting."""
        draw = self.rng.randrange(10 if depth < 3 else 6)
        if draw < 5:
            return self.literal()
        if draw < 6:
            return self.nested()
        if draw < 8:
            return self.array(lambda: self.value(depth + 1))
        size = self.rng.randrange(4)
        return self.object([(self.key(), self.value(depth + 1)) for _ in range(size)])

    def array(self, item: Callable[[], str]) -> str:
        return "[" + ",".join(item() for _ in range(self.rng.randrange(5))) + "]"

    def object(self, pairs: list[tuple[str, str]]) -> str:
        """An object of (key text, value text) pairs; now and then one of them twice."""
        if pairs and self.rng.random() < 0.1:
            pairs.insert(self.rng.randrange(len(pairs) + 1), self.rng.choice(pairs))
        return "{" + ",".join(f"{key}:{value}" for key, value in pairs) + "}"

    def key(self) -> str:
        rng = self.rng
        if rng.random() < 0.7:
            return f'"{rng.choice(FIELD_NAMES)}"'
        return self.string()

    def nested(self) -> str:
        """Arrays, objects or a message field inside themselves, up to and past the body limit."""
        rng = self.rng
        depth = rng.choice(DEPTHS)
        opening, closing = rng.choice(
            (
                ("[", "]"),
                ('{"x":', "}"),
                ('{"move":', "}"),
                ('[{"a":', "}]"),
                ('{"scopa":', "}"),
                ('{"briscola":', "}"),
            )
        )
        inner = rng.choice(("", "1", "null", '"x"', "{}", "[]")) if opening == "[" else "1"
        return opening * depth + inner + closing * depth

    # -------------------------------------------------- messages

    def message(self, descriptor: Descriptor, depth: int = 0) -> str:
        """An object of the message: some of its fields (either spelling, now and then
        twice or unknown), each a value of its type or any JSON value."""
        rng = self.rng
        fields = list(descriptor.fields)
        pairs = []
        for field in rng.sample(fields, rng.randrange(len(fields) + 1)):
            name = field.json_name if rng.random() < 0.8 else field.name
            pairs.append((f'"{name}"', self.field(field, depth)))
        if rng.random() < 0.15:
            pairs.append((self.key(), self.value(depth + 1)))
        rng.shuffle(pairs)
        return self.object(pairs)

    def field(self, field: FieldDescriptor, depth: int) -> str:
        """The value of one field: of its type mostly; any JSON value (every kind) otherwise."""
        rng = self.rng
        if rng.random() < 0.25:
            return self.value(depth + 1)
        if _is_map(field):
            value_field = field.message_type.fields_by_name["value"]
            return self.object(
                [(self.string(), self.single(value_field, depth)) for _ in range(rng.randrange(3))]
            )
        if field.is_repeated:
            return self.array(lambda: self.single(field, depth))
        return self.single(field, depth)

    def single(self, field: FieldDescriptor, depth: int) -> str:
        """One value of the field's type, as the JSON mapping spells it (or nearly)."""
        rng = self.rng
        kind = field.cpp_type
        if rng.random() < 0.1:
            return self.literal()
        if kind == FieldDescriptor.CPPTYPE_MESSAGE:
            return "{}" if depth > 3 else self.message(field.message_type, depth + 1)
        if kind == FieldDescriptor.CPPTYPE_BOOL:
            return rng.choice(("true", "false", '"true"', "1"))
        if kind == FieldDescriptor.CPPTYPE_ENUM:
            names = [value.name for value in field.enum_type.values]
            return rng.choice((f'"{rng.choice(names)}"', self.integer(), '"2"', '"UNKNOWN_X"'))
        if kind in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
            return self.floating() if rng.random() < 0.8 else f'"{rng.choice(NUMBER_STRINGS)}"'
        if kind == FieldDescriptor.CPPTYPE_STRING:
            if field.type == FieldDescriptor.TYPE_BYTES:
                return self.state()
            return f'"{rng.choice(CARDS)}"' if rng.random() < 0.5 else self.string()
        # an integer: as a number, a float, or a string of either
        text = self.integer() if rng.random() < 0.7 else self.floating()
        return f'"{text}"' if rng.random() < 0.2 else text


FIELD_NAMES = ("state", "move", "seat", "card", "take", "players", "scopa", "tressette",
               "briscola", "seed", "decks", "target", "variant", "firstDealer", "first_dealer",
               "napola", "removedTwo", "deal", "x", "", "@type", "[mazzo.v1.x]", "budgetMs",
               "level")  # fmt: skip


def damaged_token(rng: random.Random, token: bytes) -> bytes:
    """A state token flipped, cut, extended or replaced (or, one time in five, whole)."""
    data = bytearray(token)
    kind = rng.randrange(5)
    if kind == 0 and data:
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == 1:
        del data[rng.randrange(len(data) + 1) :]
    elif kind == 2:
        data += rng.randbytes(rng.randrange(1, 40))
    elif kind == 3:
        data = bytearray(rng.randbytes(rng.randrange(0, 200)))
    return bytes(data)


def _is_map(field: FieldDescriptor) -> bool:
    message_type = field.message_type
    return message_type is not None and message_type.GetOptions().map_entry


# ---------------------------------------------------------------- protobuf wire

VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5
#: The wire type each field type is written with (packed repeated scalars: LEN).
_WIRE_TYPES = {
    FieldDescriptor.TYPE_DOUBLE: I64, FieldDescriptor.TYPE_FIXED64: I64,
    FieldDescriptor.TYPE_SFIXED64: I64, FieldDescriptor.TYPE_FLOAT: I32,
    FieldDescriptor.TYPE_FIXED32: I32, FieldDescriptor.TYPE_SFIXED32: I32,
    FieldDescriptor.TYPE_STRING: LEN, FieldDescriptor.TYPE_BYTES: LEN,
    FieldDescriptor.TYPE_MESSAGE: LEN, FieldDescriptor.TYPE_GROUP: SGROUP,
}  # fmt: skip
#: Field numbers past the ones a message has: the smallest and largest legal, the
#: reserved range, and the illegal (0, past 2**29 - 1).
ODD_FIELD_NUMBERS = (0, 15, 16, 99, 1000, 19000, 19999, 2**29 - 1, 2**29, 2**32 - 1, 2**35)
#: Byte sequences that are not UTF-8: a lone continuation, overlong, a surrogate,
#: past U+10FFFF, cut short, an invalid lead.
NOT_UTF8 = (b"\x80", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xff",
            b"\xf8\x88\x80\x80\x80")  # fmt: skip
EDGE_VARINTS = (0, 1, 127, 128, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1)


def varint(value: int) -> bytes:
    """The base-128 varint of ``value`` (a negative one as its 64-bit two's complement)."""
    value &= 2**64 - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    # Not masked to 64 bits: a field number past 2**61 makes a varint too long to read.
    return varint(number << 3 | wire_type) if number < 2**61 else b"\xff" * 11 + b"\x01"


class WireGrammar:
    """Protobuf request bytes: the message's fields mostly right, any part wrong.

    ``states``: real state tokens, so that a request can reach past the token check.
    """

    def __init__(self, rng: random.Random, states: Sequence[bytes]) -> None:
        self.rng = rng
        self.states = states

    def message(self, descriptor: Descriptor, depth: int = 0) -> bytes:
        """Some of the message's fields, some twice, in any order, with odd ones between."""
        rng = self.rng
        parts = [
            self.field(field, depth)
            for field in rng.choices(list(descriptor.fields), k=rng.randrange(6))
        ] if descriptor.fields else []  # fmt: skip
        for _ in range(rng.choice((0, 0, 0, 1, 2))):
            parts.insert(rng.randrange(len(parts) + 1), self.odd_field(depth))
        return b"".join(parts)

    def field(self, field: FieldDescriptor, depth: int) -> bytes:
        """One field: its right wire type (packed, for a repeated scalar, now and then) or any."""
        rng = self.rng
        right = _WIRE_TYPES.get(field.type, VARINT)
        if field.is_repeated and right != LEN and rng.random() < 0.3:
            packed = b"".join(self.payload(field, right, depth) for _ in range(rng.randrange(4)))
            return tag(field.number, LEN) + self.length_prefixed(packed)
        wire_type = right if rng.random() < 0.8 else rng.randrange(8)
        return tag(field.number, wire_type) + self.payload(field, wire_type, depth)

    def payload(
        self, field: FieldDescriptor | None, wire_type: int, depth: int, number: int = 1
    ) -> bytes:
        """What follows a tag of ``wire_type`` (for ``field``, or an unknown field ``number``)."""
        rng = self.rng
        if wire_type == VARINT:
            return self.varint()
        if wire_type == I64:
            return rng.randbytes(8 if rng.random() < 0.9 else rng.randrange(8))
        if wire_type == I32:
            return rng.randbytes(4 if rng.random() < 0.9 else rng.randrange(4))
        if wire_type == LEN:
            return self.length_prefixed(self.contents(field, depth))
        if wire_type == SGROUP:
            inner = self.odd_field(depth + 1) if depth < 3 else b""
            end = tag(field.number if field else number, EGROUP) if rng.random() < 0.8 else b""
            return inner + end
        return b""  # EGROUP without a start, or wire types 6 and 7: nothing can follow

    def varint(self) -> bytes:
        """A varint: an edge value, a negative number, or one too long or cut short."""
        rng = self.rng
        draw = rng.randrange(10)
        if draw < 5:
            return varint(rng.choice(EDGE_VARINTS))
        if draw < 7:
            return varint(rng.randint(-(2**31), 2**31))
        if draw < 8:
            return b"\xff" * 9 + bytes([rng.randrange(2, 128)])  # past 64 bits
        if draw < 9:
            return b"\x80" * rng.choice((10, 11, 20)) + b"\x00"  # too many bytes
        return b"\x80" * rng.randrange(1, 4)  # cut short: the message ends inside it

    def length_prefixed(self, data: bytes) -> bytes:
        """``data`` after its length, or after a length that lies."""
        rng = self.rng
        if rng.random() < 0.85:
            return varint(len(data)) + data
        wrong = rng.choice((len(data) + 1, len(data) + 1000, 2**31, 2**32 + len(data), 2**63, -1))
        return varint(wrong) + data

    def contents(self, field: FieldDescriptor | None, depth: int) -> bytes:
        """What goes in a length-delimited field: a message, a string, a token, or junk."""
        rng = self.rng
        if field is not None and field.type == FieldDescriptor.TYPE_MESSAGE and depth < 4:
            return self.message(field.message_type, depth + 1)
        if field is not None and field.type == FieldDescriptor.TYPE_BYTES and self.states:
            token = rng.choice(self.states)
            return token if rng.random() < 0.6 else damaged_token(rng, token)
        if field is not None and field.type == FieldDescriptor.TYPE_STRING:
            text = rng.choice(CARDS).encode() if rng.random() < 0.5 else b"7D"
            if rng.random() < 0.3:
                spot = rng.randrange(len(text) + 1)
                text = text[:spot] + rng.choice(NOT_UTF8) + text[spot:]
            return text
        return rng.randbytes(rng.randrange(0, 40))

    def odd_field(self, depth: int) -> bytes:
        """A field the message does not have: an odd number, any wire type; or deep groups."""
        rng = self.rng
        if rng.random() < 0.1:
            levels = rng.choice((50, 99, 100, 101, 1000, 5000))
            return tag(1000, SGROUP) * levels + tag(1000, EGROUP) * levels
        number = rng.choice(ODD_FIELD_NUMBERS)
        wire_type = rng.randrange(8)
        return tag(number, wire_type) + self.payload(None, wire_type, depth + 1, number)
