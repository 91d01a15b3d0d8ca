"""gunicorn settings (gunicorn reads ./gunicorn.conf.py when started from the repository
root, as `make serve` does; command-line flags add to it).

With ``PROMETHEUS_MULTIPROC_DIR`` set (``make serve`` sets it), every worker writes its
metrics to files there and ``GET /metrics`` adds them up; a worker that exits is marked
dead so that its live gauges stop counting (prometheus-client's multiprocess mode).
"""
import os


def child_exit(server, worker):
    """A worker exited: tell prometheus-client (multiprocess mode only)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
