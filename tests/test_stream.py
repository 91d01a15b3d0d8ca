"""The live event feed in process (Flask test client), on SQLite and PostgreSQL:
GET /v1/games/{id}/stream (Server-Sent Events) and POST /v1/games/{id}/stream-tickets,
with the "counter" test engine (tests/fake_engine.py: a seat sees its own card only,
the shuffled deck is the referee's alone).

Setup of a counter game: seq 1 game-created, 2 shuffled, 3 dealt north, 4 dealt south.
"""

from __future__ import annotations

import base64
import json
import os
import queue
import threading
import time

import psycopg
import pytest
from itsdangerous import TimestampSigner
from sqlalchemy import insert, update
from sqlalchemy.engine import make_url

from conftest import migrate
from helpers import assert_problem
from service import create_app
from service.play import Message, sse_messages
from service.store import get_feed, get_store, hash_token
from service.store.feed import Feed
from service.store.models import Event, Game, utcnow
from service.store.records import FEED_CHANNEL, GameStore, Refused

SETUP = 4  # the counter game's setup events


@pytest.fixture()
def feed_app(store_app):
    store_app.config.update(FEED_POLL_SECONDS=0.02, STREAM_SECONDS=30)
    return store_app


@pytest.fixture()
def client(feed_app):
    return feed_app.test_client()


@pytest.fixture()
def open_stream(feed_app, client):
    """``open_stream(path, headers=None, via=client)`` -> a :class:`Reader`; at the end
    the feed closes (every stream ends) and the readers are waited for."""
    readers: list[Reader] = []

    def open_(path: str, headers: dict | None = None, via=None) -> Reader:
        readers.append(Reader(via or client, path, headers))
        return readers[-1]

    yield open_
    get_feed(feed_app).close()
    for reader in readers:
        assert reader.status != 200 or reader.done.wait(10)


class Reader:
    """One stream opened through the test client and read by a thread of its own:
    ``raw`` text as it came, parsed ``messages`` in a queue, ``done`` once it ended."""

    def __init__(self, client, path: str, headers: dict | None = None):
        self.response = client.get(path, headers=headers or {}, buffered=False)
        self.status = self.response.status_code
        self.raw: list[str] = []
        self.messages: queue.Queue[Message] = queue.Queue()
        self.done = threading.Event()
        if self.status == 200:
            threading.Thread(target=self._read, daemon=True).start()

    def _chunks(self):
        for chunk in self.response.response:
            self.raw.append(chunk.decode())
            yield chunk

    def _read(self) -> None:
        try:
            for message in sse_messages(self._chunks()):
                self.messages.put(message)
        finally:
            self.done.set()

    def take(self, count: int, timeout: float = 10.0) -> list[Message]:
        return [self.messages.get(timeout=timeout) for _ in range(count)]

    def quiet(self, seconds: float = 0.3) -> bool:
        """Nothing more arrives within ``seconds``."""
        try:
            extra = self.messages.get(timeout=seconds)
        except queue.Empty:
            return True
        raise AssertionError(f"unexpected event {extra}")


def stream_path(game: dict, query: str = "") -> str:
    return f"/v1/games/{game['id']}/stream{query}"


