"""Game store API on SQLite and PostgreSQL: create, view, act, events, legal actions,
version checks (412/428) and idempotency, with the "counter" test engine."""

from __future__ import annotations

import hashlib
import threading

import pytest

import fake_engine
from service.games.rng import shuffle

from helpers import PROBLEM, assert_problem  # noqa: F401

SEED = "ab" * 32


def act(client, game, who, body, version=None, headers=None):
    """POST one action as ``who`` (expected_version in the body unless None)."""
    if version is not None:
        body = {**body, "expected_version": version}
    return client.post(
        f"/v1/games/{game['id']}/actions",
        json=body,
        headers={**game["auth"][who], **(headers or {})},
    )


def events_of(client, game, who="referee", after=0):
    response = client.get(f"/v1/games/{game['id']}/events?after={after}", headers=game["auth"][who])
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def version_of(client, game, who="referee"):
    return client.get(f"/v1/games/{game['id']}", headers=game["auth"][who]).get_json()["version"]


# ----- create --------------------------------------------------------------------


def test_create_returns_seat_tokens_referee_token_and_seed_commitment(store_client):
    response = store_client.post("/v1/games", json={"game": "counter", "seed": SEED.upper()})
    assert response.status_code == 201
    body = response.get_json()
    assert set(body) == {
        "id",
        "game",
        "version",
        "status",
        "seats",
        "referee_token",
        "seed_commitment",
    }
    assert body["game"] == "counter" and body["version"] == 1 and body["status"] == "active"
    assert set(body["seats"]) == {"north", "south"}
    tokens = [
        body["seats"]["north"]["token"],
        body["seats"]["south"]["token"],
        body["referee_token"],
    ]
    assert len(set(tokens)) == 3 and all(len(t) >= 43 for t in tokens)
    assert body["seed_commitment"] == hashlib.sha256(SEED.encode()).hexdigest()
    assert response.headers["Location"] == f"/v1/games/{body['id']}"
    assert response.headers["ETag"] == '"1"'


def test_create_without_seed_draws_one(store_client, make_game):
    one, two = make_game(), make_game()
    assert one["id"] != two["id"]
    assert one["seed_commitment"] != two["seed_commitment"]


@pytest.mark.parametrize(
    "body, status, code",
    [
        ({"game": "chess"}, 422, "unknown-game"),
        ({"game": "counter", "options": {"target": 0}}, 422, "invalid-option"),
        ({"game": "counter", "options": {"colour": "red"}}, 422, "invalid-option"),
        ({"game": "counter", "seed": "xyz"}, 422, "invalid-body"),
        ({"game": "counter", "seed": "ab" * 31}, 422, "invalid-body"),
        ({"game": "counter", "players": 2}, 422, "invalid-body"),
        ({"options": {}}, 422, "invalid-body"),
        ({"game": 7}, 422, "invalid-body"),
        ({"game": "counter", "options": []}, 422, "invalid-body"),
    ],
)
def test_create_refusals_are_problems(store_client, body, status, code):
    assert_problem(store_client.post("/v1/games", json=body), status, code)


@pytest.mark.parametrize(
    "seed",
    [SEED + "\n", SEED + "\r\n", "\n" + SEED, SEED + " ", " " + SEED, SEED + "\n\n", SEED + "0"],
)
def test_a_seed_with_anything_around_its_64_hex_digits_is_422(store_client, seed):
    body = assert_problem(
        store_client.post("/v1/games", json={"game": "counter", "seed": seed}), 422, "invalid-body"
    )
    assert "seed" in body["errors"]["json"]


def test_the_seed_commitment_is_sha256_of_the_lowercase_seed(store_client):
    seed = "A1" * 32
    created = store_client.post("/v1/games", json={"game": "counter", "seed": seed})
    assert created.status_code == 201
    assert (
        created.get_json()["seed_commitment"] == hashlib.sha256(seed.lower().encode()).hexdigest()
    )


