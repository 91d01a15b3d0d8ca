"""gunicorn settings (gunicorn reads ./gunicorn.conf.py when started from the repository
root, as `make serve` does; command-line flags add to it).

At start the database's migration is checked (:func:`when_ready`). With ``PROMETHEUS_MULTIPROC_DIR`` set (``make serve`` sets it), every worker writes its
metrics to files there and ``GET /metrics`` adds them up; a worker that exits is marked
dead so that its live gauges stop counting (prometheus-client's multiprocess mode).
"""
import os


def child_exit(server, worker):
    """A worker exited: tell prometheus-client (multiprocess mode only)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def when_ready(server):
    """Say at start, clearly, when the database is not at this release's migration
    (the service then answers 503 schema-not-current until it is)."""
    from service.config import database_url
    from service.store import GameStore, SchemaNotCurrent, check_schema

    store = GameStore(database_url())
    try:
        check_schema(store)
    except SchemaNotCurrent as error:
        server.log.error("%s", error)
    except Exception as error:  # noqa: BLE001 - unreachable database: say so, serve on
        server.log.error("The database cannot be reached: %s", error)
    finally:
        store.dispose()
