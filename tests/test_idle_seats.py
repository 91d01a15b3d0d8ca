"""G-T1 idle seats at the store and the API, on SQLite and PostgreSQL, with the test
engine (tests/fake_engine.py: the seat on turn for ``idle_seconds`` loses it,
``turn-timed-out``): the deadline is checked at the next request that reads or writes
the game, what it triggers is recorded once, with the moment it used, and a replay of
the log gives the same snapshot."""

from __future__ import annotations

import threading
import time

import pytest

from helpers import assert_problem
from service.store import GameStore, Refused, get_feed, get_store
from test_stream import Reader, stream_path

SEED = "0f" * 32
SETUP = 4  # the counter game's setup events


def _create(store: GameStore, idle: int | None = 60) -> str:
    status, body = store.create("counter", {"idle_seconds": idle}, SEED)
    assert status == 201
    return body["id"]


def _later(store: GameStore, seconds: float) -> None:
    """The store's clock ``seconds`` ahead of the wall clock."""
    store.clock = lambda: time.time() + seconds


def _render(outcome):
    if isinstance(outcome, Refused):
        return outcome.status, {"code": outcome.code, **outcome.extra}
    return 200, {"version": outcome.game.version}


def _types(store: GameStore, game_id: str) -> list[str]:
    return [e.event["type"] for e in store.events(game_id)[1]]


def test_g_t1_a_read_after_the_deadline_records_the_timeout_once(store):
    game_id = _create(store)
    created = store.read(game_id)
    _later(store, 61)
    record = store.current(game_id)
    assert (record.version, record.last_seq, record.state["turn"]) == (2, SETUP + 1, "south")
    (timed_out,) = [e.event for e in store.events(game_id, SETUP)[1]]
    assert timed_out["type"] == "turn-timed-out" and timed_out["seat"] == "north"
    assert timed_out["since"] == created.updated  # the last recorded event's moment
    assert timed_out["at"] == pytest.approx(time.time() + 61, abs=5)
    assert record.updated == timed_out["at"]  # the next deadline counts from it
    # read again at once: the new seat's deadline is 60 s away, nothing more
    assert store.current(game_id).version == 2
    assert _types(store, game_id).count("turn-timed-out") == 1
    assert store.replay(game_id).ok


def test_g_t1_the_next_seat_times_out_from_the_recorded_moment(store):
    game_id = _create(store)
    _later(store, 61)
    at = store.current(game_id).updated
    store.clock = lambda: at + 59.9
    assert store.current(game_id).version == 2
    store.clock = lambda: at + 60
    record = store.current(game_id)
    assert (record.version, record.state["turn"]) == (3, "north")
    assert [t["seat"] for t in record.state["timeouts"]] == ["north", "south"]
    assert record.state["timeouts"][1]["since"] == at
    assert store.replay(game_id).ok


def test_g_t1_nothing_happens_before_the_deadline(store):
    game_id = _create(store)
    _later(store, 59)
    record = store.current(game_id)
    assert (record.version, record.last_seq) == (1, SETUP)
    assert "turn-timed-out" not in _types(store, game_id)


def test_g_t1_nothing_happens_with_the_option_off(store):
    game_id = _create(store, idle=None)
    _later(store, 10**6)
    assert store.current(game_id).version == 1
    assert "turn-timed-out" not in _types(store, game_id)


def test_g_t1_nothing_happens_to_a_finished_game(store):
    game_id = _create(store)
    store.act(game_id, "north", {"type": "resign"}, 1, _render)
    _later(store, 10**6)
    assert store.current(game_id).version == 2
    assert "turn-timed-out" not in _types(store, game_id)


def test_g_t1_two_concurrent_reads_record_the_timeout_once(store):
    game_id = _create(store)
    _later(store, 61)
    barrier = threading.Barrier(4)
    versions: list[int] = []

    def read() -> None:
        barrier.wait()
        versions.append(store.current(game_id).version)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert versions == [2, 2, 2, 2]
    assert _types(store, game_id).count("turn-timed-out") == 1
    assert store.replay(game_id).ok


