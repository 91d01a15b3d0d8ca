"""Solitaire Frenzy over HTTP: the catalog, the stateless play check, and games in the
store (both databases) with the real engine: optional versions, problems with rule
IDs, idempotent plays, views that hide every face-down card, table mode. Whole games
over HTTP: test_frenzy_play.py (in process) and test_frenzy_race.py (gunicorn)."""

from __future__ import annotations

import json

import pytest

from helpers import assert_problem, walk_keys
from service.games import solitaire_frenzy as sf

SEED = "d4" * 32
CHECK = "/v1/solitaire-frenzy/plays/check"


# ----- catalog and the stateless check ---------------------------------------------


def test_catalog_lists_solitaire_frenzy_with_its_options(client):
    games = {g["game"]: g for g in client.get("/v1/games/catalog").get_json()["games"]}
    entry = games["solitaire-frenzy"]
    assert entry["players"] == [2, 3, 4, 5, 6] and entry["realtime"] is True
    defaults = {o["name"]: o["default"] for o in entry["options"]}
    assert defaults == {
        "players": 2,
        "dealing": "server",
        "rounds": 3,
        "pile_penalty": 1,
        "one_pile_per_suit": False,
        "play_order": "free",
        "first_seat": "p1",
        "idle_seconds": 120,
    }


