"""psycopg's waits in a gevent worker (service/store/waits.py): a socket that is ready
already is not waited for through the event loop, and every wait for the server still
lets the worker's other greenlets run. gevent patches the whole process, so the
PostgreSQL checks run in a child process patched as a gunicorn gevent worker is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from psycopg import waiting

from service.store import waits

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# run in the child: patched as gunicorn's gevent worker patches (monkey.patch_all)
CHILD = textwrap.dedent(
    """
    import json, sys
    from gevent import monkey
    monkey.patch_all()
    import gevent, psycopg
    from psycopg import waiting
    from service.store import waits

    report = {"installed": waits.install(), "again": waits.install(),
              "wait": waiting.wait.__name__}
    cooperative = waits._cooperative
    turns = [0]

    def counted(*args, **kwargs):  # a wait handed to the event loop
        turns[0] += 1
        return cooperative(*args, **kwargs)

    waits._cooperative = counted
    url = sys.argv[1]
    connection = psycopg.connect(url, autocommit=True)

    # a pipeline queues its statements: each only waits to send, on a writable socket
    with connection.pipeline() as pipeline:
        cursors = [connection.cursor() for _ in range(5)]
        for number, cursor in enumerate(cursors):
            cursor.execute("SELECT %s::int", (number,))
        report["turns_queued"] = turns[0]
        pipeline.sync()  # now the answers: waited for through the event loop
        report["turns_synced"] = turns[0]
        report["rows"] = [cursor.fetchone()[0] for cursor in cursors]

    # while a statement runs on the server, the worker's other greenlets run
    ticks = [0]

    def ticker():
        while True:
            ticks[0] += 1
            gevent.sleep(0.01)

    beside = gevent.spawn(ticker)
    gevent.sleep(0)
    start = ticks[0]
    report["slept"] = connection.execute("SELECT pg_sleep(0.3), 7").fetchone()[1]
    report["ticks"] = ticks[0] - start

    # taking or holding a game's row lock: an answer within the budget is waited for
    # whole (no turn of the event loop)...
    turns[0] = 0
    shipped, waits.HOLDING_WAIT_SECONDS = waits.HOLDING_WAIT_SECONDS, 1.0  # a busy machine
    with waits.holding_lock():
        report["held_answer"] = connection.execute("SELECT pg_sleep(0.002), 8").fetchone()[1]
    report["turns_held"] = turns[0]
    waits.HOLDING_WAIT_SECONDS = shipped
    # ...and one slower than HOLDING_WAIT_SECONDS goes to the event loop after it
    start = ticks[0]
    with waits.holding_lock():
        connection.execute("SELECT pg_sleep(0.3)")
    report["ticks_held"] = ticks[0] - start
    report["turns_held_slow"] = turns[0]
    # outside the block, an answer not there at once goes through the event loop again
    turns[0] = 0
    connection.execute("SELECT pg_sleep(0.002)")
    report["turns_after"] = turns[0]
    beside.kill()

    # a connection the server ended: psycopg's error, at once
    with psycopg.connect(url, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", (connection.info.backend_pid,))
    try:
        with gevent.Timeout(10):
            connection.execute("SELECT 1")
        report["ended"] = "no error"
    except psycopg.OperationalError:
        report["ended"] = "OperationalError"
    print(json.dumps(report))
    """
)


def test_outside_gevent_psycopgs_own_wait_stands():
    """In a process gevent has not patched (this one), install() changes nothing."""
    before = waiting.wait
    assert waits.install() is False
    assert waiting.wait is before and waiting.wait is not waits.ready_first


@pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"),
    reason="psycopg's waits are PostgreSQL's (TEST_DATABASE_URL)",
)
def test_ready_sockets_skip_the_event_loop_and_waits_for_the_server_do_not(new_database):
    from sqlalchemy.engine import make_url

    url = make_url(new_database("postgresql")).set(drivername="postgresql")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, url.render_as_string(hide_password=False)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["installed"] is True and report["again"] is True
    assert report["wait"] == "ready_first"
    # five statements queued in a pipeline: no turn of the event loop
    assert report["turns_queued"] == 0
    # their answers: waited for cooperatively, and all there
    assert report["turns_synced"] >= 1
    assert report["rows"] == [0, 1, 2, 3, 4]
    # 0.3 s on the server: the ticker (every 0.01 s) ran meanwhile
    assert report["slept"] == 7 and report["ticks"] >= 10
    # inside holding_lock (a game's row lock): the server's quick answer without a turn
    # of the event loop, a slow one (0.3 s) with the ticker running after the first 5 ms
    assert report["held_answer"] == 8 and report["turns_held"] == 0
    assert report["turns_held_slow"] >= 1 and report["ticks_held"] >= 10
    assert report["turns_after"] >= 1
    assert report["ended"] == "OperationalError"
