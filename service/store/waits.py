"""psycopg's waits in a gevent worker: a socket that is ready already is not waited for
(issue 23, target 2).

psycopg drives each exchange with the server as a generator that says what it waits
for (the socket readable, writable or both) and is told when the socket is ready:
``psycopg.waiting.wait(gen, fileno, interval, timeout)``. Under gevent, psycopg picks
its ``wait_poll``, whose ``poll()`` is gevent's, and gevent's ``poll()`` always hands
the wait to the worker's event loop, even when the socket is ready: the greenlet then
runs again only after every other greenlet that was ready meanwhile has run its turn
(a few milliseconds each under load).

Most of these waits are for a socket that is writable already: each statement that a
psycopg pipeline queues, and the ``BEGIN`` and ``COMMIT`` of the locked path's
transaction, wait to send. Waited for through the event loop, these turns fell
between the moment PostgreSQL granted a game's row lock and the moment the
transaction that held it committed: in a Halves race of 4 games of 4 seats, the lock
was held about 4 to 6 ms beyond the action's own work (the other seats queue behind
it), and a locked action's pipeline took 3 to 5 ms to open (medians).

:func:`ready_first` asks the operating system's ``poll()`` itself, without waiting,
whether the socket is ready; only when it is not (an answer from the server still to
come, a full send buffer, an error on the socket) the rest of the exchange goes
psycopg's own way, through the event loop. A greenlet still yields at every wait for
the server, except while it takes and holds a game's row lock (:func:`holding_lock`:
the locked path's pipelined transaction, from its ``BEGIN`` to its ``COMMIT``'s
answer): then it waits for PostgreSQL's answers without yielding, for up to
:data:`HOLDING_WAIT_SECONDS` per exchange, and only a longer wait goes through the
event loop. A greenlet that yields while the row is locked resumes only after the
worker's other ready greenlets, and the game's other seats wait on the lock
meanwhile: in a Halves race on PostgreSQL an action POST's p50 in the server went
from 23-27 ms to 6.5-7.7 ms with this (issue 23, target 2; docs/operations.md).

:func:`install` puts it in place in a gevent worker (``service.server.GeventWorker``,
once gevent has patched the standard library). It relies on psycopg calling
``psycopg.waiting.wait`` by that name for each exchange on an open connection
(``Connection.wait``), and on the generator protocol above (psycopg 3.1 to 3.3):
``tests/test_waits.py`` fails if either changes.
"""

from __future__ import annotations

import math
import select
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from psycopg.waiting import READY_R, READY_W, WAIT_R, WAIT_RW, WAIT_W, Ready

_MASKS = {WAIT_R: select.POLLIN, WAIT_W: select.POLLOUT, WAIT_RW: select.POLLIN | select.POLLOUT}
# while a request holds a game's row lock (holding_lock), how long (s) each of its
# exchanges with PostgreSQL may keep the worker waiting before it yields
HOLDING_WAIT_SECONDS = 0.005
_holding: ContextVar[bool] = ContextVar("holding_lock", default=False)
# set by install(): the wait psycopg chose, and the operating system's poll()
_cooperative: Callable[..., Any] | None = None
_poll: Callable[[], Any] = select.poll


def install() -> bool:
    """Make :func:`ready_first` psycopg's wait in this process when gevent has patched
    ``select`` (a gevent worker); True if it did (or had), False otherwise (nothing
    changed: psycopg's own choice of wait stands)."""
    global _cooperative, _poll
    from gevent import monkey
    from psycopg import waiting

    if waiting.wait is ready_first:
        return True
    if not monkey.is_module_patched("select"):
        return False
    _cooperative, _poll = waiting.wait, monkey.get_original("select", "poll")
    waiting.wait = ready_first
    return True


def ready_first(
    gen: Generator[Any, Any, Any],
    fileno: int,
    interval: float = 0.0,
    timeout: float | None = None,
) -> Any:
    """Drive psycopg's generator ``gen`` on the socket ``fileno`` to its end and return
    its value (``psycopg.waiting.wait``'s signature): each time ``gen`` waits, the
    operating system's ``poll()`` tells at once whether the socket is ready for it
    (inside :func:`holding_lock`: within what is left of
    :data:`HOLDING_WAIT_SECONDS`, the worker waiting whole); if it is, ``gen`` goes on
    without a turn of the event loop. At the first wait the socket is not ready for,
    the rest goes to the wait psycopg chose (kept by :func:`install`) with the same
    ``interval`` and ``timeout`` (seconds), which raises what psycopg raises (a closed
    socket: ``OperationalError``; a time-out: its ``_WaitTimeout``)."""
    assert _cooperative is not None, "install() first"
    deadline = time.monotonic() + HOLDING_WAIT_SECONDS if _holding.get() else None
    try:
        state = next(gen)
        poller = _poll()
        poller.register(fileno, _MASKS[state])
        while True:
            events = poller.poll(_left_ms(deadline))
            found = events[0][1] if events else 0
            ready = (READY_R if found & select.POLLIN else 0) | (
                READY_W if found & select.POLLOUT else 0
            )
            if not ready:  # not yet, or an error on the socket: psycopg's own wait
                return _cooperative(_resumed(state, gen), fileno, interval, timeout)
            state = gen.send(Ready(ready))
            poller.modify(fileno, _MASKS[state])
    except StopIteration as done:
        return done.value


def _left_ms(deadline: float | None) -> int:
    """Milliseconds left until ``deadline`` (monotonic; None: none, 0)."""
    if deadline is None:
        return 0
    return max(0, math.ceil((deadline - time.monotonic()) * 1000))


@contextmanager
def holding_lock() -> Iterator[None]:
    """For the block, the request takes and holds a lock other requests wait for (a
    game's row lock): :func:`ready_first` waits for PostgreSQL's answers without
    yielding, up to :data:`HOLDING_WAIT_SECONDS` per exchange (see the module
    docstring)."""
    token = _holding.set(True)
    try:
        yield
    finally:
        _holding.reset(token)


def _resumed(state: Any, gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """``gen``, which waits for ``state`` now, as a generator that has not started:
    its first ``next()`` gives ``state``, and the rest is ``gen``'s."""
    try:
        while True:
            ready = yield state
            state = gen.send(ready)
    except StopIteration as done:
        return done.value