def test_the_seed_may_be_given_as_an_option(store_client):
    seed = "A1" * 32
    as_option = store_client.post("/v1/games", json={"game": "counter", "options": {"seed": seed}})
    assert as_option.status_code == 201, as_option.get_data(as_text=True)
    assert (
        as_option.get_json()["seed_commitment"] == hashlib.sha256(seed.lower().encode()).hexdigest()
    )
    both = store_client.post(
        "/v1/games", json={"game": "counter", "seed": seed.lower(), "options": {"seed": seed}}
    )
    assert both.status_code == 201


@pytest.mark.parametrize(
    "body",
    [
        {"game": "counter", "options": {"seed": SEED + "\n"}},
        {"game": "counter", "options": {"seed": 12}},
        {"game": "counter", "seed": SEED, "options": {"seed": "cd" * 32}},
    ],
)
def test_a_bad_or_contradicting_seed_option_is_422(store_client, body):
    problem_body = assert_problem(store_client.post("/v1/games", json=body), 422, "invalid-option")
    assert "seed" in problem_body["errors"]["json"]["options"]


# ----- view ----------------------------------------------------------------------


def test_view_is_the_engines_view_for_the_caller_with_etag(store_client, make_game):
    game = make_game(seed=SEED)
    deck = shuffle(fake_engine.DECK, SEED, "deck")
    views = {}
    for who in ("north", "south", "referee"):
        response = store_client.get(f"/v1/games/{game['id']}", headers=game["auth"][who])
        assert response.status_code == 200
        assert response.headers["ETag"] == '"1"'
        views[who] = response.get_json()
    assert views["north"]["view"]["card"] == deck[0]
    assert views["south"]["view"]["card"] == deck[1]
    assert views["referee"]["view"]["cards"] == {"north": deck[0], "south": deck[1]}
    assert views["referee"]["view"]["deck"] == deck[2:]
    for who, body in views.items():
        assert body["viewer"] == who
        assert body["version"] == 1 and body["status"] == "active"
        assert body["seed_commitment"] == game["seed_commitment"]
        assert "seed" not in body


def test_if_none_match_gives_304_until_the_game_changes(store_client, make_game):
    game = make_game()
    url, auth = f"/v1/games/{game['id']}", game["auth"]["north"]
    response = store_client.get(url, headers={**auth, "If-None-Match": '"1"'})
    assert response.status_code == 304 and response.headers["ETag"] == '"1"'
    assert act(store_client, game, "north", {"type": "tick"}, 1).status_code == 200
    response = store_client.get(url, headers={**auth, "If-None-Match": 'W/"1"'})
    assert response.status_code == 200 and response.get_json()["version"] == 2
    response = store_client.get(url, headers={**auth, "If-None-Match": "*"})
    assert response.status_code == 304 and response.headers["ETag"] == '"2"'


# ----- actions -------------------------------------------------------------------


def test_action_appends_events_bumps_version_and_returns_the_view(store_client, make_game):
    game = make_game(seed=SEED)
    response = act(store_client, game, "north", {"type": "add", "amount": 2}, 1)
    assert response.status_code == 200
    assert response.headers["ETag"] == '"2"'
    body = response.get_json()
    assert body["version"] == 2 and body["status"] == "active"
    assert body["events"] == [{"seq": 5, "type": "added", "seat": "north", "amount": 2, "count": 2}]
    assert body["view"]["count"] == 2 and body["view"]["turn"] == "south"
    log = events_of(store_client, game)
    assert [e["seq"] for e in log["events"]] == [1, 2, 3, 4, 5] and log["version"] == 2
    assert log["last_seq"] == 5


@pytest.mark.parametrize("if_match", ['"1"', ' "1" '])
def test_if_match_header_names_the_version(store_client, make_game, if_match):
    game = make_game()
    response = act(store_client, game, "north", {"type": "tick"}, headers={"If-Match": if_match})
    assert response.status_code == 200 and response.get_json()["version"] == 2


