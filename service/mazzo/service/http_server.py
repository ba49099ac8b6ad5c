"""The HTTP server of the REST gateway: waitress, with Mazzo's timeouts and errors.

Why waitress (docs/performance.md, "The HTTP server"): its one event loop per
process reads every request, header and body, before a thread runs the Flask
app, so a client that sends slowly or stalls holds a socket and a few hundred
bytes, never a thread. Idle kept-alive connections cost the same. Stalled
clients cannot starve the threads that answer the others.

On top of waitress this module adds what it lacks:

- timeouts with their own clock (:class:`HttpLimits`): a request, header and
  body, must arrive within ``read_timeout`` of its first byte (else 408 and
  the connection closed), a new connection must start its request within
  ``read_timeout``, and a kept-alive connection may stay idle for
  ``idle_timeout``;
- the HTTP layer's own refusals (malformed request line or headers, a bad
  chunked body, headers or body too large, a transfer coding it does not read)
  in the API's JSON error envelope instead of waitress's text pages, with a
  4xx status (an unsupported ``Transfer-Encoding`` is a 400, not waitress's
  501), as ``HTTP/1.1`` whatever the request said, in the caller's language
  when its headers were read (``Accept-Language``), logged as one
  rate-limited line;
- stricter framing than waitress's (RFC 9112, sections 2.2 and 6.1): a request
  with both ``Content-Length`` and ``Transfer-Encoding`` (or a
  ``Transfer-Encoding`` in HTTP/1.0), and a request line or header line not
  ended by CRLF, are refused with 400 as soon as they are seen; and a request
  whose client closes its side before the request is whole is answered 400
  too, not dropped, so that every request that starts gets an answer;
- an app that raises before it answers (a bug; waitress logs the traceback)
  answered 500 ``INTERNAL`` in the same envelope, not as a refusal;
- a body of exactly ``max_body`` bytes accepted (waitress refuses a body of its
  own limit), one byte more refused (413, ``REQUEST_TOO_LARGE``);
- a lifecycle for graceful stops: stop accepting, let requests in flight
  finish, close (``stop_accepting``, ``drain``, ``close``). While draining,
  every answer says ``Connection: close`` and its connection closes once it
  is sent, as gRPC's GOAWAY does: a client that keeps sending on a kept-alive
  connection gets one more answer, not a stop that waits for it to pause.

The same server runs in the single process of ``MAZZO_WORKERS=1`` and in each
worker of a multi-process Mazzo (on the sockets the parent bound).
"""

from __future__ import annotations

import contextlib
import logging
import re
import resource
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import orjson
from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser, ParsingError
from waitress.server import TcpWSGIServer
from waitress.task import ErrorTask, ThreadedTaskDispatcher, WSGITask
from waitress.utilities import BadRequest, InternalServerError

from mazzo.engine.errors import Text
from mazzo.service import i18n
from mazzo.service.config import Config
from mazzo.service.errors import ApiError, log_refusal
from mazzo.service.headers import ANSWER_HEADERS

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

#: How often the event loop checks the timeouts. A connection is closed when
#: its timeout is less than a tick away, so never later than its timeout.
TICK = 0.1
#: Connections one process holds at most; past it, new ones wait in the
#: kernel's backlog (and another worker takes them).
CONNECTION_LIMIT = 4096
#: The request line and headers together; more is refused (431).
MAX_HEADER_BYTES = 8192
#: Threads that run the Flask app, per process: requests are CPU-bound and
#: share the GIL with gRPC, so a few are enough; waiting clients hold none.
THREADS = 8
#: When stopping, how long after its last activity an idle connection stays
#: open for a request its client may already be sending.
STOP_LINGER = 1.0
#: What the HTTP layer refuses before any route reads the request, whatever its route:
#: malformed HTTP (400), a request not whole in time (408), a body or headers too
#: large (413, 431).
REFUSED_ON_EVERY_ROUTE = (400, 408, 413, 431)
#: How long a connection closed after a refusal still reads (and drops) input.
LINGER = 2.0
#: Longest caller-supplied text an error message quotes.
QUOTE_LIMIT = 80

# waitress warns on every request that waits for a thread: normal under load.
logging.getLogger("waitress.queue").setLevel(logging.ERROR)


