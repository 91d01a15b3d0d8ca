"""Imports trust nothing (issue 18, items 1, 4 and 7): the engine re-derives every
event of an imported game, exports are signed, an unsigned document imports only with
an API key and stays unverified, a copy says it is one; on SQLite and PostgreSQL."""

from __future__ import annotations

import copy
import json
import random

import pytest

import fake_engine
from helpers import ClientTransport, assert_problem
from service import create_app
from service.games import engine
from service.games.rng import commitment
from service.play import Player
from service.store import get_store
from service.store.models import utcnow
from service.store.transfer import FORMAT, FORMAT_VERSION, MAX_IMPORT_EVENTS

KEY = "import-key-" + "7" * 20
SEED = "5e" * 32


@pytest.fixture()
def app(db_url, counter_engine):
    app = create_app(
        {"TESTING": True, "DATABASE_URL": db_url, "API_KEYS": (KEY,), "RATELIMIT_ENABLED": False}
    )
    yield app
    get_store(app).dispose()


@pytest.fixture()
def client(app):
    return app.test_client()


def _auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}", "X-API-Key": KEY}


def _import(client, document, key: bool = True):
    return client.post("/v1/games/import", json=document, headers={"X-API-Key": KEY} if key else {})


def _export(client, game_id: str, referee_token: str) -> dict:
    response = client.get(f"/v1/games/{game_id}/export", headers=_auth(referee_token))
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


class _KeyedTransport(ClientTransport):
    """The play client's requests with the API key (creation needs one here)."""

    def request(self, method, path, body=None, headers=None):
        return super().request(method, path, body, {**(headers or {}), "X-API-Key": KEY})


_PLAYED: dict[tuple[str, str], dict] = {}


def _finished_export(client, db_url: str, game: str, options: dict | None = None) -> dict:
    """One finished game's export per game and database (played once by service.play)."""
    if (db_url, game) not in _PLAYED:
        player = Player(_KeyedTransport(client), random.Random(7), 0.1)
        runs, create = [], player.create
        player.create = lambda *args: runs.append(create(*args)) or runs[-1]
        stats = player.play(game, 1, options or {})
        assert stats.finished == 1 and stats.errors == 0
        _PLAYED[(db_url, game)] = _export(client, runs[0].id, runs[0].tokens["referee"])
    return copy.deepcopy(_PLAYED[(db_url, game)])


def _refused(response, field: str) -> dict:
    body = assert_problem(response, 422, "import-mismatch")
    assert list(body["errors"]["json"]) == [field], body
    assert "Error" not in body["detail"] and "Traceback" not in body["detail"]
    return body


def _end_index(document: dict) -> int:
    return next(i for i, e in enumerate(document["events"]) if e["type"] == "game-ended")


# ----- the attacks of the review ------------------------------------------------------


def test_g_m1_a_forged_halves_game_with_an_invented_winner_is_refused(client):
    """A Halves game with a seed of the forger's choosing, no plays and an invented
    winner scoring 99: the deal follows from the seed, but no action makes game-ended."""
    module = engine("halves")
    events = module.new_game("halves", {"players": 2}, SEED)
    ended = {
        "type": "game-ended",
        "seat": None,
        "result": {"winners": ["p1"], "scores": {"p1": 99, "p2": 0}, "reason": "out", "halves": {}},
    }
    state = None
    for event in events + [ended]:
        state = module.fold(state, event)
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "id": "forged",
        "game": "halves",
        "options": state["options"],
        "status": "finished",
        "version": 1,
        "seed_commitment": commitment(SEED),
        "seed": SEED,
        "events": [{"seq": i, **e} for i, e in enumerate(events + [ended], 1)],
        "view": module.view(state, "referee"),
    }
    body = _refused(_import(client, document), f"events.{len(events)}")
    assert body["detail"] == (
        f"event {len(events) + 1} (game-ended) follows from no recorded action"
    )


