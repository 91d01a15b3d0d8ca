"""The gunicorn worker of the service (gunicorn.conf.py: ``worker_class``): gunicorn's
gevent worker with three limits for clients that send slowly or open many connections
(issue 18, item 2). Each connection is a greenlet; a slow client costs one of the
worker's ``worker_connections`` slots for as long as it is connected, so:

* **Read deadline.** A request must have arrived whole, headers and body, within
  ``READ_DEADLINE_SECONDS`` (15 s) from the moment the connection waits for it (the
  headers alone within gunicorn's ``keepalive``, 2 s, as before). Every read of the
  body runs under a ``gevent.Timeout`` of the time left; when it runs out the read
  raises ``TimeoutError``, the app answers 408 ``request-timeout``
  (:mod:`service.api.bodies` reads bodies ahead) and the connection is closed.
* **Connections per address.** At most ``MAX_CONNECTIONS_PER_ADDRESS`` open
  connections per client address in each worker (100; off with 0; off by default
  behind proxies, ``TRUSTED_PROXY_HOPS`` > 0, where every connection comes from the
  proxy). One more is answered 429 ``too-many-connections`` (problem+json, English:
  nothing of its request is read) and closed.
* **Protocol errors as problems.** What gunicorn refuses before the app sees it (a
  malformed request line or header, a Transfer-Encoding it does not know: 501, a
  header section too large: 431...) is answered as problem+json like every other
  refusal, instead of gunicorn's HTML page.

Each worker also makes psycopg go on at once when a socket it would wait for is
ready already, instead of waiting for a turn of the event loop
(:mod:`service.store.waits`, put in place before the app is loaded).

This module is imported by the gunicorn master (it loads the worker class): it imports
neither Flask nor the app, so the workers import them after gevent patched the
standard library.
"""

from __future__ import annotations

import http
import json
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import gevent
from gevent.local import local
from gunicorn import util
from gunicorn.workers.ggevent import GeventWorker as _GeventWorker

from service.config import ConfigError, max_connections_per_address, read_deadline
from service.messages import Message

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

TYPE_BASE = "https://card-referee.dev/problems/"  # as service.errors.TYPE_BASE
_connection = local()  # per greenlet (= per connection): when its request began, the request


class DeadlineInput:
    """``wsgi.input`` whose reads end by ``deadline`` (time.monotonic()): a read still
    waiting then raises ``TimeoutError`` (and so does every later one)."""

    def __init__(self, stream: Any, deadline: float):
        self._stream = stream
        self._deadline = deadline
        self.expired = False

    def _call(self, method: Callable[..., Any], *args: Any) -> Any:
        left = self._deadline - time.monotonic()
        if self.expired or left <= 0:
            self.expired = True
            raise TimeoutError("the request's read deadline passed")
        try:
            with gevent.Timeout(left):
                return method(*args)
        except gevent.Timeout:
            self.expired = True
            raise TimeoutError("the request's read deadline passed") from None

    def read(self, size: int | None = None) -> bytes:
        return self._call(self._stream.read, size)

    def readline(self, size: int | None = None) -> bytes:
        return self._call(self._stream.readline, size)

    def readlines(self, hint: int | None = None) -> list[bytes]:
        return self._call(self._stream.readlines, hint)

    def __iter__(self) -> Iterator[bytes]:
        while True:
            line = self.readline()
            if not line:
                return
            yield line