@dataclass(frozen=True)
class HttpLimits:
    """How long and how much the HTTP server waits for and reads from a client."""

    read_timeout: float = 5.0
    idle_timeout: float = 30.0
    max_body: int = 65536
    max_header: int = MAX_HEADER_BYTES
    threads: int = THREADS
    connection_limit: int = CONNECTION_LIMIT


def limits_of(config: Config) -> HttpLimits:
    return HttpLimits(
        read_timeout=config.http_read_timeout,
        idle_timeout=config.http_idle_timeout,
        max_body=config.max_request_bytes,
    )


# ---------------------------------------------------------------- errors


Headers = list[tuple[str, str]]


def error_response(
    error: ApiError, locale: str, *, close: bool = True
) -> tuple[str, Headers, bytes]:
    """The status, headers and body of an HTTP refusal in the JSON envelope, in ``locale``."""
    with i18n.speaking(locale):
        body = orjson.dumps(error.envelope(), option=orjson.OPT_APPEND_NEWLINE)
    status = error.http_status
    headers = [
        ("Content-Type", "application/json"),
        ("Content-Length", str(len(body))),
        *ANSWER_HEADERS,
    ]
    if close:
        headers.append(("Connection", "close"))
    return f"{status} {HTTPStatus(status).phrase}", headers, body


def _quoted(text: str) -> str:
    printable = "".join(c if c.isprintable() else "?" for c in text)
    return printable if len(printable) <= QUOTE_LIMIT else printable[:QUOTE_LIMIT] + "..."


def _language_of(request: HTTPRequestParser | None) -> str:
    """The caller's language, from the request's Accept-Language where its headers
    were read (they are not when the request line or headers did not parse): else English."""
    headers = request.headers if request is not None else {}
    return i18n.negotiate(headers.get("ACCEPT_LANGUAGE"))


def _refusal(code: int, detail: str | Text, limits: HttpLimits) -> ApiError:
    """waitress's refusal (status and text, or this module's own text) as the API's error."""
    if code == 413:
        message = Text(
            "the request body is larger than the {limit} bytes accepted", limit=limits.max_body
        )
        return ApiError.http(413, message)
    if code == 431:
        message = Text(
            "the request line and headers are larger than the {limit} bytes accepted",
            limit=limits.max_header,
        )
        return ApiError.http(431, message)
    # 400 (bad request line, header or chunked body) and 501 (a transfer coding
    # other than chunked): both the caller's to fix. waitress's own account of
    # what it could not read stays English, as the JSON parser's does.
    why = detail if isinstance(detail, Text) else _quoted(detail)
    return ApiError.http(400, Text("not a valid HTTP/1.1 request: {why}", why=why))


class _ErrorTask(ErrorTask):
    """waitress's refusals, in the JSON envelope; and its 500, when an app raised
    before it answered (waitress logs the traceback), as the API's internal error."""

    def execute(self) -> None:
        # waitress makes this task for a request that met an error (the stubs
        # type the request as the error itself), on a channel of a listener of
        # this module.
        channel, request = self.channel, self.request
        assert isinstance(channel, _Channel) and isinstance(channel.server, _Listener)
        assert isinstance(request, HTTPRequestParser) and request.error is not None
        if isinstance(request.error, InternalServerError):
            error = ApiError.internal()
        else:
            # waitress's text, or this module's Text (_Parser): the stubs type it str.
            said: object = request.error.body
            detail = said if isinstance(said, Text) else str(said)
            error = _refusal(request.error.code, detail, channel.server.limits)
            log_refusal("REST", "the REST port", error)
        status, headers, body = error_response(error, _language_of(request), close=False)
        # The version this server speaks, whatever the request said (waitress
        # answers a request whose line it could not read as HTTP/1.0).
        self.version = "1.1"
        self.status = status
        self.response_headers = [
            *self.response_headers,
            *(h for h in headers if h[0] != "Content-Length"),
        ]
        self.set_close_on_finish()
        channel.linger = True
        self.content_length = len(body)
        self.write(body)


# ---------------------------------------------------------------- connections


class _Task(WSGITask):
    """One request answered by the app; the last of its connection when the server drains."""

    def build_response_header(self) -> bytes:
        channel = self.channel
        assert isinstance(channel, _Channel)
        if channel.closing:
            self.set_close_on_finish()
        return bytes(super().build_response_header())


