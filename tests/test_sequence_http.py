"""Whole Sequence / Sequence Numbers games through the game store's HTTP API."""

from __future__ import annotations

import random

import pytest

from service.games.rng import commitment

SEED = "c3" * 32


def get(client, game, who, path=""):
    response = client.get(f"/v1/games/{game['id']}{path}", headers=game["auth"][who])
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def post(client, game, who, body, version):
    return client.post(
        f"/v1/games/{game['id']}/actions",
        json={**body, "expected_version": version},
        headers=game["auth"][who],
    )


@pytest.mark.parametrize(
    "name, options",
    [
        ("sequence", {"players": 2}),
        ("sequence-numbers", {"players": 3, "dealing": "table"}),
    ],
)
def test_a_whole_game_over_http_ends_and_reveals_the_seed(store_client, make_game, name, options):
    game = make_game(name, options, SEED)
    assert game["seed_commitment"] == commitment(SEED)
    who_acts = [*game["seats"], "referee"]
    rnd = random.Random(7)
    for _ in range(3000):
        legal = {who: get(store_client, game, who, "/legal-actions") for who in who_acts}
        movers = [
            who
            for who in who_acts
            if legal[who]["actions"]
            and not (
                who == "referee" and all(a["type"] == "penalty" for a in legal[who]["actions"])
            )
        ]
        if not movers:
            break
        who = rnd.choice(movers)
        action = rnd.choice(legal[who]["actions"])
        response = post(store_client, game, who, action, legal[who]["version"])
        assert response.status_code == 200, response.get_data(as_text=True)
        if response.get_json()["status"] == "finished":
            break
    final = get(store_client, game, "p1")
    assert final["status"] == "finished"
    assert final["view"]["seed"] == SEED and final["view"]["result"]["reason"]
    # one result shape: the game body, the view and the game-ended event agree
    ended = get(store_client, game, "p2", "/events")["events"][-1]
    assert ended["type"] == "game-ended" and ended["result"] == final["result"]
    assert final["result"] == final["view"]["result"]
    assert set(final["result"]) == {"winners", "scores", "reason", "sequence"}
    assert set(final["result"]["scores"]) == set(game["seats"])


def test_http_refusals_carry_the_engines_codes(store_client, make_game):
    game = make_game("sequence", {"players": 2}, SEED)
    version = get(store_client, game, "p2")["version"]
    response = post(store_client, game, "p2", {"type": "pass"}, version)
    assert response.status_code == 409 and response.get_json()["code"] == "not-your-turn"
    move = get(store_client, game, "p1", "/legal-actions")["actions"][0]
    response = post(store_client, game, "referee", {**move, "seat": "p1"}, version)
    assert response.status_code == 403
    assert response.get_json()["code"] == "referee-not-allowed"
    response = post(store_client, game, "p1", {**move, "seat": "p2"}, version)
    assert response.status_code == 403  # the store or the engine (not-your-seat) refuses
    response = post(
        store_client, game, "p1", {"type": "play", "card": "ZZ", "cell": [0, 1]}, version
    )
    assert response.status_code == 422 and response.get_json()["code"] == "invalid-card"
    assert response.get_json()["rule"] == "SQ-C2"  # G-R1: the problem names the rule


def test_http_event_log_hides_the_other_hand(store_client, make_game):
    game = make_game("sequence", {"players": 2}, SEED)
    own = get(store_client, game, "p1", "/events")["events"]
    other = get(store_client, game, "p2", "/events")["events"]
    dealt_own = [e for e in own if e["type"] == "dealt" and e["seat"] == "p1"][0]
    dealt_seen = [e for e in other if e["type"] == "dealt" and e["seat"] == "p1"][0]
    assert len(dealt_own["cards"]) == 7
    assert "cards" not in dealt_seen and dealt_seen["count"] == 7
    created = [e for e in other if e["type"] == "game-created"][0]
    assert "seed" not in created
    view = get(store_client, game, "p2")["view"]
    assert "hands" not in view and len(view["hand"]) == 7
