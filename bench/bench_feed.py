"""Benchmark the live event feed and the serving model (run by hand; prints figures and
ratios against baselines measured in the same run).

    .venv/bin/python bench/bench_feed.py [--backends sqlite,postgresql] [--seconds 8]
        [--streams 1000] [--samples 100] [--models gevent,gthread] [--pg-url URL]

Every server is gunicorn on 127.0.0.1 as `make serve` starts it (gunicorn.conf.py), on a
fresh database per backend (PostgreSQL: created from --pg-url / TEST_DATABASE_URL and
dropped at the end). The client runs on the same machine (2 cores here), so it takes
CPU from the server: the figures are a floor. On a machine shared with other work, say
so next to the figures.

1. Delivery latency: a scripted 2-Way Cards game is played on one server while the
   other seat follows its stream; per action, the time from the action's 200 to the
   arrival of its event on that stream, p50 and p99 of --samples actions (spaced
   randomly 0-300 ms apart, so that they do not keep one phase of the poll). "same
   server": the stream and the actions on one server with 4 workers; "two servers":
   the stream on a second server (2 workers each) on the same database. Targets:
   PostgreSQL (NOTIFY) across two servers p99 <= 100 ms; SQLite (the 0.25 s poll)
   p99 <= 300 ms.
2. The serving figures, per worker model (--models; "gevent" is `make serve`,
   "gthread" runs 256 threads per worker), 4 workers each, --threads clients playing
   scripted games (bench_store.py). Throughputs are compared between two servers
   running side by side, measured in turns of 2 s until each had --seconds, so that
   load from elsewhere on the machine hits both alike:
   (c) actions/s without streams / today's sync workers [target >= 0.9];
   (a) actions/s with --streams open streams / a twin server without [>= 0.8]: the
       streams follow other games (3 each: both seats and the referee); then also
       with each game played on it followed by its two seats (each action delivered
       twice more); memory per open stream: the workers' RSS with the streams open,
       less before, divided by their number;
   (b) /healthz p99 (a new connection each, 150 probes) while 64 clients send their
       request headers one byte per second [<= 100 ms]; --sync-slow-clients: sync
       workers too, for contrast.
"""
from __future__ import annotations

import argparse
import http.client
import os
import queue
import random
import selectors
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bench_store import (DEFAULT_PG, Database, ScriptedGame, http_actions,  # noqa: E402
                         start_gunicorn, stop)
from service.play import EventStream, HTTPTransport  # noqa: E402
from test_stream_servers import slow_clients  # noqa: E402

MODELS = {"sync": ("-k", "sync"), "gevent": (),
          "gthread": ("-k", "gthread", "--threads", "256")}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


# ----- 1. delivery latency -------------------------------------------------------------


def delivery(action_base: str, stream_base: str, samples: int) -> list[float]:
    """Seconds from each action's 200 to its event on the other seat's stream."""
    http, out = HTTPTransport(action_base), []
    stream = game = None
    try:
        while len(out) < samples:
            if game is None or game.status != "active":
                if stream is not None:
                    stream.close()
                game = ScriptedGame(http)
                watcher = "green" if game.latest["turn"] == "blue" else "blue"
                stream = EventStream(HTTPTransport(stream_base), f"/v1/games/{game.id}/stream",
                                     {"Authorization": f"Bearer {game.tokens[watcher]}"})
                assert stream.first(10) is not None, stream.error
            game.step()
            replied = time.perf_counter()
            arrived = stream.wait_for(game.last_seq, 10)
            assert arrived is not None, f"event {game.last_seq} not streamed: {stream.error}"
            out.append(max(0.0, arrived - replied))
            time.sleep(random.uniform(0, 0.3))  # any phase of the 0.25 s poll
    finally:
        http.close()
        if stream is not None:
            stream.close()
    return out