def test_g_m1_a_real_export_with_the_winner_flipped_is_refused(client, db_url):
    document = _finished_export(client, db_url, "two-way")
    end = _end_index(document)
    result = document["events"][end]["result"]
    winner = result["winners"][0]
    loser = next(seat for seat in result["scores"] if seat != winner)
    for where in (result, document["view"]["result"]):  # consistent with itself
        where["winners"] = [loser]
    _refused(_import(client, document), f"events.{end}.result.winners.0")


def test_g_m1_seats_named_with_markup_are_refused(client, db_url):
    document = _finished_export(client, db_url, "two-way")
    seat = document["events"][0]["seats"][0]
    forged = json.loads(json.dumps(document).replace(f'"{seat}"', '"<svg onload=alert(1)>"'))
    body = assert_problem(_import(client, forged), 422, "import-mismatch")
    assert body["errors"]["json"].keys() == {"options"}  # first_seat names no seat
    forged["options"] = forged["events"][0]["options"] = document["options"]
    body = assert_problem(_import(client, forged), 422, "import-mismatch")
    (field,) = body["errors"]["json"]
    assert field.startswith("events.0.") and "<svg" in json.dumps(forged["events"][0])
    # an unfinished game's export (no seed to re-derive the deal from), renamed in its
    # events and view: only the service's own signed document imports without a seed
    created = client.post(
        "/v1/games", json={"game": "two-way"}, headers={"X-API-Key": KEY}
    ).get_json()
    unfinished = _export(client, created["id"], created["referee_token"])
    for member in ("events", "view"):
        unfinished[member] = json.loads(
            json.dumps(unfinished[member]).replace(f'"{seat}"', '"<svg onload=alert(1)>"')
        )
    _refused(_import(client, unfinished), "seed")


def test_g_m1_first_seat_set_only_inside_game_created_is_refused(client, db_url):
    document = _finished_export(client, db_url, "halves")
    created = document["events"][0]
    other = next(s for s in created["seats"] if s != created["options"]["first_seat"])
    created["options"]["first_seat"] = other
    _refused(_import(client, document), "events.0.options.first_seat")


def test_g_m1_an_unfinished_export_edited_is_refused_for_want_of_its_seed(client):
    """Without the seed nothing re-derives the deal: only the service's own signed
    export of an unfinished game imports (here first_seat edited inside game-created)."""
    created = client.post(
        "/v1/games", json={"game": "halves", "options": {"players": 2}}, headers={"X-API-Key": KEY}
    ).get_json()
    document = _export(client, created["id"], created["referee_token"])
    assert "seed" not in document and "actions" not in document
    game_created = document["events"][0]
    game_created["options"]["first_seat"] = next(
        s for s in game_created["seats"] if s != game_created["options"]["first_seat"]
    )
    _refused(_import(client, document), "seed")


def test_g_m1_an_extra_event_field_is_refused(client, db_url):
    document = _finished_export(client, db_url, "two-way")
    index = next(i for i, e in enumerate(document["events"]) if e["type"] == "placed")
    document["events"][index]["note"] = "refereed by hand"
    _refused(_import(client, document), f"events.{index}.note")


def test_g_m1_no_seats_is_422_not_500(client):
    created = client.post(
        "/v1/games", json={"game": "counter"}, headers={"X-API-Key": KEY}
    ).get_json()
    document = _export(client, created["id"], created["referee_token"])
    document["events"][0]["seats"] = []
    document["view"]["seats"] = []
    _refused(_import(client, document), "events.0.seats")


# ----- signatures, verified and unverified copies -----------------------------------


def test_a_signed_export_imports_as_a_verified_copy_that_says_so(client, db_url, app):
    document = _finished_export(client, db_url, "two-way")
    assert len(document["signature"]) == 64 and document["imported"] is None
    assert document["actions"] and document["version"] == 1 + len(document["actions"])
    app.config["API_KEYS"] = ()  # an open deployment: no API key needed
    created = client.post("/v1/games/import", json=document)
    assert created.status_code == 201, created.get_data(as_text=True)
    copy_ = created.get_json()
    token = copy_["referee_token"]
    view = client.get(f"/v1/games/{copy_['id']}", headers=_auth(token)).get_json()
    log = client.get(f"/v1/games/{copy_['id']}/events", headers=_auth(token)).get_json()
    again = _export(client, copy_["id"], token)
    for shown in (view, log, again):
        assert shown["imported"]["verified"] is True
        assert shown["imported"]["at"][:10] == utcnow().date().isoformat()
    assert again["actions"] == document["actions"]


