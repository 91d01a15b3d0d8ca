"""The event feed and the serving model with real servers (gunicorn as `make serve`
runs it: gunicorn.conf.py, gevent workers):

* two servers on different ports on one database (PostgreSQL: NOTIFY; an SQLite
  file: the poll): an action posted to the first reaches streams held on the second,
  one of them opened with a ticket the first issued (the servers share
  CARD_REFEREE_SECRET); one posted to the second reaches them too (across its two
  workers); the second stops at once with its streams open;
* 64 clients that send their request headers one byte per second do not slow
  /healthz down (p99 <= 100 ms).
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from subprocess import STDOUT, Popen

import pytest

from service.play import EventStream, HTTPTransport
from realtime import BACKENDS, ROOT, database, free_port, healthy, stop

pytestmark = pytest.mark.slow


@contextmanager
def servers(url: str, log_dir: Path, *workers: int) -> Iterator[list[tuple[str, Popen]]]:
    """One gunicorn per entry of ``workers`` (its worker count), as `make serve` starts
    it (gunicorn.conf.py), on ``url``'s database, started together: [(base URL,
    process)] once each /healthz answers; stopped afterwards."""
    started = []
    try:
        for i, count in enumerate(workers):
            port, log = free_port(), log_dir / f"server-{i}.log"
            with log.open("ab") as out:
                started.append(
                    (
                        port,
                        log,
                        Popen(
                            [
                                sys.executable,
                                "-m",
                                "gunicorn",
                                "--config",
                                "gunicorn.conf.py",
                                "--workers",
                                str(count),
                                "--bind",
                                f"127.0.0.1:{port}",
                                "--no-control-socket",
                                "service:create_app()",
                            ],
                            cwd=ROOT,
                            env={**os.environ, "DATABASE_URL": url},
                            stdout=out,
                            stderr=STDOUT,
                            start_new_session=True,
                        ),
                    )
                )
        deadline = time.monotonic() + 30
        for port, log, process in started:
            while not healthy(port):
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()[
                    -3000:
                ]
                time.sleep(0.1)
        yield [(f"http://127.0.0.1:{port}", process) for port, _, process in started]
    finally:
        for _, _, process in started:
            stop(process)


def request(base: str, method: str, path: str, body=None, token: str | None = None):
    transport = HTTPTransport(base)
    try:
        reply = transport.request(
            method, path, body, {"Authorization": f"Bearer {token}"} if token else {}
        )
    finally:
        transport.close()
    assert reply.status in (200, 201), reply
    return reply.body


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_action_on_one_server_reaches_streams_on_another(backend, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("CARD_REFEREE_SECRET", "shared by both servers " + backend)
    with (
        database(backend, tmp_path) as url,
        servers(url, tmp_path, 1, 2) as [(first, _), (second, second_process)],
    ):
        created = request(first, "POST", "/v1/games", {"game": "two-way", "options": {}})
        game, tokens = created["id"], {s: e["token"] for s, e in created["seats"].items()}
        tokens["referee"] = created["referee_token"]
        ticket = request(first, "POST", f"/v1/games/{game}/stream-tickets", token=tokens["green"])[
            "ticket"
        ]
        path = f"/v1/games/{game}/stream"

        def follow(who: str, query: str = "") -> EventStream:
            auth = {} if query else {"Authorization": f"Bearer {tokens[who]}"}
            return EventStream(HTTPTransport(second), path + query, auth)

        streams = {
            "blue": follow("blue"),
            "green": follow("green", f"?ticket={ticket}"),
            "referee": follow("referee"),
        }
        try:
            for who, stream in streams.items():
                opening = stream.first(10)
                assert opening is not None and opening.event == "view", (who, stream.error)
                assert opening.json()["viewer"] == who
            legal = request(first, "GET", f"/v1/games/{game}/legal-actions", token=tokens["blue"])
            action = {**legal["actions"][0], "expected_version": legal["version"]}
            posted = time.perf_counter()
            reply = request(first, "POST", f"/v1/games/{game}/actions", action, tokens["blue"])
            seq = max(event["seq"] for event in reply["events"])
            for who, stream in streams.items():
                arrived = stream.wait_for(seq, 10)
                assert arrived is not None, (who, stream.error)
                assert arrived - posted < 2.0  # NOTIFY: milliseconds; SQLite: the 0.25 s poll
                expected = request(
                    first, "GET", f"/v1/games/{game}/events?after=3", token=tokens[who]
                )["events"]
                assert [m.json() for _, m in stream.messages[1:]] == expected
            # an action on the second server (2 workers) reaches every stream it holds,
            # whichever of its workers holds it
            legal = request(second, "GET", f"/v1/games/{game}/legal-actions", token=tokens["blue"])
            action = {**legal["actions"][0], "expected_version": legal["version"]}
            reply = request(second, "POST", f"/v1/games/{game}/actions", action, tokens["blue"])
            seq = max(event["seq"] for event in reply["events"])
            for who, stream in streams.items():
                assert stream.wait_for(seq, 10) is not None, (who, stream.error)
            # told to stop with these streams open, the second server ends them at once
            # (not at its 10 s graceful timeout): each client sets out to reconnect
            # (elsewhere, behind a proxy) within seconds
            opened = {who: stream.connections for who, stream in streams.items()}
            second_process.terminate()
            stopping = time.monotonic()
            while time.monotonic() - stopping < 5 and any(
                stream.connections == opened[who] and not stream.ended
                for who, stream in streams.items()
            ):
                time.sleep(0.05)
            assert all(
                stream.connections > opened[who] or stream.ended for who, stream in streams.items()
            ), opened
        finally:
            for stream in streams.values():
                stream.close()


def test_slow_header_clients_do_not_stall_healthz(tmp_path: Path):
    """64 sockets send a request one byte per second (reconnecting when the server
    drops them after its keepalive); meanwhile /healthz, on a new connection each
    time, answers within 100 ms at the 99th percentile."""
    with database("sqlite", tmp_path) as url, servers(url, tmp_path, 2) as [(base, _)]:
        port = int(base.rsplit(":", 1)[1])
        stop_slow = threading.Event()
        slow = threading.Thread(target=slow_clients, args=(port, 64, stop_slow), daemon=True)
        slow.start()
        try:
            time.sleep(1.5)  # every slow client is connected and trickling
            timings = probe_healthz(port, count=150, interval=0.02)
        finally:
            stop_slow.set()
            slow.join(10)
    timings.sort()
    p99 = timings[int(0.99 * len(timings)) - 1]
    median = statistics.median(timings)
    assert p99 <= 0.100, f"p99 {p99 * 1000:.0f} ms, median {median * 1000:.1f} ms"


SLOW_REQUEST = b"GET /healthz HTTP/1.1\r\nHost: slow\r\nUser-Agent: slow-client\r\n\r\n"


def slow_clients(port: int, count: int, done: threading.Event) -> None:
    """``count`` sockets, each sending SLOW_REQUEST one byte per second (a socket the
    server closed is opened again), until ``done``."""
    sockets: list[tuple[socket.socket | None, int]] = [(None, 0)] * count
    while not done.is_set():
        for i, (sock, sent) in enumerate(sockets):
            try:
                if sock is None or sent >= len(SLOW_REQUEST):
                    if sock is not None:
                        sock.close()
                    sock, sent = socket.create_connection(("127.0.0.1", port), timeout=2), 0
                sock.send(SLOW_REQUEST[sent : sent + 1])
                sockets[i] = (sock, sent + 1)
            except OSError:
                if sock is not None:
                    sock.close()
                sockets[i] = (None, 0)
        done.wait(1.0)
    for sock, _ in sockets:
        if sock is not None:
            sock.close()


def probe_healthz(port: int, count: int, interval: float) -> list[float]:
    """Seconds each of ``count`` GET /healthz took, each on a new connection."""
    timings = []
    for _ in range(count):
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            assert response.status == 200 and json.loads(response.read()) == {"status": "ok"}
        finally:
            connection.close()
        timings.append(time.perf_counter() - started)
        time.sleep(interval)
    return timings