def bench_delivery(url: str, backend: str, samples: int) -> None:
    one, base = start_gunicorn(url, 4)
    try:
        same = delivery(base, base, samples)
    finally:
        stop(one)
    (first, base_1), (second, base_2) = start_gunicorn(url, 2), start_gunicorn(url, 2)
    try:
        across = delivery(base_1, base_2, samples)
    finally:
        stop(first)
        stop(second)
    for label, figures in (("same server", same), ("two servers", across)):
        print(f"{backend}: delivery, {label}: p50 {ms(percentile(figures, 0.5))}, "
              f"p99 {ms(percentile(figures, 0.99))}, max {ms(max(figures))} "
              f"({len(figures)} actions)")


# ----- 2. serving figures --------------------------------------------------------------


class Streams:
    """Many streams read by ONE thread (selectors), so that the client spends little
    CPU on them: counts the opening view events and the bytes received."""

    def __init__(self, port: int):
        self.port = port
        self.selector = selectors.DefaultSelector()
        self.pending: queue.Queue[socket.socket] = queue.Queue()
        self.views = self.received = self.closed = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def open(self, game_id: str, token: str) -> None:
        sock = socket.create_connection(("127.0.0.1", self.port))
        sock.sendall(f"GET /v1/games/{game_id}/stream HTTP/1.1\r\nHost: bench\r\n"
                     f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n"
                     .encode())
        sock.setblocking(False)
        self.pending.put(sock)

    def _loop(self) -> None:
        while not self.done.is_set():
            while not self.pending.empty():
                self.selector.register(self.pending.get(), selectors.EVENT_READ)
            for key, _ in self.selector.select(timeout=0.05):
                try:
                    data = key.fileobj.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self.selector.unregister(key.fileobj)
                    key.fileobj.close()
                    self.closed += 1
                    continue
                self.received += len(data)
                self.views += data.count(b"event: view\n")

    def wait_open(self, count: int, timeout: float = 60) -> bool:
        """True once ``count`` streams sent their view; False after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while self.views < count:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return True

    def close(self) -> None:
        self.done.set()
        self.thread.join(5)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()
        while not self.pending.empty():
            self.pending.get().close()


def workers_rss(master: int) -> int:
    """Bytes of resident memory of the gunicorn master's worker processes."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields.get("PPid", "0")) == master and "VmRSS" in fields:
            total += int(fields["VmRSS"].split()[0]) * 1024
    return total


def idle_games(base: str, streams: int) -> list[tuple[str, str]]:
    """(game id, token) for ``streams`` streams: 3 per new game (seats and referee)."""
    http, out = HTTPTransport(base), []
    try:
        while len(out) < streams:
            created = http.request("POST", "/v1/games", {"game": "two-way", "options": {}}).body
            tokens = [e["token"] for e in created["seats"].values()] + [created["referee_token"]]
            out += [(created["id"], token) for token in tokens]
    finally:
        http.close()
    return out[:streams]


def healthz_p99(port: int, probes: int = 150, timeout: float = 5.0) -> str:
    """/healthz p99 over ``probes`` new connections while 64 slow clients trickle; a
    probe that times out ends the measure (sync workers)."""
    done = threading.Event()
    slow = threading.Thread(target=slow_clients, args=(port, 64, done), daemon=True)
    slow.start()
    timings = []
    try:
        time.sleep(1.5)
        for _ in range(probes):
            started = time.perf_counter()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
            try:
                connection.request("GET", "/healthz")
                connection.getresponse().read()
            except OSError:
                return f"a probe timed out (> {timeout:g} s) after {len(timings)} answered"
            finally:
                connection.close()
            timings.append(time.perf_counter() - started)
            time.sleep(0.02)
    finally:
        done.set()
        slow.join(10)
    return f"p99 {ms(percentile(timings, 0.99))} (median {ms(statistics.median(timings))})"


