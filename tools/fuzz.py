"""Fuzzing both transports: random and damaged requests, and what a right answer is.

    python -m tools.fuzz [--requests 100000] [--workers 2] [--threads 4] [--seed N]

``make fuzz`` starts ``python -m mazzo.service`` on free ports of 127.0.0.1
(nothing else is ever a target), sends ``--requests`` requests, half over
REST and half over gRPC, from ``--threads`` threads, prints the counts by
HTTP status and gRPC code, and exits non-zero on any wrong answer:

- REST: a 5xx, a refusal that is not the AIP-193 JSON envelope with one
  ``google.rpc.ErrorInfo`` (domain ``mazzo``), or a request closed without an
  answer (malformed HTTP too is answered 400; every request is sent whole, or
  cut and followed by the end of the client's side, which is answered too);
- gRPC: INTERNAL or UNKNOWN, or a refusal without exactly one ErrorInfo;
- the server: a traceback in its log, a worker that died, a dirty stop.

The requests (:func:`rest_case`, :func:`grpc_case`) are drawn from a
``random.Random``, for every method of the service, from the grammars of
tools/fuzz_grammar.py: over REST, JSON of every kind at every field of the
request message and at the top level, with numbers, exponents, strings and
escapes at and past the limits of Python's json and of its int and float
conversions, lone surrogates, duplicate keys and nesting up to the body
limit; over gRPC, the request message's fields with right and wrong wire
types, overflowing and truncated varints, lengths that lie, invalid UTF-8,
unknown field numbers and unmatched groups. Besides: valid requests with one
part damaged, bytes that are not UTF-8, wrong content types and codings,
unknown routes and verbs, mangled HTTP (request lines, framing:
``Content-Length`` with ``Transfer-Encoding``, lines without their CR), and
state tokens flipped, cut or extended. The property tests
(tests/service/test_fuzz.py) draw from the same functions through
hypothesis, a few hundred times in ``make test``.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import random
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.descriptor import Descriptor
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from mazzo.service.handlers import SERVICE, http_rule
from mazzo.v1 import engine_pb2 as pb
from tools.fuzz_grammar import (
    BODY_LIMIT,
    CARDS,
    JsonGrammar,
    WireGrammar,
    body_bytes,
    damaged_token,
)

#: Every game of the contract, by its options message's field in NewGameRequest.
GAME_NAMES = tuple(f.name for f in pb.NewGameRequest.DESCRIPTOR.oneofs_by_name["game"].fields)

HOST = "127.0.0.1"
#: The served Mazzo's settings: Suggest thinks briefly (the fuzzer looks for wrong
#: answers, not good moves), and the request limit is the grammar's.
SERVER_SETTINGS = {"MAZZO_MAX_SUGGEST_MS": "20", "MAZZO_MAX_REQUEST_BYTES": str(BODY_LIMIT)}
METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD")
#: Suggest's levels: none (the default), each of the four, and one that does not exist.
LEVELS = ("", "random", "greedy", "intermediate", "expert", "oracle")


@dataclass(frozen=True)
class Route:
    """One method of mazzo.v1.Engine: its REST verb and path, and its request message."""

    name: str
    verb: str
    path: str
    request: Descriptor


#: Every method of the service, from the proto (the routes the gateway serves).
ROUTES = tuple(Route(m.name, *http_rule(m), m.input_type) for m in SERVICE.methods)
#: The other paths the REST server answers, and some it does not.
PROBES = (("GET", "/healthz"), ("GET", "/readyz"), ("GET", "/metrics"), ("GET", "/docs"),
          ("GET", "/play"), ("GET", "/openapi.json"))  # fmt: skip
OTHER_PATHS = ("/", "/v1", "/v1/games:surrender", "/v1/catalog/x", "/%ff%00", "/v1/games:play;x")
CONTENT_TYPES = (
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=zz",
    "application/json; charset=latin-1",
    "application/grpc",
    "",
)


def _valid_body(rng: random.Random, path: str, token: bytes) -> dict[str, Any]:
    state = base64.b64encode(token).decode()
    move = {"seat": rng.randrange(-1, 5), "card": rng.choice(CARDS), "take": []}
    if path == "/v1/games":
        game = rng.choice([*({name: {}} for name in GAME_NAMES), {"scopa": {"variant": "X"}}])
        return {"players": rng.choice((2, 3, 4, 5, 6)), **game, "seed": str(rng.randrange(9))}
    if path == "/v1/games:view":
        return {"state": state, "seat": rng.randrange(-1, 5)}
    if path == "/v1/games:legalMoves":
        return {"state": state}
    if path == "/v1/games:suggest":
        # A short think: the fuzzer looks for wrong answers, not for good moves.
        return {"state": state, "seat": rng.randrange(-1, 3), "level": rng.choice(LEVELS),
                "budgetMs": rng.randrange(1, 5), "simulations": rng.randrange(0, 4)}  # fmt: skip
    return {"state": state, "move": move}


def _with_field(body: dict[str, Any], key: str, value_text: str) -> str:
    """``body`` in JSON with the value of ``key`` (added if absent) written as ``value_text``."""
    pairs = [f"{json.dumps(k)}:{json.dumps(v)}" for k, v in body.items() if k != key]
    pairs.insert(len(pairs) // 2, f"{json.dumps(key)}:{value_text}")
    return "{" + ",".join(pairs) + "}"


# ---------------------------------------------------------------- REST cases


@dataclass(frozen=True)
class RestCase:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    #: Sent as is over a socket (mangled HTTP), not through http.client.
    raw: bytes | None = None


def rest_case(rng: random.Random, tokens: Sequence[bytes]) -> RestCase:
    """One random REST request, of one of several kinds."""
    route = rng.choice(ROUTES)
    verb, path = route.verb, route.path
    if rng.random() < 0.05:
        verb, path = rng.choice(PROBES)
    if rng.random() < 0.05:
        verb = rng.choice(METHODS)
    if rng.random() < 0.03:
        path = rng.choice(OTHER_PATHS)
    token = rng.choice(tokens)
    grammar = JsonGrammar(rng, tokens)
    headers = {"Content-Type": "application/json"}
    kind = rng.randrange(12)
    if kind == 0:
        body = body_bytes(grammar.value())  # any JSON value, at the top level
    elif kind in (1, 2):
        body = body_bytes(grammar.message(route.request))  # any value at any field
    elif kind == 3:
        valid = _valid_body(rng, path, token)  # one field of a valid body: any value
        key = rng.choice([*valid, *(f.json_name for f in route.request.fields)])
        value = grammar.literal() if rng.random() < 0.6 else grammar.value()
        body = body_bytes(_with_field(valid, key, value))
    elif kind == 4:
        body = body_bytes(grammar.nested())
    elif kind == 5:
        body = rng.randbytes(rng.randrange(0, 300))  # mostly not UTF-8
    elif kind == 6:
        valid = _valid_body(rng, path, token)
        valid["state"] = base64.b64encode(damaged_token(rng, token)).decode()
        body = json.dumps(valid).encode()
    elif kind == 7:
        body = json.dumps(_valid_body(rng, path, token)).encode()
        headers["Content-Type"] = rng.choice(CONTENT_TYPES)
        if rng.random() < 0.3:
            headers["Content-Encoding"] = rng.choice(("gzip", "br", "identity", "x"))
    elif kind == 8:
        body = json.dumps(_valid_body(rng, path, token)).encode()
        cut = rng.randrange(len(body) + 1)
        body = body[:cut]
    elif kind == 9:
        body = json.dumps(_valid_body(rng, path, token)).encode()
        return RestCase(verb, path, headers, body, raw=_mangled_http(rng, verb, path, body))
    else:
        body = json.dumps(_valid_body(rng, path, token)).encode()
    return RestCase(verb, path, headers, body)


def _mangled_http(rng: random.Random, verb: str, path: str, body: bytes) -> bytes:
    head = f"{verb} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n"
    kind = rng.randrange(8)
    if kind == 0:
        head = head.replace("HTTP/1.1", rng.choice(("HTTP/9.9", "HTTP/1", "", "HTTPS/1.1")))
    elif kind == 1:
        head = head.replace(f"Content-Length: {len(body)}", "Transfer-Encoding: chunked")
        size = rng.choice(("zz", "-1", "ffffffffffffffffff", f"{len(body):x}"))
        return (head + "\r\n").encode() + size.encode() + b"\r\n" + body + b"\r\n0\r\n\r\n"
    elif kind == 2:
        head += "X-Big: " + "a" * rng.choice((100, 9000, 20000)) + "\r\n"
    elif kind == 3:
        head += rng.choice(("Bad Header\r\n", "\x00: x\r\n", ": empty\r\n", "X: \r\x00\n"))
    elif kind == 4:
        head = head.replace(
            f"Content-Length: {len(body)}",
            f"Content-Length: {rng.choice(('-1', 'x', '1e3', '9' * 30))}",
        )
    elif kind == 5:  # framed twice: the request's length is ambiguous (request smuggling)
        coding = rng.choice(("chunked", "gzip, chunked", "identity"))
        head = rng.choice(
            (
                head + f"Transfer-Encoding: {coding}\r\n",
                head.replace("Host: x", f"Host: x\r\nTransfer-Encoding: {coding}"),
            )
        )
    elif kind == 6:  # lines ended by LF alone, or by a CR alone
        return ((head + "\r\n").replace("\r\n", rng.choice(("\n", "\r"))).encode()) + body
    else:
        data = bytearray((head + "\r\n").encode() + body)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    return (head + "\r\n").encode() + body


# ---------------------------------------------------------------- gRPC cases


def grpc_case(rng: random.Random, tokens: Sequence[bytes]) -> tuple[str, bytes]:
    """One random gRPC call: the method and the request bytes."""
    route = rng.choice(ROUTES)
    token = rng.choice(tokens)
    kind = rng.randrange(6)
    if kind == 0:
        return route.name, rng.randbytes(rng.randrange(0, 200))
    if kind in (1, 2, 3):  # every field's wire type right or wrong, odd varints and lengths
        return route.name, WireGrammar(rng, tokens).message(route.request)
    data = _valid_message(rng, route.name, token).SerializeToString()
    if kind == 4 and data:
        mutable = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            mutable[rng.randrange(len(mutable))] = rng.randrange(256)
        return route.name, bytes(mutable)
    if kind == 5 and rng.random() < 0.5:
        return route.name, data[: rng.randrange(len(data) + 1)] + rng.randbytes(rng.randrange(3))
    return route.name, data


def _valid_message(rng: random.Random, method: str, token: bytes) -> Any:
    state = damaged_token(rng, token) if rng.random() < 0.5 else token
    move = pb.Move(
        seat=rng.choice((0, 1, 3, -1, 2**31 - 1)),
        card=rng.choice(CARDS),
        take=[rng.choice(CARDS) for _ in range(rng.randrange(3))],
    )
    if method == "GetCatalog":
        return pb.GetCatalogRequest()
    if method == "NewGame":
        request = pb.NewGameRequest(players=rng.randrange(-1, 8), seed=rng.randrange(2**64))
        options = getattr(request, rng.choice(GAME_NAMES))
        options.target = rng.randrange(-5, 2000)  # every game's options have a target
        if "variant" in options.DESCRIPTOR.fields_by_name:  # an enum out of its range too
            options.variant = rng.randrange(-1, 12)
        if rng.random() < 0.3:  # computer seats (never a searching level: the fuzz stays quick)
            for _ in range(rng.randrange(1, 4)):
                request.computers.add(
                    seat=rng.randrange(-1, 7),
                    level=rng.choice(("random", "greedy", "oracle")),
                    budget_ms=rng.randrange(-1, 3),
                )
        if rng.random() < 0.2:
            request.clock.move_seconds = rng.randrange(-1, 4)
            request.clock.on_timeout = rng.choice(("", "forfeit", "greedy", "oracle"))
        return request
    if method == "View":
        return pb.ViewRequest(state=state, seat=rng.randrange(-2, 8))
    if method == "LegalMoves":
        return pb.LegalMovesRequest(state=state)
    if method == "Suggest":
        return pb.SuggestRequest(
            state=state, seat=rng.randrange(-1, 3), level=rng.choice(LEVELS),
            budget_ms=rng.randrange(-1, 5), simulations=rng.randrange(-1, 4),
        )  # fmt: skip
    if method == "Advance":
        key = rng.randbytes(rng.choice((0, 8, 16, 70)))
        return pb.AdvanceRequest(state=state, idempotency_key=key)
    return getattr(pb, f"{method}Request")(state=state, move=move)


# ---------------------------------------------------------------- sending and judging


def send_rest(port: int, case: RestCase, timeout: float = 30.0) -> tuple[str, str | None]:
    """Send ``case``; the outcome ("200", "400", ..., "closed") and what is wrong, if anything."""
    if case.raw is not None:
        return _send_raw(port, case.raw, timeout, case.method)
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request(case.method, case.path, body=case.body, headers=case.headers)
        response = connection.getresponse()
        status, content_type, body = (
            response.status,
            response.getheader("Content-Type", ""),
            response.read(),
        )
    finally:
        connection.close()
    return str(status), rest_problem(case.method, status, content_type, body)


def _send_raw(port: int, data: bytes, timeout: float, method: str) -> tuple[str, str | None]:
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            return "reset", "the connection was reset instead of answered"
    if not answer:
        return "closed", "closed without an answer"
    head, _, rest = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {name.strip().lower(): value.strip() for name, _, value in
              (line.partition(":") for line in lines[1:])}  # fmt: skip
    try:
        status = int(lines[0].split()[1])
        # The first answer only: bytes after a request whole are the next one's.
        body = rest[: int(fields.get("content-length", len(rest)))]
    except (IndexError, ValueError):
        return "garbled", f"not an HTTP answer: {answer[:80]!r}"
    return str(status), rest_problem(method, status, fields.get("content-type", ""), body)


def rest_problem(method: str, status: int, content_type: str, body: bytes) -> str | None:
    """What is wrong with an answer, if anything."""
    if status >= 500:
        return f"HTTP {status}"
    if status < 400 or method == "HEAD":  # a HEAD answer carries no body
        return None
    if not content_type.startswith("application/json"):
        return f"HTTP {status} refusal as {content_type or 'no content type'}: {body[:60]!r}"
    try:
        error = json.loads(body)["error"]
        (info,) = error["details"]
        ok = (
            error["code"] == status
            and isinstance(error["status"], str)
            and isinstance(error["message"], str)
            and info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
            and info["domain"] == "mazzo"
            and info["reason"]
        )
    except (ValueError, KeyError, TypeError):
        ok = False
    return None if ok else f"HTTP {status}: not the error envelope: {body[:80]!r}"


def send_grpc(channel: grpc.Channel, method: str, data: bytes) -> tuple[str, str | None]:
    call = channel.unary_unary(f"/mazzo.v1.Engine/{method}")
    try:
        call(data, timeout=30)
    except grpc.RpcError as error:
        return grpc_problem(error)
    return "OK", None


def grpc_problem(error: grpc.RpcError) -> tuple[str, str | None]:
    code = error.code()  # type: ignore[attr-defined]
    if code in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN):
        return code.name, f"{code.name}: {error.details()}"  # type: ignore[attr-defined]
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    info = error_details_pb2.ErrorInfo()
    if status is None or len(status.details) != 1 or not status.details[0].Unpack(info):
        return code.name, f"{code.name} without one ErrorInfo: {error.details()}"  # type: ignore[attr-defined]
    if info.domain != "mazzo" or not info.reason:
        return code.name, f"{code.name}: ErrorInfo {info}"
    return code.name, None


def tokens_from(channel: grpc.Channel) -> list[bytes]:
    """Real tokens of both games, at the start and a move later, to damage."""
    new_game = channel.unary_unary(
        "/mazzo.v1.Engine/NewGame",
        request_serializer=pb.NewGameRequest.SerializeToString,
        response_deserializer=pb.NewGameResponse.FromString,
    )
    legal = channel.unary_unary(
        "/mazzo.v1.Engine/LegalMoves",
        request_serializer=pb.LegalMovesRequest.SerializeToString,
        response_deserializer=pb.LegalMovesResponse.FromString,
    )
    play = channel.unary_unary(
        "/mazzo.v1.Engine/Play",
        request_serializer=pb.PlayRequest.SerializeToString,
        response_deserializer=pb.PlayResponse.FromString,
    )
    tokens = []
    for name in GAME_NAMES:
        request = pb.NewGameRequest(players=2, seed=7)
        getattr(request, name).SetInParent()
        game = new_game(request, timeout=30)
        moves = legal(pb.LegalMovesRequest(state=game.state), timeout=30)
        played = play(pb.PlayRequest(state=game.state, move=moves.moves[0]), timeout=30)
        tokens += [game.state, played.state]
    return tokens


# ---------------------------------------------------------------- the long run


@dataclass
class Tally:
    counts: Counter[str]
    problems: list[str]
    lock: threading.Lock

    def add(self, transport: str, outcome: str, problem: str | None, sent: str) -> None:
        with self.lock:
            self.counts[f"{transport} {outcome}"] += 1
            if problem is not None:
                self.problems.append(f"{transport}: {problem}, for {sent}")


def run(rest_port: int, grpc_target: str, requests: int, threads: int, seed: int) -> Tally:
    tally = Tally(Counter(), [], threading.Lock())
    with grpc.insecure_channel(grpc_target) as channel:
        tokens = tokens_from(channel)

    def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        share = requests // threads + (index < requests % threads)
        with grpc.insecure_channel(grpc_target) as own:
            for i in range(share):
                if i % 2:
                    method, data = grpc_case(rng, tokens)
                    outcome, problem = send_grpc(own, method, data)
                    tally.add("gRPC", outcome, problem, f"{method} {data[:60]!r}")
                else:
                    case = rest_case(rng, tokens)
                    outcome, problem = _guarded(send_rest, rest_port, case)
                    sent = case.raw or case.body
                    tally.add("REST", outcome, problem, f"{case.method} {case.path} {sent[:60]!r}")

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return tally


def _guarded(
    send: Callable[[int, RestCase], tuple[str, str | None]], port: int, case: RestCase
) -> tuple[str, str | None]:
    try:
        return send(port, case)
    except (OSError, http.client.HTTPException) as error:
        return type(error).__name__, f"no answer: {error!r}"


def main(argv: Sequence[str] | None = None) -> int:
    from loadtests.run import running_server, server_problems

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2, help="MAZZO_WORKERS of the server")
    parser.add_argument("--threads", type=int, default=4, help="client threads")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mazzo-fuzz-") as results:
        started = time.monotonic()
        with running_server(args.workers, Path(results), settings=SERVER_SETTINGS) as server:
            print(f"fuzzing {args.requests} requests, both transports, {args.workers} workers")
            tally = run(
                server.ports["REST"],
                f"{HOST}:{server.ports['gRPC']}",
                args.requests,
                args.threads,
                args.seed,
            )
        took = time.monotonic() - started
        problems = tally.problems + server_problems(server)
    for outcome, count in sorted(tally.counts.items()):
        print(f"  {outcome:<28} {count:>8}")
    total = sum(tally.counts.values())
    print(f"{total} requests in {took:.0f} s; {len(problems)} wrong answers")
    for problem in problems[:20]:
        print("  " + problem)
    return 1 if problems or total < args.requests else 0


if __name__ == "__main__":
    sys.exit(main())
