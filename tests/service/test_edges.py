"""The edges of both transports: whatever arrives, an answer or an error in the documented form.

gRPC: a status with one google.rpc.ErrorInfo. REST: the AIP-193 JSON envelope,
also for what the HTTP layer refuses by itself (malformed HTTP, headers or
body too large, slow clients). Never INTERNAL, never a 5xx, never a traceback.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor

from mazzo.engine.errors import Text
from mazzo.service import i18n
from mazzo.service.errors import RefusalLog
from mazzo.service.handlers import SERVICE
from mazzo.service.http_server import TICK, HttpLimits
from mazzo.service.state_token import StateSealer
from mazzo.service.trust import dump_record, load_record
from mazzo.v1 import engine_pb2 as pb
from tests.service.support import (
    KEYS,
    Stack,
    exchange,
    http_call,
    parsed,
    refusal_of,
    running_stack,
)
from tools.fuzz import ROUTES, Route, send_grpc
from tools.fuzz_grammar import (
    EGROUP,
    I32,
    I64,
    INT_DIGITS,
    LEN,
    NOT_UTF8,
    SGROUP,
    VARINT,
    tag,
    varint,
)  # fmt: skip

LIMIT = 65536
READ_TIMEOUT = 0.5
IDLE_TIMEOUT = 1.0
#: Generous bound for what the server does on its own clock (closing a stalled connection).
PATIENCE = 30.0
#: The response message of every method.
METHODS = {method.name: getattr(pb, method.output_type.name) for method in SERVICE.methods}


@pytest.fixture(scope="module")
def edge_stack() -> Iterator[Stack]:
    """Both transports, with short HTTP timeouts so that stalled clients are seen to go."""
    limits = HttpLimits(read_timeout=READ_TIMEOUT, idle_timeout=IDLE_TIMEOUT, max_body=LIMIT)
    with running_stack(KEYS, limits=limits, max_request_bytes=LIMIT) as stack:
        yield stack


@pytest.fixture(scope="module")
def channel(edge_stack: Stack) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(edge_stack.grpc_target) as opened:
        yield opened


def raw_call(channel: grpc.Channel, method: str, data: bytes) -> Any:
    call = channel.unary_unary(
        f"/mazzo.v1.Engine/{method}", response_deserializer=METHODS[method].FromString
    )
    return call(data, timeout=10)


def raw_refusal(channel: grpc.Channel, method: str, data: bytes) -> Any:
    with pytest.raises(grpc.RpcError) as caught:
        raw_call(channel, method, data)
    return refusal_of(caught.value)


def padded(size: int) -> bytes:
    """An empty request message of exactly ``size`` bytes: one unknown bytes field (number 1000)."""
    tag = bytes([0xC2, 0x3E])  # field 1000, wire type 2
    for length_bytes in (1, 2, 3):
        payload = size - len(tag) - length_bytes
        length = varint(payload)
        if len(length) == length_bytes:
            return tag + length + b"x" * payload
    raise AssertionError(size)


# ---------------------------------------------------------------- gRPC


@pytest.mark.parametrize("method", sorted(METHODS))
def test_undecodable_grpc_bytes_are_invalid_argument_malformed_request(
    channel: grpc.Channel, method: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for data in (b"\xff\xff", b"\x0a\x05ab", b"\x08" + b"\xff" * 11):
        refusal = raw_refusal(channel, method, data)
        assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
        assert refusal.reason == "MALFORMED_REQUEST"
        assert "Request" in refusal.message and "Error" not in refusal.message
    assert not [record for record in caplog.records if record.exc_info]
    assert "Traceback" not in caplog.text


def _wire_damage(number: int, *, string: bool) -> tuple[list[bytes], list[bytes]]:
    """Field ``number`` written wrong: (bytes protobuf reads, as an unknown field or a
    cut-down number; bytes it refuses as corrupt). Every wire type, a varint past 64
    bits, one cut short, a length past the end, invalid UTF-8 (``string``), groups
    unmatched or too deep."""
    payloads = {VARINT: b"\x01", I64: bytes(8), LEN: b"\x01x", I32: bytes(4),
                SGROUP: tag(number, EGROUP)}  # fmt: skip
    read = [tag(number, wire_type) + payload for wire_type, payload in payloads.items()]
    read.append(tag(number, VARINT) + b"\xff" * 9 + b"\x7f")  # past 64 bits: cut down
    corrupt = [
        tag(number, EGROUP),
        tag(number, SGROUP),
        tag(number, 6),
        tag(number, 7),
        tag(number, VARINT) + b"\x80" * 10 + b"\x00",  # 11 bytes
        tag(number, VARINT) + b"\x80",  # the message ends inside it
        tag(number, LEN) + varint(5) + b"ab",
        tag(number, LEN) + varint(2**63),
        tag(1000, SGROUP) * 101 + tag(1000, EGROUP) * 101,  # deeper than protobuf reads
    ]
    if string:
        corrupt += [tag(number, LEN) + varint(len(bad)) + bad for bad in NOT_UTF8]
    return read, corrupt


@pytest.mark.parametrize("route", ROUTES, ids=[route.name for route in ROUTES])
def test_every_field_written_wrong_on_the_wire_is_refused_in_the_documented_form(
    channel: grpc.Channel, route: Route, caplog: pytest.LogCaptureFixture
) -> None:
    fields = [(f.number, f.type == FieldDescriptor.TYPE_STRING) for f in route.request.fields]
    for number, string in fields or [(1, False)]:  # GetCatalogRequest: an unknown field
        read, corrupt = _wire_damage(number, string=string)
        for data in read:
            _, problem = send_grpc(channel, route.name, data)
            assert problem is None, (number, data)
        for data in corrupt:
            refusal = raw_refusal(channel, route.name, data)
            assert (refusal.code, refusal.reason) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "MALFORMED_REQUEST",
            ), (number, data)
    assert "Traceback" not in caplog.text


def test_a_grpc_message_of_exactly_the_limit_is_served_one_byte_more_is_refused(
    channel: grpc.Channel,
) -> None:
    assert len(padded(LIMIT)) == LIMIT
    catalog = raw_call(channel, "GetCatalog", padded(LIMIT))
    assert catalog.games
    refusal = raw_refusal(channel, "GetCatalog", padded(LIMIT + 1))
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_TOO_LARGE")
    assert refusal.metadata == {"limit": str(LIMIT)}


def _sealed_out_of_range(stack: Stack, game: str) -> bytes:
    """An authentic token (sealed with the server's key) whose score cannot be reached."""
    messages = {
        "scopa": pb.ScopaOptions(),
        "tressette": pb.TressetteOptions(),
        "briscola": pb.BriscolaOptions(),
    }
    options = {game: messages[game]}
    token = stack.handlers.new_game(pb.NewGameRequest(players=2, seed=4, **options)).state
    sealer = StateSealer(list(KEYS))
    state, game_id, ply = load_record(sealer.open(token))
    state.scores = (2**31, 0)
    return sealer.seal(dump_record(state, game_id, ply))


@pytest.mark.parametrize("game", ["scopa", "tressette", "briscola"])
def test_an_authentic_state_with_a_score_out_of_range_is_state_corrupt_on_both_transports(
    edge_stack: Stack, channel: grpc.Channel, game: str
) -> None:
    token = _sealed_out_of_range(edge_stack, game)
    request = pb.LegalMovesRequest(state=token).SerializeToString()
    refusal = raw_refusal(channel, "LegalMoves", request)
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "STATE_CORRUPT")
    assert "score out of range" in refusal.message
    body = {"state": base64.b64encode(token).decode()}
    reply = http_call(edge_stack.http_port, "POST", "/v1/games:legalMoves", body)
    assert reply.status == 400
    assert reply.json()["error"]["details"][0]["reason"] == "STATE_CORRUPT"


