"""SQLite writers queue on a file lock (service.store.db.WriterLock) before BEGIN
IMMEDIATE, across processes (bench/bench_speed.py measures what it buys)."""

from __future__ import annotations

import multiprocessing
import time

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