def test_a_weak_etag_never_satisfies_if_match(store_client, make_game):
    """RFC 9110 13.1.1: If-Match uses the strong comparison; W/"1" does not match "1"."""
    game = make_game()
    body = assert_problem(
        act(store_client, game, "north", {"type": "tick"}, headers={"If-Match": 'W/"1"'}),
        412,
        "version-mismatch",
    )
    assert body["version"] == 1
    assert act(store_client, game, "north", {"type": "tick"}, 1).status_code == 200
    body = assert_problem(
        act(
            store_client,
            game,
            "south",
            {"type": "tick"},
            headers={"If-Match": 'W/"2"', "Idempotency-Key": "w2"},
        ),
        412,
        "version-mismatch",
    )
    assert body["version"] == 2
    assert version_of(store_client, game) == 2
    assert [e["seq"] for e in events_of(store_client, game)["events"]] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("version", [2**31, 2**63 - 1, 2**63, 2**64, 10**40])
def test_a_huge_version_is_412_never_500(store_client, make_game, version):
    game = make_game()
    for headers, body_version in (
        ({"If-Match": f'"{version}"'}, None),
        ({}, version),
        ({"If-Match": f'"{version}"', "Idempotency-Key": "k1"}, None),
        ({"Idempotency-Key": "k2"}, version),
    ):
        body = assert_problem(
            act(store_client, game, "north", {"type": "tick"}, body_version, headers),
            412,
            "version-mismatch",
        )
        assert body["version"] == 1
    assert version_of(store_client, game) == 1


@pytest.mark.parametrize(
    "raw",
    ['{"type": "tick", "\\ud800": 1}', '{"type": "\\udfff"}', '{"type": "tick", "x": ["\\uD834"]}'],
)
def test_an_unpaired_surrogate_in_an_action_is_400_never_500(store_client, make_game, raw):
    """No UTF-8 writes an unpaired surrogate: the request hash of an Idempotency-Key
    and the service's own JSON text of the body failed on it (a 500) before the body
    was refused as JSON that is not Unicode text."""
    game = make_game()
    for headers in ({}, {"Idempotency-Key": "k-surrogate"}):
        response = store_client.post(
            f"/v1/games/{game['id']}/actions",
            data=raw,
            headers={**game["auth"]["north"], **headers, "If-Match": '"1"'},
            content_type="application/json",
        )
        assert "unpaired surrogate" in assert_problem(response, 400, "invalid-json")["detail"]
    assert version_of(store_client, game) == 1


def test_stale_version_is_412_with_the_current_version_and_writes_nothing(store_client, make_game):
    game = make_game()
    assert act(store_client, game, "north", {"type": "tick"}, 1).status_code == 200
    before = events_of(store_client, game)
    body = assert_problem(
        act(store_client, game, "south", {"type": "tick"}, 1), 412, "version-mismatch"
    )
    assert body["version"] == 2
    body = assert_problem(
        act(store_client, game, "south", {"type": "tick"}, headers={"If-Match": '"7"'}),
        412,
        "version-mismatch",
    )
    assert body["version"] == 2
    assert events_of(store_client, game) == before


def test_missing_version_is_428(store_client, make_game):
    game = make_game()
    assert_problem(act(store_client, game, "north", {"type": "tick"}), 428, "version-required")
    assert_problem(
        act(store_client, game, "north", {"type": "tick"}, headers={"If-Match": "*"}),
        428,
        "version-required",
    )
    assert version_of(store_client, game) == 1


def test_realtime_game_takes_the_version_as_optional(store_client, make_game, monkeypatch):
    """Real-time games (REALTIME = True, e.g. Halves): no version needed; strict if given."""
    monkeypatch.setattr(fake_engine, "REALTIME", True, raising=False)
    game = make_game()
    assert act(store_client, game, "north", {"type": "tick"}).status_code == 200
    assert (
        act(store_client, game, "south", {"type": "tick"}, headers={"If-Match": "*"}).status_code
        == 200
    )
    body = assert_problem(
        act(store_client, game, "south", {"type": "tick"}, 1), 412, "version-mismatch"
    )
    assert body["version"] == 3
    assert act(store_client, game, "south", {"type": "tick"}, 3).status_code == 200
    assert version_of(store_client, game) == 4