# ---------------------------------------------------------------- REST: the JSON layer


def error_of(reply: Any) -> dict[str, Any]:
    """The envelope of a refusal, checked: JSON, AIP-193, one ErrorInfo, a 4xx."""
    assert reply.content_type.startswith("application/json"), reply
    error = reply.json()["error"]
    assert set(error) == {"code", "status", "message", "details"}
    assert error["code"] == reply.status and 400 <= reply.status < 500
    (info,) = error["details"]
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert info["domain"] == "mazzo" and info["reason"]
    return dict(error)


@pytest.mark.parametrize(
    ("body", "field", "said"),
    [
        ({"state": 5}, "PlayRequest.state", "expected a base64 string, not a number"),
        ({"move": {"seat": 2**40}}, "PlayRequest.move.seat", "integer out of range"),
        ({"move": {"seat": [1]}}, "PlayRequest.move.seat", "expected an integer, not an array"),
        ({"move": {"take": [1]}}, "PlayRequest.move.take[0]", "expected a string, not a number"),
    ],
)
def test_a_malformed_body_is_explained_by_field_never_by_an_exception(
    edge_stack: Stack, body: dict[str, Any], field: str, said: str
) -> None:
    error = error_of(http_call(edge_stack.http_port, "POST", "/v1/games:play", body))
    assert error["message"].startswith(f"{field}: {said}")
    assert "Error" not in error["message"] and "object of type" not in error["message"]


