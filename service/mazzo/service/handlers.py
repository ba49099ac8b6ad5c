"""The one implementation behind both transports.

Each handler takes the request message of its RPC and returns the response
message, or raises :class:`~mazzo.service.errors.ApiError`. The gRPC servicer and
the REST gateway only move these messages over their wire.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.protobuf import timestamp_pb2
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message

from mazzo.engine import GAMES, Game, IllegalMove, Move, RuleError, dump_state, game_of, get_game
from mazzo.engine.errors import N_, InvalidInput, Reason, Text
from mazzo.engine.events import Event, GameOver
from mazzo.engine.game import check_seat
from mazzo.engine.players import PLAYERS, Suggestion, counted_simulations
from mazzo.engine.registry import AnyState
from mazzo.service import codec, i18n
from mazzo.service.config import DEFAULT_MAX_SUGGEST_MS, Config
from mazzo.service.errors import ApiError, ServiceReason
from mazzo.service.metrics import ADVANCE_OUTCOMES, MOVE_OUTCOMES, Metrics
from mazzo.service.search_pool import Thinker, now, think
from mazzo.service.spectator import public_view
from mazzo.service.state_token import StateSealer, StateTokenError, key_id_of
from mazzo.service.table import (
    DEFAULT_TIMEOUT_LEVEL,
    FORFEIT,
    MAX_COMPUTER_BUDGET_MS,
    MAX_MOVE_SECONDS,
    NO_TABLE,
    RETRY_PURPOSE,
    TIME_EXPIRED,
    Clock,
    ComputerSeat,
    Forfeit,
    MoveRandomness,
    Table,
    TimeExpired,
    check_idempotency_key,
    forfeit_winner,
)
from mazzo.service.trust import (
    CREDENTIAL_PURPOSE,
    GAME_ID_BYTES,
    Record,
    SeatCredentials,
    denied,
    dump_record,
    events_for,
    game_id_text,
    load_tabled_record,
)
from mazzo.v1 import engine_pb2 as pb

#: How many states each server process remembers by their token (2-player Scopa:
#: about 1.1 KB each with its token, so some 4.5 MB in all).
OPENED_STATES = 4096

#: Suggest: the level when none is named, the budget when none is given, and the
#: simulations a budget allows when the caller sets no limit (time decides).
DEFAULT_LEVEL = "expert"
DEFAULT_SUGGEST_MS = 100
UNLIMITED_SIMULATIONS = 1 << 30

#: A safe retry must think the same: with an idempotency key a computer's search is
#: bounded by a count of simulations for its budget
#: (:func:`mazzo.engine.players.counted_simulations`), never by the clock, since a
#: loaded server would then think less the second time. The clock bounds it only
#: at RETRY_TIME_LIMIT_SECONDS, a guard against a broken search that no working
#: server reaches, however loaded.
RETRY_TIME_LIMIT_SECONDS = 60.0

#: How late past its deadline a move still counts as in time: the clocks of the
#: replicas that seal and open a state may differ by this much (docs/api.md, Clocks).
CLOCK_TOLERANCE_SECONDS = 0.5

_NewStateResponse = TypeVar(
    "_NewStateResponse", pb.NewGameResponse, pb.PlayResponse, pb.AdvanceResponse
)


def _random_seed() -> int:
    return int.from_bytes(os.urandom(8), "big")


@contextmanager
def _rule_errors() -> Iterator[None]:
    """Engine refusals become API errors with the engine's reason."""
    try:
        yield
    except RuleError as error:
        raise ApiError.from_rule_error(error) from error


class StateCache:
    """The records (states with their game id, ply and sealing time) this process
    knows by their token, least recently used out first.

    Thread-safe (gRPC runs handlers on a thread pool). ``maxsize`` 0 keeps
    nothing. Sharing a state between calls is safe: states are immutable values.
    ``hits`` and ``misses`` count the look-ups (the benchmarks check them).
    """

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._states: OrderedDict[bytes, Record] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, token: bytes) -> Record | None:
        with self._lock:
            state = self._states.get(token)
            if state is None:
                self.misses += 1
            else:
                self.hits += 1
                self._states.move_to_end(token)
            return state

    def put(self, token: bytes, state: Record) -> None:
        if self.maxsize <= 0:
            return
        with self._lock:
            self._states[token] = state
            self._states.move_to_end(token)
            if len(self._states) > self.maxsize:
                self._states.popitem(last=False)

    def __len__(self) -> int:
        return len(self._states)