def test_refusal_names_its_rule(store_client, make_game, monkeypatch):
    """G-R1: a RuleViolation's rule ID reaches the problem as "rule"."""

    def refuse(state, actor, action):
        raise fake_engine.RuleViolation("not-your-turn", "wait", 409, rule="TW-T2")

    monkeypatch.setattr(fake_engine, "apply", refuse)
    game = make_game()
    body = assert_problem(
        act(store_client, game, "north", {"type": "tick"}, 1), 409, "not-your-turn"
    )
    assert body["rule"] == "TW-T2"


def test_malformed_or_conflicting_versions_are_400(store_client, make_game):
    game = make_game()
    for bad in (
        '"one"',
        '"1',
        '1"',
        '"1", "2"',
        "1",
        "W/1",
        '"01"',
        '"-1"',
        '""',
        '"1"\t"1"',
        'W/"x"',
        '"' + "9" * 101 + '"',
    ):
        assert_problem(
            act(store_client, game, "north", {"type": "tick"}, headers={"If-Match": bad}),
            400,
            "invalid-if-match",
        )
    assert_problem(
        act(store_client, game, "north", {"type": "tick"}, 1, headers={"If-Match": '"2"'}),
        400,
        "conflicting-versions",
    )
    assert version_of(store_client, game) == 1


@pytest.mark.parametrize(
    "who, body, status, code",
    [
        ("south", {"type": "add", "amount": 1}, 409, "not-your-turn"),
        ("north", {"type": "add", "amount": 4}, 422, "invalid-amount"),
        ("north", {"type": "fly"}, 422, "unknown-action"),
    ],
)
def test_rule_violation_is_a_problem_with_the_engines_code_and_writes_nothing(
    store_client, make_game, who, body, status, code
):
    game = make_game()
    before = events_of(store_client, game)
    assert_problem(act(store_client, game, who, body, 1), status, code)
    assert events_of(store_client, game) == before


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"type": 3},
        {"type": "place", "tile": True},
        {"type": "place", "tile": 2.5},
        {"type": "place", "cell": [1]},
        {"type": "place", "cell": [1, -1]},
        {"type": "place", "cell": ["1", 2]},
        {"type": "place", "cells": [[1, 2], [3]]},
        {"type": "discard", "tiles": [1, None]},
        {"type": "declare", "cards": "AS"},
        {"type": "tick", "expected_version": "1"},
    ],
)
def test_action_body_is_typed(store_client, make_game, body):
    game = make_game()
    body = assert_problem(
        store_client.post(
            f"/v1/games/{game['id']}/actions", json=body, headers=game["auth"]["north"]
        ),
        422,
        "invalid-body",
    )
    assert body["errors"]


def test_fields_the_schema_does_not_name_reach_the_engine(store_client, make_game):
    game = make_game()
    response = act(store_client, game, "north", {"type": "add", "amount": 3}, 1)
    assert response.get_json()["view"]["count"] == 3


def test_legal_actions_can_be_posted_as_they_are(store_client, make_game):
    game = make_game(options={"target": 6})
    for _ in range(20):
        response = store_client.get(
            f"/v1/games/{game['id']}/legal-actions", headers=game["auth"]["north"]
        )
        assert response.status_code == 200
        listing = response.get_json()
        if not listing["actions"]:
            break
        first = listing["actions"][0]
        posted = act(store_client, game, "north", first, listing["version"])
        assert posted.status_code == 200, posted.get_data(as_text=True)
        if posted.get_json()["view"]["turn"] == "south":
            posted = act(
                store_client,
                game,
                "south",
                {"type": "add", "amount": 1},
                posted.get_json()["version"],
            )
            assert posted.status_code == 200
    else:
        pytest.fail("the game never finished")
    assert version_of(store_client, game) > 3


