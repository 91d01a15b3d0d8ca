"""G-P1 at the API, generic over the engine contract, with the test engine
(tests/fake_engine.py: a position is {"game": "counter", "count", "turn", "cards"?,
"deck"?}): POST /v1/games with a position, GET /v1/games/{id}/position as each
caller may see it, the round trip, the export and import, the API key, the contract."""

from __future__ import annotations

import pytest

import fake_engine
from service import create_app
from service.store import get_feed, get_store

SEED = "0f" * 32
POSITION = {
    "game": "counter",
    "count": 7,
    "turn": "south",
    "cards": {"north": "card-03", "south": "card-09"},
}


def _create(client, position: dict, game: str = "counter", headers: dict | None = None, **body):
    return client.post(
        "/v1/games",
        json={"game": game, "position": position, "seed": SEED, **body},
        headers=headers or {},
    )


def _auth(created: dict) -> dict[str, dict[str, str]]:
    tokens = {seat: entry["token"] for seat, entry in created["seats"].items()}
    tokens["referee"] = created["referee_token"]
    return {who: {"Authorization": f"Bearer {token}"} for who, token in tokens.items()}


def _position(client, created: dict, who: str):
    return client.get(f"/v1/games/{created['id']}/position", headers=_auth(created)[who])


def test_g_p1_a_game_starts_from_the_stated_position(store_client):
    response = _create(store_client, POSITION)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    view = store_client.get(
        f"/v1/games/{created['id']}", headers=_auth(created)["referee"]
    ).get_json()["view"]
    assert (view["count"], view["turn"], view["cards"]) == (7, "south", POSITION["cards"])
    assert view["from_position"] is True
    assert sorted(view["deck"] + list(view["cards"].values())) == fake_engine.DECK
    events = store_client.get(
        f"/v1/games/{created['id']}/events", headers=_auth(created)["north"]
    ).get_json()["events"]
    assert events[0]["from_position"] is True
    assert events[1]["type"] == "position-set"
    # play goes on from there: south is on turn
    moved = store_client.post(
        f"/v1/games/{created['id']}/actions",
        headers=_auth(created)["south"],
        json={"type": "add", "amount": 3, "expected_version": 1},
    )
    assert moved.get_json()["view"]["status"] == "finished"  # 7 + 3 reaches the target


def test_g_p1_a_fresh_deal_says_it_is_not_from_a_position(store_client, make_game):
    game = make_game()
    view = store_client.get(f"/v1/games/{game['id']}", headers=game["auth"]["north"])
    assert view.get_json()["view"]["from_position"] is False


def test_g_p1_unplaced_cards_are_dealt_from_the_seed(store_client):
    stated = {"game": "counter", "count": 0, "turn": "north", "cards": {"north": "card-11"}}
    views = []
    for _ in range(2):
        created = _create(store_client, stated).get_json()
        views.append(
            store_client.get(
                f"/v1/games/{created['id']}", headers=_auth(created)["referee"]
            ).get_json()["view"]
        )
    assert views[0]["cards"]["north"] == "card-11"
    assert views[0]["cards"]["south"] != "card-11"
    assert views[0]["deck"] == views[1]["deck"]  # the same seed deals the same


@pytest.mark.parametrize(
    "position, field",
    [
        ({**POSITION, "count": 10}, "count"),  # the target is reached: no play gets there
        ({**POSITION, "turn": "nobody"}, "turn"),
        ({**POSITION, "cards": {"north": "card-03", "south": "card-03"}}, "cards"),
        ({**POSITION, "cards": {"north": "card-99"}}, "cards.north"),
        ({**POSITION, "deck": ["card-00"]}, "deck"),
    ],
)
def test_g_p1_an_unreachable_position_is_422_naming_field_and_rule(store_client, position, field):
    response = _create(store_client, position)
    body = response.get_json()
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    assert (body["code"], body["rule"], body["field"]) == ("invalid-position", "G-P1", field)
    assert list(body["errors"]["json"]) == [f"position.{field}"]