class EngineHandlers:
    """The RPCs, with a memory of recent states (``opened_states`` of them).

    Seat credentials: a call that brings one sees and acts as that seat only;
    ``require_seat_credentials`` refuses calls without one (docs/security.md).

    A caller sends the token it was given to its next call (LegalMoves,
    Validate, then Play on the same token), so each handler remembers, by
    token, the states it opened and the states it sealed (NewGame, Play): such
    a token is answered without decrypting nor decoding it again. Only
    authentic tokens get in (opened, or sealed here); a refused token is
    checked, refused and counted in ``mazzo_states_refused_total`` every time.
    ``opened_states=0`` turns the memory off, so every call opens its token.
    """

    def __init__(
        self,
        sealer: StateSealer,
        metrics: Metrics,
        seed_source: Callable[[], int] = _random_seed,
        opened_states: int = OPENED_STATES,
        *,
        require_seat_credentials: bool = False,
        max_suggest_ms: int = DEFAULT_MAX_SUGGEST_MS,
        thinker: Thinker = think,
        clock: Callable[[], float] = time.time,
        clock_tolerance: float = CLOCK_TOLERANCE_SECONDS,
    ):
        self._max_suggest_ms = max_suggest_ms
        # Wall-clock seconds: the clocks' deadlines (tests set their own).
        self.clock = clock
        self._clock_tolerance_ms = int(clock_tolerance * 1000)
        # By key id: a keyed retry derives its randomness from the key that sealed
        # its token, so every replica that opens the token answers it alike, whichever
        # key each seals with (during a key rotation they differ).
        self._retry_secrets = dict(sealer.derived_keys(RETRY_PURPOSE))
        self._think = thinker
        self._sealer = sealer
        self._metrics = metrics
        self._seed_source = seed_source
        self.states = StateCache(opened_states)
        # Bound once, for every game and outcome (the hot path), and at 0 from the start.
        self._move_seconds = {
            (name, outcome): metrics.mazzo_move_seconds.labels(game=name, outcome=outcome)
            for name in GAMES
            for outcome in MOVE_OUTCOMES
        }
        self._advances = {
            (name, outcome): metrics.mazzo_advances_total.labels(game=name, outcome=outcome)
            for name in GAMES
            for outcome in ADVANCE_OUTCOMES
        }
        self._seats = SeatCredentials(sealer.derived_keys(CREDENTIAL_PURPOSE))
        # Bound once (the hot path), and at 0 from the start.
        self._seals = metrics.mazzo_state_seals_total.labels(key=sealer.sealing_key_id)
        self.require_seat_credentials = require_seat_credentials

    @classmethod
    def from_config(
        cls, config: Config, metrics: Metrics, thinker: Thinker = think
    ) -> EngineHandlers:
        """The handlers a server process runs with ``config``'s keys and trust
        settings, its searches run by ``thinker`` (a :class:`SearchPool`, or here)."""
        sealer = StateSealer(config.state_keys, max_age=config.state_max_age)
        return cls(
            sealer,
            metrics,
            require_seat_credentials=config.require_seat_credentials,
            max_suggest_ms=config.max_suggest_ms,
            thinker=thinker,
        )

    # -------------------------------------------------------------- state tokens

    def _open(self, token: bytes) -> Record:
        record = self.states.get(token)
        try:
            if record is not None:
                # A remembered token ages like any other.
                if self._sealer.max_age is not None:
                    self._sealer.check_age(record.sealed_at)
                return record
            payload, sealed_at = self._sealer.open_dated(token)
            state, game_id, ply, table = load_tabled_record(payload)
            record = Record(state, game_id, ply, sealed_at, table)
        except StateTokenError as error:
            self._metrics.mazzo_states_refused_total.labels(reason=error.reason).inc()
            raise ApiError.invalid(error.reason, error.text) from error
        except InvalidInput as error:
            self._metrics.mazzo_states_refused_total.labels(reason=error.reason.value).inc()
            raise ApiError.from_rule_error(error) from error
        self.states.put(token, record)
        return record

    def _count_move(self, game: str, outcome: str, since: float) -> None:
        """A move settled, ``since`` (time.perf_counter) its start: counted and timed
        in one observation (mazzo_moves_total is its count)."""
        self._move_seconds[game, outcome].observe(time.perf_counter() - since)

    def _seal(self, state: AnyState, game_id: bytes, ply: int, table: Table) -> bytes:
        """The state's new token, remembered: the caller's next call brings it back."""
        token, sealed_at = self._sealer.seal_dated(dump_record(state, game_id, ply, table))
        self._seals.inc()
        self.states.put(token, Record(state, game_id, ply, sealed_at, table))
        return token

    def _with_new_state(
        self,
        response: _NewStateResponse,
        game: Game,
        record: tuple[AnyState, bytes, int, Table],
        events: Sequence[Event],
    ) -> _NewStateResponse:
        """Fill in the new state's token, the events and the status, in place."""
        state, game_id, ply, table = record
        table = self._restart_clock(table, game, state)
        response.state = self._seal(state, game_id, ply, table)
        codec.write_events(response.events, events)
        _write_status(response.status, game, state, game_id, ply, table)
        return response

    # -------------------------------------------------------------- clocks

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def _restart_clock(self, table: Table, game: Game, state: AnyState) -> Table:
        """The table with the seat to play's deadline counted from now, the seal's time."""
        clock = table.clock
        if clock is None:
            return table
        over = table.forfeited_side is not None or state.status().seat_to_play is None
        deadline_ms = 0 if over else self._now_ms() + clock.move_seconds * 1000
        return table._replace(clock=clock._replace(deadline_ms=deadline_ms))

    def _late(self, table: Table) -> bool:
        """Whether the seat to play's time ran out (by more than the skew tolerance)."""
        clock = table.clock
        return (
            clock is not None
            and clock.deadline_ms > 0
            and self._now_ms() > clock.deadline_ms + self._clock_tolerance_ms
        )

    # -------------------------------------------------------------- computer seats

    def _choose(
        self,
        game: Game,
        state: AnyState,
        seat: int,
        level: str,
        budget_ms: int,
        *,
        simulations: int,
        seed: int,
        arrived: float,
        deadline: float | None = None,
    ) -> Suggestion:
        """A player's move for ``seat`` (the seat to play), from that seat's view only:
        what Suggest answers and what a computer seat plays."""
        # The player gets the seat's view, never the state (docs/bots.md).
        seen = state.view(seat)
        chosen = self._think(
            level,
            seen,
            state.legal_moves(),
            simulations,
            arrived + budget_ms / 1000 if deadline is None else deadline,
            seed,
        )
        self._metrics.mazzo_suggest_seconds.labels(level=level).observe(now() - arrived)
        self._metrics.mazzo_suggestions_total.labels(game=game.name, level=level).inc()
        self._metrics.mazzo_suggest_simulations_total.labels(level=level).inc(chosen.simulations)
        return chosen

    def _computer_move(
        self, game: Game, state: AnyState, computer: ComputerSeat, randomness: MoveRandomness
    ) -> Move:
        arrived = now()
        budget_ms = computer.budget_ms
        if randomness.derived:  # a retry must think the same: simulations decide
            seen = state.view(computer.seat)
            simulations = counted_simulations(computer.level, seen, budget_ms)
            deadline = arrived + RETRY_TIME_LIMIT_SECONDS
        else:
            simulations, deadline = UNLIMITED_SIMULATIONS, arrived + budget_ms / 1000
        # A seeded game (or one with explicit decks) is reproducible, its computers'
        # choices too: seeded by the position. Otherwise the call's randomness.
        seed = randomness.next_u64() if state.fresh_draws else _position_seed(state)
        chosen = self._choose(
            game,
            state,
            computer.seat,
            computer.level,
            budget_ms,
            simulations=simulations,
            seed=seed,
            arrived=arrived,
            deadline=deadline,
        )
        return chosen.move

    def _move_on(
        self,
        game: Game,
        state: AnyState,
        table: Table,
        randomness: MoveRandomness,
        *,
        for_late_seat: bool = False,
    ) -> tuple[AnyState, Table, list[Event], int]:
        """Play the computer seats until a person's seat is to play or the game ends;
        with ``for_late_seat`` first the seat to play if its time ran out (Advance).
        Returns the state (a copy: the caller's may be shared), the table, the
        events and the number of moves played."""
        events: list[Event] = []
        moves = 0
        state = state.clone()
        while table.forfeited_side is None:
            to_play = state.status().seat_to_play
            if to_play is None:
                break
            computer = table.computer(to_play)
            if computer is None:
                # Only the turn the call found can be late: a later one began now.
                if not (for_late_seat and moves == 0 and self._late(table)):
                    break
                on_timeout = table.clock.on_timeout if table.clock else DEFAULT_TIMEOUT_LEVEL
                if on_timeout == FORFEIT:
                    lost = state.rules.side_of(to_play)
                    table = table._replace(forfeited_side=lost)
                    events += _forfeit_events(state.status().scores, to_play, lost)
                    break
                budget = min(DEFAULT_SUGGEST_MS, self._max_suggest_ms)
                computer = ComputerSeat(to_play, on_timeout, budget)
                events.append(TimeExpired(to_play, on_timeout))
            began = time.perf_counter()
            move = self._computer_move(game, state, computer, randomness)
            with _rule_errors():
                played = state.apply(move, randomness.next_u64() if state.fresh_draws else None)
            self._count_move(game.name, "applied", began)
            events.extend(played)
            moves += 1
        return state, table, events, moves

    def _randomness(self, request: pb.PlayRequest | pb.AdvanceRequest) -> MoveRandomness:
        """Fresh randomness, or with an idempotency key the same for the same call, on
        every server that holds the key that sealed the token (opened already)."""
        key = request.idempotency_key
        if not key:
            return MoveRandomness()
        check_idempotency_key(key)
        move = b""
        if isinstance(request, pb.PlayRequest):
            move = request.move.SerializeToString(deterministic=True)
        context = (request.DESCRIPTOR.name.encode(), request.state, move, key)
        return MoveRandomness(self._retry_secrets[key_id_of(request.state)], context)

    def _table_from_request(self, request: pb.NewGameRequest, players: int) -> Table:
        """The computers and the clock NewGame asks for, checked."""
        computers: list[ComputerSeat] = []
        for asked in request.computers:
            if not 0 <= asked.seat < players or any(c.seat == asked.seat for c in computers):
                raise ApiError.invalid(
                    ServiceReason.INVALID_COMPUTERS,
                    Text(
                        "computer seat {seat} is not a seat of this game or is given twice",
                        seat=asked.seat,
                    ),
                    seat=str(asked.seat),
                )
            level = asked.level or DEFAULT_LEVEL
            _check_level(level)
            if asked.budget_ms < 0:
                raise ApiError.invalid(ServiceReason.INVALID_BUDGET, "budget_ms must be 0 or more")
            budget_ms = min(
                asked.budget_ms or DEFAULT_SUGGEST_MS, self._max_suggest_ms, MAX_COMPUTER_BUDGET_MS
            )
            computers.append(ComputerSeat(asked.seat, level, budget_ms))
        if len(computers) >= players:
            raise ApiError.invalid(
                ServiceReason.INVALID_COMPUTERS, "at least one seat must be left to a person"
            )
        clock = None
        if request.HasField("clock"):
            asked_clock = request.clock
            if not 1 <= asked_clock.move_seconds <= MAX_MOVE_SECONDS:
                raise ApiError.invalid(
                    ServiceReason.INVALID_CLOCK,
                    Text(
                        "move_seconds must be 1 to {limit}, not {value}",
                        limit=MAX_MOVE_SECONDS,
                        value=asked_clock.move_seconds,
                    ),
                    field="move_seconds",
                )
            on_timeout = asked_clock.on_timeout or DEFAULT_TIMEOUT_LEVEL
            _check_on_timeout(on_timeout)
            clock = Clock(asked_clock.move_seconds, on_timeout)
        return Table(tuple(sorted(computers)), clock)

    def _table_refusal(self, record: Record, game: Game, move: Move) -> ApiError | None:
        """Why the table forbids ``move`` (a lost game, a computer's seat, a late
        move), as FAILED_PRECONDITION, or None."""
        table = record.table
        if table.empty:
            return None
        if table.forfeited_side is not None:
            return ApiError.from_rule_error(IllegalMove(Reason.GAME_OVER, N_("the game is over")))
        if table.computer(move.seat) is not None:
            return ApiError(
                grpc.StatusCode.FAILED_PRECONDITION,
                ServiceReason.COMPUTER_SEAT,
                Text("seat {seat} is played by the server", seat=move.seat),
                {"seat": str(move.seat)},
            )
        if move.seat == record.state.status().seat_to_play and self._late(table):
            clock = table.clock
            assert clock is not None
            template = (
                N_(
                    "seat {seat}'s time for this move ran out:"
                    " Advance ends the game, lost by its side"
                )
                if clock.on_timeout == FORFEIT
                else N_("seat {seat}'s time for this move ran out: Advance plays it")
            )
            return ApiError(
                grpc.StatusCode.FAILED_PRECONDITION,
                ServiceReason.TIME_EXPIRED,
                Text(template, seat=move.seat),
                {
                    "seat": str(move.seat),
                    "deadline": _rfc3339(clock.deadline_ms),
                    "onTimeout": clock.on_timeout,
                },
            )
        return None

    # -------------------------------------------------------------- who may do what

    def _seat_scope(self, request: Any, record: Record) -> int | None:
        """The one seat a call may see and act as (its seat credential's), or None
        for full access: no credential while the server does not require one."""
        credential = request.seat_credential
        if credential:
            return self._seats.seat_of(credential, record.game_id)
        if self.require_seat_credentials:
            raise denied(
                ServiceReason.SEAT_CREDENTIAL_REQUIRED,
                "this server requires a seat credential (seat_credential)",
            )
        return None

    def _events_seat(self, request: Any, scope: int | None, players: int) -> int | None:
        """Whose events an answer carries: the scope's, the one asked for, or None: all
        (only the public ones when credentials are required)."""
        if not request.HasField("events_seat"):
            return scope
        asked: int = request.events_seat
        with _rule_errors():
            check_seat(asked, players)
        _check_seat_permitted(
            scope, asked, N_("seat {scope}'s credential may not see the events of seat {seat}")
        )
        return asked

    # -------------------------------------------------------------- RPCs

    def get_catalog(self, request: pb.GetCatalogRequest) -> pb.GetCatalogResponse:
        return pb.GetCatalogResponse(games=[codec.game_info_to_pb(g) for g in GAMES.values()])

    def new_game(self, request: pb.NewGameRequest) -> pb.NewGameResponse:
        seeded = request.HasField("seed")
        with _rule_errors():
            name, rules = codec.rules_from_request(request)
            game = get_game(name)
            decks = codec.decks_from_request(request)
            first_dealer = request.first_dealer if request.HasField("first_dealer") else None
            # Without a seed or decks nothing fixes the cards to come: the first
            # deal takes fresh randomness now, every later deal and draw its own.
            state, events = game.new_game(
                rules,
                seed=request.seed if seeded else self._seed_source(),
                decks=decks,
                first_dealer=first_dealer,
                fresh=not seeded and not decks,
            )
            seat = self._events_seat(request, None, rules.players)
        table = self._table_from_request(request, rules.players)
        # A computer that leads plays now: a caller never has to Advance a new game.
        state, table, played, plies = self._move_on(game, state, table, MoveRandomness())
        events = [*events, *played]
        self._metrics.mazzo_games_started_total.labels(game=name).inc()
        game_id = os.urandom(GAME_ID_BYTES)
        response = pb.NewGameResponse(
            seat_credentials=[
                pb.SeatCredential(seat=s, credential=self._seats.issue(game_id, s))
                for s in range(rules.players)
            ]
        )
        if seeded:
            response.seed = request.seed
        if seat is not None or self.require_seat_credentials:
            events = events_for(events, seat)
        return self._with_new_state(response, game, (state, game_id, plies, table), events)

    def play(self, request: pb.PlayRequest) -> pb.PlayResponse:
        arrived = time.perf_counter()
        record, game, scope, move = self._requested_move(
            request, N_("seat {scope}'s credential may not play for seat {seat}")
        )
        state, table = record.state, record.table
        seat = self._events_seat(request, scope, state.rules.players)
        randomness = self._randomness(request)
        refusal = self._table_refusal(record, game, move)
        if refusal is not None:
            self._count_move(game.name, "refused", arrived)
            raise refusal
        try:
            # A game without a seed deals and draws with fresh randomness, drawn here.
            entropy = randomness.next_u64() if state.fresh_draws else None
            state = state.clone()  # the remembered state stays as its token says
            events = state.apply(move, entropy)
        except IllegalMove as error:
            self._count_move(game.name, "refused", arrived)
            raise ApiError.from_rule_error(error) from error
        except RuleError as error:
            raise ApiError.from_rule_error(error) from error
        self._count_move(game.name, "applied", arrived)
        plies = 1
        if table.computers:
            state, table, played, moves = self._move_on(game, state, table, randomness)
            events = [*events, *played]
            plies += moves
        if seat is not None or self.require_seat_credentials:
            events = events_for(events, seat)
        return self._with_new_state(
            pb.PlayResponse(), game, (state, record.game_id, record.ply + plies, table), events
        )

    def advance(self, request: pb.AdvanceRequest) -> pb.AdvanceResponse:
        """The computer seats' moves and a late seat's, up to a person's turn in time."""
        record = self._open(request.state)
        game = game_of(record.state)
        # Advance acts for no person: a credential (optional) only scopes the events.
        scope = (
            self._seats.seat_of(request.seat_credential, record.game_id)
            if request.seat_credential
            else None
        )
        _check_ply(request, record)
        seat = self._events_seat(request, scope, record.state.rules.players)
        randomness = self._randomness(request)
        state, table, events, moves = self._move_on(
            game, record.state, record.table, randomness, for_late_seat=True
        )
        self._advances[game.name, _advanced(game, record, table, moves)].inc()
        if not moves and table == record.table:  # nothing to do: the same token
            response = pb.AdvanceResponse(state=request.state)
            _write_status(response.status, game, state, record.game_id, record.ply, record.table)
            return response
        if seat is not None or self.require_seat_credentials:
            events = events_for(events, seat)
        return self._with_new_state(
            pb.AdvanceResponse(), game, (state, record.game_id, record.ply + moves, table), events
        )

    def validate(self, request: pb.ValidateRequest) -> pb.ValidateResponse:
        arrived = time.perf_counter()
        record, game, _, move = self._requested_move(
            request, N_("seat {scope}'s credential may not validate a move for seat {seat}")
        )
        refusal = self._table_refusal(record, game, move)
        if refusal is not None:
            self._count_move(game.name, "illegal", arrived)
            message = refusal.localized()
            return pb.ValidateResponse(legal=False, reason=refusal.reason, message=message)
        try:
            record.state.resolve(move)
        except IllegalMove as error:
            self._count_move(game.name, "illegal", arrived)
            return pb.ValidateResponse(
                legal=False,
                reason=error.reason.value,
                message=error.text.render(i18n.gettext()),
                choices=[codec.move_to_pb(m) for m in error.choices],
            )
        except RuleError as error:
            raise ApiError.from_rule_error(error) from error
        self._count_move(game.name, "legal", arrived)
        return pb.ValidateResponse(legal=True)

    def legal_moves(self, request: pb.LegalMovesRequest) -> pb.LegalMovesResponse:
        record = self._open(request.state)
        state = record.state
        scope = self._seat_scope(request, record)
        status = state.status()
        if status.seat_to_play is None or record.table.forfeited_side is not None:
            raise ApiError.from_rule_error(IllegalMove(Reason.GAME_OVER, N_("the game is over")))
        # The moves show the hand of the seat to play: only that seat may list them.
        _check_seat_permitted(
            scope,
            status.seat_to_play,
            N_("seat {scope}'s credential may not list the moves of seat {seat}"),
        )
        return pb.LegalMovesResponse(
            seat=status.seat_to_play,
            moves=[codec.move_to_pb(m) for m in state.legal_moves()],
        )

    def view(self, request: pb.ViewRequest) -> pb.ViewResponse:
        record = self._open(request.state)
        state = record.state
        game = game_of(state)
        if request.spectator:  # public: no credential needed
            response = pb.ViewResponse(view=codec.view_to_pb(public_view(game, state)))
            response.view.spectator = True
        else:
            _check_seat_permitted(
                self._seat_scope(request, record),
                request.seat,
                N_("seat {scope}'s credential may not view seat {seat}"),
            )
            with _rule_errors():
                seen = state.view(request.seat)
            response = pb.ViewResponse(view=codec.view_to_pb(seen))
        _write_version(response.view.status, record.game_id, record.ply)
        _write_table(response.view.status, record.table)
        return response

    def suggest(self, request: pb.SuggestRequest) -> pb.SuggestResponse:
        """A player's move for the seat to play, chosen from that seat's view only."""
        arrived = now()  # the budget counts from here: waiting for a search process too
        record = self._open(request.state)
        state = record.state
        _check_seat_permitted(
            self._seat_scope(request, record),
            request.seat,
            N_("seat {scope}'s credential may not ask for a move of seat {seat}"),
        )
        game = game_of(state)
        level = request.level or DEFAULT_LEVEL
        _check_level(level)
        if request.budget_ms < 0 or request.simulations < 0:
            raise ApiError.invalid(
                ServiceReason.INVALID_BUDGET, "budget_ms and simulations must be 0 or more"
            )
        budget_ms = min(request.budget_ms or DEFAULT_SUGGEST_MS, self._max_suggest_ms)
        with _rule_errors():
            check_seat(request.seat, state.rules.players)
            to_play = state.status().seat_to_play
            if to_play is None or record.table.forfeited_side is not None:
                raise IllegalMove(Reason.GAME_OVER, N_("the game is over"))
            if request.seat != to_play:
                raise IllegalMove(
                    Reason.NOT_YOUR_TURN,
                    "it is seat {to_play}'s turn, not seat {seat}'s",
                    {"seatToPlay": str(to_play)},
                    to_play=to_play,
                    seat=request.seat,
                )
        seed = request.seed if request.HasField("seed") else self._seed_source()
        chosen = self._choose(
            game,
            state,
            request.seat,
            level,
            budget_ms,
            simulations=request.simulations or UNLIMITED_SIMULATIONS,
            seed=seed,
            arrived=arrived,
        )
        response = pb.SuggestResponse(
            move=codec.move_to_pb(chosen.move),
            simulations=chosen.simulations,
            level=level,
            budget_ms=budget_ms,
        )
        if chosen.expected_points is not None:
            response.expected_points = chosen.expected_points
        return response

    # -------------------------------------------------------------- helpers

    def _requested_move(
        self, request: pb.PlayRequest | pb.ValidateRequest, what: str
    ) -> tuple[Record, Game, int | None, Move]:
        """What Play and Validate share: the state opened, its game, the seat the
        credential limits the call to (or None) and the move, with the expected
        ply and the credential's seat checked (``what``: the refusal's template)."""
        record = self._open(request.state)
        game = game_of(record.state)
        scope = self._seat_scope(request, record)
        _check_ply(request, record)
        move = self._move(request)
        _check_seat_permitted(scope, move.seat, what)
        return record, game, scope, move

    @staticmethod
    def _move(request: pb.PlayRequest | pb.ValidateRequest) -> Move:
        if not request.HasField("move"):
            raise ApiError.invalid(ServiceReason.MOVE_MISSING, "the request has no move")
        try:  # not _rule_errors(): a context manager costs a microsecond here
            return codec.move_from_pb(request.move)
        except RuleError as error:
            raise ApiError.from_rule_error(error) from error