def test_finishing_reveals_the_seed_matching_its_commitment(store_client, make_game):
    game = make_game(options={"target": 2}, seed=SEED)
    response = act(store_client, game, "north", {"type": "add", "amount": 2}, 1)
    body = response.get_json()
    assert body["status"] == "finished" and body["seed"] == SEED
    assert [e["type"] for e in body["events"]] == ["added", "game-ended"]
    view = store_client.get(f"/v1/games/{game['id']}", headers=game["auth"]["south"]).get_json()
    assert view["status"] == "finished" and view["seed"] == SEED
    assert hashlib.sha256(view["seed"].encode()).hexdigest() == view["seed_commitment"]
    assert_problem(act(store_client, game, "south", {"type": "tick"}, 2), 409, "game-over")
    listing = store_client.get(
        f"/v1/games/{game['id']}/legal-actions", headers=game["auth"]["south"]
    ).get_json()
    assert listing == {"game": "counter", "version": 2, "actions": []}


# ----- events --------------------------------------------------------------------


def test_events_after_and_limit_page_through_the_log(store_client, make_game):
    game = make_game()
    for version in (1, 2, 3):
        assert act(store_client, game, "north", {"type": "tick"}, version).status_code == 200
    log = events_of(store_client, game, "referee", after=4)
    assert [e["seq"] for e in log["events"]] == [5, 6, 7]
    assert [e["count"] for e in log["events"]] == [1, 2, 3]
    assert log["version"] == 4 and log["last_seq"] == 7
    page = store_client.get(
        f"/v1/games/{game['id']}/events?after=0&limit=2", headers=game["auth"]["north"]
    ).get_json()
    # north never sees "shuffled" (seq 2): the page examined seqs 1..2, shows seq 1
    assert [e["seq"] for e in page["events"]] == [1] and page["last_seq"] == 2
    assert events_of(store_client, game, after=7)["events"] == []


@pytest.mark.parametrize("after", [4, 5, 50, 2**31, 2**63 - 1])
def test_last_seq_never_passes_the_end_of_the_log(store_client, make_game, after):
    """Following last_seq from beyond the end must not skip the events still to come."""
    game = make_game()  # seqs 1..4
    log = events_of(store_client, game, "north", after=after)
    assert log["events"] == [] and log["last_seq"] == 4
    assert act(store_client, game, "north", {"type": "tick"}, 1).status_code == 200
    assert act(store_client, game, "south", {"type": "tick"}, 2).status_code == 200
    page = events_of(store_client, game, "north", after=log["last_seq"])
    assert [e["seq"] for e in page["events"]] == [5, 6] and page["last_seq"] == 6
    assert events_of(store_client, game, "north", after=6)["last_seq"] == 6


def test_paging_by_last_seq_sees_every_visible_event_once(store_client, make_game):
    game = make_game()
    for version in range(1, 6):
        assert act(store_client, game, "north", {"type": "tick"}, version).status_code == 200
    everything = events_of(store_client, game, "north")["events"]
    seen, after = [], 0
    while True:
        page = store_client.get(
            f"/v1/games/{game['id']}/events?after={after}&limit=2", headers=game["auth"]["north"]
        ).get_json()
        seen += page["events"]
        assert after <= page["last_seq"] <= 9
        if page["last_seq"] == after:
            break
        after = page["last_seq"]
    assert seen == everything and [e["seq"] for e in seen] == [1, 3, 4, 5, 6, 7, 8, 9]


@pytest.mark.parametrize(
    "query",
    [
        "after=-1",
        "after=x",
        "limit=0",
        "limit=1001",
        f"after={2**63}",
        f"after={10**40}",
        f"limit={2**63}",
        f"after=0&limit={2**64}",
    ],
)
def test_bad_event_queries_are_422(store_client, make_game, query):
    game = make_game()
    body = assert_problem(
        store_client.get(f"/v1/games/{game['id']}/events?{query}", headers=game["auth"]["north"]),
        422,
        "invalid-query",
    )
    assert set(body["errors"]["query"]) == {query.split("=")[-2].split("&")[-1]}


# ----- idempotency ---------------------------------------------------------------