def test_an_unsigned_document_needs_an_api_key_and_stays_unverified_for_ever(client, db_url, app):
    document = _finished_export(client, db_url, "two-way")
    document["signature"] = "0" * 64
    app.config["API_KEYS"] = ()  # an open deployment: no key can vouch for it
    refused = assert_problem(_import(client, document, key=False), 403, "import-unsigned")
    assert "API key" in refused["detail"]
    app.config["API_KEYS"] = (KEY,)
    created = _import(client, document)
    assert created.status_code == 201, created.get_data(as_text=True)
    first = created.get_json()
    again = _export(client, first["id"], first["referee_token"])
    assert again["imported"]["verified"] is False
    # the copy's own (validly signed) export: still an unverified copy
    app.config["API_KEYS"] = ()
    second = _import(client, again, key=False).get_json()
    view = client.get(
        f"/v1/games/{second['id']}", headers=_auth(second["referee_token"])
    ).get_json()
    assert view["imported"]["verified"] is False


def test_a_foreign_signature_does_not_verify(db_url, counter_engine, client, app):
    """Another deployment's secret signs another signature."""
    other = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": db_url,
            "EXPORT_SECRET": "another deployment's secret",
            "RATELIMIT_ENABLED": False,
        }
    )
    try:
        foreign = other.test_client()
        created = foreign.post(
            "/v1/games", json={"game": "counter", "options": {"target": 1}}
        ).get_json()
        auth = {"Authorization": f"Bearer {created['seats']['north']['token']}"}
        assert (
            foreign.post(
                f"/v1/games/{created['id']}/actions",
                headers=auth,
                json={"type": "add", "amount": 1, "expected_version": 1},
            ).status_code
            == 200
        )
        document = foreign.get(
            f"/v1/games/{created['id']}/export",
            headers={"Authorization": f"Bearer {created['referee_token']}"},
        ).get_json()
        assert foreign.post("/v1/games/import", json=document).status_code == 201
    finally:
        get_store(other).dispose()
    app.config["API_KEYS"] = ()
    assert_problem(_import(client, document, key=False), 403, "import-unsigned")
    app.config["API_KEYS"] = (KEY,)
    copy_ = _import(client, document).get_json()
    view = client.get(f"/v1/games/{copy_['id']}", headers=_auth(copy_["referee_token"]))
    assert view.get_json()["imported"]["verified"] is False


# ----- the counter engine: actions, positions, idle seats, refusals -----------------


def _document(events: list[dict], actions: list[dict], seed: str = SEED, timeouts: int = 0) -> dict:
    state = None
    for event in events:
        state = fake_engine.fold(state, event)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "id": "made",
        "game": "counter",
        "options": state["options"],
        "status": state["status"],
        "version": 1 + len(actions) + timeouts,
        "seed_commitment": commitment(seed),
        "seed": seed,
        "actions": actions,
        "imported": None,
        "events": [{"seq": i, **e} for i, e in enumerate(events, 1)],
        "view": fake_engine.view(state, "referee"),
    }


def _played(setup: list[dict], moves: list[tuple[str, dict]]) -> tuple[list, list]:
    """``setup`` then the events ``moves`` (actor, action) make, and their records."""
    events, actions = list(setup), []
    state = None
    for event in events:
        state = fake_engine.fold(state, event)
    for actor, action in moves:
        made = fake_engine.apply(state, actor, action)
        actions.append({"seq": len(events) + 1, "actor": actor, "action": action})
        for event in made:
            state = fake_engine.fold(state, event)
        events += made
    return events, actions