def _check_seat_permitted(scope: int | None, seat: int, template: str) -> None:
    """A call limited to seat ``scope`` may not concern another ``seat``; the
    template names what it may not do, with ``{scope}`` and ``{seat}``."""
    if scope is not None and seat != scope:
        raise denied(
            ServiceReason.SEAT_NOT_PERMITTED,
            Text(template, scope=scope, seat=seat),
            seat=str(scope),
        )


def _check_ply(
    request: pb.PlayRequest | pb.ValidateRequest | pb.AdvanceRequest, record: Record
) -> None:
    """Compare-and-set: ABORTED when the caller expected the state at another ply."""
    if request.HasField("expected_ply") and request.expected_ply != record.ply:
        raise ApiError(
            grpc.StatusCode.ABORTED,
            ServiceReason.STATE_VERSION_MISMATCH,
            Text(
                "the state is at ply {ply}, not {expected}",
                ply=record.ply,
                expected=request.expected_ply,
            ),
            {"ply": str(record.ply)},
        )


def _advanced(game: Game, record: Record, table: Table, moves: int) -> str:
    """What an Advance did (mazzo_advances_total's outcome): from the record it
    opened, the table it ends with and the moves it played."""
    if table.forfeited_side is not None and record.table.forfeited_side is None:
        return "forfeit"
    if not moves:
        return "none"
    to_play = game.status(record.state).seat_to_play
    return "computer" if record.table.computer(to_play) is not None else "timeout"