#: Every route that reads a body, with its request message.
POST_ROUTES = [route for route in ROUTES if route.verb == "POST"]
#: JSON literals at and past the limits of Python's json and of its int and float
#: conversions, and around the mapping's own (nesting: 100 messages deep).
LIMIT_LITERALS = {
    "integer of the most digits": "9" * INT_DIGITS,
    "integer of a digit more": "9" * (INT_DIGITS + 1),
    "negative integer of a digit more": "-" + "9" * (INT_DIGITS + 1),
    "exponent past the doubles": "1e400",
    "exponent of 5000 digits": "1e" + "9" * 5000,
    "just past the largest double": "1.7976931348623159e308",
    "mantissa of 20000 digits": "0." + "9" * 20_000,
    "bare NaN": "NaN",
    "bare -Infinity": "-Infinity",
    "lone high surrogate": '"\\ud800"',
    "lone low surrogate": '"\\udc00"',
    "surrogates reversed": '"\\udc00\\ud800"',
    "escapes": '"\\u0000\\b\\f\\/"',
    "string of 60000 characters": '"' + "a" * 60_000 + '"',
    "duplicate keys": '{"a": 1, "a": 2}',
    "nested 101 deep": '{"a":' * 101 + "1" + "}" * 101,
    "nested to the body limit": "[" * 32_000 + "]" * 32_000,
}


def _placements(route: Route, literal: str) -> list[str]:
    """The literal as the whole body, at each field of the request, and in an unknown field."""
    fields = [f'{{"{field.json_name}": {literal}}}' for field in route.request.fields]
    return [literal, *fields, f'{{"notAField": {literal}}}']


@pytest.mark.parametrize("route", POST_ROUTES, ids=[route.name for route in POST_ROUTES])
def test_an_integer_past_pythons_digit_limit_is_malformed_request_wherever_it_is(
    edge_stack: Stack, route: Route
) -> None:
    for body in _placements(route, "-" + "9" * (INT_DIGITS + 1)):
        reply = http_call(edge_stack.http_port, "POST", route.path, raw=body.encode())
        error = error_of(reply)
        assert (reply.status, error["details"][0]["reason"]) == (400, "MALFORMED_REQUEST")
        assert error["message"] == (
            f"not JSON this server reads: an integer of {INT_DIGITS + 1} digits"
            f" (at most {INT_DIGITS})"
        )


@pytest.mark.parametrize("literal", LIMIT_LITERALS.values(), ids=list(LIMIT_LITERALS))
def test_json_literals_at_and_past_every_limit_are_answered_or_refused_in_the_envelope(
    edge_stack: Stack, literal: str, caplog: pytest.LogCaptureFixture
) -> None:
    for route in POST_ROUTES:
        for body in _placements(route, literal):
            reply = http_call(edge_stack.http_port, "POST", route.path, raw=body.encode())
            if reply.status != 200:
                assert error_of(reply)["details"][0]["reason"] != "INTERNAL", body[:80]
    assert "Traceback" not in caplog.text