def test_g_m1_every_event_is_what_apply_makes_of_the_recorded_action(client):
    events, actions = _played(
        fake_engine.new_game("counter", {}, SEED),
        [("north", {"type": "add", "amount": 3}), ("referee", {"type": "tick"})],
    )
    assert _import(client, _document(events, actions)).status_code == 201
    forged = copy.deepcopy(_document(events, actions))
    forged["events"][4]["count"] = 5  # north added 3, not 5
    forged["events"][5]["count"] = 6
    forged["view"]["count"] = 6
    _refused(_import(client, forged), "events.4.count")
    moved = _document(events, [dict(actions[0], seq=6), actions[1]])
    _refused(_import(client, moved), "actions.1.seq")
    refused = _document(events, [dict(actions[0], actor="south"), actions[1]])
    body = _refused(_import(client, refused), "actions.0.action")
    assert body["detail"] == "the engine refuses the action: it is north's turn"


def test_refusals_never_show_an_exception_s_text(client, monkeypatch):
    events, actions = _played(
        fake_engine.new_game("counter", {}, SEED), [("north", {"type": "add", "amount": 1})]
    )

    def broken(state, actor, action):
        raise ValueError("internal detail 0xdeadbeef")

    monkeypatch.setattr(fake_engine, "apply", broken)
    body = _refused(_import(client, _document(events, actions)), "actions.0.action")
    assert "0xdeadbeef" not in json.dumps(body) and "ValueError" not in json.dumps(body)


def test_a_game_from_a_position_re_derives_through_start_from_position(client):
    setup = fake_engine.start_from_position(
        "counter", {"target": 20}, SEED, {"game": "counter", "count": 12, "turn": "north"}
    )
    events, actions = _played(setup, [("north", {"type": "add", "amount": 2})])
    created = _import(client, _document(events, actions))
    assert created.status_code == 201, created.get_data(as_text=True)
    forged = _document(events, actions)
    assert events[1]["type"] == "position-set"
    forged["events"][1]["count"] = 12  # a member start_from_position does not write
    _refused(_import(client, forged), "events.1.count")
    impossible = _document(events, actions)
    impossible["events"][1]["position"]["count"] = 25  # beyond the target
    body = _refused(_import(client, impossible), "events.1.position.count")
    assert "count is 0 to target - 1" in body["detail"]


def test_idle_events_re_derive_from_their_since_and_at(client):
    setup = fake_engine.new_game("counter", {"idle_seconds": 60}, SEED)
    events, actions = _played(setup, [("north", {"type": "add", "amount": 1})])
    state = None
    for event in events:
        state = fake_engine.fold(state, event)
    timed_out = fake_engine.idle_events(state, 1_000.0, 1_075.5)
    assert timed_out[0]["seat"] == "south"
    events, more = _played(events + timed_out, [("north", {"type": "add", "amount": 1})])
    actions.append(more[0])
    assert _import(client, _document(events, actions, timeouts=1)).status_code == 201
    # the timeout advanced the version as an action does (G-T1)
    uncounted = _refused(_import(client, _document(events, actions)), "version")
    assert uncounted["detail"] == (
        "the version is 1 plus one per action and one per idle timeout: 4"
    )
    early = _document(events, actions, timeouts=1)
    early["events"][5]["at"] = 1_030.0  # 30 s idle: under idle_seconds
    assert _refused(_import(client, early), "events.5")["detail"] == "no timeout applies at event 6"
    wrong = _document(events, actions, timeouts=1)
    wrong["events"][5]["seat"] = "north"
    _refused(_import(client, wrong), "events.5.seat")


def test_an_import_takes_at_most_max_import_events(client):
    moves = [("north", {"type": "tick"})] * (MAX_IMPORT_EVENTS - 4)
    events, actions = _played(fake_engine.new_game("counter", {}, SEED), moves)
    assert len(events) == MAX_IMPORT_EVENTS
    created = _import(client, _document(events, actions))
    assert created.status_code == 201, created.get_data(as_text=True)
    events, actions = _played(events, [("north", {"type": "tick"})])
    body = assert_problem(_import(client, _document(events, actions)), 422, "invalid-body")
    assert list(body["errors"]["json"]) == ["events"]