def _forfeit_events(scores: Sequence[int], seat: int, lost: int) -> list[Event]:
    """What a forfeit on time tells: the forfeit, then the game's end, as a game
    played out ends (the scores as they stand)."""
    return [
        Forfeit(seat, lost, TIME_EXPIRED),
        GameOver(forfeit_winner(scores, lost), tuple(scores)),
    ]


# ---------------------------------------------------------------- what a call may be refused

#: The codes any handler whose request has fields may refuse it with: malformed
#: input and an illegal move (both HTTP 400). GetCatalog's request has none, and
#: GetCatalog refuses nothing.
INPUT_REFUSALS = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION)
#: The code a request's field brings, in every handler that reads it: a seat
#: credential refused (``_seat_scope``, ``_check_seat_permitted``, Advance's
#: ``seat_of``: PERMISSION_DENIED), an expected ply the state is not at
#: (``_check_ply``: ABORTED).
FIELD_REFUSALS = {
    "seat_credential": grpc.StatusCode.PERMISSION_DENIED,
    "expected_ply": grpc.StatusCode.ABORTED,
}


def refusal_codes(request_fields: Collection[str]) -> list[grpc.StatusCode]:
    """The codes the handler of a request with these fields (proto names) may refuse
    it with (what the OpenAPI document declares, through mazzo.service.rest)."""
    if not request_fields:
        return []
    brought = [code for field, code in FIELD_REFUSALS.items() if field in request_fields]
    return [*INPUT_REFUSALS, *brought]


