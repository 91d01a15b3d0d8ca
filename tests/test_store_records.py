"""The store below HTTP: hashed tokens, snapshot folding, replay == snapshot, retries on
database conflicts (503, never 500) and idempotency records."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

import fake_engine
from service.store import (
    GameNotFound,
    GameStore,
    IdempotencyRequest,
    KeyInFlight,
    KeyReused,
    Refused,
    Unauthenticated,
    Unavailable,
    hash_token,
)
from service.store.db import is_conflict, make_engine
from service.store.models import Game, IdempotencyKey, Seat
from service.store.uow import UnitOfWork

SEED = "0f" * 32


def _render(outcome):
    if isinstance(outcome, Refused):
        return outcome.status, {"code": outcome.code, **outcome.extra}
    return 200, {"version": outcome.game.version, "seqs": [e.seq for e in outcome.events]}


def _create(store, options=None):
    status, body = store.create("counter", options or {}, SEED)
    assert status == 201
    return body


def test_tokens_are_stored_as_sha256_only(store):
    body = _create(store)
    tokens = [
        body["seats"]["north"]["token"],
        body["seats"]["south"]["token"],
        body["referee_token"],
    ]
    store.act(body["id"], "north", {"type": "tick"}, 1, _render, _key(body["id"]))
    with store.uow.transaction(write=False) as session:
        seats = {
            s.seat: s.token_hash
            for s in session.scalars(select(Seat).where(Seat.game_id == body["id"]))
        }
        game = session.get(Game, body["id"])
        dump = " ".join(
            str(row)
            for table in ("games", "seats", "events", "idempotency_keys")
            for row in session.execute(text(f"SELECT * FROM {table}"))
        )
    assert seats == {
        "north": hashlib.sha256(tokens[0].encode()).hexdigest(),
        "south": hashlib.sha256(tokens[1].encode()).hexdigest(),
    }
    assert game.referee_token_hash == hash_token(tokens[2])
    for token in tokens:
        assert token not in dump


def test_authenticate_maps_tokens_to_actors(store):
    one, two = _create(store), _create(store)
    assert store.authenticate(one["id"], one["seats"]["south"]["token"]) == "south"
    assert store.authenticate(one["id"], one["referee_token"]) == "referee"
    with pytest.raises(GameNotFound):
        store.authenticate(one["id"], two["referee_token"])
    with pytest.raises(GameNotFound):
        store.authenticate("missing", one["seats"]["north"]["token"])
    with pytest.raises(Unauthenticated):
        store.authenticate(one["id"], "not-a-token")
    with pytest.raises(Unauthenticated):
        store.authenticate(one["id"], "")


def test_an_action_folds_onto_the_snapshot_not_the_whole_log(store, monkeypatch):
    body = _create(store, {"target": 1000})
    for version in range(1, 21):
        store.act(body["id"], "north", {"type": "tick"}, version, _render)
    calls = []
    real_fold = fake_engine.fold
    monkeypatch.setattr(fake_engine, "fold", lambda s, e: calls.append(e) or real_fold(s, e))
    (status, reply), _ = store.act(body["id"], "south", {"type": "tick"}, 21, _render)
    assert status == 200 and reply == {"version": 22, "seqs": [25]}
    assert len(calls) == 1  # one new event folded, not 25


def test_replay_of_a_played_game_equals_the_snapshot(store):
    body = _create(store, {"target": 12})
    script = [
        ("north", {"type": "draw"}),
        ("north", {"type": "add", "amount": 3}),
        ("referee", {"type": "penalty", "seat": "south"}),
        ("north", {"type": "add", "amount": 2}),
        ("south", {"type": "tick"}),
        ("south", {"type": "draw"}),
        ("south", {"type": "add", "amount": 3}),
        ("north", {"type": "add", "amount": 3}),
    ]
    for version, (actor, action) in enumerate(script, 1):
        (status, _), _ = store.act(body["id"], actor, action, version, _render)
        assert status == 200, (actor, action)
    record = store.read(body["id"])
    assert record.status == "finished" and record.state["result"]["winners"] == ["north"]
    report = store.replay(body["id"])
    assert report.ok and report.events == 4 + 9
    assert report.replayed == record.state


def test_replay_detects_a_snapshot_that_differs_from_the_log(store):
    body = _create(store)
    store.act(body["id"], "north", {"type": "tick"}, 1, _render)
    with store.uow.transaction() as session:
        game = session.get(Game, body["id"])
        game.snapshot = {**game.snapshot, "count": 99}
    report = store.replay(body["id"])
    assert not report.matches and not report.ok
    assert report.replayed["count"] == 1 and report.snapshot["count"] == 99


def test_replay_detects_a_gap_in_the_seqs(store):
    body = _create(store)
    with store.uow.transaction() as session:
        session.execute(
            text(
                "INSERT INTO events (game_id, seq, type, seat, payload, "
                "created_at) VALUES (:g, 9, 'ticked', NULL, :p, "
                "CURRENT_TIMESTAMP)"
            ),
            {"g": body["id"], "p": '{"count": 0}'},
        )
    report = store.replay(body["id"])
    assert not report.seqs_consecutive and not report.ok


def test_replay_of_an_unknown_game_is_not_found(store):
    with pytest.raises(GameNotFound):
        store.replay("missing")


def test_a_refused_action_writes_nothing(store):
    body = _create(store)
    (status, reply), _ = store.act(body["id"], "south", {"type": "add", "amount": 1}, 1, _render)
    assert (status, reply) == (409, {"code": "not-your-turn"})
    (status, reply), _ = store.act(body["id"], "north", {"type": "tick"}, 3, _render)
    assert (status, reply) == (412, {"code": "version-mismatch", "version": 1})
    record, events = store.events(body["id"])
    assert record.version == 1 and len(events) == 4


@pytest.mark.parametrize(
    "after, limit, seqs, last_seq",
    [
        (0, None, [1, 2, 3, 4, 5], 5),
        (0, 2, [1, 2], 2),
        (3, 1, [4], 4),
        (5, 10, [], 5),
        (50, 10, [], 5),  # never past the log's end: events 6..50 must not be skipped
        (2**31, None, [], 5),  # beyond the 32-bit seq column of PostgreSQL
        (2**63 - 1, 2**63 - 1, [], 5),
        (2**70, None, [], 5),
        (2, 2**40, [3, 4, 5], 5),
    ],
)
def test_a_page_of_the_log_and_its_last_seq(store, after, limit, seqs, last_seq):
    body = _create(store)
    (status, _), _ = store.act(body["id"], "north", {"type": "tick"}, 1, _render)
    assert status == 200  # seqs 1..4 at creation, 5 the tick
    page = store.page(body["id"], after, limit)
    assert [e.seq for e in page.events] == seqs and page.last_seq == last_seq
    assert page.game.version == 2


# ----- retries -------------------------------------------------------------------


def _locked() -> OperationalError:
    return OperationalError("UPDATE games", {}, Exception("database is locked"))


class _PgError(Exception):
    def __init__(self, sqlstate):
        super().__init__(f"sqlstate {sqlstate}")
        self.sqlstate = sqlstate


@pytest.mark.parametrize(
    "error, retry",
    [
        (_locked(), True),
        (OperationalError("x", {}, _PgError("40001")), True),  # serialization failure
        (OperationalError("x", {}, _PgError("40P01")), True),  # deadlock
        (OperationalError("x", {}, _PgError("55P03")), True),  # lock not available
        (IntegrityError("x", {}, Exception("UNIQUE constraint failed: events.game_id")), True),
        (IntegrityError("x", {}, Exception('duplicate key value violates "pk_events"')), True),
        (IntegrityError("x", {}, Exception("NOT NULL constraint failed")), False),
        (OperationalError("x", {}, Exception("no such table: games")), False),
        (ProgrammingError("x", {}, _PgError("42P01")), False),
        (ValueError("not a database error"), False),
        (
            OperationalError(
                "x",
                {},
                Exception("server closed the connection unexpectedly"),
                connection_invalidated=True,
            ),
            True,
        ),  # dropped: the pool was renewed
    ],
)
def test_is_conflict_tells_retryable_errors(error, retry):
    assert is_conflict(error) is retry


def test_run_retries_conflicts_then_succeeds(db_url):
    uow, attempts = UnitOfWork(make_engine(db_url), attempts=4, backoff=0.001), []

    def flaky(session, fail_times):
        attempts.append(1)
        if len(attempts) <= fail_times:
            raise _locked()
        return session.execute(text("SELECT 7")).scalar()

    try:
        assert uow.run(lambda s: flaky(s, 2)) == 7 and len(attempts) == 3
        attempts.clear()
        with pytest.raises(Unavailable):
            uow.run(lambda s: flaky(s, 99))
        assert len(attempts) == 4
        attempts.clear()
        with pytest.raises((OperationalError, ProgrammingError)):  # not retried
            uow.run(lambda s: attempts.append(1) or s.execute(text("SELECT * FROM nowhere")))
        assert len(attempts) == 1
    finally:
        uow.engine.dispose()


def test_a_database_that_stays_locked_is_503_never_500(
    store_app, store_client, make_game, monkeypatch
):
    from service.store import actions
    from service.store.uow import DEFAULT_ATTEMPTS

    game = make_game()
    real, calls, locked = actions.lock_game, [], [True]

    def lock(connection, game_id, *key):
        calls.append(game_id)
        if locked[0]:
            raise _locked()
        return real(connection, game_id, *key)

    monkeypatch.setattr(actions, "lock_game", lock)
    request = {
        "json": {"type": "tick", "expected_version": 1},
        "headers": {**game["auth"]["north"], "Idempotency-Key": "z"},
    }
    response = store_client.post(f"/v1/games/{game['id']}/actions", **request)
    assert response.status_code == 503 and response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "unavailable"
    assert response.headers["Retry-After"] == "1"
    # the optimistic attempt outside any transaction, then every locked attempt
    assert len(calls) == 1 + DEFAULT_ATTEMPTS
    locked[0] = False
    # the key was released: the retry runs (once)
    retry = store_client.post(f"/v1/games/{game['id']}/actions", **request)
    assert retry.status_code == 200 and retry.get_json()["version"] == 2
    assert "Idempotent-Replayed" not in retry.headers


def test_a_passing_conflict_is_retried_invisibly(store_client, make_game, monkeypatch):
    from service.store import actions

    game = make_game()
    real, calls = actions.lock_game, []

    def locked_twice(connection, game_id, *key):
        calls.append(game_id)
        if len(calls) <= 2:
            raise _locked()
        return real(connection, game_id, *key)

    monkeypatch.setattr(actions, "lock_game", locked_twice)
    response = store_client.post(
        f"/v1/games/{game['id']}/actions",
        json={"type": "tick", "expected_version": 1},
        headers=game["auth"]["north"],
    )
    assert response.status_code == 200 and response.get_json()["version"] == 2
    assert len(calls) == 3


def test_a_dropped_connection_is_retried_on_a_fresh_one(store, db_url, monkeypatch):
    """The pool does not ping on checkout: a connection the server dropped fails at its
    first statement, SQLAlchemy invalidates the pool, the unit of work retries."""
    from sqlalchemy import create_engine

    from service.store import actions

    body = _create(store)
    real, calls = actions.lock_game, []

    def dropped_once(connection, game_id, *key):
        calls.append(game_id)
        if len(calls) == 1:
            raise OperationalError(
                "SELECT", {}, Exception("server closed the connection"), connection_invalidated=True
            )
        return real(connection, game_id, *key)

    monkeypatch.setattr(actions, "lock_game", dropped_once)
    (status, reply), _ = store.act(body["id"], "north", {"type": "tick"}, 1, _render)
    assert (status, reply, len(calls)) == (200, {"version": 2, "seqs": [5]}, 2)
    if store.uow.engine.dialect.name == "postgresql":  # the real thing: a server restart
        admin = create_engine(db_url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as connection:
                killed = connection.execute(
                    text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                ).scalar()
        finally:
            admin.dispose()
        assert killed >= 1  # the store's pooled connection
        assert store.authenticate(body["id"], body["seats"]["south"]["token"]) == "south"
        (status, reply), _ = store.act(body["id"], "south", {"type": "tick"}, 2, _render)
        assert (status, reply) == (200, {"version": 3, "seqs": [6]})


# ----- idempotency records -------------------------------------------------------


def _key(scope, key="k", body=None, actor="north"):
    from service.store import request_hash

    return IdempotencyRequest(scope, actor, key, request_hash(body or {"type": "tick"}))


def test_idempotency_records_are_durable_across_store_instances(store, db_url):
    body = _create(store)
    first, replayed = store.act(body["id"], "north", {"type": "tick"}, 1, _render, _key(body["id"]))
    assert not replayed
    other = GameStore(db_url)
    try:
        again, replayed = other.act(
            body["id"], "north", {"type": "tick"}, 1, _render, _key(body["id"])
        )
    finally:
        other.dispose()
    assert replayed and again == first
    with store.uow.transaction(write=False) as session:
        row = session.scalars(
            select(IdempotencyKey).where(IdempotencyKey.game_id == body["id"])
        ).one()
    assert (row.state, row.status_code, row.actor, row.key) == ("done", 200, "north", "k")


def _leave_claim(store, request):
    """An in-flight claim as the previous release left it (claimed in a transaction of
    its own before acting)."""
    from service.store.models import IN_FLIGHT, utcnow

    moment = utcnow()
    with store.uow.transaction() as session:
        session.add(
            IdempotencyKey(
                game_id=request.scope,
                actor=request.actor,
                key=request.key,
                request_hash=request.request_hash,
                state=IN_FLIGHT,
                created_at=moment,
            )
        )


def test_claims_in_flight_block_then_expire(db_url, counter_engine):
    patient = GameStore(db_url, in_flight_seconds=3600)
    hasty = GameStore(db_url, in_flight_seconds=0)
    try:
        body = _create(patient)
        request = _key(body["id"], "crashed")
        _leave_claim(patient, request)  # an old worker claimed it, then died
        with pytest.raises(KeyInFlight):
            patient.act(body["id"], "north", {"type": "tick"}, 1, _render, request)
        with pytest.raises(KeyReused):
            patient.act(
                body["id"],
                "north",
                {"type": "tick"},
                1,
                _render,
                _key(body["id"], "crashed", {"type": "draw"}),
            )
        assert patient.read(body["id"]).version == 1  # nothing happened
        # past the in-flight limit the claim is abandoned and taken over
        (status, reply), replayed = hasty.act(
            body["id"], "north", {"type": "tick"}, 1, _render, request
        )
        assert (status, replayed) == (200, False)
        again, replayed = patient.act(body["id"], "north", {"type": "tick"}, 1, _render, request)
        assert (again, replayed) == ((status, reply), True)
        assert patient.read(body["id"]).version == 2
    finally:
        patient.dispose()
        hasty.dispose()


def test_a_failed_action_commits_nothing_under_its_key(store, monkeypatch):
    """The key is recorded only in the action's own transaction: an action that raises
    leaves no record behind, and the same key then acts."""
    body = _create(store)
    real_apply = fake_engine.apply
    monkeypatch.setattr(fake_engine, "apply", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        store.act(body["id"], "north", {"type": "tick"}, 1, _render, _key(body["id"], "z"))
    with store.uow.transaction(write=False) as session:
        assert (
            session.scalars(
                select(IdempotencyKey).where(IdempotencyKey.game_id == body["id"])
            ).all()
            == []
        )
    monkeypatch.setattr(fake_engine, "apply", real_apply)
    (status, reply), replayed = store.act(
        body["id"], "north", {"type": "tick"}, 1, _render, _key(body["id"], "z")
    )
    assert (status, reply, replayed) == (200, {"version": 2, "seqs": [5]}, False)
