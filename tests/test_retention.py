"""Idempotency records are small and expire (issue 11, item 1), on SQLite and
PostgreSQL: an accepted action's record keeps its version and event seqs, and a replay
re-rendered from them is byte for byte the first reply, long after the game moved on,
for whole games of the real engines."""

from __future__ import annotations

import json
import os
import random

import pytest
from sqlalchemy import select, text

from conftest import migrate
from service import create_app
from service.play import Player, Reply
from service.store import GameStore, get_store
from service.store.db import make_engine
from service.store.models import IdempotencyKey

from helpers import assert_problem

BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])


class ReplayingTransport:
    """service.play.Transport over a Flask test client that keeps every keyed action
    request and its raw reply, and sends each one a second time at once."""

    def __init__(self, client):
        self.client = client
        self.sent: list[tuple[str, dict, dict, bytes]] = []

    def request(self, method, path, body=None, headers=None) -> Reply:
        response = self.client.open(path, method=method, json=body, headers=headers or {})
        data = response.get_data()
        if path.endswith("/actions") and "Idempotency-Key" in (headers or {}):
            self.sent.append((path, body, headers, data))
            self.check(path, body, headers, data)
        return Reply(
            response.status_code,
            json.loads(data) if data else None,
            {k.lower(): v for k, v in response.headers.items()},
        )

    def check(self, path, body, headers, first: bytes) -> None:
        again = self.client.post(path, json=body, headers=headers)
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.get_data() == first, path


@pytest.fixture()
def real_app(db_url):
    app = create_app({"TESTING": True, "DATABASE_URL": db_url})
    yield app
    get_store(app).dispose()


@pytest.mark.parametrize("game, options", [("two-way", {}), ("sequence", {"players": 2})])
def test_replays_are_byte_identical_at_once_and_after_the_game_ended(real_app, game, options):
    """Every keyed action of a whole game (refusals included) is sent again at once,
    and every third one (and the last) once more after the game has ended: each
    replay is the first reply's exact bytes (the view then, its events, the seed once
    finished)."""
    transport = ReplayingTransport(real_app.test_client())
    stats = Player(transport, random.Random(7), wrong_rate=0.2).play(game, 1, options)
    assert stats.errors == 0 and stats.finished == 1
    assert len(transport.sent) == stats.actions > 20
    for path, body, headers, first in transport.sent[::3] + transport.sent[-1:]:
        transport.check(path, body, headers, first)
    finals = [json.loads(data) for *_, data in transport.sent if b'"seed"' in data]
    assert finals and finals[-1]["status"] == "finished"


def _key_rows(store, game_id):
    with store.uow.transaction(write=False) as session:
        return session.scalars(
            select(IdempotencyKey)
            .where(IdempotencyKey.game_id == game_id)
            .order_by(IdempotencyKey.id)
        ).all()


def test_an_accepted_action_keeps_its_version_and_seqs_not_its_reply(store_client, make_game):
    game = make_game()
    key = {**game["auth"]["north"], "Idempotency-Key": "a1"}
    done = store_client.post(
        f"/v1/games/{game['id']}/actions",
        headers=key,
        json={"type": "add", "amount": 3, "expected_version": 1},
    )
    assert done.status_code == 200
    refused = store_client.post(
        f"/v1/games/{game['id']}/actions",
        headers={**game["auth"]["south"], "Idempotency-Key": "r1"},
        json={"type": "add", "amount": 9, "expected_version": 2},
    )
    assert_problem(refused, 422, "invalid-amount")
    rows = _key_rows(get_store(store_client.application), game["id"])
    accepted, refusal = rows
    assert (accepted.status_code, accepted.response_body) == (200, None)
    assert (accepted.version, accepted.first_seq, accepted.last_seq) == (2, 5, 5)
    assert refusal.status_code == 422 and refusal.version is None
    assert refusal.response_body == refused.get_json()  # a problem: a few hundred bytes


def test_a_key_expires_after_the_ttl_and_then_acts_as_new(db_url, counter_engine):
    app = create_app({"TESTING": True, "DATABASE_URL": db_url, "IDEMPOTENCY_TTL_SECONDS": 0})
    try:
        client = app.test_client()
        created = client.post("/v1/games", json={"game": "counter"}).get_json()
        headers = {
            "Authorization": f"Bearer {created['seats']['north']['token']}",
            "Idempotency-Key": "old",
        }
        url = f"/v1/games/{created['id']}/actions"
        first = client.post(url, headers=headers, json={"type": "tick", "expected_version": 1})
        assert first.status_code == 200
        # expired at once: not replayed, and another body is not "reused" either
        again = client.post(url, headers=headers, json={"type": "tick", "expected_version": 2})
        assert again.status_code == 200 and "Idempotent-Replayed" not in again.headers
        assert again.get_json()["version"] == 3
        rows = _key_rows(get_store(app), created["id"])
        assert len(rows) == 1 and rows[0].version == 3  # the record was taken over
    finally:
        get_store(app).dispose()