def _position_seed(state: AnyState) -> int:
    """A seed that only the position decides (for the computers of seeded games)."""
    return int.from_bytes(hashlib.sha256(dump_state(state)).digest()[:8], "big")


def _check_level(level: str) -> None:
    _check_one_of(
        level,
        list(PLAYERS),
        ServiceReason.INVALID_LEVEL,
        N_("no player level {level}; levels: {levels}"),
        "levels",
    )


def _check_on_timeout(on_timeout: str) -> None:
    """A clock's on_timeout is a player level or FORFEIT: else the clock is invalid."""
    _check_one_of(
        on_timeout,
        [*PLAYERS, FORFEIT],
        ServiceReason.INVALID_CLOCK,
        N_("no on_timeout {level}; on_timeout takes a level or forfeit: {levels}"),
        "allowed",
        field="on_timeout",
    )


def _check_one_of(
    value: str, allowed: list[str], reason: str, template: str, listed_as: str, **metadata: str
) -> None:
    """Refuse ``value`` unless it is one of ``allowed``: the template names it
    ``{level}`` and lists ``{levels}``; the metadata lists them as ``listed_as``."""
    if value not in allowed:
        raise ApiError.invalid(
            reason,
            Text(template, level=repr(value), levels=", ".join(allowed)),
            **{listed_as: ",".join(allowed)},
            **metadata,
        )


