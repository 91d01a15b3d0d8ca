"""SQLite writers queue on a file lock (service.store.db.WriterLock) before BEGIN
IMMEDIATE, across processes (bench/bench_speed.py measures what it buys)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

from service.store.db import WriterLock


def _hold(path: str, seconds: float, ready) -> None:
    with WriterLock(path).held():
        ready.set()
        time.sleep(seconds)


def test_a_writer_waits_for_another_process_and_wakes_when_it_releases(tmp_path):
    path = str(tmp_path / "db.sqlite3-writer.lock")
    context = multiprocessing.get_context("fork")
    ready = context.Event()
    holder = context.Process(target=_hold, args=(path, 0.3, ready))
    holder.start()
    try:
        assert ready.wait(10)
        begin = time.monotonic()
        with WriterLock(path).held():
            waited = time.monotonic() - begin
    finally:
        holder.join(10)
    # blocked while the other process held it (it slept 0.3 s from `ready`), and no
    # busy-handler back-off after the release (SQLite's sleeps up to 100 ms each)
    assert 0.15 < waited < 1.5
    assert holder.exitcode == 0


def test_a_lock_opened_before_fork_is_the_childs_own_after_it(tmp_path):
    lock = WriterLock(str(tmp_path / "x-writer.lock"))
    with lock.held():  # opens the parent's descriptor
        pass
    context = multiprocessing.get_context("fork")
    ready = context.Event()
    holder = context.Process(target=lambda: _hold_with(lock, ready), args=())
    holder.start()
    try:
        assert ready.wait(10)
        begin = time.monotonic()
        with lock.held():  # the child's flock is on its own open file: we wait
            waited = time.monotonic() - begin
    finally:
        holder.join(10)
    assert waited > 0.15


def _hold_with(lock: WriterLock, ready) -> None:
    with lock.held():
        ready.set()
        time.sleep(0.3)


# a gevent worker's writer, in a process of its own (gevent patches the whole process)
_COOPERATIVE_WRITER = """
from gevent import monkey

monkey.patch_all()
import sys
import time

import gevent

from service.store.db import BLOCKING_WAIT_SECONDS, WriterLock

ticks = []


def tick():  # the worker's other connections
    while True:
        ticks.append(time.monotonic())
        gevent.sleep(0.002)


ticker = gevent.spawn(tick)
gevent.sleep(0.02)
print("trying", flush=True)
begin = time.monotonic()
with WriterLock(sys.argv[1]).held():
    waited = time.monotonic() - begin
gevent.sleep(0.02)
ticker.kill()
during = sum(begin <= t <= begin + waited for t in ticks)
gap = max(b - a for a, b in zip(ticks, ticks[1:]))
print(waited, during, gap, BLOCKING_WAIT_SECONDS, flush=True)
"""


def test_a_gevent_writer_waits_whole_only_briefly_then_lets_the_worker_serve(tmp_path):
    path = str(tmp_path / "db.sqlite3-writer.lock")
    root = Path(__file__).resolve().parent.parent
    with WriterLock(path).held():
        child = subprocess.Popen(
            [sys.executable, "-c", _COOPERATIVE_WRITER, path],
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(root)},
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "trying"
        time.sleep(0.8)  # held while the child waits for it
    out, _ = child.communicate(timeout=30)
    assert child.returncode == 0
    waited, during, gap, budget = (float(x) for x in out.split())
    assert waited > 0.7  # it waited for this process's release
    # the first BLOCKING_WAIT_SECONDS (0.02 s) without yielding, then between
    # cooperative sleeps: the ticker (every 2 ms) ran on through the rest of the wait
    assert budget < 0.1
    assert during >= 20
    assert gap < waited / 2