def test_a_body_of_exactly_the_limit_is_served_one_byte_more_is_413(edge_stack: Stack) -> None:
    start = json.dumps({"scopa": {}}).encode()
    exact = start + b" " * (LIMIT - len(start))
    assert http_call(edge_stack.http_port, "POST", "/v1/games", raw=exact).status == 200
    error = error_of(http_call(edge_stack.http_port, "POST", "/v1/games", raw=exact + b" "))
    assert (error["code"], error["details"][0]["reason"]) == (413, "REQUEST_TOO_LARGE")


def test_an_encoded_body_is_415_and_a_long_target_414(edge_stack: Stack) -> None:
    reply = http_call(
        edge_stack.http_port, "POST", "/v1/games", {}, headers={"Content-Encoding": "gzip"}
    )
    assert error_of(reply)["details"][0]["reason"] == "UNSUPPORTED_MEDIA_TYPE"
    reply = http_call(edge_stack.http_port, "GET", "/v1/catalog?" + "a" * 3000)
    assert (reply.status, error_of(reply)["details"][0]["reason"]) == (414, "URI_TOO_LONG")


def test_the_probes_answer_while_serving(edge_stack: Stack) -> None:
    for path in ("/healthz", "/readyz"):
        reply = http_call(edge_stack.http_port, "GET", path)
        assert (reply.status, reply.json()) == (200, {"status": "SERVING"})


# ---------------------------------------------------------------- REST: the HTTP layer