@pytest.mark.parametrize(
    "body, verdict",
    [
        ({"card": "5H", "onto": "4H", "to": "foundation"}, (True, None, "SF-F1")),
        ({"card": "ah", "onto": None, "to": "foundation"}, (True, None, "SF-F1")),
        ({"card": "AH", "to": "foundation"}, (True, None, "SF-F1")),
        ({"card": "AH", "onto": "KH", "to": "foundation"}, (False, "ace-needs-new-pile", "SF-F1")),
        ({"card": "TH", "onto": "8H", "to": "foundation"}, (False, "wrong-rank", "SF-F1")),
        ({"card": "5S", "onto": "4H", "to": "foundation"}, (False, "wrong-suit", "SF-F1")),
        ({"card": "8D", "onto": "9S", "to": "column"}, (True, None, "SF-R1")),
        ({"card": "8H", "onto": "9D", "to": "column"}, (False, "wrong-colour", "SF-R1")),
        ({"card": "QD", "onto": None, "to": "column"}, (True, None, "SF-R4")),
    ],
)
def test_plays_check(client, body, verdict):
    response = client.post(CHECK, json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    answer = response.get_json()
    assert set(answer) == {"legal", "code", "rule", "detail"}
    assert (answer["legal"], answer["code"], answer["rule"]) == verdict


@pytest.mark.parametrize(
    "body, field",
    [
        ({"card": "ZZ", "to": "column"}, "card"),
        ({"card": "JK", "to": "column"}, "card"),
        ({"card": "5H", "onto": 7, "to": "column"}, "onto"),
        ({"card": "5H"}, "to"),
        ({"card": "5H", "to": "board"}, "to"),
        ({"to": "column"}, "card"),
    ],
)
def test_plays_check_bad_input_is_422_naming_the_field(client, body, field):
    problem = assert_problem(client.post(CHECK, json=body), 422, "invalid-body")
    assert field in problem["errors"]["json"]


# ----- games in the store ----------------------------------------------------------


def get(client, game, who, path=""):
    response = client.get(f"/v1/games/{game['id']}{path}", headers=game["auth"][who])
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def post(client, game, who, body, headers=None):
    return client.post(
        f"/v1/games/{game['id']}/actions",
        json=body,
        headers={**game["auth"][who], **(headers or {})},
    )


def test_views_and_events_show_no_face_down_card(store_app, store_client, make_game):
    game = make_game("solitaire-frenzy", {"players": 3}, SEED)
    state = sf.fold_all(None, sf.new_game(sf.GAME, {"players": 3}, SEED))
    body = get(store_client, game, "p1")
    view = body["view"]
    assert view["round"] == 1 and view["totals"] == {"p1": 0, "p2": 0, "p3": 0}
    assert set(view["players"]) == {"p1", "p2", "p3"} and view["seat"] == "p1"
    for seat, public in view["players"].items():
        layout = state["layouts"][seat]
        assert public["pile_top"] == layout["pile"][-1]
        assert (public["pile_size"], public["hand_size"], public["waste_size"]) == (13, 35, 0)
        assert public["columns"] == layout["columns"]
    events = get(store_client, game, "p2", "/events")["events"]
    for output in (body, events, get(store_client, game, "referee")):
        assert not {"hand", "pile", "waste", "seed", "reach", "pass"} & set(walk_keys(output))
    assert SEED not in json.dumps([body, events])


def test_actions_need_no_version_but_a_stale_one_is_412(store_client, make_game):
    game = make_game("solitaire-frenzy", {"players": 2}, SEED)
    legal = get(store_client, game, "p1", "/legal-actions")
    turn = {"type": "turn", "round": 1}
    assert turn in legal["actions"]
    response = post(store_client, game, "p1", turn)
    assert response.status_code == 200, response.get_data(as_text=True)
    reply = response.get_json()
    assert reply["version"] == legal["version"] + 1
    assert [e["type"] for e in reply["events"]] == ["turned"]
    assert reply["view"]["players"]["p1"]["waste_top"] == reply["events"][0]["top"]
    response = post(store_client, game, "p2", turn, {"If-Match": f'"{legal["version"]}"'})
    assert_problem(response, 412, "version-mismatch")
    response = post(store_client, game, "p2", {**turn, "expected_version": reply["version"]})
    assert response.status_code == 200


def test_refusals_are_problems_with_code_and_rule(store_client, make_game):
    game = make_game("solitaire-frenzy", {"players": 2}, SEED)
    state = sf.fold_all(None, sf.new_game(sf.GAME, {"players": 2}, SEED))
    hidden = state["layouts"]["p1"]["hand"][0]
    problem = assert_problem(
        post(
            store_client,
            game,
            "p1",
            {"type": "play", "round": 1, "card": hidden, "to": "foundation", "based_on": "new"},
        ),
        409,
        "card-not-on-top",
    )
    assert problem["rule"] == "SF-H1"
    for number in (0, -1):  # no round is numbered so: a wrong number, not a late play
        problem = assert_problem(
            post(store_client, game, "p1", {"type": "turn", "round": number}), 422, "invalid-round"
        )
        assert problem["rule"] == "SF-E2"
    problem = assert_problem(
        post(store_client, game, "p1", {"type": "turn"}), 422, "invalid-action"
    )
    assert problem["rule"] == "SF-E1"
    assert_problem(
        post(store_client, game, "p1", {"type": "retire", "seat": "p2"}), 403, "seat-mismatch"
    )
    assert_problem(
        post(store_client, game, "p1", {"type": "retire", "seat": "p1"}), 403, "referee-only"
    )
    assert_problem(
        post(store_client, game, "referee", {"type": "turn", "round": 1}),
        403,
        "referee-not-allowed",
    )


def test_a_play_with_an_idempotency_key_happens_once(store_client, make_game):
    game = make_game("solitaire-frenzy", {"players": 2}, SEED)
    key = {"Idempotency-Key": "frenzy-turn-1"}
    first = post(store_client, game, "p1", {"type": "turn", "round": 1}, key)
    again = post(store_client, game, "p1", {"type": "turn", "round": 1}, key)
    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert first.get_json() == again.get_json()
    assert get(store_client, game, "p1")["view"]["players"]["p1"]["waste_size"] == 3


def test_table_mode_over_http(store_client, make_game):
    game = make_game("solitaire-frenzy", {"players": 2, "dealing": "table", "rounds": 1})
    assert get(store_client, game, "p1", "/legal-actions")["actions"] == []
    assert_problem(post(store_client, game, "p1", {"type": "turn", "round": 1}), 409, "table-mode")
    report = {
        "type": "record-round",
        "round": 1,
        "results": {"p1": {"board": 9, "pile": 0, "out": True}, "p2": {"board": 11, "pile": 4}},
    }
    bad = {**report, "results": {**report["results"], "p2": {"board": 11, "pile": 0}}}
    assert (
        assert_problem(post(store_client, game, "referee", bad), 422, "empty-pile-not-out")["rule"]
        == "SF-M1"
    )
    response = post(store_client, game, "referee", report)
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "finished"
    result = body["view"]["result"]
    assert result["scores"] == {"p1": 9, "p2": 7} and result["winners"] == ["p1"]
    assert [e["type"] for e in body["events"]] == ["round-ended", "game-ended"]


def test_export_and_import_of_a_game(store_client, make_game):
    """A finished game (here: ended by a retirement) exports with its seed and imports
    as the same game; an unfinished one's export has no seed, and since the hidden
    order follows from the seed, it does not replay (422 import-mismatch)."""
    game = make_game("solitaire-frenzy", {"players": 2}, SEED)
    for _ in range(4):
        assert post(store_client, game, "p1", {"type": "turn", "round": 1}).status_code == 200
    referee = game["auth"]["referee"]
    unfinished = store_client.get(f"/v1/games/{game['id']}/export", headers=referee).get_json()
    assert "seed" not in unfinished and SEED not in json.dumps(unfinished)
    assert_problem(store_client.post("/v1/games/import", json=unfinished), 422, "import-mismatch")
    assert post(store_client, game, "referee", {"type": "retire", "seat": "p2"}).status_code == 200
    document = store_client.get(f"/v1/games/{game['id']}/export", headers=referee).get_json()
    assert document["status"] == "finished" and document["seed"] == SEED
    imported = store_client.post("/v1/games/import", json=document)
    assert imported.status_code == 201, imported.get_data(as_text=True)
    copy = imported.get_json()
    again = store_client.get(
        f"/v1/games/{copy['id']}/export",
        headers={"Authorization": f"Bearer {copy['referee_token']}"},
    )
    assert document["imported"] is None
    assert again.get_json()["imported"]["verified"] is True  # a copy says so
    mine = ("id", "exported_at", "imported", "signature")
    assert {k: v for k, v in again.get_json().items() if k not in mine} == {
        k: v for k, v in document.items() if k not in mine
    }


@pytest.mark.parametrize("dealing, rule", [("server", "G-M1"), ("table", "G-M2")])
def test_a_seat_acting_for_another_cites_the_dealing_rule(store_client, make_game, dealing, rule):
    """Who may act is G-M1 in server dealing and G-M2 at a table (docs/rulings.md)."""
    game = make_game("solitaire-frenzy", {"players": 2, "dealing": dealing}, SEED)
    response = post(store_client, game, "p1", {"type": "turn", "round": 1, "seat": "p2"})
    assert assert_problem(response, 403, "seat-mismatch")["rule"] == rule
