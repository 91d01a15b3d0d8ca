"""Who may do what: the authorization matrix of the game endpoints, and view filtering
(a seat never sees the other seat's card, the deck or the seed: not in the view, the
events, the legal actions, nor any error)."""

from __future__ import annotations

import json

import pytest

import fake_engine
from service.games.rng import shuffle

SEED = "5e" * 32
PROBLEM = "application/problem+json"

# caller -> how to build its headers from (game, other_game)
CALLERS = {
    "north": lambda game, other: game["auth"]["north"],
    "south": lambda game, other: game["auth"]["south"],
    "referee": lambda game, other: game["auth"]["referee"],
    "no-token": lambda game, other: {},
    "malformed": lambda game, other: {"Authorization": "Token abc"},
    "empty-bearer": lambda game, other: {"Authorization": "Bearer "},
    "wrong-token": lambda game, other: {"Authorization": "Bearer " + "x" * 43},
    "other-game-seat": lambda game, other: other["auth"]["north"],
    "other-game-referee": lambda game, other: other["auth"]["referee"],
}
DENIED = {
    "no-token": 401,
    "malformed": 401,
    "empty-bearer": 401,
    "wrong-token": 401,
    "other-game-seat": 404,
    "other-game-referee": 404,
}


def _status(client, game, method, path, headers, body=None):
    url = f"/v1/games/{game['id']}{path}"
    if method == "GET":
        return client.get(url, headers=headers)
    return client.post(url, json=body, headers=headers)


ENDPOINTS = [
    ("GET", ""),
    ("GET", "/events"),
    ("GET", "/legal-actions"),
    ("POST", "/actions"),
]


@pytest.mark.parametrize("method, path", ENDPOINTS)
@pytest.mark.parametrize("caller", list(CALLERS))
def test_authorization_matrix(store_client, make_game, caller, method, path):
    game, other = make_game(), make_game()
    headers = CALLERS[caller](game, other)
    body = {"type": "tick", "expected_version": 1}
    response = _status(store_client, game, method, path, headers, body)
    expected = DENIED.get(caller, 200)
    assert response.status_code == expected, response.get_data(as_text=True)
    if expected != 200:
        assert response.mimetype == PROBLEM
        problem = response.get_json()
        assert problem["status"] == expected
        assert problem["code"] == ("unauthorized" if expected == 401 else "game-not-found")
    if expected == 401:
        assert response.headers["WWW-Authenticate"].startswith('Bearer realm="card-referee"')
    if expected == 200 and method == "POST":
        assert response.get_json()["version"] == 2


def test_404_for_another_games_token_is_the_404_of_an_unknown_id(store_client, make_game):
    game, other = make_game(), make_game()
    foreign = store_client.get(f"/v1/games/{game['id']}", headers=other["auth"]["north"])
    unknown = store_client.get("/v1/games/no-such-game", headers=other["auth"]["north"])
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.get_json() == unknown.get_json()
    assert game["id"] not in foreign.get_data(as_text=True)


def test_unknown_game_without_a_valid_token_is_401(store_client, make_game):
    make_game()
    response = store_client.get("/v1/games/no-such-game", headers={"Authorization": "Bearer x"})
    assert response.status_code == 401 and response.mimetype == PROBLEM
    assert store_client.get("/v1/games/no-such-game").status_code == 401


def test_denied_requests_write_nothing(store_client, make_game):
    game, other = make_game(), make_game()
    for caller, status in DENIED.items():
        response = _status(
            store_client,
            game,
            "POST",
            "/actions",
            CALLERS[caller](game, other),
            {"type": "tick", "expected_version": 1},
        )
        assert response.status_code == status
    view = store_client.get(f"/v1/games/{game['id']}", headers=game["auth"]["referee"])
    assert view.get_json()["version"] == 1 and view.get_json()["view"]["count"] == 0


