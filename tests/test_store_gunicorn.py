"""Several gunicorn worker processes on one database (SQLite file and PostgreSQL):
racing writers over real HTTP still get exactly one winner per version, never a 500
nor "database is locked"."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parent.parent
THREADS = 8
ROUNDS = 25

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture()
def server(db_url, tmp_path):
    """gunicorn with 3 sync workers on the test database; stopped afterwards."""
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": db_url}
    log = tmp_path / "gunicorn.log"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            "3",
            "--bind",
            f"127.0.0.1:{port}",
            "--no-control-socket",
            "--pythonpath",
            str(ROOT / "tests"),
            "fake_engine:create_app()",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(base + "/healthz", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                pytest.fail("gunicorn did not start: " + log.read_text())
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        process.wait(20)


def test_workers_race_on_one_game(server):
    created = requests.post(
        server + "/v1/games", json={"game": "counter", "options": {"target": 1000}}
    ).json()
    game_url = f"{server}/v1/games/{created['id']}"
    tokens = [
        created["seats"]["north"]["token"],
        created["seats"]["south"]["token"],
        created["referee_token"],
    ]
    barrier = threading.Barrier(THREADS)
    results: list[tuple[int, int]] = []
    errors: list[str] = []
    lock = threading.Lock()

    def worker(index):
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {tokens[index % 3]}"
        for round_ in range(ROUNDS):
            barrier.wait(60)
            version = session.get(game_url, timeout=30).json()["version"]
            barrier.wait(60)
            response = session.post(
                game_url + "/actions",
                json={"type": "tick"},
                headers={"If-Match": f'"{version}"'},
                timeout=30,
            )
            with lock:
                results.append((round_, response.status_code))
                if response.status_code not in (200, 412):
                    errors.append(response.text)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert not errors, errors[:3]
    assert len(results) == THREADS * ROUNDS
    winners = Counter(r for r, status in results if status == 200)
    assert winners == Counter({r: 1 for r in range(ROUNDS)})
    log = requests.get(
        game_url + "/events", headers={"Authorization": f"Bearer {created['referee_token']}"}
    ).json()
    assert [e["seq"] for e in log["events"]] == list(range(1, 5 + ROUNDS))
    assert log["version"] == 1 + ROUNDS