def act(client, game: dict, who: str, action: dict) -> dict:
    """POST ``action`` as ``who`` at the game's current version; the 200 body."""
    auth = game["auth"][who]
    version = client.get(f"/v1/games/{game['id']}", headers=auth).get_json()["version"]
    response = client.post(
        f"/v1/games/{game['id']}/actions",
        headers=auth,
        json={**action, "expected_version": version},
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def events_for(client, game: dict, who: str, after: int = 0) -> list[dict]:
    response = client.get(f"/v1/games/{game['id']}/events?after={after}", headers=game["auth"][who])
    return response.get_json()["events"]


# ----- the stream ------------------------------------------------------------------


def test_stream_opens_with_the_viewers_view_then_streams_each_new_entry(
    open_stream, client, make_game
):
    game = make_game()
    north = game["auth"]["north"]
    reader = open_stream(stream_path(game), north)
    assert reader.status == 200
    assert reader.response.mimetype == "text/event-stream"
    assert reader.response.headers["X-Accel-Buffering"] == "no"
    assert reader.response.headers["Cache-Control"] == "no-store"
    (view,) = reader.take(1)
    assert (view.event, view.id) == ("view", str(SETUP))
    assert view.json() == client.get(f"/v1/games/{game['id']}", headers=north).get_json()
    assert reader.raw[0] == "retry: 1000\n\n"

    act(client, game, "north", {"type": "add", "amount": 2})
    act(client, game, "referee", {"type": "tick"})
    streamed = reader.take(2)
    assert [(m.id, m.event) for m in streamed] == [("5", "added"), ("6", "ticked")]
    assert [m.json() for m in streamed] == events_for(client, game, "north", after=SETUP)
    assert reader.quiet()


@pytest.mark.parametrize(
    "how",
    [
        {"headers": {"Last-Event-ID": "5"}},
        {"query": "?after=5"},
        {"headers": {"Last-Event-ID": "5"}, "query": "?after=1"},  # the header wins
    ],
    ids=["last-event-id", "after", "header-wins"],
)
def test_resume_sends_exactly_the_entries_after_the_resume_point(
    open_stream, client, make_game, how
):
    game = make_game()
    act(client, game, "north", {"type": "add", "amount": 1})  # 5
    act(client, game, "south", {"type": "add", "amount": 1})  # 6
    act(client, game, "referee", {"type": "tick"})  # 7
    north = game["auth"]["north"]
    reader = open_stream(
        stream_path(game, how.get("query", "")), {**north, **how.get("headers", {})}
    )
    caught_up = reader.take(2)
    assert [m.id for m in caught_up] == ["6", "7"]  # no view: it resumes
    assert [m.json() for m in caught_up] == events_for(client, game, "north", after=5)
    act(client, game, "north", {"type": "add", "amount": 3})  # 8
    (live,) = reader.take(1)
    assert (live.id, live.event, live.json()["count"]) == ("8", "added", 6)  # 1+1+1+3
    assert reader.quiet()  # nothing repeated


def test_each_viewer_gets_exactly_what_events_shows_it(open_stream, client, make_game):
    """The same filter as /events: the shuffled deck is the referee's alone, a dealt
    or drawn card its own seat's."""
    game = make_game()
    readers = {
        who: open_stream(stream_path(game, "?after=0"), game["auth"][who])
        for who in ("north", "south", "referee")
    }
    act(client, game, "north", {"type": "draw"})  # seq 5: north draws a card
    for who, reader in readers.items():
        expected = events_for(client, game, who)
        got = reader.take(len(expected))
        assert [m.json() for m in got] == expected
        assert [m.id for m in got] == [str(e["seq"]) for e in expected]
        assert reader.quiet(0.2)
    by_seq = {who: {e["seq"]: e for e in events_for(client, game, who)} for who in readers}
    assert 2 not in by_seq["north"] and 2 not in by_seq["south"]  # shuffled: hidden
    assert "deck" in by_seq["referee"][2]
    assert "card" in by_seq["north"][5] and "card" not in by_seq["south"][5]
    assert "card" not in by_seq["north"][4] and "card" in by_seq["south"][4]


def test_streams_of_one_game_share_one_read_per_change(
    open_stream, feed_app, client, make_game, monkeypatch
):
    """Fan-out in one process: the streams of a game that wake for a change read the
    log once between them (each still filters for its own viewer)."""
    game = make_game()
    readers = [
        open_stream(stream_path(game), game["auth"][who]) for who in ("north", "south", "referee")
    ]
    for reader in readers:
        reader.take(1)
    store, reads = get_store(feed_app), []
    original = store.page
    monkeypatch.setattr(store, "page", lambda *args: reads.append(args) or original(*args))
    act(client, game, "north", {"type": "draw"})  # 5
    got = {
        who: reader.take(1)[0].json() for who, reader in zip(("north", "south", "referee"), readers)
    }
    assert "card" in got["north"] and "card" not in got["south"] and "card" in got["referee"]
    assert reads == [(game["id"], SETUP, 500)]


def test_an_idle_stream_holds_no_database_connection(open_stream, feed_app, client, make_game):
    """Streams waiting for news hold no pooled connection (the feed's one listener,
    on PostgreSQL, is its own connection, not the pool's)."""
    game = make_game()
    readers = [open_stream(stream_path(game), game["auth"][who]) for who in ("north", "south")]
    for reader in readers:
        reader.take(1)
    act(client, game, "north", {"type": "add", "amount": 1})
    for reader in readers:
        reader.take(1)
    time.sleep(0.1)
    assert get_store(feed_app).uow.engine.pool.checkedout() == 0


def test_news_the_log_does_not_hold_cause_no_busy_loop(
    open_stream, feed_app, client, make_game, monkeypatch
):
    """A stray notification (last seq 999 of a game at 4: anyone who may NOTIFY on the
    database can send one) costs one read and then one per heartbeat, not a loop of
    reads; the game's real entries still arrive (by those reads)."""
    feed_app.config["STREAM_HEARTBEAT_SECONDS"] = 0.2
    game = make_game()
    reader = open_stream(stream_path(game), game["auth"]["north"])
    reader.take(1)
    store, reads = get_store(feed_app), []
    original = store.page
    monkeypatch.setattr(store, "page", lambda *args: reads.append(args) or original(*args))
    get_feed(feed_app).advance(game["id"], 999)
    time.sleep(1.0)
    assert 1 <= len(reads) <= 8  # one at once, then about one per 0.2 s heartbeat
    act(client, game, "north", {"type": "add", "amount": 1})  # 5
    assert [(m.id, m.event) for m in reader.take(1, timeout=3)] == [("5", "added")]


def test_heartbeat_comment_when_nothing_is_sent(open_stream, feed_app, client, make_game):
    feed_app.config["STREAM_HEARTBEAT_SECONDS"] = 0.2
    game = make_game()
    reader = open_stream(stream_path(game), game["auth"]["north"])
    reader.take(1)
    deadline = time.monotonic() + 5
    while reader.raw.count(": keep-alive\n\n") < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert reader.raw.count(": keep-alive\n\n") >= 3
    assert reader.messages.empty()  # comments dispatch no event


def test_stream_ends_after_its_bounded_time(open_stream, feed_app, client, make_game):
    feed_app.config["STREAM_SECONDS"] = 0.3
    game = make_game()
    reader = open_stream(stream_path(game), game["auth"]["north"])
    assert reader.take(1)[0].event == "view"
    assert reader.done.wait(3)  # +-10%: ended after 0.27 to 0.33 s


def test_finished_game_stream_ends_and_a_caught_up_resume_is_204(open_stream, client, make_game):
    game = make_game()
    north = game["auth"]["north"]
    reader = open_stream(stream_path(game), north)
    reader.take(1)
    act(client, game, "south", {"type": "resign"})  # 5: finished
    (last,) = reader.take(1)
    assert (last.id, last.event, last.json()["result"]["winners"]) == ("5", "game-ended", ["north"])
    assert reader.done.wait(5)

    again = open_stream(stream_path(game), {**north, "Last-Event-ID": "5"})
    assert again.status == 204 and "Content-Type" not in again.response.headers
    behind = open_stream(stream_path(game), {**north, "Last-Event-ID": "4"})
    assert [m.id for m in behind.take(1)] == ["5"]
    assert behind.done.wait(5)
    fresh = open_stream(stream_path(game), north)  # no resume: the final view
    assert [(m.event, m.id) for m in fresh.take(1)] == [("view", "5")]
    assert fresh.done.wait(5)


def test_resume_past_the_end_of_the_log_opens_with_the_view(open_stream, client, make_game):
    game = make_game()
    reader = open_stream(stream_path(game), {**game["auth"]["north"], "Last-Event-ID": "99"})
    assert [(m.event, m.id) for m in reader.take(1)] == [("view", str(SETUP))]


def test_bad_resume_points_and_credentials_are_problems(client, make_game):
    game, other = make_game(), make_game()
    north = game["auth"]["north"]
    for value in ("x", "-1", "1.5", "9" * 20):
        response = client.get(stream_path(game), headers={**north, "Last-Event-ID": value})
        assert_problem(response, 400, "invalid-last-event-id")
    assert_problem(client.get(stream_path(game, "?after=-1"), headers=north), 422, "invalid-query")
    assert_problem(client.get(stream_path(game)), 401, "unauthorized")
    assert_problem(
        client.get(stream_path(game), headers=other["auth"]["north"]), 404, "game-not-found"
    )


@pytest.mark.parametrize("after", ["%D9%A1%D9%A2", "%EF%BC%91", "+1", "%201", "1_0", "1.0"])
def test_after_takes_ascii_digits_only_as_events_does(client, make_game, after):
    """Issue 18 item 7: ``?after=`` is a seq in ASCII digits (``١٢``, ``１``, ``+1``,
    `` 1``, ``1_0``: 422), as GET .../events reads it, never what int() would read."""
    game = make_game()
    north = game["auth"]["north"]
    assert_problem(
        client.get(stream_path(game, f"?after={after}"), headers=north), 422, "invalid-query"
    )
    assert_problem(
        client.get(f"/v1/games/{game['id']}/events?after={after}", headers=north),
        422,
        "invalid-query",
    )


# ----- tickets ---------------------------------------------------------------------


def ticket_for(client, game: dict, who: str) -> dict:
    response = client.post(f"/v1/games/{game['id']}/stream-tickets", headers=game["auth"][who])
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    return response.get_json()


def test_a_ticket_opens_the_stream_as_its_viewer_only(open_stream, client, make_game):
    game = make_game()
    issued = ticket_for(client, game, "north")
    assert issued["expires_in"] == 60
    reader = open_stream(stream_path(game, f"?after=0&ticket={issued['ticket']}"))
    got = reader.take(3)  # north's view of the log: 1, 3, 4 (2 is hidden)
    assert [m.json() for m in got] == events_for(client, game, "north")
    assert got[1].json()["card"] and "card" not in got[2].json()  # its own card only
    view = open_stream(stream_path(game, f"?ticket={issued['ticket']}")).take(1)[0]
    assert view.json()["viewer"] == "north" and view.json()["view"]["card"]


def test_a_ticket_is_refused_on_another_game(client, make_game):
    game, other = make_game(), make_game()
    ticket = ticket_for(client, game, "north")["ticket"]
    assert_problem(client.get(stream_path(other, f"?ticket={ticket}")), 401, "invalid-ticket")


def test_an_expired_ticket_is_refused(open_stream, client, make_game, monkeypatch):
    """Valid 60 s after it was issued (expires_in), refused after that."""
    game = make_game()
    issued_at = int(time.time())
    for age, status in ((59, 200), (61, 401)):
        with monkeypatch.context() as clock:
            clock.setattr(TimestampSigner, "get_timestamp", lambda self, age=age: issued_at - age)
            ticket = ticket_for(client, game, "north")["ticket"]
        reader = open_stream(stream_path(game, f"?ticket={ticket}"))
        assert reader.status == status
        if status == 401:
            body = reader.response.get_json()
            assert body["code"] == "invalid-ticket" and "expired" in body["detail"]


def test_garbled_or_altered_tickets_are_refused(client, make_game):
    game = make_game()
    ticket = ticket_for(client, game, "north")["ticket"]
    payload, stamp, signature = ticket.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert set(claims) == {"game", "viewer", "token"}
    assert (claims["game"], claims["viewer"]) == (game["id"], "north")
    # of the token, a hash of its stored hash: nothing that opens anything
    token = game["auth"]["north"]["Authorization"].split()[1]
    assert token not in ticket and hash_token(token) not in ticket
    as_referee = (
        base64.urlsafe_b64encode(
            json.dumps({**claims, "viewer": "referee"}, separators=(",", ":")).encode()
        )
        .decode()
        .rstrip("=")
    )
    for bad in ("garbage", ticket[:-2], f"{as_referee}.{stamp}.{signature}", ""):
        response = client.get(stream_path(game), query_string={"ticket": bad})
        assert_problem(response, 401, "invalid-ticket")


def test_a_ticket_dies_with_the_token_it_was_asked_with(open_stream, client, make_game):
    """A seat token re-issued by the referee stops working at once (401), and so do
    the tickets the old token was given; a ticket asked with the new one opens."""
    game = make_game()
    old = ticket_for(client, game, "north")["ticket"]
    assert open_stream(stream_path(game, f"?ticket={old}")).status == 200
    reissued = client.post(
        f"/v1/games/{game['id']}/seats/north/token", headers=game["auth"]["referee"]
    )
    assert reissued.status_code == 200
    assert_problem(client.get(stream_path(game, f"?ticket={old}")), 401, "invalid-ticket")
    referee = ticket_for(client, game, "referee")["ticket"]  # its token was not re-issued
    assert open_stream(stream_path(game, f"?ticket={referee}")).status == 200
    token = reissued.get_json()["token"]
    fresh = client.post(
        f"/v1/games/{game['id']}/stream-tickets", headers={"Authorization": f"Bearer {token}"}
    ).get_json()["ticket"]
    view = open_stream(stream_path(game, f"?ticket={fresh}")).take(1)[0]
    assert view.json()["viewer"] == "north"


def test_a_reissued_token_ends_the_streams_it_opened_on_every_host(
    open_stream, db_url, feed_app, client, make_game
):
    """Re-issuing a seat's token ends, within about a second, every open stream of
    that seat opened with the old token or with a ticket asked with it, on this host
    and on another one (PostgreSQL: its NOTIFY, the fallback poll set to a minute;
    SQLite: the poll); the referee's stream and the new token's stay open."""
    feed_app.config["FEED_FALLBACK_SECONDS"] = 60
    game = make_game()
    other = another_host(db_url)
    other.config.update(FEED_POLL_SECONDS=0.02, FEED_FALLBACK_SECONDS=60, STREAM_SECONDS=30)
    try:
        ticket = ticket_for(client, game, "north")["ticket"]
        doomed = [
            open_stream(stream_path(game), game["auth"]["north"]),
            open_stream(stream_path(game, f"?ticket={ticket}")),
            open_stream(stream_path(game), game["auth"]["north"], via=other.test_client()),
        ]
        kept = open_stream(stream_path(game), game["auth"]["referee"], via=other.test_client())
        for reader in [*doomed, kept]:
            reader.take(1)  # the opening view
        time.sleep(0.3)  # the listeners' LISTEN and first poll are done
        started = time.monotonic()
        reissued = client.post(
            f"/v1/games/{game['id']}/seats/north/token", headers=game["auth"]["referee"]
        )
        assert reissued.status_code == 200
        for reader in doomed:
            assert reader.done.wait(3), "a stream of the old token is still open"
        assert time.monotonic() - started < 1.5
        fresh = {"Authorization": f"Bearer {reissued.get_json()['token']}"}
        renewed = open_stream(stream_path(game), fresh)
        renewed.take(1)
        act(client, game, "south", {"type": "tick"})
        assert kept.take(1)[0].event == "ticked" and renewed.take(1)[0].event == "ticked"
        assert not kept.done.is_set() and not renewed.done.is_set()
    finally:
        get_feed(other).close()
        get_store(other).dispose()


def test_ticket_rules(client, make_game):
    """Tickets are issued only to a bearer token, open only streams, and do not mix
    with an Authorization header."""
    game = make_game()
    assert_problem(client.post(f"/v1/games/{game['id']}/stream-tickets"), 401, "unauthorized")
    ticket = ticket_for(client, game, "north")["ticket"]
    assert_problem(
        client.get(f"/v1/games/{game['id']}/events?ticket={ticket}"), 401, "unauthorized"
    )
    assert_problem(
        client.get(stream_path(game, f"?ticket={ticket}"), headers=game["auth"]["north"]),
        400,
        "conflicting-credentials",
    )


def test_a_ticket_from_another_process_with_the_same_secret_is_accepted(
    open_stream, db_url, make_game, client
):
    """Workers and hosts share SECRET_KEY (CARD_REFEREE_SECRET): a ticket issued by one
    opens the stream on another; a server with another key refuses it."""
    game = make_game()
    ticket = ticket_for(client, game, "north")["ticket"]
    key = client.application.config["SECRET_KEY"]
    for secret, status in ((key, 200), ("another key", 401)):
        other = create_app(
            {"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": secret, "STREAM_SECONDS": 0.2}
        )
        try:
            reader = open_stream(stream_path(game, f"?ticket={ticket}"), via=other.test_client())
            assert reader.status == status
            if status == 200:
                assert reader.done.wait(5)
        finally:
            get_feed(other).close()
            get_store(other).dispose()


# ----- fan-out: commits made elsewhere -------------------------------------------------


def another_host(db_url):
    """A second app on the same database (its own engine and feed): another host."""
    return create_app({"TESTING": True, "DATABASE_URL": db_url})


def test_a_commit_made_by_another_host_reaches_the_stream(
    open_stream, db_url, feed_app, client, make_game
):
    """On PostgreSQL by NOTIFY (the poll behind it is set to a minute, so only the
    notification can be in time), on SQLite by the poll."""
    feed_app.config["FEED_FALLBACK_SECONDS"] = 60
    game = make_game()
    reader = open_stream(stream_path(game), game["auth"]["north"])
    reader.take(1)
    time.sleep(0.3)  # the listener's LISTEN (and first poll) are done
    other = another_host(db_url)
    try:
        started = time.monotonic()
        act(other.test_client(), game, "south", {"type": "tick"})
        (event,) = reader.take(1, timeout=5)
        assert (event.id, event.event) == ("5", "ticked")
        assert time.monotonic() - started < 2
    finally:
        get_store(other).dispose()


def test_a_missed_notification_is_caught_by_the_poll(open_stream, feed_app, client, make_game):
    """An entry committed without a notification (as if it were lost: written here
    straight into the tables) still reaches the stream, by the poll of last_seq
    (PostgreSQL: the fallback behind LISTEN; SQLite: the poll itself)."""
    feed_app.config["FEED_FALLBACK_SECONDS"] = 0.2
    game = make_game()
    reader = open_stream(stream_path(game), game["auth"]["north"])
    reader.take(1)
    store = get_store(feed_app)
    with store.uow.connection() as connection:
        connection.execute(
            insert(Event),
            {
                "game_id": game["id"],
                "seq": 5,
                "type": "ticked",
                "seat": None,
                "payload": {"count": 1},
                "created_at": utcnow(),
            },
        )
        connection.execute(update(Game).where(Game.id == game["id"]).values(last_seq=5))
    (event,) = reader.take(1, timeout=5)
    assert (event.id, event.event, event.json()["count"]) == ("5", "ticked", 1)


@pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"),
    reason="LISTEN/NOTIFY is PostgreSQL's (TEST_DATABASE_URL)",
)
def test_pg_notify_leaves_only_with_the_actions_commit(new_database, counter_engine, monkeypatch):
    """PostgreSQL: an accepted action notifies "<game id>:<last_seq>" once, from its own
    transaction (the optimistic attempt's one write statement, or the locked path's
    transaction); a refused one, or one whose transaction rolls back after its writes,
    notifies nothing (and writes nothing)."""
    url = new_database("postgresql")
    migrate(url)
    store = GameStore(url)
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    listener = psycopg.connect(conninfo, autocommit=True)
    try:
        listener.execute(f"LISTEN {FEED_CHANNEL}")
        status, created = store.create("counter", {})
        game_id = created["id"]

        def render(outcome):
            return (409, {}) if isinstance(outcome, Refused) else (200, {})

        def notified() -> list[str]:
            return [n.payload for n in listener.notifies(timeout=0.5)]

        assert store.act(game_id, "referee", {"type": "tick"}, 1, render)[0][0] == 200
        assert notified() == [f"{game_id}:5"]
        assert store.act(game_id, "referee", {"type": "tick"}, 1, render)[0][0] == 409  # stale
        assert notified() == []

        original = GameStore._write

        def write_then_fail(self, *args, **kwargs):
            original(self, *args, **kwargs)
            raise RuntimeError("the transaction rolls back after the write")

        monkeypatch.setattr(GameStore, "_write", write_then_fail)
        store._note_contended(game_id)  # the locked path: a transaction after the writes
        with pytest.raises(RuntimeError):
            store.act(game_id, "referee", {"type": "tick"}, 2, render)
        assert notified() == []
        assert store.read(game_id).last_seq == 5
    finally:
        listener.close()
        store.dispose()


@pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"),
    reason="LISTEN/NOTIFY is PostgreSQL's (TEST_DATABASE_URL)",
)
def test_a_burst_of_actions_reaches_a_stream_in_one_read_per_hold(
    new_database, counter_engine, monkeypatch
):
    """PostgreSQL: the first action of a burst reaches the stream at once (one page
    read), the ones made during the hold that follows (1 s here) together when it
    ends (one read more), not one read each."""
    url = new_database("postgresql")
    migrate(url)
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": url,
            "FEED_HOLD_SECONDS": 1.0,
            "FEED_FALLBACK_SECONDS": 60,  # only the notifications can be in time
            "STREAM_SECONDS": 30,
        }
    )
    client = app.test_client()
    reader = None
    try:
        created = client.post("/v1/games", json={"game": "counter", "options": {}}).get_json()
        auth = {"Authorization": f"Bearer {created['seats']['north']['token']}"}
        game = {"id": created["id"], "auth": {"north": auth}}
        reader = Reader(client, stream_path(game), auth)
        reader.take(1)
        time.sleep(0.3)  # the listener's LISTEN (and first poll) are done
        store, reads = get_store(app), []
        original = store.page
        monkeypatch.setattr(store, "page", lambda *args: reads.append(args) or original(*args))
        began = time.monotonic()
        act(client, game, "north", {"type": "tick"})  # 5
        (first,) = reader.take(1, timeout=5)
        first_at = time.monotonic() - began
        for _ in range(3):
            act(client, game, "north", {"type": "tick"})  # 6, 7, 8
        rest = reader.take(3, timeout=5)
        rest_at = time.monotonic() - began
        assert [m.id for m in (first, *rest)] == ["5", "6", "7", "8"]
        assert first_at < 0.5 <= rest_at < 3
        assert [after for _, after, _ in reads] == [SETUP, SETUP + 1]
    finally:
        get_feed(app).close()
        if reader is not None:
            assert reader.done.wait(10)
        get_store(app).dispose()


