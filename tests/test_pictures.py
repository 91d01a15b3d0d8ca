"""Pictures (SVG): every kind parses, each is drawn from the caller's view (the viewer
filter), the ETag follows version, viewer and language, the stateless pictures show
what their checks find, bad input is a 422 problem, hostile text stays text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from service.games import ENGINE_MODULES, engine
from service.games.two_way import scan_grid
from service.pictures import draw, picture_module
from service.store import get_store
from tests.helpers import assert_problem

NS = {"svg": "http://www.w3.org/2000/svg"}
HOSTILE = "<p&\"1>'</svg>"
# table mode where the referee drives the game; Halves in server mode: hands are hidden
GAMES = [
    ("two-way", {"dealing": "table"}),
    ("sequence", {"dealing": "table"}),
    ("sequence-numbers", {"dealing": "table"}),
    ("halves", {}),
    ("solitaire-frenzy", {}),
]


def parse(response) -> ET.Element:
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "image/svg+xml"
    root = ET.fromstring(response.data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox")
    return root


def play(client, game: dict, steps: int) -> None:
    """``steps`` legal actions of the referee (table mode) or of p1 (server mode)."""
    who = "referee" if "referee" in game["auth"] and game["game"] != "halves" else "p1"
    for _ in range(steps):
        legal = client.get(
            f"/v1/games/{game['id']}/legal-actions", headers=game["auth"][who]
        ).get_json()
        if not legal["actions"]:
            return
        response = client.post(
            f"/v1/games/{game['id']}/actions",
            headers=game["auth"][who],
            json={**legal["actions"][0], "expected_version": legal["version"]},
        )
        assert response.status_code == 200, response.get_data(as_text=True)


def test_every_game_brings_its_picture():
    for game in ENGINE_MODULES:
        assert callable(picture_module(game).draw), game


@pytest.mark.parametrize("game, options", GAMES, ids=[g for g, _ in GAMES])
def test_a_game_picture_is_the_callers_view_drawn(
    store_app, store_client, make_game, game, options
):
    created = make_game(game, options)
    play(store_client, created, 12)
    record = get_store(store_app).read(created["id"])
    for viewer, headers in created["auth"].items():
        response = store_client.get(f"/v1/games/{created['id']}/picture.svg", headers=headers)
        parse(response)
        with store_app.test_request_context():
            assert response.data == draw(game, record.engine.view(record.state, viewer))
        assert response.headers["Cache-Control"] == "no-store"
        assert {"Authorization", "Accept-Language"} <= set(response.vary)


def test_a_seat_never_sees_another_seats_hand(store_client, make_game):
    created = make_game("halves")
    pictures, hands = {}, {}
    for seat in ("p1", "p2"):
        game = store_client.get(
            f"/v1/games/{created['id']}", headers=created["auth"][seat]
        ).get_json()
        hands[seat] = set(game["view"]["hand"])
        root = parse(
            store_client.get(
                f"/v1/games/{created['id']}/picture.svg", headers=created["auth"][seat]
            )
        )
        pictures[seat] = {g.get("data-card") for g in root.iter() if g.get("data-card")}
    top = "-".join(game["view"]["top"]["halves"])
    assert pictures["p1"] - {top} == hands["p1"] and pictures["p2"] - {top} == hands["p2"]
    assert not pictures["p1"] & hands["p2"] - {top}


def test_the_etag_names_version_viewer_and_language(store_client, make_game):
    created = make_game("two-way", {"dealing": "table"})
    url = f"/v1/games/{created['id']}/picture.svg"
    referee = created["auth"]["referee"]
    first = store_client.get(url, headers=referee)
    tag = first.headers["ETag"]
    assert store_client.get(url, headers=referee).headers["ETag"] == tag
    again = store_client.get(url, headers={**referee, "If-None-Match": tag})
    assert again.status_code == 304 and again.headers["ETag"] == tag and not again.data
    star = store_client.get(url, headers={**referee, "If-None-Match": "*"})
    assert star.status_code == 304 and star.headers["ETag"] == tag  # as the view answers
    assert store_client.get(url, headers=created["auth"]["blue"]).headers["ETag"] != tag
    french = store_client.get(url, headers={**referee, "Accept-Language": "fr"})
    assert french.headers["ETag"] != tag
    assert "Au tour de : blue" in "".join(parse(french).itertext())
    assert "Turn: blue" in "".join(parse(first).itertext())
    play(store_client, created, 1)
    assert store_client.get(url, headers=referee).headers["ETag"] != tag


def test_a_picture_needs_a_token_of_its_game(store_client, make_game):
    created = make_game("halves")
    url = f"/v1/games/{created['id']}/picture.svg"
    assert_problem(store_client.get(url), 401, "unauthorized")
    other = make_game("halves")
    assert_problem(store_client.get(url, headers=other["auth"]["referee"]), 404, "game-not-found")


def test_every_svg_reply_forbids_sniffing_and_any_active_content(store_client, make_game):
    """Issue 18 item 7: an SVG opened by itself may carry script; every picture
    carries ``X-Content-Type-Options: nosniff`` and a CSP allowing nothing but inline
    style."""
    created = make_game("halves")
    replies = [
        store_client.get(
            f"/v1/games/{created['id']}/picture.svg", headers=created["auth"]["referee"]
        ),
        store_client.post("/v1/two-way/grid/picture.svg", json={"grid": _grid()}),
        store_client.post("/v1/halves/picture.svg", json={"top": "RC-GS", "hand": []}),
        store_client.post("/v1/solitaire-frenzy/foundations/picture.svg", json={"piles": [["AH"]]}),
    ]
    for reply in replies:
        assert reply.status_code == 200 and reply.mimetype == "image/svg+xml"
        assert reply.headers["X-Content-Type-Options"] == "nosniff"
        assert reply.headers["Content-Security-Policy"] == (
            "default-src 'none'; style-src 'unsafe-inline'"
        )


def _grid() -> list[list[str | None]]:
    grid: list[list[str | None]] = [[None] * 7 for _ in range(7)]
    grid[0][:4] = ["AS", "2S", "3S", "4S"]
    grid[1][0] = "KH"
    return grid


def test_stateless_two_way_grid_shows_every_declarable_line(client):
    root = parse(
        client.post("/v1/two-way/grid/picture.svg", json={"grid": _grid(), "colour": "green"})
    )
    lines = root.findall(".//svg:polyline", NS)
    assert len(lines) == len(scan_grid(_grid())) == 3  # 1-2-3, 2-3-4, 1-2-3-4 (TW-D1)
    assert "3 declarable lines" in "".join(root.itertext())
    bad = _grid()
    bad[2][2] = "ZZ"
    body = assert_problem(client.post("/v1/two-way/grid/picture.svg", json={"grid": bad}), 422)
    assert "2" in body["errors"]["json"]["grid"]


@pytest.mark.parametrize("path", ["/v1/sequence/picture.svg", "/v1/sequence-numbers/picture.svg"])
def test_stateless_sequence_position_shows_chips_and_sequences(client, path):
    chips = {"green": [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]], "blue": [[0, 1]]}
    root = parse(client.post(path, json={"chips": chips}))
    found = root.findall(".//svg:line", NS)
    assert [line.get("class") for line in found] == ["sequence"]  # found, not locked
    assert len(root.findall(".//svg:circle", NS)) == 6
    locked = {"side": "green", "cells": chips["green"]}
    root = parse(client.post(path, json={"chips": chips, "sequences": [locked]}))
    assert [line.get("class") for line in root.findall(".//svg:line", NS)] == ["sequence locked"]
    body = assert_problem(client.post(path, json={"chips": {"green": [[3, 11]]}}), 422)
    assert body["rule"]


def test_stateless_halves_frames_the_cards_that_go_on_the_top(client):
    root = parse(
        client.post(
            "/v1/halves/picture.svg", json={"top": "RC-GS", "hand": ["RT-BS", "BS-RT", "BX-YT"]}
        )
    )
    marks = [g.get("stroke") for g in root.iter() if g.get("class") == "mark"]
    assert marks == ["#1f9d3a", "#e67e22"]  # as held; turned round; BX-YT not at all
    assert "2 of 3 cards go on the top" in "".join(root.itertext())
    assert all((t.text or "").strip() for t in root.iter() if t.tag.endswith("text"))
    assert_problem(client.post("/v1/halves/picture.svg", json={"top": "RZ-GS"}), 422)


def test_stateless_foundations_by_suit_and_only_as_sf_f1_builds_them(client):
    root = parse(
        client.post(
            "/v1/solitaire-frenzy/foundations/picture.svg",
            json={"piles": [["AH", "2H", "3H"], ["AS"], ["AH"]]},
        )
    )
    piles = [g for g in root.iter() if g.get("class") == "foundation"]
    assert [g.get("data-pile") for g in piles] == ["1", "0", "2"]  # spades, then hearts
    assert "\u00d73" in "".join(root.itertext())
    body = assert_problem(
        client.post("/v1/solitaire-frenzy/foundations/picture.svg", json={"piles": [["AH", "3H"]]}),
        422,
    )
    assert (body["code"], body["rule"]) == ("invalid-foundation", "SF-F1")
    assert body["errors"]["json"]["piles"]["0"]["1"] == [body["detail"]]
    french = assert_problem(
        client.post(
            "/v1/solitaire-frenzy/foundations/picture.svg",
            json={"piles": [["2H"]]},
            headers={"Accept-Language": "fr"},
        ),
        422,
    )
    assert (french["code"], french["rule"]) == ("invalid-foundation", "SF-F1")
    assert "2H" in french["detail"] and french["detail"] != body["detail"]
    assert "only an Ace" not in french["detail"]
    assert_problem(
        client.post("/v1/solitaire-frenzy/foundations/picture.svg", json={"piles": [["JK"]]}), 422
    )


@pytest.mark.parametrize("game, options", GAMES, ids=[g for g, _ in GAMES])
def test_hostile_names_stay_text(app, game, options):
    module = engine(game)
    state = None
    for event in module.new_game(game, dict(options), "ab" * 32):
        state = module.fold(state, event)
    seat = module.view(state, "referee")["seats"][0]
    for viewer in ("referee", seat):
        view = module.view(state, viewer)
        view["result"] = {"winners": [seat], "scores": {seat: 1}, "reason": "out"}
        text = json.dumps(view).replace(json.dumps(seat), json.dumps(HOSTILE))
        with app.test_request_context():
            root = ET.fromstring(draw(game, json.loads(text)))
        assert HOSTILE in "".join(root.itertext())


def test_hv_t1_stateless_halves_frames_by_the_any_half_reading(client):
    hand = ["BS-YC", "RT-BS", "GX-YT"]
    per_half = parse(client.post("/v1/halves/picture.svg", json={"top": "RC-GS", "hand": hand}))
    any_half = parse(
        client.post(
            "/v1/halves/picture.svg", json={"top": "RC-GS", "hand": hand, "match": "any_half"}
        )
    )
    # BS-YC goes on RC-GS only turned round per half, as held by any half; GX-YT never
    assert [g.get("stroke") for g in per_half.iter() if g.get("class") == "mark"] == [
        "#e67e22",
        "#1f9d3a",
    ]
    assert [g.get("stroke") for g in any_half.iter() if g.get("class") == "mark"] == [
        "#1f9d3a",
        "#1f9d3a",
    ]