#: A CR not followed by LF, or an LF without its CR: the request line and the
#: header lines end with CRLF (RFC 9112, section 2.2), and waitress finds the
#: header's end by CRLF CRLF only.
_BARE_LINE_END = re.compile(rb"\r(?!\n)|(?<!\r)\n")
#: A Transfer-Encoding field, wherever it is in the header (waitress drops it from
#: the parsed headers of HTTP/1.1 once it has read it).
_TRANSFER_ENCODING = re.compile(rb"\r\ntransfer-encoding[ \t]*:", re.IGNORECASE)


class _Parser(HTTPRequestParser):
    """One request being read; made when its first byte arrives.

    Stricter than waitress in the framing (RFC 9112): a request with both
    ``Content-Length`` and ``Transfer-Encoding``, which waitress reads by its
    chunks, is refused (RFC 9112, section 6.1: a server may, and must close the
    connection after answering; nginx refuses it too); so is a
    ``Transfer-Encoding`` in HTTP/1.0, which waitress ignores (the same section:
    faulty framing). A line of the header not ended by CRLF is refused as soon
    as it is seen: waitress would wait for a header's end that never comes.
    """

    def __init__(self, adj: Adjustments) -> None:
        super().__init__(adj)
        self.started = time.monotonic()

    def received(self, data: bytes) -> int:
        consumed = int(super().received(data))
        # Blank lines before a request line are ignored (RFC 9112, section 2.2), as waitress does.
        header = self.header_plus.lstrip(b"\r\n")
        if not (self.completed or self.headers_finished) and _bare_line_end(header):
            # Recorded as waitress records a ParsingError, whose argument (here a
            # Text) becomes the body: an ErrorTask answers it.
            self.error = BadRequest(
                Text("the request line and each header line must end with CRLF")  # type: ignore[arg-type]
            )
            self.completed = True
        return consumed

    def parse_header(self, header_plus: bytes) -> None:
        super().parse_header(header_plus)
        if _TRANSFER_ENCODING.search(header_plus) is None:
            return
        if "CONTENT_LENGTH" in self.headers:
            raise ParsingError(
                Text("a request may not have both Content-Length and Transfer-Encoding")
            )
        if self.version != "1.1":
            raise ParsingError(Text("only an HTTP/1.1 request may have a Transfer-Encoding"))


def _bare_line_end(header: bytes) -> bool:
    # A CR at the very end of what arrived may yet be followed by its LF.
    return _BARE_LINE_END.search(header[:-1] if header.endswith(b"\r") else header) is not None