def test_a_games_notifications_wake_its_streams_at_most_once_per_hold(db_url):
    """The feed's hold (fed here as its LISTEN connection feeds it): the first
    notification of a watched game wakes its streams at once; later ones wait for the
    hold's end and wake them once, with the highest last seq, and a new hold begins;
    a hold that ends quietly is forgotten. A token re-issue is never held; an unwatched
    game is never put on hold."""
    store = GameStore(db_url)
    feed = Feed(store, listen=False, hold_seconds=0.6)
    try:
        with feed.watch("g") as watch:
            feed._notified("g:5")
            assert watch.known == 5
            ends = feed._release_due()
            feed._notified("g:7")
            feed._notified("g:6")
            feed._notified("unwatched:9")
            feed._release()  # not due yet
            assert watch.known == 5 and "unwatched" not in feed._held
            feed._notified("g:5:1")  # the credentials first learnt, then a re-issue:
            feed._notified("g:5:2")  # at once, during the hold
            assert watch.revocations == 1 and watch.known == 5
            time.sleep(max(0.0, ends - time.monotonic()))
            feed._release()
            assert watch.known == 7 and feed._release_due() > time.monotonic()
            feed._notified("g:8")  # the new hold
            assert watch.known == 7
            time.sleep(0.61)
            feed._release()
            assert watch.known == 8
            time.sleep(0.61)
            feed._release()  # a quiet hold: forgotten
            assert feed._held == {} and feed._release_due() == float("inf")
            feed._notified("g:9")
            assert watch.known == 9
    finally:
        feed.close()
        store.dispose()