def test_a_seat_acts_only_as_itself(store_client, make_game):
    game = make_game()
    url = f"/v1/games/{game['id']}/actions"
    response = store_client.post(
        url,
        json={"type": "penalty", "seat": "south", "expected_version": 1},
        headers=game["auth"]["north"],
    )
    assert response.status_code == 403 and response.get_json()["code"] == "seat-mismatch"
    # naming its own seat is fine (the engine judges the action itself)
    response = store_client.post(
        url,
        json={"type": "tick", "seat": "north", "expected_version": 1},
        headers=game["auth"]["north"],
    )
    assert response.status_code == 200
    # the referee acts through the engine, for any seat
    response = store_client.post(
        url,
        json={"type": "penalty", "seat": "north", "expected_version": 2},
        headers=game["auth"]["referee"],
    )
    assert response.status_code == 200
    assert response.get_json()["view"]["turn"] == "south"


def test_the_engine_refuses_referee_actions_it_does_not_allow(store_client, make_game):
    game = make_game(options={"referee_moves": False})
    response = store_client.post(
        f"/v1/games/{game['id']}/actions",
        json={"type": "tick", "expected_version": 1},
        headers=game["auth"]["referee"],
    )
    assert response.status_code == 403 and response.mimetype == PROBLEM
    assert response.get_json()["code"] == "referee-not-allowed"
    listing = store_client.get(
        f"/v1/games/{game['id']}/legal-actions", headers=game["auth"]["referee"]
    ).get_json()
    assert listing["actions"] == []


# ----- view filtering ------------------------------------------------------------


def _play_and_record(client, game):
    """Play a short game, keeping every response body each caller received."""
    seen: dict[str, list[str]] = {"north": [], "south": [], "referee": []}

    def call(who, method, path, body=None, headers=None):
        url = f"/v1/games/{game['id']}{path}"
        all_headers = {**game["auth"][who], **(headers or {})}
        response = (
            client.get(url, headers=all_headers)
            if method == "GET"
            else client.post(url, json=body, headers=all_headers)
        )
        seen[who].append(response.get_data(as_text=True) + json.dumps(dict(response.headers)))
        return response

    def look(who):
        for path in ("", "/events", "/legal-actions"):
            assert call(who, "GET", path).status_code == 200

    version = 1
    script = [
        ("north", "south", {"type": "draw"}),
        ("north", "south", {"type": "add", "amount": 1}),
        ("south", "north", {"type": "draw"}),
        ("south", "north", {"type": "add", "amount": 2}),
        ("referee", "south", {"type": "tick"}),
    ]
    for who, off_turn, action in script:
        for viewer in seen:
            look(viewer)
        # refusals of every kind, with and without an idempotency key
        call(who, "POST", "/actions", {**action, "expected_version": version + 5})
        call(who, "POST", "/actions", {"type": "add", "amount": 9, "expected_version": version})
        call(off_turn, "POST", "/actions", {"type": "draw", "expected_version": version})
        call(who, "POST", "/actions", action)
        key = {"Idempotency-Key": f"k{version}"}
        response = call(
            who, "POST", "/actions", {**action, "expected_version": version}, headers=key
        )
        assert response.status_code == 200, response.get_data(as_text=True)
        call(who, "POST", "/actions", {**action, "expected_version": version}, headers=key)
        version += 1
    for viewer in seen:
        look(viewer)
    return seen


def test_a_seat_never_sees_the_other_card_the_deck_or_the_seed(store_client, make_game):
    game = make_game(seed=SEED, options={"target": 50})
    deck = shuffle(fake_engine.DECK, SEED, "deck")
    seen = _play_and_record(store_client, game)
    # dealt: north deck[0], south deck[1]; north drew deck[2], south drew deck[3]
    secret_of = {"north": {deck[0], deck[2]}, "south": {deck[1], deck[3]}}
    undrawn = set(deck[4:])
    referee_text = "".join(seen["referee"])
    for card in set(deck):
        assert card in referee_text  # the referee sees everything: the check can fail
    assert SEED in referee_text
    for seat, other in (("north", "south"), ("south", "north")):
        text = "".join(seen[seat])
        for card in secret_of[seat]:
            assert card in text
        for card in secret_of[other] | undrawn:
            assert card not in text, f"{seat} saw {card}"
        assert SEED not in text


