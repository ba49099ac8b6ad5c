"""Suggest over gRPC and REST: a legal move ready for Play, reproducible with a
seed and a simulations limit, kept within its budget, refused with stable reasons."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from mazzo.engine.players import Suggestion
from mazzo.engine.scopa import ScopaView
from mazzo.service.errors import ApiError
from mazzo.service.handlers import EngineHandlers
from mazzo.service.metrics import Metrics
from mazzo.service.search_pool import now, think
from mazzo.service.state_token import StateSealer
from mazzo.v1 import engine_pb2 as pb
from mazzo_client import MazzoClient, MazzoError
from tests.service.support import KEYS, Stack, b64, http_call, refused, running_stack

#: Long enough that a few simulations always finish inside it, however busy the
#: machine: the tests bound the search by its simulations, never by the clock.
GENEROUS_MS = 60_000

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("scopa", {"players": 2, "scopa": pb.ScopaOptions()}),
    (
        "scopone",
        {
            "players": 4,
            "scopa": pb.ScopaOptions(variant=pb.SCOPA_VARIANT_SCOPONE_SCIENTIFICO),
        },
    ),
    ("cirulla", {"players": 2, "scopa": pb.ScopaOptions(variant=pb.SCOPA_VARIANT_CIRULLA)}),
    ("escoba", {"players": 2, "scopa": pb.ScopaOptions(variant=pb.SCOPA_VARIANT_ESCOBA)}),
    ("tressette-2", {"players": 2, "tressette": pb.TressetteOptions(napoletana=True)}),
    ("tressette-4", {"players": 4, "tressette": pb.TressetteOptions()}),
    ("briscola-2", {"players": 2, "briscola": pb.BriscolaOptions()}),
    ("briscola-3", {"players": 3, "briscola": pb.BriscolaOptions()}),
]
LEVELS = ("random", "greedy", "intermediate", "expert")


@pytest.fixture(scope="module")
def suggest_stack() -> Iterator[Stack]:
    with running_stack(KEYS, max_suggest_ms=GENEROUS_MS) as running:
        yield running


@pytest.fixture(scope="module")
def mazzo(suggest_stack: Stack) -> Iterator[MazzoClient]:
    with MazzoClient(suggest_stack.grpc_target) as client:
        yield client


def _new(mazzo: MazzoClient, options: dict[str, Any]) -> pb.NewGameResponse:
    return mazzo.new_game(seed=17, **options)


@pytest.mark.parametrize(("name", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_every_level_suggests_a_move_play_accepts(
    mazzo: MazzoClient, name: str, options: dict[str, Any]
) -> None:
    state = _new(mazzo, options).state
    for turn in range(2 * len(LEVELS)):
        level = LEVELS[turn % len(LEVELS)]
        to_play = mazzo.legal_moves(state)
        seat, legal = to_play.seat, list(to_play.moves)
        answer = mazzo.suggest(
            state, seat, level, budget_ms=GENEROUS_MS, seed=turn, simulations=len(legal) + 2
        )
        assert answer.move in legal
        assert answer.level == level
        state = mazzo.play(state, answer.move).state


def test_the_same_seed_gives_the_same_move_over_grpc_and_rest(
    mazzo: MazzoClient, suggest_stack: Stack
) -> None:
    state = _new(mazzo, GAMES[0][1]).state
    body = {
        "state": b64(state),
        "seat": 0,
        "level": "expert",
        "budgetMs": GENEROUS_MS,
        "seed": "99",
        "simulations": 9,
    }
    rest = [http_call(suggest_stack.http_port, "POST", "/v1/games:suggest", body) for _ in "ab"]
    assert [r.status for r in rest] == [200, 200]
    assert rest[0].json() == rest[1].json()
    grpc_answer = mazzo.suggest(state, 0, budget_ms=GENEROUS_MS, seed=99, simulations=9)
    move = rest[0].json()["move"]
    assert (move["seat"], move["card"], sorted(move["take"])) == (
        grpc_answer.move.seat,
        grpc_answer.move.card,
        sorted(grpc_answer.move.take),
    )
    assert rest[0].json()["simulations"] == grpc_answer.simulations > 0
    assert rest[0].json()["expectedPoints"] == pytest.approx(grpc_answer.expected_points)


def test_each_search_runs_the_simulations_asked_and_no_more(mazzo: MazzoClient) -> None:
    state = _new(mazzo, GAMES[0][1]).state
    moves = len(mazzo.legal_moves(state).moves)
    for count in (moves, 2 * moves + 1, 5 * moves - 1):
        # The intermediate plays each simulated deal out once per legal move: whole
        # deals only. The expert counts the worlds it searched.
        searched = {
            level: mazzo.suggest(
                state, 0, level, budget_ms=GENEROUS_MS, seed=1, simulations=count
            ).simulations
            for level in ("intermediate", "expert")
        }
        assert searched == {"intermediate": count // moves * moves, "expert": count}


def _handlers(max_suggest_ms: int) -> tuple[EngineHandlers, Metrics]:
    metrics = Metrics()
    return EngineHandlers(StateSealer(list(KEYS)), metrics, max_suggest_ms=max_suggest_ms), metrics


def test_a_budget_above_the_cap_is_cut_to_it_and_none_means_100_ms() -> None:
    handlers, _ = _handlers(max_suggest_ms=40)
    game = handlers.new_game(pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), seed=3))
    asked = pb.SuggestRequest(state=game.state, seat=0, level="greedy", budget_ms=10**6)
    assert handlers.suggest(asked).budget_ms == 40
    roomy, _ = _handlers(max_suggest_ms=1000)
    unset = pb.SuggestRequest(state=game.state, seat=0, level="greedy")
    assert roomy.suggest(unset).budget_ms == 100
    assert roomy.suggest(unset).level == "greedy"


def test_the_budget_counts_from_the_calls_arrival_and_the_player_gets_the_view() -> None:
    asked: list[tuple[Any, ...]] = []

    def thinker(
        level: str, view: Any, legal: Any, simulations: int, deadline: float, seed: int
    ) -> Suggestion:
        asked.append((level, view, simulations, deadline, seed))
        return think(level, view, legal, simulations, deadline, seed)

    sealer = StateSealer(list(KEYS))
    handlers = EngineHandlers(sealer, Metrics(), max_suggest_ms=300, thinker=thinker)
    game = handlers.new_game(pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(), seed=3))
    before = now()
    request = pb.SuggestRequest(state=game.state, seat=0, budget_ms=10**6, seed=5, simulations=7)
    handlers.suggest(request)
    after = now()
    ((level, view, simulations, deadline, seed),) = asked
    # The deadline is the arrival plus the budget after the cap: the time the
    # thinker waits (for a free search process) comes out of it.
    assert before + 0.3 <= deadline <= after + 0.3
    assert (level, simulations, seed) == ("expert", 7, 5)
    assert isinstance(view, ScopaView) and view.seat == 0  # a view, never the state


def test_suggestions_are_counted_by_game_and_level() -> None:
    handlers, metrics = _handlers(max_suggest_ms=GENEROUS_MS)
    game = handlers.new_game(pb.NewGameRequest(players=2, tressette=pb.TressetteOptions(), seed=3))
    answers = [
        handlers.suggest(
            pb.SuggestRequest(
                state=game.state, seat=0, level=level, budget_ms=GENEROUS_MS, simulations=25
            )
        )
        for level in ("random", "intermediate", "expert", "expert")
    ]
    counted = metrics.mazzo_suggestions_total
    assert counted.labels(game="tressette", level="expert")._value.get() == 2
    assert counted.labels(game="tressette", level="intermediate")._value.get() == 1
    assert counted.labels(game="tressette", level="random")._value.get() == 1
    simulated = metrics.mazzo_suggest_simulations_total
    # Play-outs in whole deals of 10 moves: in Tressette the expert plays as the
    # intermediate level (its worlds are counted where it searches them, above).
    assert simulated.labels(level="intermediate")._value.get() == answers[1].simulations == 20
    expert = simulated.labels(level="expert")._value.get()
    assert expert == answers[2].simulations + answers[3].simulations == 40


@pytest.mark.parametrize(
    ("change", "code", "reason"),
    [
        ({"level": "grandmaster"}, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_LEVEL"),
        ({"budget_ms": -1}, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_BUDGET"),
        ({"simulations": -5}, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_BUDGET"),
        ({"seat": 7}, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEAT"),
        ({"seat": 1}, grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
        ({"state": b"not a token"}, grpc.StatusCode.INVALID_ARGUMENT, None),
    ],
)
def test_a_bad_suggest_request_is_refused_with_a_stable_reason(
    mazzo: MazzoClient,
    suggest_stack: Stack,
    change: dict[str, Any],
    code: grpc.StatusCode,
    reason: str | None,
) -> None:
    state = _new(mazzo, GAMES[0][1]).state
    fields: dict[str, Any] = {"state": state, "seat": 0, "level": "expert", **change}
    with grpc.insecure_channel(suggest_stack.grpc_target) as channel:
        call = channel.unary_unary(
            "/mazzo.v1.Engine/Suggest",
            request_serializer=pb.SuggestRequest.SerializeToString,
            response_deserializer=pb.SuggestResponse.FromString,
        )
        refusal = refused(call, pb.SuggestRequest(**fields))
    assert refusal.code == code
    if reason is not None:
        assert refusal.reason == reason
        body = {"state": b64(fields["state"]), "seat": fields["seat"], "level": fields["level"]}
        if "budget_ms" in change:
            body["budgetMs"] = change["budget_ms"]
        if "simulations" in change:
            body["simulations"] = change["simulations"]
        reply = http_call(suggest_stack.http_port, "POST", "/v1/games:suggest", body)
        assert reply.status == 400
        assert reply.json()["error"]["details"][0]["reason"] == reason


def test_no_suggestion_once_the_game_is_over() -> None:
    handlers, _ = _handlers(max_suggest_ms=GENEROUS_MS)
    game = handlers.new_game(pb.NewGameRequest(players=2, scopa=pb.ScopaOptions(target=1), seed=5))
    state = game.state
    while True:
        legal = handlers.legal_moves(pb.LegalMovesRequest(state=state))
        played = handlers.play(pb.PlayRequest(state=state, move=legal.moves[0]))
        state = played.state
        if played.status.game_over:
            break
    with pytest.raises(ApiError) as caught:
        handlers.suggest(pb.SuggestRequest(state=state, seat=0, level="random"))
    assert caught.value.reason == "GAME_OVER"
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION


# ---------------------------------------------------------------- seat credentials


def test_a_seat_credential_asks_for_its_own_seat_only(mazzo: MazzoClient) -> None:
    game = mazzo.new_game(players=2, seed=17)
    credentials = {c.seat: c.credential for c in game.seat_credentials}
    own = mazzo.suggest(game.state, 0, "greedy", credential=credentials[0])
    assert mazzo.play(game.state, own.move, credential=credentials[0]).status.ply == 1
    with pytest.raises(MazzoError) as other_seat:
        mazzo.suggest(game.state, 0, "greedy", credential=credentials[1])
    assert other_seat.value.code == grpc.StatusCode.PERMISSION_DENIED
    assert other_seat.value.reason == "SEAT_NOT_PERMITTED"
    forged = credentials[0][:-2] + ("AA" if not credentials[0].endswith("AA") else "BB")
    with pytest.raises(MazzoError) as forgery:
        mazzo.suggest(game.state, 0, "greedy", credential=forged)
    assert forgery.value.reason == "SEAT_CREDENTIAL_INVALID"