def test_g_t1_an_action_after_the_deadline_is_judged_after_the_timeout(store):
    game_id = _create(store)
    _later(store, 61)
    # north based its move on version 1; the timeout recorded first makes it stale
    (status, body), _ = store.act(game_id, "north", {"type": "add", "amount": 1}, 1, _render)
    assert (status, body["code"], body["version"]) == (412, "version-mismatch", 2)
    assert _types(store, game_id)[-1] == "turn-timed-out"
    # at the new version: south's turn now
    (status, body), _ = store.act(game_id, "north", {"type": "add", "amount": 1}, 2, _render)
    assert (status, body["code"]) == (409, "not-your-turn")
    (status, body), _ = store.act(game_id, "south", {"type": "add", "amount": 2}, 2, _render)
    assert (status, body["version"]) == (200, 3)
    assert _types(store, game_id)[-2:] == ["turn-timed-out", "added"]
    assert store.replay(game_id).ok


def test_g_t1_a_refused_action_still_records_the_timeout_and_a_key_replays(store):
    from service.store import IdempotencyRequest

    game_id = _create(store)
    _later(store, 61)
    (status, body), _ = store.act(game_id, "north", {"type": "tick"}, None, _render)
    assert (status, body["code"]) == (428, "version-required")
    assert _types(store, game_id)[-1] == "turn-timed-out"
    key = IdempotencyRequest(game_id, "south", "k1", "h1")
    first = store.act(game_id, "south", {"type": "add", "amount": 1}, 2, _render, key)
    again = store.act(game_id, "south", {"type": "add", "amount": 1}, 2, _render, key)
    assert first == ((200, {"version": 3}), False)
    assert again == ((200, {"version": 3}), True)
    assert _types(store, game_id)[SETUP:] == ["turn-timed-out", "added"]
    assert store.replay(game_id).ok


# ----- through the API ------------------------------------------------------------


@pytest.fixture()
def idle_game(store_app, make_game):
    """A counter game with idle_seconds 60 whose deadline has passed for the store."""
    game = make_game(options={"idle_seconds": 60})
    _later(get_store(store_app), 61)
    return game


@pytest.mark.parametrize("path", ["", "/events", "/legal-actions", "/position"])
def test_g_t1_every_read_applies_the_deadline(store_client, idle_game, path):
    response = store_client.get(
        f"/v1/games/{idle_game['id']}{path}", headers=idle_game["auth"]["south"]
    )
    assert response.status_code == 200
    body = response.get_json()
    assert body["version"] == 2
    if path == "":
        assert body["view"]["turn"] == "south"
    elif path == "/events":
        assert [(e["type"], e["seat"]) for e in body["events"]][-1] == ("turn-timed-out", "north")
    elif path == "/legal-actions":
        assert {"type": "add", "amount": 1} in body["actions"]  # south's turn now
    else:
        assert body["position"]["turn"] == "south"


def test_g_t1_an_action_through_the_api_sees_the_timeout(store_client, idle_game):
    response = store_client.post(
        f"/v1/games/{idle_game['id']}/actions",
        headers=idle_game["auth"]["north"],
        json={"type": "add", "amount": 1, "expected_version": 1},
    )
    assert (response.status_code, response.get_json()["code"]) == (412, "version-mismatch")
    assert response.get_json()["version"] == 2


def test_g_t1_a_stream_receives_the_timeout_through_its_heartbeat(store_app, make_game):
    """No request but the stream: its wake-up at the deadline records the timeout and
    sends it (idle_seconds 1, a real wait)."""
    store_app.config.update(STREAM_HEARTBEAT_SECONDS=5, STREAM_SECONDS=30, FEED_POLL_SECONDS=0.05)
    before = time.monotonic()  # the deadline is 1 s after the game's creation, so after this
    game = make_game(options={"idle_seconds": 1})
    reader = Reader(store_app.test_client(), stream_path(game), game["auth"]["south"])
    try:
        assert reader.status == 200
        (view,) = reader.take(1)
        assert view.event == "view"
        (entry,) = reader.take(1, timeout=4)
        assert (entry.event, entry.json()["seat"]) == ("turn-timed-out", "north")
        # at the deadline (however long the creation and the first view took), not a
        # heartbeat (5 s) later
        assert 0.95 <= time.monotonic() - before < 4
        assert get_store(store_app).replay(game["id"]).ok
    finally:
        get_feed(store_app).close()
        assert reader.done.wait(10)


