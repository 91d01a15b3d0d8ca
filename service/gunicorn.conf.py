"""gunicorn settings of `make serve` and of a production server (gunicorn also reads
this file by itself when started from this directory). Command-line flags win.

Serving model: gevent workers. Each connection is a greenlet, not a process or a
thread, so open event streams (GET /v1/games/{id}/stream) and clients that send
their request slowly cost a few kilobytes each instead of a worker: with sync
workers, four sockets sending their headers one byte per second stalled every
worker. psycopg 3 cooperates with gevent by itself (a wait for a socket that is
ready already goes on at once: service/store/waits.py); SQLite calls are short and
never wait on the network. Several workers still use both cores, and every worker
is the same: any of them serves actions and streams (README "Production").

At start the database's migration is checked (:func:`when_ready`). With
``PROMETHEUS_MULTIPROC_DIR`` set (``make serve`` sets it), every worker writes its
metrics to files there and ``GET /metrics`` adds them up; a worker that exits is marked
dead so that its live gauges stop counting (prometheus-client's multiprocess mode).
"""

import os
import secrets

# gunicorn's gevent worker with a read deadline for whole requests
# (READ_DEADLINE_SECONDS, 15 s: headers and body), a cap on open connections per client
# address (MAX_CONNECTIONS_PER_ADDRESS, 100 per worker) and problem+json protocol
# errors (service/server.py)
worker_class = "service.server.GeventWorker"
# open connections per worker (streams included); beyond it new ones wait in the backlog
worker_connections = int(os.environ.get("WORKER_CONNECTIONS", "1000"))
# seconds a connection may take to send its request headers (the first request's too:
# the gevent worker gives up reading them after `keepalive`) or stay idle between two
# requests; a stopping worker waits for its idle connections that long
keepalive = 2
timeout = 30  # a worker that has not reported alive for this long is restarted
graceful_timeout = 10  # on stop: time for requests in flight (streams end at once)


def on_starting(server):
    """Stream tickets are signed with CARD_REFEREE_SECRET, which every worker and
    every host must share. Unset: draw one for this server's lifetime (its workers
    inherit it); tickets then fail on other hosts and after a restart (clients ask
    for a new one). Set it for several hosts."""
    if not os.environ.get("CARD_REFEREE_SECRET"):
        os.environ["CARD_REFEREE_SECRET"] = secrets.token_hex(32)
        # not the operator's: exports are signed with the database's key instead
        os.environ["CARD_REFEREE_SECRET_DRAWN"] = "1"
        server.log.info(
            "CARD_REFEREE_SECRET unset: stream tickets are valid on this server until it stops"
        )


def post_worker_init(worker):
    """End the worker's open streams as soon as it is told to stop (SIGTERM clears
    ``worker.alive``), so that it stops at once and clients reconnect to another."""
    import threading  # greenlet-based by now (the gevent worker patched threading)
    import time

    def watch():
        while worker.alive:
            time.sleep(0.5)
        from service.store.feed import close_all

        close_all()

    threading.Thread(target=watch, name="stop-streams", daemon=True).start()


def child_exit(server, worker):
    """A worker exited: tell prometheus-client (multiprocess mode only)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def when_ready(server):
    """Say at start, clearly, when the database is not at this release's migration
    (the service then answers 503 schema-not-current until it is). The check runs in a
    child process (service/store/schema_check.py): the master imports none of the
    app's modules (only the worker class, service/server.py, which imports no Flask),
    so the gevent workers it forks import them after gevent has patched threading and
    sockets."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "service.store.schema_check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode:
        server.log.error("%s", (done.stdout or done.stderr).strip())