def test_a_page_holds_no_event_past_the_game_rows_last_seq(feed_app, make_game):
    """The viewer filter applies the game row's state: a page (/events, the stream)
    stops at that row's last_seq; the integrity read (replay) still sees the rest."""
    game = make_game()
    store = get_store(feed_app)
    with store.uow.connection() as connection:  # a row the game row does not count
        connection.execute(
            insert(Event),
            {
                "game_id": game["id"],
                "seq": 5,
                "type": "ticked",
                "seat": None,
                "payload": {"count": 1},
                "created_at": utcnow(),
            },
        )
    page = store.page(game["id"], 0)
    assert [e.seq for e in page.events] == [1, 2, 3, 4] and page.last_seq == 4
    assert [e.seq for e in store.events(game["id"])[1]] == [1, 2, 3, 4, 5]


def test_a_catch_up_read_before_a_deadline_is_not_taken_for_it(store, monkeypatch):
    """G-T1: the streams of a game in one process share a catch-up read for 0.5 s, but a
    stream woken at a deadline (``not_before``) takes only a read made after it: one
    made just before would not hold what the deadline triggers."""
    status, created = store.create("counter", {})
    assert status == 201
    reads, original = [], store.current
    monkeypatch.setattr(store, "current", lambda *args: reads.append(args) or original(*args))
    feed = Feed(store, listen=False)
    try:
        with feed.watch(created["id"]) as watch:
            first = watch.catch_up()
            assert watch.catch_up() is first and len(reads) == 1  # shared
            deadline = time.monotonic()
            again = watch.catch_up(not_before=deadline)
            assert again is not first and len(reads) == 2
            assert watch.catch_up(not_before=deadline) is again and len(reads) == 2
    finally:
        feed.close()