def test_g_t1_every_stream_receives_the_timeout_at_the_deadline(store_app, make_game):
    """Two streams of one game in one process, the second opened 0.7 s after the game
    (its opening read is shared with the other stream for 0.5 s): at the deadline both
    receive the timeout, not the first one a heartbeat (5 s) later for want of a read
    made after the deadline."""
    store_app.config.update(STREAM_HEARTBEAT_SECONDS=5, STREAM_SECONDS=30, FEED_POLL_SECONDS=0.05)
    before = time.monotonic()
    game = make_game(options={"idle_seconds": 1})
    client = store_app.test_client()
    readers = [Reader(client, stream_path(game), game["auth"]["south"])]
    readers[0].take(1)
    time.sleep(max(0.0, before + 0.7 - time.monotonic()))
    readers.append(Reader(client, stream_path(game), game["auth"]["north"]))
    try:
        readers[1].take(1)
        for reader in readers:
            (entry,) = reader.take(1, timeout=3)
            assert entry.event == "turn-timed-out"
        assert time.monotonic() - before < 3
    finally:
        get_feed(store_app).close()
        for reader in readers:
            assert reader.done.wait(10)


# ----- real games through the API: every game ends whatever seats go idle ------------


def _advance(store: GameStore, offset: list[float]) -> None:
    offset[0] += 2.5  # past idle_seconds 1 since the last recorded event
    store.clock = lambda: time.time() + offset[0]


def _play_until_finished(client, store, game, idle: set[str]) -> dict:
    """Seats outside ``idle`` play the first legal productive action they have through
    the API; when none does, the store's clock passes the deadline and a read applies
    G-T1. Returns the finished game's body."""
    offset = [0.0]
    seats = [seat for seat in game["seats"]]
    turns = {seat: 0 for seat in seats}  # Solitaire Frenzy: turns since a productive play
    for _ in range(3000):
        body = client.get(f"/v1/games/{game['id']}", headers=game["auth"]["referee"]).get_json()
        if body["status"] != "active":
            return body
        acted = False
        for seat in (s for s in seats if s not in idle):
            actions = client.get(
                f"/v1/games/{game['id']}/legal-actions", headers=game["auth"][seat]
            ).get_json()["actions"]
            plays = [a for a in actions if a["type"] in ("play", "move", "refill")]
            if not plays and turns[seat] < 30:  # go through the hand twice at most
                plays = [a for a in actions if a["type"] == "turn"]
            turns[seat] = turns[seat] + 1 if plays and plays[0]["type"] == "turn" else 0
            if plays:
                response = client.post(
                    f"/v1/games/{game['id']}/actions", headers=game["auth"][seat], json=plays[0]
                )
                acted = response.status_code in (200, 201)
                if acted:
                    break
        if not acted:
            _advance(store, offset)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    "game_name, options",
    [
        ("halves", {"players": 3, "idle_seconds": 1}),
        ("solitaire-frenzy", {"players": 2, "rounds": 1, "idle_seconds": 1}),
    ],
)
@pytest.mark.parametrize(
    "idle", [{"p1", "p2", "p3"}, {"p2"}], ids=["every-seat-idle", "one-seat-idle"]
)
def test_g_t1_a_real_time_game_ends_through_the_api_whatever_seats_go_idle(
    store_app, store_client, make_game, game_name, options, idle
):
    game = make_game(game=game_name, options=options, seed="5e" * 32)
    store = get_store(store_app)
    finished = _play_until_finished(store_client, store, game, idle)
    assert finished["status"] == "finished"
    events = store_client.get(
        f"/v1/games/{game['id']}/events", headers=game["auth"]["referee"]
    ).get_json()["events"]
    timed_out = [e for e in events if e["type"] == "seat-timed-out"]
    assert timed_out and all(e["at"] - e["since"] >= 1 for e in timed_out)
    assert {e["seat"] for e in timed_out} <= set(game["seats"])
    assert store.replay(game["id"]).ok


