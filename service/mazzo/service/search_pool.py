"""Where Suggest's players think: in the serving process, or in processes of their own.

The searches of the ``intermediate`` and ``expert`` levels are CPU-bound
Python. In the process that serves gRPC and REST a search holds the
interpreter lock against every other call's thread, which gets it back only
when the search's 5 ms slice ends: under load a Play that needs a
millisecond waits tens, and the searches themselves answer late
(docs/performance.md, "Suggest under load"). In a pool of processes the
operating system shares the cores instead, preempting finely, and the
serving threads stay free for the hot path.

Every search gets an absolute deadline on ``CLOCK_MONOTONIC``, one clock for
every process of the machine, counted from the moment the call arrived: time
spent waiting for a free search process comes out of the budget. Under load a
search thinks less (with no time left, a searching level falls back to the
greedy player), it does not answer late.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import random
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from mazzo.engine.game import Move
from mazzo.engine.players import SEARCHING_LEVELS, Budget, Suggestion, suggest
from mazzo.service.config import Config

log = logging.getLogger(__name__)

# The searching levels (SEARCHING_LEVELS) are worth a process hop: the others
# (random, greedy) answer in microseconds, in the serving process.


def now() -> float:
    """Seconds on the machine's monotonic clock, the same in every process."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def think(
    level: str,
    view: Any,
    legal_moves: Sequence[Move],
    simulations: int,
    deadline: float,
    seed: int,
) -> Suggestion:
    """The suggestion of ``level``, within ``simulations`` and before ``deadline`` (``now()``)."""
    budget = Budget(simulations, max(0.0, deadline - now()), now)
    return suggest(level, view, legal_moves, budget, random.Random(seed))


#: What the handlers call for a suggestion: :func:`think`, or a :class:`SearchPool`.
Thinker = Callable[[str, Any, Sequence[Move], int, float, int], Suggestion]


#: How long :meth:`SearchPool.start` waits for its processes to start.
START_TIMEOUT = 60.0


class _SearchProcess(multiprocessing.context.SpawnProcess):
    """A spawned search process that cannot die of Ctrl-C, from its first instruction.

    Ctrl-C reaches the terminal's whole process group, and a search process
    still importing (before its initializer ran) would die of it with a
    KeyboardInterrupt traceback. So SIGINT is blocked in the thread that
    spawns it: the mask survives fork and exec, the child's interpreter starts
    with SIGINT held back, and :func:`_start_search_process` then ignores it
    for good, which discards one already pending (the resource tracker of
    multiprocessing starts the same way).
    """

    def start(self) -> None:
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            super().start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


class _SearchContext(multiprocessing.context.SpawnContext):
    Process = _SearchProcess


#: Set in each search process by :func:`_start_search_process`: the pool's start line.
_started: Any = None


def _ready() -> None:
    """Wait until every process of the pool has started: one call in each."""
    _started.wait(START_TIMEOUT)


def _exit_with_parent() -> None:
    parent = multiprocessing.parent_process()
    assert parent is not None  # a search process is always started by a server process
    parent.join()  # returns once the parent is gone: its sentinel closed
    os._exit(0)


def freeze_heap() -> None:
    """Leave what start-up made (modules, tables, caches) out of every later
    garbage collection: the searches' own objects are short-lived, so a full
    collection in the middle of a search then scans next to nothing instead
    of the whole heap (2.7 ms against 0.0 in a search process, measured by
    docs/bots.md's overrun figures)."""
    gc.collect()
    gc.freeze()


def _start_search_process(started: Any) -> None:
    """Each search process's set-up: its lifetime tied to its server process's.

    Ctrl-C reaches the terminal's whole process group: the server drains on it
    and then closes the pool, so the searches must not die first; they ignore
    it (blocked since the spawn, :class:`_SearchProcess`). A server process
    killed outright (SIGKILL, or its supervisor's timeout) cannot close its
    pool: its search processes notice it is gone and exit, instead of living
    on as orphans. ``started`` is the pool's barrier, which :func:`_ready` waits on.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    freeze_heap()
    global _started
    _started = started
    threading.Thread(target=_exit_with_parent, name="exit-with-parent", daemon=True).start()


class SearchPool:
    """``processes`` processes that run the searching levels' :func:`think`.

    Call it like :func:`think`. The processes start on the first search, or
    with :meth:`start` (the server does, before it listens); they are spawned,
    not forked, so that none inherits the server's gRPC threads. A pool whose
    process died (killed, out of memory) is replaced, and the search runs once
    more in the new one.
    """

    def __init__(self, processes: int):
        if processes < 1:
            raise ValueError("a search pool needs at least one process")
        self.processes = processes
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                context = _SearchContext()
                self._executor = ProcessPoolExecutor(
                    self.processes,
                    mp_context=context,
                    initializer=_start_search_process,
                    initargs=(context.Barrier(self.processes),),
                )
            return self._executor

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is broken:
                log.warning("a search process died: starting a new pool")
                self._executor = None
        broken.shutdown(wait=False, cancel_futures=True)

    def start(self) -> None:
        """Start every process now, so that the first searches do not pay for it.

        Returns once each process has started and set itself up: one
        :func:`_ready` call runs in each, since each waits for all the others.
        """
        pool = self._pool()
        for started in [pool.submit(_ready) for _ in range(self.processes)]:
            started.result(START_TIMEOUT)

    def __call__(
        self,
        level: str,
        view: Any,
        legal_moves: Sequence[Move],
        simulations: int,
        deadline: float,
        seed: int,
    ) -> Suggestion:
        if level not in SEARCHING_LEVELS or deadline <= now():
            # Quick, or out of time already (a search then answers greedy's
            # move): no need to wait for a search process.
            return think(level, view, legal_moves, simulations, deadline, seed)
        arguments = (level, view, legal_moves, simulations, deadline, seed)
        try:
            return self._search(arguments)
        except BrokenProcessPool:
            return self._search(arguments)  # once more, in the new pool

    def _search(self, arguments: tuple[Any, ...]) -> Suggestion:
        pool = self._pool()
        try:
            return pool.submit(think, *arguments).result()
        except BrokenProcessPool:
            self._replace(pool)
            raise

    def close(self) -> None:
        """Stop the processes (searches in flight are waited for)."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


def search_pool_of(config: Config) -> SearchPool | None:
    """The search pool ``config`` asks for (not started yet), or None: search
    in the server process (MAZZO_SEARCH_PROCESSES=0)."""
    size = config.search_processes
    return SearchPool(size) if size else None