def test_the_feed_thread_runs_only_while_a_game_is_watched(db_url):
    store = GameStore(db_url)
    feed = Feed(store, poll_seconds=0.01, fallback_seconds=0.05)
    try:
        with feed.watch("no-such-game") as watch:
            assert feed._thread is not None and feed._thread.is_alive()
            assert watch.wait(0, 0.05) is False  # nothing happened
            feed.advance("no-such-game", 3)
            assert watch.wait(2, 0) is True and watch.wait(3, 0.01) is False
        thread = feed._thread
        thread.join(5)
        assert not thread.is_alive() and feed._thread is None
        with feed.watch("no-such-game") as watch:
            feed.close()
            assert watch.wait(0, 5) is False  # closing wakes it at once
    finally:
        feed.close()
        store.dispose()


# ----- the SSE parser the play client and these tests use ------------------------------


def test_sse_messages_follow_the_event_stream_format():
    text = (
        b'retry: 1000\n\n: a comment\n\nid: 3\nevent: view\ndata: {"a":\r\n'
        b"data: 1}\n\ndata: plain\n\nid: 4\nevent: placed\ndata:x\n\n"
    )
    chunks = [text[i : i + 7] for i in range(0, len(text), 7)]  # split anywhere
    assert list(sse_messages(chunks)) == [
        Message("3", "view", '{"a":\n1}'),
        Message("3", "message", "plain"),
        Message("4", "placed", "x"),
    ]


