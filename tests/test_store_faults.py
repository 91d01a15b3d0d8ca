"""Database faults on PostgreSQL: a stopped database and killed backends answer 503
``unavailable`` with ``Retry-After`` at every stage (token lookup, the action's
pipelined transaction, reads, creation), never a 500, and nothing is half-written.

The "stopped database" is a TCP proxy in front of the test server that the test closes
(its listener and every connection through it, as a server shutdown does) and opens
again on the same port."""

from __future__ import annotations

import os
import select
import socket
import threading
import time
from collections import Counter

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from conftest import migrated_app

pytestmark = pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"), reason="needs TEST_DATABASE_URL (PostgreSQL)"
)


class Switch:
    """A TCP proxy to ``target`` that can be stopped (every connection cut, the port
    refusing) and started again on the same port."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self.port = 0
        self.listener: socket.socket | None = None
        self.sockets: list[socket.socket] = []
        self.start()

    def start(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def stop(self) -> None:
        listener, self.listener = self.listener, None
        if listener is not None:  # shutdown wakes the accept() blocked on it
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        for sock in self.sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        self.sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            self.sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    @staticmethod
    def _pump(client: socket.socket, server: socket.socket) -> None:
        try:
            while True:
                readable, _, _ = select.select([client, server], [], [], 1.0)
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (server if sock is client else client).sendall(data)
        except (OSError, ValueError):
            return
        finally:
            client.close()
            server.close()


@pytest.fixture()
def pg_url(new_database):
    return new_database("postgresql")


def _assert_503(response) -> None:
    body = response.get_data(as_text=True)
    assert response.status_code == 503, body
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "unavailable"
    assert int(response.headers["Retry-After"]) >= 1


def _create(client) -> dict:
    response = client.post("/v1/games", json={"game": "counter", "seed": "ab" * 32})
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()


def test_a_stopped_database_answers_503_at_every_stage_then_recovers(pg_url, counter_engine):
    url = make_url(pg_url)
    switch = Switch((url.host or "127.0.0.1", url.port or 5432))
    through = url.set(host="127.0.0.1", port=switch.port).render_as_string(hide_password=False)
    try:
        with migrated_app(through) as app:
            client = app.test_client()
            game = _create(client)
            seat = {"Authorization": f"Bearer {game['seats']['north']['token']}"}
            referee = {"Authorization": f"Bearer {game['referee_token']}"}
            path = f"/v1/games/{game['id']}"
            switch.stop()  # the database goes away, pooled connections with it
            _assert_503(client.get(path, headers=seat))  # token lookup
            _assert_503(
                client.post(
                    f"{path}/actions", headers=seat, json={"type": "tick", "expected_version": 1}
                )
            )
            _assert_503(client.get(f"{path}/events", headers=referee))
            _assert_503(client.get(f"{path}/legal-actions", headers=seat))
            _assert_503(client.post("/v1/games", json={"game": "counter"}))
            switch.start()  # back on the same port: the next requests work again
            response = client.post(
                f"{path}/actions", headers=seat, json={"type": "tick", "expected_version": 1}
            )
            assert response.status_code == 200, response.get_data(as_text=True)
            assert client.get(path, headers=seat).get_json()["version"] == 2
    finally:
        switch.stop()


def test_killed_backends_during_actions_answer_503_never_500(pg_url, counter_engine):
    """Backends terminated (``pg_terminate_backend``) while six clients act: each
    request is 200, a 412 for a version another client took, or 503 with Retry-After;
    none is a 500, and the log replays to the stored snapshot (nothing half-written)."""
    admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
    statuses: Counter[int] = Counter()
    killed = [0]
    with migrated_app(pg_url) as app:
        game = _create(app.test_client())
        seat = {"Authorization": f"Bearer {game['seats']['north']['token']}"}
        path = f"/v1/games/{game['id']}"
        stop = time.monotonic() + 4.0

        def act() -> None:
            client = app.test_client()
            while time.monotonic() < stop:
                view = client.get(path, headers=seat)
                if view.status_code != 200:
                    statuses[view.status_code] += 1
                    if view.status_code == 503:
                        _assert_503(view)
                    continue
                response = client.post(
                    f"{path}/actions",
                    headers=seat,
                    json={"type": "tick", "expected_version": view.get_json()["version"]},
                )
                statuses[response.status_code] += 1
                if response.status_code == 503:
                    _assert_503(response)

        def kill() -> None:
            while time.monotonic() < stop:
                with admin.connect() as connection:
                    killed[0] += connection.execute(
                        text(
                            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                        )
                    ).rowcount
                time.sleep(0.05)

        threads = [threading.Thread(target=act) for _ in range(6)]
        threads.append(threading.Thread(target=kill))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        admin.dispose()
        assert set(statuses) <= {200, 412, 503}, statuses
        assert statuses[200] >= 1 and killed[0] >= 1, (statuses, killed)
        from service.store import get_store

        store = get_store(app)
        report = store.replay(game["id"])
        assert report.ok, report  # consecutive seqs, the log folds to the snapshot
        ticks = report.snapshot["count"]
        # every 200 is one recorded tick; a retry whose first COMMIT did land meets the
        # advanced version (412 or 503), never a second tick
        assert statuses[200] <= ticks <= sum(statuses.values())
        assert store.read(game["id"]).version == 1 + ticks