def test_g_p1_a_position_of_another_game_is_422(store_client):
    response = _create(store_client, {**POSITION, "game": "two-way"})
    body = response.get_json()
    assert (response.status_code, body["code"], body["field"]) == (422, "invalid-position", "game")
    assert body["detail"].endswith('its game is "two-way".')
    nameless = {k: v for k, v in POSITION.items() if k != "game"}
    assert (
        _create(store_client, nameless)
        .get_json()["detail"]
        .endswith(
            "its game is null."  # in JSON's words, not Python's None
        )
    )


@pytest.mark.parametrize("position", [[], "count 7", None])
def test_g_p1_a_position_that_is_not_an_object_is_422(store_client, position):
    response = _create(store_client, position)
    assert response.status_code == 422
    assert "position" in response.get_json()["errors"]["json"]


def test_g_p1_an_engine_without_positions_refuses_them(store_client, monkeypatch):
    monkeypatch.delattr(fake_engine, "start_from_position")
    body = _create(store_client, POSITION).get_json()
    assert (body["status"], body["code"], body["rule"]) == (422, "invalid-position", "G-P1")


def test_g_p1_creating_from_a_position_needs_the_api_key(db_url, counter_engine):
    key = "k" * 20
    app = create_app({"TESTING": True, "DATABASE_URL": db_url, "API_KEYS": (key,)})
    try:
        client = app.test_client()
        refused = _create(client, POSITION)
        assert (refused.status_code, refused.get_json()["code"]) == (401, "api-key-required")
        assert _create(client, POSITION, headers={"X-API-Key": key}).status_code == 201
    finally:
        get_feed(app).close()
        get_store(app).dispose()


def test_g_p1_each_caller_reads_the_position_it_may_see(store_client):
    created = _create(store_client, POSITION).get_json()
    north = _position(store_client, created, "north")
    assert north.status_code == 200
    assert north.headers["ETag"] == '"1"'
    assert north.headers["Cache-Control"] == "no-store"
    body = north.get_json()
    assert (body["game"], body["version"], body["viewer"]) == ("counter", 1, "north")
    assert body["position"] == {
        "game": "counter",
        "count": 7,
        "turn": "south",
        "cards": {"north": "card-03", "south": None},
    }
    referee = _position(store_client, created, "referee").get_json()["position"]
    assert referee["cards"] == POSITION["cards"] and len(referee["deck"]) == 10
    again = store_client.get(
        f"/v1/games/{created['id']}/position",
        headers={**_auth(created)["north"], "If-None-Match": '"1"'},
    )
    assert again.status_code == 304


def test_g_p1_a_finished_game_shows_everyone_everything(store_client):
    created = _create(store_client, POSITION).get_json()
    resigned = store_client.post(
        f"/v1/games/{created['id']}/actions",
        headers=_auth(created)["north"],
        json={"type": "resign", "expected_version": 1},
    )
    assert resigned.get_json()["status"] == "finished"
    north = _position(store_client, created, "north").get_json()["position"]
    assert north["cards"] == POSITION["cards"] and len(north["deck"]) == 10


def test_g_p1_the_position_needs_a_token(store_client):
    created = _create(store_client, POSITION).get_json()
    response = store_client.get(f"/v1/games/{created['id']}/position")
    assert (response.status_code, response.get_json()["code"]) == (401, "unauthorized")


def test_g_p1_an_engine_without_a_notation_has_no_position(store_client, monkeypatch):
    created = _create(store_client, POSITION).get_json()
    monkeypatch.delattr(fake_engine, "position")
    response = _position(store_client, created, "referee")
    assert (response.status_code, response.get_json()["code"]) == (404, "position-unavailable")