def test_events_are_filtered_per_viewer(store_client, make_game):
    game = make_game(seed=SEED)
    deck = shuffle(fake_engine.DECK, SEED, "deck")
    log = {
        who: store_client.get(
            f"/v1/games/{game['id']}/events", headers=game["auth"][who]
        ).get_json()["events"]
        for who in ("north", "south", "referee")
    }
    assert [e["type"] for e in log["referee"]] == ["game-created", "shuffled", "dealt", "dealt"]
    assert log["referee"][0]["seed"] == SEED and log["referee"][1]["deck"] == deck
    assert [e["seq"] for e in log["north"]] == [1, 3, 4]  # "shuffled" dropped
    assert "seed" not in log["north"][0]
    assert log["north"][1] == {"seq": 3, "type": "dealt", "seat": "north", "card": deck[0]}
    assert log["north"][2] == {"seq": 4, "type": "dealt", "seat": "south"}
    assert log["south"][1] == {"seq": 3, "type": "dealt", "seat": "north"}
    assert log["south"][2]["card"] == deck[1]


# ----- caching: tokens and views are never stored or shared by a cache -----------


def _vary(response) -> set[str]:
    return {v.strip().lower() for v in response.headers.get("Vary", "").split(",") if v.strip()}


def test_tokens_and_views_are_never_cached(store_client, make_game):
    created = store_client.post("/v1/games", json={"game": "counter"})
    assert created.status_code == 201
    assert created.headers["Cache-Control"] == "no-store"
    game = make_game()
    responses = []
    for who in ("north", "referee"):
        for path in ("", "/events", "/legal-actions"):
            response = store_client.get(f"/v1/games/{game['id']}{path}", headers=game["auth"][who])
            assert response.status_code == 200
            responses.append(response)
    # the ETag is the version, the same for every caller's view: a cache must key on
    # the token as well
    assert {r.headers["ETag"] for r in responses} == {'"1"'}
    for response in responses:
        assert response.headers["Cache-Control"] == "no-store"
        assert "authorization" in _vary(response)
    not_modified = store_client.get(
        f"/v1/games/{game['id']}", headers={**game["auth"]["north"], "If-None-Match": '"1"'}
    )
    assert not_modified.status_code == 304
    assert not_modified.headers["Cache-Control"] == "no-store"
    assert "authorization" in _vary(not_modified)
    for headers in ({}, {"Idempotency-Key": "c1"}, {"Idempotency-Key": "c1"}):
        acted = store_client.post(
            f"/v1/games/{game['id']}/actions",
            json={"type": "tick", "expected_version": 1},
            headers={**game["auth"]["north"], **headers},
        )
        assert acted.headers["Cache-Control"] == "no-store"


def test_errors_of_the_private_endpoints_are_not_cached_either(store_client, make_game):
    game = make_game()
    denied = store_client.get(f"/v1/games/{game['id']}")
    assert denied.status_code == 401 and denied.headers["Cache-Control"] == "no-store"
    assert "authorization" in _vary(denied)
    stale = store_client.post(
        f"/v1/games/{game['id']}/actions",
        json={"type": "tick", "expected_version": 9},
        headers=game["auth"]["north"],
    )
    assert stale.status_code == 412 and stale.headers["Cache-Control"] == "no-store"


def test_the_public_catalog_stays_cacheable(store_client):
    response = store_client.get("/v1/games/catalog")
    assert response.status_code == 200
    assert "no-store" not in response.headers.get("Cache-Control", "")