class _Channel(HTTPChannel):
    """One client connection.

    After a refusal the connection is closed with a lingering close: the
    server stops writing, then reads and drops what the client still sends
    for up to LINGER seconds. Closing a socket with unread input makes the
    kernel send a reset, and the client would lose the refusal it was sent.
    """

    parser_class = _Parser
    task_class = _Task
    error_task_class = _ErrorTask
    #: The request being read: made by parser_class.
    request: _Parser | None
    #: Any byte received yet: a connection that sent nothing gets the read timeout.
    spoke = False
    #: Close with a lingering close (after a refusal); when the lingering ends.
    linger = False
    lingering_until: float | None = None
    #: The server drains: the next answer is this connection's last.
    closing = False

    def received(self, data: bytes) -> bool:
        if data:
            self.spoke = True
        return bool(super().received(data))

    def handle_close(self) -> None:
        if self._answer_an_unfinished_request():
            return
        if self.linger and self.lingering_until is None and self.connected:
            assert self.socket is not None  # set while connected
            try:
                self.socket.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            else:
                self.lingering_until = time.monotonic() + LINGER
                self.will_close = self.close_when_flushed = False
                return
        super().handle_close()

    def readable(self) -> bool:
        return self.lingering_until is not None or bool(super().readable())

    def writable(self) -> bool:
        return self.lingering_until is None and bool(super().writable())

    def handle_read(self) -> None:
        if self.lingering_until is None:
            super().handle_read()
        else:
            self.recv(self.adj.recv_bytes)  # dropped; at the end of input, recv closes

    def expire(self, now: float, wall: float, limits: HttpLimits) -> None:
        """Close this connection if it waited past its timeout; called on the loop's thread."""
        if self.lingering_until is not None:
            if now > self.lingering_until:
                super().handle_close()
            return
        if self.requests or self.will_close:
            return  # a request is being answered (or the connection already closing)
        partial = self.request
        if partial is not None:
            if now - partial.started > limits.read_timeout - TICK:
                self._time_out(limits)
            return
        idle = limits.idle_timeout if self.spoke else limits.read_timeout
        if wall - self.last_activity > idle - TICK:
            self.will_close = True  # idle, or an answer the client does not read

    def _time_out(self, limits: HttpLimits) -> None:
        seconds = f"{limits.read_timeout:g}"
        message = Text(
            "the request did not arrive within {seconds} s of its first byte", seconds=seconds
        )
        self._refuse_the_request(ApiError.http(408, message))
        # If the client does not read the 408 either, the idle rule closes it.
        self.last_activity = time.time()
        self.spoke = True

    def _answer_an_unfinished_request(self) -> bool:
        """The client closed its side (or the connection broke) with a request begun and
        not whole: answer 400 before closing, rather than close without a word (RFC
        9112 answers malformed framing 400, then closes). Whether this was such a close."""
        partial = self.request
        if partial is None or self.requests or self.linger or self.close_when_flushed:
            return False
        if not (partial.headers_finished or partial.header_plus.strip()):
            return False  # blank lines only, which precede a request: nothing was asked
        message = Text("the client closed its side of the connection before the request was whole")
        self._refuse_the_request(ApiError.http(400, message))
        return True

    def _refuse_the_request(self, error: ApiError) -> None:
        """Answer the request being read with ``error`` and close, from the event loop's
        thread (no task runs it: it is not whole). In the caller's language when its
        headers were read."""
        log_refusal("REST", "the REST port", error)
        status, headers, body = error_response(error, _language_of(self.request))
        head = f"HTTP/1.1 {status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
        payload = head.encode("latin-1") + body
        with self.outbuf_lock:
            self.outbufs[-1].append(payload)
            self.current_outbuf_count += len(payload)
            self.total_outbufs_len += len(payload)
        self.request = None
        self.linger = True
        self.close_when_flushed = True


class _Listener(TcpWSGIServer):
    """One listening socket of the server; the timeouts are checked by :class:`HttpServer`.

    Request threads wake the event loop by writing to its trigger, a pipe. A
    request still running when the server closes (the grace period cut it)
    must not write to the closed pipe: the write would fail, and its
    descriptor may already be another file's. So closing the trigger and
    pulling it exclude each other.
    """

    channel_class = _Channel
    limits: HttpLimits

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._trigger_guard = threading.Lock()
        self._trigger_closed = False
        super().__init__(*args, **kwargs)

    def maintenance(self, now: float) -> None:
        pass  # HttpServer.check_timeouts does it, with the read and idle timeouts

    def pull_trigger(self) -> None:
        with self._trigger_guard:
            if not self._trigger_closed:
                super().pull_trigger()

    def close(self) -> None:
        with self._trigger_guard:
            self._trigger_closed = True
            super().close()  # the trigger, then the (already closed) listening socket


# ---------------------------------------------------------------- the server


