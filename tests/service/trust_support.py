"""Both transports as one JSON API, for the trust tests (docs/security.md).

``Api.call("Play", body)`` sends the proto3 JSON ``body`` over gRPC or REST
and returns the JSON answer, or raises :class:`Refused` with the gRPC status
name and the reason (and over REST the HTTP status).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format

from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from tests.service.support import Stack, http_call, refusal_of

PATHS = {
    "NewGame": "/v1/games",
    "Play": "/v1/games:play",
    "Validate": "/v1/games:validate",
    "LegalMoves": "/v1/games:legalMoves",
    "View": "/v1/games:view",
}


class Refused(Exception):
    def __init__(self, status: str, reason: str, http_status: int | None) -> None:
        super().__init__(f"{status} {reason}")
        self.status = status
        self.reason = reason
        self.http_status = http_status


@dataclass
class Api:
    transport: str
    call: Callable[[str, dict[str, Any]], dict[str, Any]]

    def refusal(self, rpc: str, body: dict[str, Any]) -> Refused:
        """Make a call that must be refused; its refusal, checked to be the same kind
        over both transports (the HTTP status follows from the gRPC one)."""
        try:
            self.call(rpc, body)
        except Refused as refused:
            expected_http = {"PERMISSION_DENIED": 403, "ABORTED": 409, "INVALID_ARGUMENT": 400}
            if refused.http_status is not None:
                assert refused.http_status == expected_http[refused.status]
            return refused
        raise AssertionError(f"{rpc} was not refused")


@contextmanager
def grpc_api(stack: Stack) -> Iterator[Api]:
    with grpc.insecure_channel(stack.grpc_target) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)

        def call(rpc: str, body: dict[str, Any]) -> dict[str, Any]:
            request = json_format.ParseDict(body, getattr(pb, f"{rpc}Request")())
            try:
                reply = getattr(stub, rpc)(request, timeout=10)
            except grpc.RpcError as error:
                refusal = refusal_of(error)
                raise Refused(refusal.code.name, refusal.info.reason, None) from None
            return json_format.MessageToDict(reply, always_print_fields_with_no_presence=True)

        yield Api("grpc", call)


def rest_api(stack: Stack) -> Api:
    port = stack.http_port

    def call(rpc: str, body: dict[str, Any]) -> dict[str, Any]:
        reply = http_call(port, "POST", PATHS[rpc], body)
        if reply.status != 200:
            error = reply.json()["error"]
            raise Refused(error["status"], error["details"][0]["reason"], reply.status)
        return reply.json()  # type: ignore[no-any-return]

    return Api("rest", call)


@contextmanager
def both_apis(stack: Stack) -> Iterator[dict[str, Api]]:
    with grpc_api(stack) as over_grpc:
        yield {"grpc": over_grpc, "rest": rest_api(stack)}


# ---------------------------------------------------------------- a thin relay


class Relay:
    """What a relay that knows no card game does: keep each game's latest token and
    ply, and forward each player's calls with that player's seat credential.

    It never reads a state, an event or a move; it only compares and sets the ply.
    """

    def __init__(self, api: Api) -> None:
        self._api = api
        self._games: dict[str, tuple[str, int]] = {}  # game id -> (token, ply)

    def create(self, new_game: dict[str, Any]) -> tuple[str, list[str]]:
        """Start a game; its id and the seat credentials, by seat, to hand out."""
        answer = self._api.call("NewGame", new_game)
        game_id = answer["status"]["gameId"]
        self._games[game_id] = (answer["state"], answer["status"]["ply"])
        return game_id, [c["credential"] for c in answer["seatCredentials"]]

    def call(self, game_id: str, credential: str, rpc: str, **body: Any) -> dict[str, Any]:
        token, ply = self._games[game_id]
        request = {"state": token, "seatCredential": credential, **body}
        if rpc == "Play":
            request["expectedPly"] = ply
        answer = self._api.call(rpc, request)
        if rpc == "Play":  # compare-and-set: keep the new token only over the one it replaced
            assert self._games[game_id] == (token, ply)
            self._games[game_id] = (answer["state"], answer["status"]["ply"])
        return answer
