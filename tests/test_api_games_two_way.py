"""The game store with the real 2-Way Cards engine ("two-way"): server-mode turns played
through legal-actions, every output filtered by the engine for its viewer (TW-C3),
replay == snapshot, table mode with the referee acting (TW-T1)."""

from __future__ import annotations

import hashlib

from service.games import two_way
from service.store import get_store

SEED = "7a" * 32


def _get(client, game, who, path=""):
    response = client.get(f"/v1/games/{game['id']}{path}", headers=game["auth"][who])
    assert response.status_code == 200, response.get_data(as_text=True)
    return response


def _play_server_turns(client, game, steps):
    """Post the first non-declaring legal action of the seat to move, ``steps`` times;
    returns every response body text each viewer received."""
    seen = {"blue": [], "green": [], "referee": []}
    for _ in range(steps):
        for who in seen:
            for path in ("", "/events", "/legal-actions"):
                seen[who].append(_get(client, game, who, path).get_data(as_text=True))
        mover = next(
            s
            for s in ("blue", "green")
            if _get(client, game, s, "/legal-actions").get_json()["actions"]
        )
        listing = _get(client, game, mover, "/legal-actions").get_json()
        action = next(a for a in listing["actions"] if a["type"] != "declare")
        response = client.post(
            f"/v1/games/{game['id']}/actions",
            json=action,
            headers={**game["auth"][mover], "If-Match": f'"{listing["version"]}"'},
        )
        assert response.status_code == 200, response.get_data(as_text=True)
        seen[mover].append(response.get_data(as_text=True))
    return seen


def test_two_way_game_is_created_with_its_seats_and_seed_commitment(store_client, make_game):
    game = make_game("two-way", seed=SEED)
    assert set(game["seats"]) == {"blue", "green"}
    assert game["seed_commitment"] == hashlib.sha256(SEED.encode()).hexdigest()
    view = _get(store_client, game, "blue").get_json()
    assert view["viewer"] == "blue" and view["version"] == 1 and "seed" not in view
    assert view["view"]["turn"] == "blue" and view["view"]["phase"] == "place"
    assert len(view["view"]["hands"]["blue"]) == 5  # TW-T1


def test_two_way_options_refused_by_the_engine_are_422(store_client):
    response = store_client.post(
        "/v1/games", json={"game": "two-way", "options": {"dealing": "mail"}}
    )
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "invalid-option"


def test_every_output_is_the_engines_view_for_the_caller(store_app, store_client, make_game):
    game = make_game("two-way", seed=SEED)
    seen = _play_server_turns(store_client, game, 12)  # place, place, draw, discard x3
    store = get_store(store_app)
    record, stored = store.events(game["id"])
    assert record.version == 13
    for who in ("blue", "green", "referee"):
        view = _get(store_client, game, who).get_json()["view"]
        assert view == two_way.view(record.state, who)
        events = _get(store_client, game, who, "/events").get_json()["events"]
        expected = [two_way.view_event(record.state, e.event, who) for e in stored]
        assert [{k: v for k, v in e.items() if k != "seq"} for e in events] == [
            {"type": e.event["type"], "seat": e.event.get("seat"), **x}
            for e, x in zip(stored, expected)
        ]
        actions = _get(store_client, game, who, "/legal-actions").get_json()["actions"]
        assert actions == two_way.legal_actions(record.state, who)
    # the seed stays secret from everyone, the referee included, while the game is active
    assert SEED not in "".join(seen["referee"] + seen["blue"] + seen["green"])
    report = store.replay(game["id"])
    assert report.ok and report.events == len(stored)


def test_two_way_refusals_are_problems_with_the_engines_code(store_client, make_game):
    game = make_game("two-way", seed=SEED)
    url = f"/v1/games/{game['id']}/actions"
    response = store_client.post(
        url, json={"type": "draw", "expected_version": 1}, headers=game["auth"]["green"]
    )
    assert response.status_code == 409 and response.get_json()["code"] == "not-your-turn"
    assert response.get_json()["rule"] == "TW-T2"  # G-R1
    response = store_client.post(
        url,
        json={"type": "place", "tile": "2C", "cell": [9, 9], "expected_version": 1},
        headers=game["auth"]["blue"],
    )
    assert 400 <= response.status_code < 500 and response.mimetype == "application/problem+json"
    assert _get(store_client, game, "referee").get_json()["version"] == 1


def test_two_way_table_mode_the_referee_reports_the_deal(store_client, make_game):
    game = make_game("two-way", options={"dealing": "table"}, seed=SEED)
    url = f"/v1/games/{game['id']}/actions"
    listing = _get(store_client, game, "referee", "/legal-actions").get_json()
    deal = listing["actions"][0]
    assert deal["type"] == "draw" and len(deal["tiles"]) == 5
    # a seat token cannot report for another seat
    other = "green" if deal["seat"] == "blue" else "blue"
    response = store_client.post(
        url, json={**deal, "expected_version": 1}, headers=game["auth"][other]
    )
    assert response.status_code == 403
    response = store_client.post(
        url, json={**deal, "expected_version": 1}, headers=game["auth"]["referee"]
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json()["version"] == 2


def test_two_way_action_with_an_idempotency_key_happens_once(store_client, make_game):
    game = make_game("two-way", seed=SEED)
    listing = _get(store_client, game, "blue", "/legal-actions").get_json()
    place = listing["actions"][0]
    headers = {**game["auth"]["blue"], "If-Match": '"1"', "Idempotency-Key": "tw-1"}
    url = f"/v1/games/{game['id']}/actions"
    first = store_client.post(url, json=place, headers=headers)
    again = store_client.post(url, json=place, headers=headers)
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json()
    assert _get(store_client, game, "blue").get_json()["view"]["placements_left"] == 1


def test_tile_manifest_default_is_described_as_dealt(store_app, store_client, make_game):
    """TW-C2/TW-C3 ruling as the catalog states it: table dealing uses the shipped
    pairing as it is, server dealing re-pairs the shipped faces from the seed, a custom
    manifest is used as given."""
    games = store_client.get("/v1/games/catalog").get_json()["games"]
    option = next(
        o
        for o in next(g for g in games if g["game"] == "two-way")["options"]
        if o["name"] == "tile_manifest"
    )
    text = option["description"]
    assert "table dealing uses the shipped pairing seeds/two-way-tiles.json as it is" in text
    assert "server dealing re-pairs the shipped faces secretly from the game's seed" in text
    assert "A custom manifest is always used as given" in text
    assert "Default: seeds/two-way-tiles.json." not in text
    store, shipped = get_store(store_app), two_way.default_manifest()
    custom = list(reversed(shipped))

    def manifest(**options):
        state = store.read(make_game("two-way", options=options, seed=SEED)["id"]).state
        return list(two_way.manifest_of(state))

    assert manifest(dealing="table") == shipped
    server = manifest(dealing="server")
    assert server != shipped
    assert [t["blue"] for t in server] == [t["blue"] for t in shipped]
    assert sorted(t["green"] for t in server) == sorted(t["green"] for t in shipped)
    assert manifest(dealing="server", tile_manifest=custom) == custom
    assert manifest(dealing="table", tile_manifest=custom) == custom