class HttpServer:
    """waitress on listening sockets, each with its WSGI app, one event loop and thread pool.

    Call :meth:`poll` in a loop (or :meth:`serve` in a thread). Stopping:
    :meth:`stop_accepting`, then :meth:`drain` for requests in flight, then
    :meth:`close`.
    """

    def __init__(self, listeners: list[tuple[socket.socket, WsgiApp]], limits: HttpLimits):
        self.limits = limits
        self._map: dict[int, Any] = {}
        sockets = [sock for sock, _ in listeners]
        for sock in sockets:
            sock.setblocking(False)
        adjustments = Adjustments(
            sockets=sockets,
            threads=limits.threads,
            connection_limit=limits.connection_limit,
            # The timeouts are this module's (check_timeouts): waitress's never trigger.
            channel_timeout=10**9,
            cleanup_interval=10**9,
            max_request_header_size=limits.max_header,
            # waitress refuses a body of its limit itself: one more accepts exactly max_body.
            max_request_body_size=limits.max_body + 1,
            asyncore_use_poll=True,  # select() stops at file descriptor 1024
            ident="mazzo",
            expose_tracebacks=False,
            log_socket_errors=False,
        )
        self._dispatcher = ThreadedTaskDispatcher()
        self._dispatcher.set_thread_count(limits.threads)
        self.listeners: list[_Listener] = []
        for sock, app in listeners:
            listener = _Listener(
                app,
                map=self._map,
                _sock=sock,
                dispatcher=self._dispatcher,
                adj=adjustments,
                bind_socket=False,
                sockinfo=(sock.family, sock.type, sock.proto, sock.getsockname()),
            )
            listener.limits = limits
            self.listeners.append(listener)
        self._next_check = 0.0
        self._stopped = threading.Event()
        self._serving: threading.Thread | None = None

    @property
    def channels(self) -> list[_Channel]:
        return [d for d in list(self._map.values()) if isinstance(d, _Channel)]

    def poll(self, timeout: float = TICK) -> None:
        """Serve for up to ``timeout`` seconds (one turn of the event loop), then check timeouts."""
        wasyncore.loop(timeout=timeout, map=self._map, use_poll=True, count=1)
        now = time.monotonic()
        if now >= self._next_check:
            self._next_check = now + TICK
            self.check_timeouts(now)

    def check_timeouts(self, now: float) -> None:
        wall = time.time()
        for channel in self.channels:
            channel.expire(now, wall, self.limits)

    def serve(self) -> None:
        """Serve until :meth:`close` (for a thread of its own)."""
        self._serving = threading.current_thread()
        while not self._stopped.is_set():
            self.poll()

    def stop_accepting(self) -> None:
        """Close the listening sockets (this process's copies); connections stay open."""
        for listener in self.listeners:
            if listener.accepting:
                assert listener.socket is not None  # set until close(), which stops accepting
                listener.accepting = False
                listener.del_channel()
                listener.socket.close()

    def busy(self) -> bool:
        """A request in flight: being read, answered, or its answer not yet sent."""
        return any(_in_flight(channel) for channel in self.channels)

    def drain(self, timeout: float, keep_running: Callable[[], None] = lambda: None) -> bool:
        """Serve until no request is in flight (or ``timeout``); idle connections are closed
        (after STOP_LINGER since they were last active).

        Runs the event loop itself (the caller's loop has stopped); ``keep_running``
        is called on each turn (a worker tells its parent it is alive). True when
        nothing was left in flight.
        """
        deadline = time.monotonic() + timeout
        while True:
            waiting = False
            wall = time.time()
            for channel in self.channels:
                channel.closing = True
                if _in_flight(channel):
                    waiting = True
                elif channel.lingering_until is None and not channel.will_close:
                    # Idle: closed, unless it was active a moment ago (just
                    # accepted, or just answered): its client may be sending.
                    if wall - channel.last_activity > STOP_LINGER:
                        channel.will_close = True
                    else:
                        waiting = True
            if not waiting or time.monotonic() >= deadline:
                return not waiting
            keep_running()
            self.poll(min(TICK, max(deadline - time.monotonic(), 0.0)))

    def close(self) -> None:
        """Close every connection and stop the threads."""
        self._stopped.set()
        serving = self._serving
        if serving is not None and serving is not threading.current_thread():
            serving.join(10 * TICK)  # the loop ends its turn: nothing runs it meanwhile
        self.stop_accepting()
        self._dispatcher.shutdown(cancel_pending=True, timeout=1)
        for listener in self.listeners:
            listener.close()
        for dispatcher in list(self._map.values()):
            with contextlib.suppress(OSError):
                dispatcher.close()
        self._map.clear()


def raise_file_limit() -> None:
    """Let this process hold CONNECTION_LIMIT connections: the soft limit of open files
    up to the hard one (the usual soft default, 1024, is what a few idle clients reach)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = CONNECTION_LIMIT + 256
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _in_flight(channel: _Channel) -> bool:
    return bool(channel.requests or channel.request is not None or channel.total_outbufs_len)


def bind(addr: tuple[str, int], backlog: int = 2048) -> socket.socket:
    """A listening TCP socket on ``addr`` (host, port; port 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in addr[0] else socket.AF_INET
    try:
        return socket.create_server(addr, family=family, backlog=backlog)
    except OSError as error:
        raise OSError(f"cannot listen on {addr[0]}:{addr[1]}: {error.strerror}") from None


def port_of(sock: socket.socket) -> int:
    return int(sock.getsockname()[1])