def test_same_key_same_body_replays_the_first_response_once(store_client, make_game):
    game = make_game()
    key = {"Idempotency-Key": "k-1"}
    first = act(store_client, game, "north", {"type": "add", "amount": 2}, 1, headers=key)
    again = act(store_client, game, "north", {"type": "add", "amount": 2}, 1, headers=key)
    assert first.status_code == again.status_code == 200
    assert again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["ETag"] == '"2"'
    assert version_of(store_client, game) == 2
    assert [e["type"] for e in events_of(store_client, game)["events"]].count("added") == 1
    # the same request through If-Match instead of expected_version is the same request
    same = act(
        store_client,
        game,
        "north",
        {"type": "add", "amount": 2},
        headers={**key, "If-Match": '"1"'},
    )
    assert same.get_json() == first.get_json()


def test_same_key_other_body_is_422_reused(store_client, make_game):
    game = make_game()
    key = {"Idempotency-Key": "k-2"}
    assert act(store_client, game, "north", {"type": "tick"}, 1, headers=key).status_code == 200
    assert_problem(
        act(store_client, game, "north", {"type": "tick"}, 2, headers=key),
        422,
        "idempotency-key-reused",
    )
    assert_problem(
        act(store_client, game, "north", {"type": "add", "amount": 1}, 1, headers=key),
        422,
        "idempotency-key-reused",
    )
    assert version_of(store_client, game) == 2


def test_a_refused_first_response_is_replayed_too(store_client, make_game):
    game = make_game()
    key = {"Idempotency-Key": "k-3"}
    first = act(store_client, game, "south", {"type": "add", "amount": 1}, 1, headers=key)
    assert_problem(first, 409, "not-your-turn")
    assert act(store_client, game, "north", {"type": "tick"}, 1).status_code == 200
    again = act(store_client, game, "south", {"type": "add", "amount": 1}, 1, headers=key)
    assert_problem(again, 409, "not-your-turn")
    assert again.get_json() == first.get_json()


def test_a_stale_version_refusal_leaves_its_key_free_for_the_retry(store_client, make_game):
    """A 412 (stale version) is about the request's precondition, not the game: it is
    not recorded under the Idempotency-Key, so the retry with the version the 412
    named and the same key is acted on (and then replayed as usual)."""
    game = make_game()
    assert act(store_client, game, "north", {"type": "tick"}, 1).status_code == 200
    key = {"Idempotency-Key": "k-stale"}
    stale = act(store_client, game, "south", {"type": "tick"}, 1, headers=key)
    assert assert_problem(stale, 412, "version-mismatch")["version"] == 2
    retry = act(store_client, game, "south", {"type": "tick"}, 2, headers=key)
    assert retry.status_code == 200 and "Idempotent-Replayed" not in retry.headers
    again = act(store_client, game, "south", {"type": "tick"}, 2, headers=key)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == retry.get_json()
    assert version_of(store_client, game) == 3


def test_keys_are_scoped_per_caller_and_per_game(store_client, make_game):
    one, two = make_game(), make_game()
    key = {"Idempotency-Key": "shared"}
    assert act(store_client, one, "north", {"type": "tick"}, 1, headers=key).status_code == 200
    south = act(store_client, one, "south", {"type": "tick"}, 2, headers=key)
    assert south.status_code == 200 and south.get_json()["version"] == 3
    other = act(store_client, two, "north", {"type": "tick"}, 1, headers=key)
    assert other.status_code == 200 and "Idempotent-Replayed" not in other.headers


@pytest.mark.parametrize("key", ["", "x" * 256, "sp ace", "é"])
def test_malformed_idempotency_key_is_400(store_client, make_game, key):
    game = make_game()
    response = store_client.post(
        f"/v1/games/{game['id']}/actions",
        json={"type": "tick", "expected_version": 1},
        headers={**game["auth"]["north"], "Idempotency-Key": key.encode().decode("latin-1")},
    )
    assert_problem(response, 400, "invalid-idempotency-key")