def _frenzy_stuck_turner(store: GameStore) -> str:
    """A Solitaire Frenzy game (idle_seconds 60) where p1 can play AS from its 13-pile
    but never acts, and p2 has nothing to play however it turns (its cycle is known:
    SF-E1; it has picked its waste up and turned a group since, SF-H1), only turning."""
    from service.cards import DECK

    pile = ["AS", "AH", "AD", "AC", "2S", "2C", "4S", "4C", "5S", "5C", "6S", "6C", "KS"]
    columns = [["2D"], ["2H"], ["3D"], ["3H"]]
    used = set(pile) | {c[0] for c in columns}
    hand = [c for c in DECK if c not in used and c != "JK"]
    p1 = {"pile_top": "AS", "pile_size": 13, "columns": [["KH"], ["KD"], ["KC"], ["QS"]]}
    position = {
        "game": "solitaire-frenzy",
        "round": 1,
        "foundations": [],
        "players": {
            "p1": {**p1, "hand_size": 35, "waste_top": None, "waste_size": 0},
            "p2": {
                "pile": pile,
                "columns": columns,
                "hand": hand[:-3],
                "waste": hand[-3:],
                "cycle": "known",
            },
        },
    }
    options = {"players": 2, "idle_seconds": 60}
    status, body = store.create("solitaire-frenzy", options, SEED, position=position)
    assert status == 201, body
    return body["id"]


def test_g_t1_turning_alone_does_not_hold_off_an_idle_seat_sf_e1(store):
    """G-T1 counts the time every other seat has had no productive move; turning
    alone is none (SF-E1): p2's turns leave the idle clock where p1 last could have
    moved, so p1 times out 60 s after it and the round ends stuck."""
    game_id = _frenzy_stuck_turner(store)
    created = store.read(game_id)
    for _ in range(3):
        reply, _ = store.act(game_id, "p2", {"type": "turn", "round": 1}, None, _render)
        assert reply[0] == 200
    turned = store.read(game_id)
    assert turned.version == created.version + 3 and turned.updated == created.updated
    store.clock = lambda: created.updated + 59.9
    assert store.current(game_id).version == turned.version
    store.clock = lambda: created.updated + 60.001  # the store rounds to the ms
    record = store.current(game_id)
    events = [e.event for e in store.events(game_id, turned.last_seq)[1]]
    assert [(e["type"], e["seat"]) for e in events[:2]] == [
        ("seat-timed-out", "p1"),
        ("round-ended", None),
    ]
    assert events[0]["since"] == created.updated
    assert events[1]["reason"] == "stuck" and record.state["round"] == 2
    assert store.replay(game_id).ok


def test_g_t1_a_productive_move_restarts_the_idle_clock(store):
    game_id = _frenzy_stuck_turner(store)
    created = store.read(game_id)
    play = {"type": "play", "round": 1, "card": "AS", "to": "foundation", "based_on": "new"}
    reply, _ = store.act(game_id, "p1", play, None, _render)
    assert reply[0] == 200, reply
    assert store.read(game_id).updated > created.updated


def test_g_t1_a_turn_based_seat_loses_its_turn_idle_seconds_after_it_began(store):
    """G-T1 "a seat on turn for idle_seconds loses that turn": a 2-Way placement within
    the turn leaves the clock running from the turn's start; the discard that passes
    the turn restarts it."""
    from service.games import two_way

    status, body = store.create("two-way", {"idle_seconds": 60}, SEED)
    assert status == 201
    game_id = body["id"]
    created = store.read(game_id)
    place = next(a for a in two_way.legal_actions(created.state, "blue") if a["type"] == "place")
    reply, _ = store.act(game_id, "blue", place, created.version, _render)
    assert reply[0] == 200
    placed = store.read(game_id)
    assert placed.updated == created.updated
    store.clock = lambda: created.updated + 60.001  # the store rounds to the ms
    record = store.current(game_id)
    timed_out = [e.event for e in store.events(game_id, placed.last_seq)[1]][0]
    assert (timed_out["type"], timed_out["seat"]) == ("turn-timed-out", "blue")
    assert timed_out["since"] == created.updated and record.state["turn"] == "green"
    assert store.replay(game_id).ok


def test_g_t1_a_turn_based_turn_that_passes_restarts_the_clock(store):
    from service.games import sequence

    status, body = store.create("sequence", {"idle_seconds": 60}, SEED)
    game_id = body["id"]
    created = store.read(game_id)
    play = next(a for a in sequence.legal_actions(created.state, "p1") if a["type"] == "play")
    reply, _ = store.act(game_id, "p1", play, created.version, _render)
    assert reply[0] == 200 and store.read(game_id).updated > created.updated