@pytest.mark.parametrize(
    ("request_bytes", "status", "reason"),
    [
        (b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"0" * 9000 + b"\r\n\r\n", 431, "HEADERS_TOO_LARGE"),
        (
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            400,
            "BAD_REQUEST",
        ),
        (b"GARBAGE\r\n\r\n", 400, "BAD_REQUEST"),
        (b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n", 404, "NOT_FOUND"),
        (
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
            400,
            "BAD_REQUEST",
        ),
        (b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n", 400, "BAD_REQUEST"),
        (b"POST /v1/games HTTP/1.1\r\nContent-Length: 70000\r\n\r\n{", 413, "REQUEST_TOO_LARGE"),
    ],
    ids=["header-9000", "chunk-size-zz", "request-line", "nul", "gzip-coding", "length-zz", "413"],
)
def test_what_the_http_layer_refuses_is_answered_in_the_envelope(
    edge_stack: Stack, request_bytes: bytes, status: int, reason: str
) -> None:
    answer = exchange(edge_stack.http_port, request_bytes)
    # The version the server speaks, whatever the request line said or could not say.
    assert answer.startswith(b"HTTP/1.1 "), answer[:40]
    code, headers, body = parsed(answer)
    assert code == status
    assert headers["content-type"] == "application/json"
    assert body["error"]["code"] == status
    assert body["error"]["details"][0]["reason"] == reason


#: Requests whose framing no server can read as one request: each is answered 400 in the
#: envelope at once (not 408 once the read timeout passes), then the connection is closed.
MALFORMED_FRAMING = {
    "content-length-then-chunked": b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 13\r\n"
    b'Transfer-Encoding: chunked\r\n\r\nd\r\n{"scopa": {}}\r\n0\r\n\r\n',
    "chunked-then-content-length": b"POST /v1/games HTTP/1.1\r\nHost: x\r\n"
    b'Transfer-Encoding: chunked\r\nContent-Length: 13\r\n\r\n{"scopa": {}}',
    "transfer-encoding-in-http-1.0": b"POST /v1/games HTTP/1.0\r\nHost: x\r\n"
    b'Transfer-Encoding: chunked\r\n\r\nd\r\n{"scopa": {}}\r\n0\r\n\r\n',
    "bare-cr-in-the-request-line": b"GET /v1/catalog HTTP/1.1\r\x0bHost: x\r\n",
    "bare-cr-in-a-header": b"POST /v1/games HTTP/1.1\r\nHost: x\r\nX: \r\x00\n\r\n{}",
    "lines-ended-by-lf-alone": b"GET /v1/catalog HTTP/1.1\nHost: x\n\n",
}


@pytest.mark.parametrize("request_bytes", MALFORMED_FRAMING.values(), ids=MALFORMED_FRAMING)
def test_malformed_framing_is_answered_400_at_once_then_closed(
    edge_stack: Stack, request_bytes: bytes
) -> None:
    code, headers, body = parsed(exchange(edge_stack.http_port, request_bytes))
    assert (code, body["error"]["details"][0]["reason"]) == (400, "BAD_REQUEST"), body
    assert headers["connection"] == "close" and headers["content-type"] == "application/json"


#: Requests whose client closes its side before they are whole.
UNFINISHED = {
    "in-the-request-line": b"GET /v1/cat",
    "in-the-headers": b"GET /v1/catalog HTTP/1.1\r\nHost: x\r\n",
    "in-the-body": b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{",
    "in-a-chunk": b"POST /v1/games HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffff\r\n{",
    "a-header-that-never-ends": b"POST /v1/games HTTP/1.1\r\nContent-Length: 2\r\nX\n{}",
}


@pytest.mark.parametrize("request_bytes", UNFINISHED.values(), ids=UNFINISHED)
def test_a_request_its_client_stops_sending_is_answered_400_not_dropped(
    edge_stack: Stack, request_bytes: bytes
) -> None:
    answer = exchange(edge_stack.http_port, request_bytes, close_write=True)
    code, headers, body = parsed(answer)
    assert (code, body["error"]["details"][0]["reason"]) == (400, "BAD_REQUEST"), body
    assert headers["connection"] == "close"


def test_blank_lines_then_the_end_of_input_ask_nothing_and_get_no_answer(
    edge_stack: Stack,
) -> None:
    assert exchange(edge_stack.http_port, b"\r\n", close_write=True) == b""
    whole = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    answer = exchange(edge_stack.http_port, whole + b"\r\n", close_write=True)
    assert answer.startswith(b"HTTP/1.1 200 ") and answer.count(b"HTTP/1.1") == 1


#: Refusals of the HTTP layer made once the request's headers were read: the header
#: (Accept-Language goes last), what follows it, whether the client then closes its side,
#: and the message.
REFUSED_WITH_HEADERS_READ = {
    "413": (
        b"POST /v1/games HTTP/1.1\r\nContent-Length: 70000\r\n",
        b"{",
        False,
        Text("the request body is larger than the {limit} bytes accepted", limit=LIMIT),
    ),
    "408": (
        b"POST /v1/games HTTP/1.1\r\nContent-Length: 9\r\n",
        b"{",
        False,
        Text(
            "the request did not arrive within {seconds} s of its first byte",
            seconds=f"{READ_TIMEOUT:g}",
        ),
    ),
    "400-framing": (
        b"POST /v1/games HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n",
        b"{}",
        False,
        Text(
            "not a valid HTTP/1.1 request: {why}",
            why=Text("a request may not have both Content-Length and Transfer-Encoding"),
        ),
    ),
    "400-chunk": (
        b"POST /v1/games HTTP/1.1\r\nTransfer-Encoding: chunked\r\n",
        b"zz\r\n",
        False,
        # waitress's own account of what it could not read stays English.
        Text("not a valid HTTP/1.1 request: {why}", why="Invalid chunk size"),
    ),
    "400-unfinished": (
        b"POST /v1/games HTTP/1.1\r\nContent-Length: 9\r\n",
        b"{",
        True,
        Text("the client closed its side of the connection before the request was whole"),
    ),
}


@pytest.mark.parametrize(
    ("header", "after", "close_write", "message"),
    REFUSED_WITH_HEADERS_READ.values(),
    ids=REFUSED_WITH_HEADERS_READ,
)
@pytest.mark.parametrize("locale", ["it", "ru", "en"])
def test_the_http_layers_refusals_speak_the_callers_language_once_its_headers_are_read(
    edge_stack: Stack, header: bytes, after: bytes, close_write: bool, message: Text, locale: str
) -> None:
    asked = header + f"Accept-Language: {locale}\r\n\r\n".encode() + after
    answer = exchange(edge_stack.http_port, asked, close_write=close_write)
    assert answer.startswith(b"HTTP/1.1 ")
    _, _, body = parsed(answer)
    assert body["error"]["message"] == message.render(i18n.translations(locale).gettext)


def test_headers_too_large_are_refused_in_english_for_they_were_not_read(
    edge_stack: Stack,
) -> None:
    asked = b"GET / HTTP/1.1\r\nAccept-Language: it\r\nX: " + b"0" * 9000 + b"\r\n\r\n"
    answer = exchange(edge_stack.http_port, asked)
    assert answer.startswith(b"HTTP/1.1 431 ")
    _, _, body = parsed(answer)
    limit = Text(
        "the request line and headers are larger than the {limit} bytes accepted", limit=8192
    )
    assert body["error"]["message"] == str(limit)


def test_an_app_that_raises_before_answering_is_a_500_internal_not_the_callers_fault() -> None:
    """waitress answers such a request with its InternalServerError; it is no refusal of
    a malformed request (it was answered 400 INVALID_ARGUMENT, "not a valid HTTP/1.1 request")."""
    import threading

    from mazzo.service.http_server import HttpServer, bind, port_of

    def broken(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        raise RuntimeError("a bug")

    server = HttpServer([(bind(("127.0.0.1", 0)), broken)], HttpLimits())
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        port = port_of(server.listeners[0].socket)
        answer = exchange(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    finally:
        server.close()
        thread.join(PATIENCE)
    code, headers, body = parsed(answer)
    assert (code, headers["content-type"]) == (500, "application/json")
    assert body["error"]["status"] == "INTERNAL"
    assert body["error"]["message"] == "internal error"
    assert body["error"]["details"][0]["reason"] == "INTERNAL"


def test_a_stalled_request_gets_408_and_is_closed(edge_stack: Stack) -> None:
    started = time.monotonic()
    answer = exchange(edge_stack.http_port, b"GET /v1/catalog HTTP/1.1\r\nHost: x\r\nX-Sl")
    code, _, body = parsed(answer)
    assert (code, body["error"]["details"][0]["reason"]) == (408, "REQUEST_TIMEOUT")
    assert time.monotonic() - started >= READ_TIMEOUT - TICK


def test_a_body_that_stops_coming_gets_408(edge_stack: Stack) -> None:
    head = b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"
    code, _, body = parsed(exchange(edge_stack.http_port, head))
    assert (code, body["error"]["details"][0]["reason"]) == (408, "REQUEST_TIMEOUT")


def test_silent_and_idle_connections_are_closed(edge_stack: Stack) -> None:
    assert exchange(edge_stack.http_port, b"") == b""  # connected, said nothing
    kept = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    answer = exchange(edge_stack.http_port, kept)  # answered, then idle past IDLE_TIMEOUT
    assert answer.startswith(b"HTTP/1.1 200 ") and answer.count(b"HTTP/1.1") == 1


def test_a_connection_that_sends_nothing_is_closed_after_the_read_timeout_without_an_answer() -> (
    None
):
    """No request, nothing to answer (as nginx does; a 408 is for a request begun and not
    whole): the read timeout closes it, not the idle timeout, which here never comes."""
    limits = HttpLimits(read_timeout=READ_TIMEOUT, idle_timeout=3600.0, max_body=LIMIT)
    with running_stack(KEYS, limits=limits, max_request_bytes=LIMIT) as stack:
        started = time.monotonic()
        assert exchange(stack.http_port, b"") == b""
        assert time.monotonic() - started >= READ_TIMEOUT - TICK


def test_refusals_log_one_short_line_at_most_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    from mazzo.service.errors import ApiError, ServiceReason

    log = RefusalLog(interval=3600)
    error = ApiError.invalid(ServiceReason.MALFORMED_REQUEST, "x")
    with caplog.at_level(logging.INFO, logger="mazzo"):
        for _ in range(1000):
            log("gRPC", "Play", error)
    lines = [r for r in caplog.records if "refused a malformed" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert len(lines[0].getMessage()) < 120


def test_the_server_raises_its_open_file_limit_to_hold_its_connections() -> None:
    import resource

    from mazzo.service.http_server import CONNECTION_LIMIT, raise_file_limit

    raise_file_limit()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = CONNECTION_LIMIT + 256
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    assert soft == resource.RLIM_INFINITY or soft >= wanted