def test_g_p1_the_referees_position_posted_back_gives_the_same_view(store_client, make_game):
    game = make_game(seed=SEED)
    store_client.post(
        f"/v1/games/{game['id']}/actions",
        headers=game["auth"]["north"],
        json={"type": "add", "amount": 2, "expected_version": 1},
    )
    stated = store_client.get(
        f"/v1/games/{game['id']}/position", headers=game["auth"]["referee"]
    ).get_json()["position"]
    copy = _create(store_client, stated).get_json()
    for who in ("referee", "north", "south"):
        original = store_client.get(f"/v1/games/{game['id']}", headers=game["auth"][who])
        copied = store_client.get(f"/v1/games/{copy['id']}", headers=_auth(copy)[who])
        left, right = original.get_json()["view"], copied.get_json()["view"]
        assert right.pop("from_position") is True and left.pop("from_position") is False
        assert left == right, who


def test_g_p1_the_export_says_so_and_a_finished_game_imports_again(store_client):
    created = _create(store_client, POSITION).get_json()
    auth = _auth(created)
    store_client.post(
        f"/v1/games/{created['id']}/actions",
        headers=auth["south"],
        json={"type": "add", "amount": 3, "expected_version": 1},
    )
    document = store_client.get(
        f"/v1/games/{created['id']}/export", headers=auth["referee"]
    ).get_json()
    assert document["from_position"] is True
    imported = store_client.post("/v1/games/import", json=document)
    assert imported.status_code == 201, imported.get_json()
    # a position the engine refuses, or that does not make these setup events
    document["events"][1]["position"]["count"] = 10
    refused = store_client.post("/v1/games/import", json=document)
    assert refused.status_code == 422, refused.get_json()
    assert refused.get_json()["code"] == "import-mismatch"
    assert list(refused.get_json()["errors"]["json"]) == ["events.1.position.count"]
    document["events"][1]["position"].update(
        count=7, cards={"north": "card-04", "south": "card-09"}
    )
    refused = store_client.post("/v1/games/import", json=document).get_json()
    assert list(refused["errors"]["json"]) == ["events.2.deck.1"]  # the shuffle it makes differs


def test_g_p1_a_fresh_games_export_is_not_from_a_position(store_client, make_game):
    game = make_game()
    document = store_client.get(
        f"/v1/games/{game['id']}/export", headers=game["auth"]["referee"]
    ).get_json()
    assert document["from_position"] is False


# ----- the contract -----------------------------------------------------------------


def _spec() -> dict:
    app = create_app({"TESTING": True, "DATABASE_URL": "sqlite://"})
    return app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()


def test_g_p1_each_game_creates_from_its_own_position_schema():
    spec = _spec()
    schemas = spec["components"]["schemas"]
    for prefix, component in [
        ("TwoWay", "TwoWayPosition"),
        ("Sequence", "SequencePosition"),
        ("SequenceNumbers", "SequencePosition"),
        ("Halves", "HalvesPosition"),
        ("SolitaireFrenzy", "SolitaireFrenzyPosition"),
    ]:
        position = schemas[f"{prefix}CreateGame"]["properties"]["position"]
        assert position["$ref"] == f"#/components/schemas/{component}"
        assert "game" in schemas[component]["properties"]
    mapping = schemas["AnyPosition"]["discriminator"]["mapping"]
    assert mapping["sequence-numbers"] == "#/components/schemas/SequencePosition"
    reply = spec["paths"]["/v1/games/{game_id}/position"]["get"]["responses"]["200"]
    assert reply["content"]["application/json"]["schema"]["$ref"].endswith("/GamePosition")


def test_g_p1_a_games_position_class_types_the_contract(monkeypatch):
    """What the engine branches add (service/api/<game>.py) is used as it is."""
    from marshmallow import Schema, fields
    from marshmallow.validate import OneOf

    from service.api import halves

    class HalvesPositionSchema(Schema):
        game = fields.String(required=True, validate=OneOf(["halves"]))
        centre = fields.List(fields.String(), required=True)

    monkeypatch.setattr(halves, "HalvesPositionSchema", HalvesPositionSchema, raising=False)
    schema = _spec()["components"]["schemas"]["HalvesPosition"]
    assert set(schema["properties"]) == {"game", "centre"}
    assert schema["required"] == ["centre", "game"]