def problem_bytes(
    status: int, code: str, detail: str, headers: Iterable[tuple[str, str]] = ()
) -> bytes:
    """A whole HTTP/1.1 response carrying a problem+json body, closing the connection
    (for refusals made before the app, in English: no request was read to choose a
    language from)."""
    phrase = http.HTTPStatus(status).phrase
    body = json.dumps(
        {
            "type": TYPE_BASE + code,
            "title": phrase,
            "status": status,
            "detail": detail,
            "code": code,
        }
    ).encode()
    head = [
        f"HTTP/1.1 {status} {phrase}",
        "Content-Type: application/problem+json",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{name}: {value}" for name, value in headers),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


_PROTOCOL_CODES = {
    400: "bad-request",
    403: "forbidden",
    414: "uri-too-long",
    417: "expectation-failed",
    431: "header-fields-too-large",
    500: "internal-error",
    501: "transfer-coding-not-implemented",
}


def _write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error`` (its HTML error page), as problem+json."""
    detail = Message("The server could not read this request: %(reason)s.", reason=mesg or reason)
    util.write_nonblock(
        sock, problem_bytes(status_int, _PROTOCOL_CODES.get(status_int, "bad-request"), detail)
    )


def settle(cfg: Any) -> None:
    """Give each of gunicorn's settings to ``cfg`` (a worker's copy of the settings,
    which nothing changes once the worker runs) as a plain attribute. gunicorn's
    ``Config`` finds a setting by ``__getattr__``, once the normal lookup has failed:
    about 1.2 us a time, and a request reads its settings about 26 times. The names
    the ``Config`` class defines itself (properties computed from several settings,
    methods) are left to it."""
    for name, setting in cfg.settings.items():
        if not hasattr(type(cfg), name):
            vars(cfg)[name] = setting.get()


class GeventWorker(_GeventWorker):
    """gunicorn's gevent worker with the read deadline, the per-address connection cap,
    problem+json protocol errors and psycopg's ready-first wait (module docstring)."""

    wsgi: WSGIApplication  # the app, as gunicorn's load_wsgi() loads it (wrapped below)

    def init_process(self) -> None:
        try:
            self.read_deadline = read_deadline()
            self.per_address = max_connections_per_address()
        except ConfigError as error:
            self.log.error("%s", error)
            raise
        self.open_by_address: Counter[str] = Counter()
        util.write_error = _write_problem  # this worker process's protocol errors
        settle(self.cfg)
        super().init_process()

    def load_wsgi(self) -> None:
        # gevent has patched the standard library by now (init_process)
        from service.store import waits

        waits.install()
        super().load_wsgi()
        app, deadline = self.wsgi, self.read_deadline

        def with_deadline(
            environ: WSGIEnvironment, start_response: StartResponse
        ) -> Iterable[bytes]:
            began = getattr(_connection, "began", None) or time.monotonic()
            reader = DeadlineInput(environ["wsgi.input"], began + deadline)
            environ["wsgi.input"] = reader
            result = app(environ, start_response)
            request = getattr(_connection, "request", None)
            if reader.expired and request is not None:
                request.force_close()  # the rest of its body never needs reading
            return result

        self.wsgi = with_deadline

    def timeout_ctx(self) -> gevent.Timeout:
        """Entered when the connection starts waiting for its next request: the
        request's read deadline counts from here."""
        _connection.began = time.monotonic()
        return super().timeout_ctx()

    def handle_request(self, listener_name: Any, req: Any, sock: socket.socket, addr: Any) -> bool:
        _connection.request = req
        return super().handle_request(listener_name, req, sock, addr)

    def handle(self, listener: socket.socket, client: socket.socket, addr: Any) -> None:
        address = addr[0] if isinstance(addr, tuple) and addr else None
        if address is None or not self.per_address:
            return super().handle(listener, client, addr)
        if self.open_by_address[address] >= self.per_address:
            # answered outside the pool (on a duplicate of the socket, which the
            # server closes when this returns): a refusal frees its slot at once
            gevent.spawn(self._refuse, client.dup(), address)
            return None
        self.open_by_address[address] += 1
        try:
            return super().handle(listener, client, addr)
        finally:
            self.open_by_address[address] -= 1
            if not self.open_by_address[address]:
                del self.open_by_address[address]

    def _refuse(self, client: socket.socket, address: str) -> None:
        """429 ``too-many-connections``, then close (what the client sent meanwhile is
        read for a tenth of a second, so that the answer is not lost to a reset)."""
        detail = Message(
            "Too many open connections from this address: at most %(limit)s per worker.",
            limit=self.per_address,
        )
        try:
            client.setblocking(True)
            with gevent.Timeout(1, False):  # a client that reads nothing: given up
                client.sendall(
                    problem_bytes(429, "too-many-connections", detail, [("Retry-After", "1")])
                )
                client.shutdown(socket.SHUT_WR)
                with gevent.Timeout(0.1, False):
                    while client.recv(65536):
                        pass
        except OSError:
            pass
        finally:
            util.close(client)
        self.log.debug(
            "refused a connection from %s: %s open", address, self.open_by_address[address]
        )
