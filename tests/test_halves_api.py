"""Halves over HTTP (Flask test client): the stateless check (HV-T1), the catalog, and
games in the store (SQLite and PostgreSQL): views, legal actions, races without a
version (HV-T3), refusals as problems with their rule (G-R1), idempotent replays."""

from __future__ import annotations

import json

import pytest

from helpers import assert_problem
from service.games import halves

SEED = "5e" * 32


def check(client, **body):
    return client.post("/v1/halves/plays/check", json=body)


# ----- POST /v1/halves/plays/check -----


def test_hv_t1_check_per_half_by_colour_then_by_symbol(client):
    response = check(client, top="RC-GS", card="rt-bs")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.get_json() == {
        "matches": True,
        "code": None,
        "matches_turned": False,
        "rule": "HV-T1",
        "match": "per_half",
        "top": "RC-GS",
        "card": "RT-BS",
        "turned": False,
        "laid": "RT-BS",
        "halves": [
            {"by": "colour", "colour": True, "symbol": False},
            {"by": "symbol", "colour": False, "symbol": True},
        ],
        "detail": "RT-BS goes on RC-GS",
    }


def test_hv_t1_check_turned_and_the_other_way_round(client):
    held = check(client, top="RC-GS", card="BS-RT").get_json()
    assert (held["matches"], held["matches_turned"]) == (False, True)
    assert held["halves"] == [{"by": None, "colour": False, "symbol": False}] * 2
    turned = check(client, top="RC-GS", card="BS-RT", turned=True).get_json()
    assert (turned["matches"], turned["laid"], turned["card"]) == (True, "RT-BS", "BS-RT")
    # the top is read as it lies: RC-GS turned round is GS-RC, and RT-BS no longer fits
    assert check(client, top="GS-RC", card="RT-BS").get_json()["matches"] is False


def test_hv_t1_check_whole_card(client):
    mixed = check(client, top="RC-GS", card="RT-BS", match="whole_card").get_json()
    assert mixed["matches"] is False and [h["by"] for h in mixed["halves"]] == [None, None]
    same = check(client, top="RC-GS", card="RT-GX", match="whole_card").get_json()
    assert same["matches"] and [h["by"] for h in same["halves"]] == ["colour", "colour"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"top": "RZ-GS", "card": "RT-BS"}, "top"),
        ({"top": "RC-GS", "card": "RTBS9"}, "card"),
        ({"top": "RC-GS", "card": 12}, "card"),
        ({"top": "RC-GS"}, "card"),
        ({"top": "RC-GS", "card": "RT-BS", "turned": "true"}, "turned"),
        ({"top": "RC-GS", "card": "RT-BS", "match": "halves"}, "match"),
    ],
)
def test_hv_c1_check_bad_input_is_422_naming_the_field(client, body, field):
    problem = assert_problem(check(client, **body), 422, "invalid-body")
    assert list(problem["errors"]["json"]) == [field]


def test_the_catalog_lists_halves_as_realtime_with_its_options(client):
    games = {g["game"]: g for g in client.get("/v1/games/catalog").get_json()["games"]}
    entry = games["halves"]
    assert entry["realtime"] is True and entry["players"] == list(range(2, 15))
    assert [o["name"] for o in entry["options"]] == [
        "players",
        "dealing",
        "first_seat",
        "match",
        "allow_turning",
        "deck",
        "idle_seconds",
    ]
    assert games["sequence"]["realtime"] is False


# ----- games in the store -----


def act(client, game, who, action, headers=None):
    return client.post(
        f"/v1/games/{game['id']}/actions",
        json=action,
        headers={**game["auth"][who], **(headers or {})},
    )


def get(client, game, who, path=""):
    response = client.get(f"/v1/games/{game['id']}{path}", headers=game["auth"][who])
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def local(seed=SEED, **options) -> dict:
    """The same game folded here from the seed (to know every hand)."""
    state = None
    for event in halves.new_game("halves", options, seed):
        state = halves.fold(state, event)
    return state


def test_hv_t3_plays_race_without_a_version_and_the_second_is_stale(store_client, make_game):
    game = make_game("halves", {"players": 3}, SEED)
    state = local(players=3)
    top = halves.top(state)["card"]
    view = get(store_client, game, "p2")
    assert view["view"]["hand"] == state["hands"]["p2"]
    assert view["view"]["top"]["card"] == top and view["view"]["central_pile"] == 1
    # two seats that can both play on the first top: the first recorded wins
    racers = [s for s in ("p1", "p2", "p3") if halves.can_play(state, s)]
    legal = {s: get(store_client, game, s, "/legal-actions")["actions"] for s in racers}
    assert all(a["based_on"] == top for s in racers for a in legal[s] if a["type"] == "play")
    first, second = [next(a for a in legal[s] if a["type"] == "play") for s in racers[:2]]
    won = act(store_client, game, racers[0], first)
    assert won.status_code == 200 and won.headers["ETag"] == '"2"'
    lost = act(store_client, game, racers[1], second, {"Idempotency-Key": "k1"})
    body = assert_problem(lost, 409, "stale-top-card")
    assert body["rule"] == "HV-T3" and body["top"]["card"] == first["card"]
    assert body["top"]["halves"] == list(halves.laid(first["card"], first["turned"]))
    # a retry with the same key answers the same refusal, no second effect
    again = act(store_client, game, racers[1], second, {"Idempotency-Key": "k1"})
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == body
    assert second["card"] in get(store_client, game, racers[1])["view"]["hand"]


