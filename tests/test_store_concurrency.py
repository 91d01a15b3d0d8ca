"""Concurrent writers on one game (threads, each with its own connection): exactly one
action wins per version, the others get 412; no 500, no "database is locked", no lost
or duplicate events; the same Idempotency-Key sent at once has one effect, and every
other request with it replays that effect's reply."""

from __future__ import annotations

import threading
from collections import Counter

THREADS = 8
ROUNDS = 25


def _run_threads(target, count=THREADS):
    errors: list[BaseException] = []

    def guarded(index):
        try:
            target(index)
        except BaseException as error:  # surfaced below, with the thread's traceback
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


def _check_log(client, game, wins):
    log = client.get(f"/v1/games/{game['id']}/events", headers=game["auth"]["referee"]).get_json()
    seqs = [e["seq"] for e in log["events"]]
    assert seqs == list(range(1, len(seqs) + 1)), "lost or duplicate seq"
    ticks = [e for e in log["events"] if e["type"] == "ticked"]
    assert len(ticks) == wins
    assert [e["count"] for e in ticks] == list(range(1, wins + 1))
    assert log["version"] == 1 + wins


def test_one_winner_per_version_when_threads_race(store_app, make_game):
    game = make_game(options={"target": 1000})
    url = f"/v1/games/{game['id']}/actions"
    seats = ["north", "south", "referee"]
    barrier = threading.Barrier(THREADS)
    results: list[tuple[int, int, int]] = []  # (round, based-on version, status)
    lock = threading.Lock()

    def worker(index):
        client = store_app.test_client()
        auth = game["auth"][seats[index % 3]]
        for round_ in range(ROUNDS):
            barrier.wait(60)
            version = client.get(f"/v1/games/{game['id']}", headers=auth).get_json()["version"]
            barrier.wait(60)  # everyone read the same version; now race
            response = client.post(
                url, json={"type": "tick", "expected_version": version}, headers=auth
            )
            assert response.status_code in (200, 412), response.get_data(as_text=True)
            # the winner's new version, or the 412's current one: the same
            assert response.get_json()["version"] == version + 1
            with lock:
                results.append((round_, version, response.status_code))

    _run_threads(worker)
    assert len(results) == THREADS * ROUNDS
    per_round = Counter(r for r, _, status in results if status == 200)
    assert per_round == Counter({r: 1 for r in range(ROUNDS)})  # exactly one winner each
    assert {v for _, v, _ in results} == set(range(1, ROUNDS + 1))
    _check_log(store_app.test_client(), game, ROUNDS)


def test_free_running_writers_lose_nothing(store_app, make_game):
    """8 threads x 25 actions, each based on the version it last saw (no barrier)."""
    game = make_game(options={"target": 1000})
    url = f"/v1/games/{game['id']}/actions"
    statuses: Counter = Counter()
    lock = threading.Lock()

    def worker(index):
        client = store_app.test_client()
        auth = game["auth"]["north" if index % 2 else "south"]
        version = 1
        for _ in range(ROUNDS):
            response = client.post(
                url, json={"type": "tick"}, headers={**auth, "If-Match": f'"{version}"'}
            )
            assert response.status_code in (200, 412), response.get_data(as_text=True)
            version = response.get_json()["version"]
            with lock:
                statuses[response.status_code] += 1

    _run_threads(worker)
    assert sum(statuses.values()) == THREADS * ROUNDS
    # each attempt of one thread either wins or saw another win since its last look
    assert statuses[200] >= ROUNDS
    _check_log(store_app.test_client(), game, statuses[200])
    from service.store import get_store

    assert get_store(store_app).replay(game["id"]).ok


def test_one_idempotency_key_sent_at_once_has_one_effect(store_app, make_game):
    """The key is looked up after the game row is locked: the requests queue on the
    lock, the first acts, every other one replays its reply (no 409 in between)."""
    game = make_game(options={"target": 1000})
    url = f"/v1/games/{game['id']}/actions"
    barrier = threading.Barrier(THREADS)
    replies: list[tuple[int, dict, bool]] = []
    lock = threading.Lock()

    def worker(index):
        client = store_app.test_client()
        barrier.wait(60)
        response = client.post(
            url,
            json={"type": "tick", "expected_version": 1},
            headers={**game["auth"]["north"], "Idempotency-Key": "once"},
        )
        replayed = response.headers.get("Idempotent-Replayed") == "true"
        with lock:
            replies.append((response.status_code, response.get_json(), replayed))

    _run_threads(worker)
    assert len(replies) == THREADS
    assert all(status == 200 for status, _, _ in replies), replies
    assert all(body == replies[0][1] for _, body, _ in replies)
    assert sorted(replayed for _, _, replayed in replies) == [False] + [True] * (THREADS - 1)
    assert replies[0][1]["version"] == 2
    _check_log(store_app.test_client(), game, 1)