def test_a_token_reissued_before_its_stream_watches_the_game_ends_the_stream_at_once(
    open_stream, feed_app, client, make_game, monkeypatch
):
    """The token is checked when the request comes in, and the stream starts watching
    the game a moment later: a re-issue between the two (which the feed may learn
    before this stream counts it) ends the stream at once, not at its next heartbeat."""
    from contextlib import contextmanager

    feed_app.config["STREAM_HEARTBEAT_SECONDS"] = 30
    game = make_game()
    referee = open_stream(stream_path(game), game["auth"]["referee"])
    referee.take(1)  # the game is watched; the feed knows its re-issues
    feed = get_feed(feed_app)
    original = feed.watch

    @contextmanager
    def late_watch(game_id):
        before = feed._games[game_id].revocations  # noqa: SLF001 - what the feed learnt
        reissued = client.post(
            f"/v1/games/{game['id']}/seats/north/token", headers=game["auth"]["referee"]
        )
        assert reissued.status_code == 200
        deadline = time.monotonic() + 5
        while feed._games[game_id].revocations == before:  # noqa: SLF001
            assert time.monotonic() < deadline, "the feed never learnt the re-issue"
            time.sleep(0.01)
        with original(game_id) as watch:  # counted before this stream watches
            yield watch

    monkeypatch.setattr(feed, "watch", late_watch)
    north = open_stream(stream_path(game), game["auth"]["north"])
    assert north.status == 200
    assert north.done.wait(3), "the stream of a re-issued token is still open"
    assert north.messages.empty()  # not even the opening view


def test_a_reissue_right_after_a_game_is_first_watched_counts(store, monkeypatch):
    """The feed reads a game's token re-issues as it begins to watch it: a re-issue
    before its thread's first poll is counted (the streams check their tokens), not
    taken into the count the feed starts from."""
    status, created = store.create("counter", {})
    assert status == 201
    feed = Feed(store, listen=False)
    monkeypatch.setattr(feed, "_run", lambda: None)  # no poll but the one below
    try:
        with feed.watch(created["id"]) as watch:
            start = watch.revocations
            store.reissue_token(created["id"], "north")
            feed.poll()
            assert watch.revocations == start + 1
            feed.poll()  # nothing new
            assert watch.revocations == start + 1
    finally:
        feed.close()