def alternating(bases: list[str], seconds: float, threads: int, slice_: float = 2.0,
                on_game: list | None = None) -> list[float]:
    """Actions/s of each server of ``bases``, measured in turns of ``slice_`` seconds
    until each had ``seconds`` (so drifting load from elsewhere hits all alike);
    ``on_game[i]``: the :func:`http_actions` hook for server i."""
    done = [0.0] * len(bases)
    for base in bases:
        http_actions(base, 0.5, threads)  # warm up
    for _ in range(max(1, round(seconds / slice_))):
        for i, base in enumerate(bases):
            done[i] += http_actions(base, slice_, threads,
                                    on_game=on_game[i] if on_game else None)[0] * slice_
    return [count / (slice_ * max(1, round(seconds / slice_))) for count in done]


def bench_model(url: str, backend: str, name: str, options: argparse.Namespace) -> None:
    args, seconds, threads = MODELS[name], options.seconds, options.threads
    servers = [start_gunicorn(url, 4, MODELS["sync"]), start_gunicorn(url, 4, args),
               start_gunicorn(url, 4, args)]
    (_, sync_base), (_, plain), (process, base) = servers
    port = int(base.rsplit(":", 1)[1])
    streams = Streams(port)
    try:
        sync, without = alternating([sync_base, plain], seconds, threads)
        print(f"{backend} {name}: (c) actions/s without streams {without:,.0f} vs sync "
              f"{sync:,.0f}: ratio {without / sync:.2f} [target >= 0.9]")
        targets = idle_games(base, options.streams)
        before = workers_rss(process.pid)
        for game_id, token in targets:
            streams.open(game_id, token)
        if streams.wait_open(len(targets)):
            time.sleep(1.0)
            per_stream = (workers_rss(process.pid) - before) / len(targets)
            without, idle = alternating([plain, base], seconds, threads)
            lost = streams.closed

            def follow(game: ScriptedGame) -> None:
                for token in game.tokens.values():
                    streams.open(game.id, token)

            plain_2, followed = alternating([plain, base], seconds, threads,
                                            on_game=[None, follow])
            print(f"{backend} {name}: (a) actions/s with {len(targets)} idle streams "
                  f"{idle:,.0f} vs {without:,.0f} without: ratio {idle / without:.2f} "
                  f"[target >= 0.8] ({lost} closed early); with the played games "
                  f"followed too (2 streams each) {followed:,.0f} vs {plain_2:,.0f}: ratio "
                  f"{followed / plain_2:.2f}")
            print(f"{backend} {name}: memory per open stream {per_stream / 1024:.1f} KiB "
                  f"(workers' RSS)")
        else:
            print(f"{backend} {name}: (a) only {streams.views} of {len(targets)} streams "
                  f"opened within 60 s: the workers cannot hold them")
        streams.close()
        print(f"{backend} {name}: (b) /healthz with 64 slow-header clients: "
              f"{healthz_p99(int(plain.rsplit(':', 1)[1]))} [<= 100 ms]")
        if options.sync_slow_clients:
            print(f"{backend} sync: (b) /healthz with 64 slow-header clients: "
                  f"{healthz_p99(int(sync_base.rsplit(':', 1)[1]), probes=20)}")
    finally:
        streams.close()
        for process_, _ in servers:
            stop(process_)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=100, help="delivery samples (0: skip)")
    parser.add_argument("--models", default="gevent",
                        help=f"worker models for the serving figures: {', '.join(MODELS)}")
    parser.add_argument("--sync-slow-clients", action="store_true",
                        help="also measure (b) with sync workers (for contrast)")
    parser.add_argument("--pg-url", default=os.environ.get("TEST_DATABASE_URL", DEFAULT_PG))
    options = parser.parse_args()
    print(f"bench_feed: {os.cpu_count()} CPUs (client and server share them), "
          f"{options.seconds:g} s per throughput figure, load average "
          f"{os.getloadavg()[0]:.1f} at start")
    for backend in options.backends.split(","):
        try:
            database = Database(backend.strip(), options.pg_url)
        except Exception as error:  # PostgreSQL not reachable: say so, bench the rest
            print(f"{backend}: skipped ({type(error).__name__}: {error})")
            continue
        try:
            if options.samples:
                bench_delivery(database.url, backend, options.samples)
            for name in options.models.split(","):
                bench_model(database.url, backend, name.strip(), options)
        finally:
            database.drop()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