def test_hv_t3_if_match_is_optional_but_strict_when_given(store_client, make_game):
    game = make_game("halves", {"players": 3}, SEED)
    state = local(players=3)
    seat = next(s for s in state["seats"] if halves.can_play(state, s))
    play = halves.legal_actions(state, seat)[0]
    assert play["type"] == "play"
    assert_problem(
        act(store_client, game, seat, play, {"If-Match": '"7"'}), 412, "version-mismatch"
    )
    assert act(store_client, game, seat, play, {"If-Match": '"1"'}).status_code == 200
    # without a version the rules alone decide: the seat holds 3, draws one, then is full
    drawn = act(store_client, game, seat, {"type": "draw"})
    assert (
        drawn.status_code == 200
        and drawn.get_json()["events"][0]["card"] == state["piles"][seat][0]
    )
    body = assert_problem(act(store_client, game, seat, {"type": "draw"}), 409, "hand-full")
    assert body["rule"] == "HV-T2"
    assert get(store_client, game, seat)["version"] == 3


def test_views_and_events_show_each_seat_only_its_own_cards(store_client, make_game):
    game = make_game("halves", {"players": 2}, SEED)
    state = local()
    seen = get(store_client, game, "p2", "/events")["events"]
    assert [e["type"] for e in seen[:4]] == ["game-created", "dealt", "dealt", "pile-turned"]
    assert seen[1] == {"seq": 2, "type": "dealt", "seat": "p1", "count": 36}
    assert seen[2]["hand"] == state["hands"]["p2"] and "cards" not in seen[2]
    assert "seed" not in seen[0] and seen[0]["seed_commitment"] == game["seed_commitment"]
    text = json.dumps(get(store_client, game, "p2"))
    assert not [
        c for c in state["hands"]["p1"] + state["piles"]["p1"] + state["piles"]["p2"] if c in text
    ]
    referee = get(store_client, game, "referee")["view"]
    assert referee["hands"] == state["hands"] and "piles" not in referee


def test_hv_c1_a_bad_custom_deck_is_a_422_naming_the_card(store_client):
    deck = ["RC-GS", "RT-BS", "GT-YC", "RC-RC", "BX-YS"] + list(halves.DEFAULT_DECK[20:30])
    response = store_client.post("/v1/games", json={"game": "halves", "options": {"deck": deck}})
    body = assert_problem(response, 422, "invalid-option")
    assert body["rule"] == "HV-C1" and "deck[3] RC-RC" in body["detail"]
    assert list(body["errors"]["json"]["options"]["deck"]) == ["3"]


def test_hv_e1_a_finished_game_refuses_a_late_play_as_game_over(store_client, make_game):
    game = make_game("halves", {"players": 2}, SEED)
    aimed = None
    for _ in range(500):
        view = get(store_client, game, "referee")
        if view["status"] != "active":
            break
        for seat in ("p1", "p2"):
            actions = get(store_client, game, seat, "/legal-actions")["actions"]
            plays = [a for a in actions if a["type"] == "play"]
            if plays or actions:
                chosen = (plays or actions)[0]
                aimed = (seat, chosen) if plays else aimed
                assert act(store_client, game, seat, chosen).status_code == 200
                break
    final = get(store_client, game, "p1")
    assert final["status"] == "finished" and final["seed"] == SEED
    result = final["view"]["result"]
    assert result["reason"] == "out" and len(result["winners"]) == 1
    assert result["scores"][result["winners"][0]] == 1
    seat, play = aimed
    body = assert_problem(act(store_client, game, seat, play), 409, "game-over")
    assert body["rule"] == "HV-E1"  # over stale: the game is over first


def test_hv_m1_table_mode_over_http(store_client, make_game):
    game = make_game("halves", {"players": 2, "dealing": "table"})
    assert_problem(act(store_client, game, "p1", {"type": "draw"}), 403, "referee-reports")
    assert act(store_client, game, "referee", {"type": "deal", "card": "RC-GS"}).status_code == 200
    response = act(store_client, game, "referee", {"type": "play", "seat": "p1", "card": "RT-BS"})
    assert response.status_code == 200
    assert response.get_json()["events"][0] == {
        "seq": 5,
        "type": "played",
        "seat": "p1",
        "card": "RT-BS",
        "turned": False,
        "based_on": "RC-GS",
    }
    body = assert_problem(
        act(
            store_client,
            game,
            "referee",
            {"type": "play", "seat": "p2", "card": "RT-BS", "turned": True},
        ),
        409,
        "card-not-available",
    )
    assert body["rule"] == "G-M2"


def test_hv_t1_check_any_half(client):
    crossed = check(client, top="RC-GS", card="BS-YC", match="any_half").get_json()
    assert (crossed["matches"], crossed["matches_turned"], crossed["code"]) == (True, True, None)
    assert crossed["halves"] == [{"by": "symbol", "colour": False, "symbol": True}] * 2
    assert check(client, top="RC-GS", card="BS-YC").get_json()["matches"] is False
    assert_problem(check(client, top="RC-GS", card="BS-YC", match="any"), 422)