def _rfc3339(epoch_ms: int) -> str:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(epoch_ms)
    return stamp.ToJsonString()


def _write_status(
    message: pb.Status,
    game: Game,
    state: AnyState,
    game_id: bytes,
    ply: int,
    table: Table = NO_TABLE,
) -> None:
    codec.write_status(message, state.status())
    _write_version(message, game_id, ply)
    _write_table(message, table)


def _write_table(message: pb.Status, table: Table) -> None:
    """The computer seats, the deadline and a forfeit, over the engine's status."""
    if table.empty:
        return
    message.computer_seats.extend(c.seat for c in table.computers)
    if table.forfeited_side is not None:
        lost = table.forfeited_side
        message.ClearField("seat_to_play")
        message.game_over = True
        message.winning_side = forfeit_winner(message.scores, lost)
        message.forfeited_side = lost
    elif table.clock is not None and table.clock.deadline_ms:
        message.deadline.FromMilliseconds(table.clock.deadline_ms)


def _write_version(message: pb.Status, game_id: bytes, ply: int) -> None:
    message.game_id = game_id_text(game_id)
    if ply:  # a zero is left unset: proto3 writes none
        message.ply = ply


# ---------------------------------------------------------------- the RPC table

SERVICE = pb.DESCRIPTOR.services_by_name["Engine"]
SERVICE_NAME = SERVICE.full_name


@dataclass(frozen=True)
class Rpc:
    """One RPC of mazzo.v1.Engine: its messages, its handler, its HTTP rule."""

    name: str
    request_type: type[Message]
    response_type: type[Message]
    call: Callable[[Any], Message]
    http_method: str
    http_path: str


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def rpcs(handlers: EngineHandlers) -> list[Rpc]:
    """Every RPC of the service descriptor, bound to its handler.

    Both transports are built from this one table, so the REST routes are
    exactly the proto's google.api.http annotations.
    """
    table = []
    for method in SERVICE.methods:
        http_method, http_path = http_rule(method)
        table.append(
            Rpc(
                name=method.name,
                request_type=getattr(pb, method.input_type.name),
                response_type=getattr(pb, method.output_type.name),
                call=getattr(handlers, _snake(method.name)),
                http_method=http_method,
                http_path=http_path,
            )
        )
    return table


def http_rule(method: MethodDescriptor) -> tuple[str, str]:
    """The REST verb and path of a method: its google.api.http annotation."""
    from google.api import annotations_pb2

    rule = method.GetOptions().Extensions[annotations_pb2.http]
    verb = rule.WhichOneof("pattern")
    return verb.upper(), getattr(rule, verb)