def test_g_t1_a_streams_wake_up_comes_when_the_stores_rounded_clock_has_passed_it():
    """The store's clock is rounded to the millisecond, the deadline is not: read at
    1000.0006 (1000.001 rounded), a deadline of 1001.0009 is 0.9999 s away by the
    rounded clock, but then the clock reads 1001.0005, rounded 1001.000 or 1001.001,
    still short of it (nothing would be recorded until the next heartbeat). The
    stream wakes a millisecond later."""
    from types import SimpleNamespace

    from service.api.stream import _idle_at

    read_at = 1000.0006
    store = SimpleNamespace(now=lambda: round(read_at, 3))
    record = SimpleNamespace(
        state={"options": {"idle_seconds": 1}, "status": "active"}, updated=1000.0009
    )
    wait = _idle_at(store, record) - time.monotonic()
    assert round(read_at + wait, 3) >= 1001.0009
    assert wait < 1.0011  # and not later than that


@pytest.mark.parametrize(
    "game", ["two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy"]
)
def test_g_t1_idle_seconds_is_from_1_to_a_week_in_every_game(store_client, game):
    """docs/rulings.md G-T1: 1 to 604800 seconds, or null; more is refused, the most
    named in the refusal."""
    from service.games import IDLE_SECONDS_MAX

    assert IDLE_SECONDS_MAX == 604800

    players = {} if game == "two-way" else {"players": 2}

    def create(idle):
        return store_client.post(
            "/v1/games", json={"game": game, "options": {**players, "idle_seconds": idle}}
        )

    assert create(IDLE_SECONDS_MAX).status_code == 201
    assert create(None).status_code == 201
    for idle in (IDLE_SECONDS_MAX + 1, 10**30, 0, 1.5):
        problem = assert_problem(create(idle), 422, "invalid-option")
        assert problem["rule"] == "G-T1"
        assert "604800" in problem["detail"]


@pytest.mark.parametrize("game", ["halves", "sequence"])
def test_g_t1_a_finished_game_with_timeouts_re_imports_from_its_export(
    store_app, store_client, make_game, game
):
    """Each recorded timeout advanced the version as an action does: the finished
    game's signed export re-imports, its version 1 plus one per action and one per
    timeout. Halves: both seats time out, then the referee retires one; Sequence: the
    seats lose their turns until a round of passes ends the game (SQ-E1)."""
    created = make_game(game, {"players": 2, "idle_seconds": 60})
    referee, path = created["auth"]["referee"], f"/v1/games/{created['id']}"
    ahead = 0
    while True:
        ahead += 61
        _later(get_store(store_app), ahead)
        view = store_client.get(path, headers=referee).get_json()  # records the timeout
        if game == "sequence" and view["status"] == "active":
            continue
        break
    if game == "halves":
        retired = store_client.post(
            f"{path}/actions",
            headers=referee,
            json={"type": "retire", "seat": "p2", "expected_version": view["version"]},
        )
        assert retired.status_code == 200, retired.get_data(as_text=True)
    document = store_client.get(f"{path}/export", headers=referee).get_json()
    assert document["status"] == "finished"
    timeouts = {"halves": 1, "sequence": ahead // 61}[game]
    assert (
        document["version"]
        == 1 + len(document["actions"]) + timeouts
        > 1 + len(document["actions"])
    )
    imported = store_client.post("/v1/games/import", json=document)
    assert imported.status_code == 201, imported.get_data(as_text=True)
    document["version"] -= timeouts  # as if the timeouts had not advanced it
    body = assert_problem(store_client.post("/v1/games/import", json=document), 422)
    assert body["code"] == "import-mismatch" and list(body["errors"]["json"]) == ["version"]


@pytest.mark.parametrize(
    "game", ["two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy"]
)
def test_g_t1_idle_seconds_is_off_in_table_dealing_in_every_game(store_client, game):
    """G-T1: off in table mode. The referee reports the table's moves, so no seat's
    turn may run out there: a number is refused, null or nothing taken."""
    players = {} if game == "two-way" else {"players": 2}

    def create(**idle):
        return store_client.post(
            "/v1/games", json={"game": game, "options": {**players, "dealing": "table", **idle}}
        )

    problem = assert_problem(create(idle_seconds=60), 422, "invalid-option")
    assert problem["rule"] == "G-T1" and "table dealing" in problem["detail"]
    for taken in (create(idle_seconds=None), create()):
        assert taken.status_code == 201, taken.get_data(as_text=True)
        created = taken.get_json()
        view = store_client.get(
            f"/v1/games/{created['id']}",
            headers={"Authorization": f"Bearer {created['referee_token']}"},
        ).get_json()
        assert view["view"]["options"]["idle_seconds"] is None