def test_a_live_key_is_replayed_within_the_ttl(db_url, counter_engine):
    store = GameStore(db_url, idempotency_ttl_seconds=3600)
    try:
        from service.store import IdempotencyRequest, request_hash

        _, body = store.create("counter", {}, "ef" * 32)
        request = IdempotencyRequest(body["id"], "north", "k", request_hash({"t": 1}))

        def render(outcome):
            return 200, {"version": outcome.game.version, "count": outcome.game.state["count"]}

        first = store.act(body["id"], "north", {"type": "tick"}, 1, render, request)
        store.act(body["id"], "south", {"type": "tick"}, 2, render)  # the game moves on
        again = store.act(body["id"], "north", {"type": "tick"}, 1, render, request)
        assert first == ((200, {"version": 2, "count": 1}), False)
        assert again == ((200, {"version": 2, "count": 1}), True)  # the state then
    finally:
        store.dispose()


def _previous_release_game(url: str) -> dict:
    """A counter game as the 0002 schema holds it (this release's store writes columns
    that schema does not have): ``{"id"}``."""
    import fake_engine

    events = fake_engine.new_game("counter", {}, "12" * 32)
    state = None
    for event in events:
        state = fake_engine.fold(state, event)
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO games (id, game, options, status, version, snapshot, seed, "
                    "referee_token_hash, last_seq, created_at, updated_at) VALUES ('legacy', "
                    "'counter', :options, 'active', 1, :snapshot, :seed, 'r', :last, "
                    "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                ),
                {
                    "options": json.dumps(state["options"]),
                    "snapshot": json.dumps(state),
                    "seed": "12" * 32,
                    "last": len(events),
                },
            )
            for seq, event in enumerate(events, 1):
                payload = {k: v for k, v in event.items() if k not in ("type", "seat")}
                connection.execute(
                    text(
                        "INSERT INTO events (game_id, seq, type, seat, payload, created_at) "
                        "VALUES ('legacy', :seq, :type, :seat, :payload, CURRENT_TIMESTAMP)"
                    ),
                    {
                        "seq": seq,
                        "type": event["type"],
                        "seat": event.get("seat"),
                        "payload": json.dumps(payload),
                    },
                )
    finally:
        engine.dispose()
    return {"id": "legacy"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_replies_stored_whole_by_the_previous_release_are_still_replayed(
    new_database, backend, counter_engine
):
    """0004 keeps the whole replies the previous release stored (replayed as they
    are); downgrading drops the records that hold no reply."""
    url = new_database(backend)
    migrate(url, "0002_games_last_seq")
    store = None
    try:
        body = _previous_release_game(url)
        old_reply = {"version": 2, "status": "active", "events": [], "view": {"old": True}}
        engine = make_engine(url)
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO idempotency_keys (scope, game_id, actor, key, request_hash, "
                    "state, status_code, response_body, created_at, updated_at) VALUES "
                    "(:g, :g, 'north', 'legacy', :h, 'done', 200, :body, CURRENT_TIMESTAMP, "
                    "CURRENT_TIMESTAMP)"
                ),
                {"g": body["id"], "h": "0" * 64, "body": json.dumps(old_reply)},
            )
        engine.dispose()
        migrate(url)
        store = GameStore(url)
        from service.store import IdempotencyRequest

        legacy = IdempotencyRequest(body["id"], "north", "legacy", "0" * 64)
        reply, replayed = store.act(
            body["id"], "north", {"type": "tick"}, 1, lambda outcome: (200, {}), legacy
        )
        assert (reply, replayed) == ((200, old_reply), True)
        fresh = IdempotencyRequest(body["id"], "north", "fresh", "1" * 64)
        store.act(body["id"], "north", {"type": "tick"}, 1, lambda outcome: (200, {}), fresh)
        store.dispose()
        migrate(url, "0002_games_last_seq", down=True)
        engine = make_engine(url)
        with engine.connect() as connection:
            keys = connection.execute(text("SELECT key FROM idempotency_keys")).scalars().all()
        engine.dispose()
        assert keys == ["legacy"]
    finally:
        if store is not None:
            store.dispose()
