"""Big imports do not stall a worker (issue 18, item 4): while four maximal imports
(MAX_IMPORT_EVENTS events each) run against gunicorn's gevent workers, ``/healthz``
answers within 100 ms at the 99th percentile (beyond its p99 measured on the same
machine just before), and every import is re-derived and stored (201)."""

from __future__ import annotations

import http.client
import json
import secrets
import threading
import time
from urllib.parse import urlsplit

import pytest

import fake_engine
from realtime import BACKENDS, database, gunicorn
from service.games.rng import commitment
from service.store.signing import sign
from service.store.transfer import FORMAT, FORMAT_VERSION, MAX_IMPORT_EVENTS

pytestmark = pytest.mark.slow

SECRET = "load-test-" + secrets.token_hex(16)
IMPORTS = 4
WORKERS = 2


def _maximal_document() -> bytes:
    """A counter game of MAX_IMPORT_EVENTS events (setup, then one tick per action),
    signed with the server's CARD_REFEREE_SECRET."""
    seed = secrets.token_hex(32)
    events = fake_engine.new_game("counter", {}, seed)
    state = None
    for event in events:
        state = fake_engine.fold(state, event)
    actions = []
    while len(events) < MAX_IMPORT_EVENTS:
        seat = ("north", "south")[len(events) % 2]
        actions.append({"seq": len(events) + 1, "actor": seat, "action": {"type": "tick"}})
        (ticked,) = fake_engine.apply(state, seat, {"type": "tick"})
        state = {**state, "count": ticked["count"]}
        events.append(ticked)
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "id": "big",
        "game": "counter",
        "options": state["options"],
        "status": "active",
        "version": 1 + len(actions),
        "seed_commitment": commitment(seed),
        "seed": seed,
        "imported": None,
        "actions": actions,
        "events": [{"seq": i, **e} for i, e in enumerate(events, 1)],
        "view": fake_engine.view(state, "referee"),
    }
    document["signature"] = sign(document, SECRET.encode())
    return json.dumps(document, separators=(",", ":")).encode()


def _post(base: str, body: bytes, results: list) -> None:
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    started = time.monotonic()
    try:
        connection.request(
            "POST", "/v1/games/import", body=body, headers={"Content-Type": "application/json"}
        )
        response = connection.getresponse()
        results.append((response.status, response.read(), time.monotonic() - started))
    finally:
        connection.close()


def _health(base: str, running: threading.Event, latencies: list[float]) -> None:
    """GET /healthz (a new connection each time, as a load balancer probes) every
    10 ms while the imports run."""
    parts = urlsplit(base)
    while running.is_set():
        started = time.monotonic()
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            connection.request("GET", "/healthz")
            assert connection.getresponse().status == 200
        finally:
            connection.close()
        latencies.append(time.monotonic() - started)
        time.sleep(0.01)


@pytest.mark.parametrize("backend", BACKENDS)
def test_healthz_p99_stays_under_100_ms_while_four_maximal_imports_run(backend, tmp_path):
    body = _maximal_document()
    assert len(body) < 4 * 1024 * 1024  # within MAX_IMPORT_BYTES
    with (
        database(backend, tmp_path) as url,
        gunicorn(
            url,
            tmp_path / "gunicorn.log",
            workers=WORKERS,
            app="fake_engine:create_app()",
            env={"CARD_REFEREE_SECRET": SECRET},
        ) as base,
    ):
        latencies: list[float] = []
        running = threading.Event()
        running.set()
        prober = threading.Thread(target=_health, args=(base, running, latencies))
        prober.start()
        time.sleep(1.0)  # a baseline before the imports
        baseline = sorted(latencies)
        results: list = []
        posts = [threading.Thread(target=_post, args=(base, body, results)) for _ in range(IMPORTS)]
        for post in posts:
            post.start()
        for post in posts:
            post.join()
        running.clear()
        prober.join()
    assert [status for status, _, _ in results] == [201] * IMPORTS, results[0][1][:500]
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99)]
    print(
        f"{backend}: {IMPORTS} imports of {MAX_IMPORT_EVENTS} events ({len(body)} bytes) "
        f"in {max(r[2] for r in results):.1f} s; /healthz {len(latencies)} probes, "
        f"p50 {latencies[len(latencies) // 2] * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
        f"max {latencies[-1] * 1000:.1f} ms; before the imports: p50 "
        f"{baseline[len(baseline) // 2] * 1000:.1f} ms, max {baseline[-1] * 1000:.1f} ms"
    )
    assert len(latencies) >= 50
    # within 100 ms of the p99 the same machine showed just before the imports (a busy
    # machine's own noise is not the imports' doing; on a quiet one that is ~100 ms)
    quiet_p99 = baseline[int(len(baseline) * 0.99)] if baseline else 0.0
    assert p99 < 0.1 + quiet_p99