def test_a_second_request_with_a_key_in_flight_waits_and_replays_the_first(
    store_client, make_game, monkeypatch
):
    """Two requests with one key at once: one effect, the same answer twice (one of
    them replayed), never a 409 between them. Both read the game without its lock
    (optimistic: PostgreSQL's row lock, SQLite's writer lock) and run the engine; the
    one that writes second meets the other's events or key record (a unique
    violation), is done again with the game locked and replays the other's reply."""
    game = make_game()
    entered, release = threading.Event(), threading.Event()
    real_apply, applied = fake_engine.apply, []

    def slow_apply(state, actor, action):
        applied.append(action)
        if action.get("type") == "add":
            entered.set()
            assert release.wait(20)
        return real_apply(state, actor, action)

    monkeypatch.setattr(fake_engine, "apply", slow_apply)
    key = {"Idempotency-Key": "slow"}
    results = {}
    app = store_client.application

    def send(name):
        results[name] = act(
            app.test_client(), game, "north", {"type": "add", "amount": 1}, 1, headers=key
        )

    first = threading.Thread(target=send, args=("first",))
    first.start()
    second = threading.Thread(target=send, args=("second",))
    try:
        assert entered.wait(20)
        second.start()
        second.join(0.5)
        assert second.is_alive() and "second" not in results  # waiting on the first
    finally:
        release.set()
        first.join(30)
        if second.ident is not None:  # started
            second.join(30)
    replies = [results["first"], results["second"]]
    assert [r.status_code for r in replies] == [200, 200]
    assert sorted(r.headers.get("Idempotent-Replayed", "") for r in replies) == ["", "true"]
    assert replies[0].get_json() == replies[1].get_json()
    assert len(applied) == 2  # the engine ran once per reader, one write landed
    assert version_of(store_client, game) == 2
    assert [e["type"] for e in events_of(store_client, game)["events"]].count("added") == 1


def test_a_claim_left_in_flight_by_the_previous_release_is_409(store_client, make_game):
    """The previous release claimed a key in a transaction of its own before acting: a
    claim younger than IDEMPOTENCY_IN_FLIGHT_SECONDS may still be running on an old
    worker (rolling upgrade): 409 with Retry-After, and nothing happens."""
    from service.store import get_store, request_hash
    from service.store.models import IN_FLIGHT, IdempotencyKey, utcnow

    game = make_game()
    body = {"type": "add", "amount": 1}
    store = get_store(store_client.application)
    with store.uow.transaction() as session:
        session.add(
            IdempotencyKey(
                game_id=game["id"],
                actor="north",
                key="old-worker",
                request_hash=request_hash({"action": body, "version": 1}),
                state=IN_FLIGHT,
                created_at=utcnow(),
            )
        )
    busy = act(store_client, game, "north", body, 1, headers={"Idempotency-Key": "old-worker"})
    assert_problem(busy, 409, "idempotency-key-in-flight")
    assert busy.headers["Retry-After"] == "1"
    assert version_of(store_client, game) == 1


def test_a_failed_request_releases_its_key(store_client, make_game, monkeypatch):
    game = make_game()
    real_apply, calls = fake_engine.apply, []

    def failing_once(state, actor, action):
        calls.append(action)
        if len(calls) == 1:
            raise ZeroDivisionError("engine bug")
        return real_apply(state, actor, action)

    monkeypatch.setattr(fake_engine, "apply", failing_once)
    key = {"Idempotency-Key": "boom"}
    with pytest.raises(ZeroDivisionError):  # TESTING propagates; served, it is a 500
        act(store_client, game, "north", {"type": "tick"}, 1, headers=key)
    retry = act(store_client, game, "north", {"type": "tick"}, 1, headers=key)
    assert retry.status_code == 200 and "Idempotent-Replayed" not in retry.headers
    assert len(calls) == 2


def test_create_takes_no_idempotency_key_so_tokens_are_never_kept(store_client):
    """Ruling: replaying a create would need its tokens in plaintext; a retry makes
    another game instead (the first one stays unused)."""
    key = {"Idempotency-Key": "create-1"}
    body = {"game": "counter", "options": {"target": 4}}
    first = store_client.post("/v1/games", json=body, headers=key)
    again = store_client.post("/v1/games", json=body, headers=key)
    assert first.status_code == again.status_code == 201
    assert first.get_json()["id"] != again.get_json()["id"]
    assert "Idempotent-Replayed" not in again.headers
