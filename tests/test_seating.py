"""Invitations, seat names and rematches (service/store/seating.py, service/api/seats.py)
on SQLite and PostgreSQL, with the "counter" test engine (seats north and south)."""

from __future__ import annotations

import threading

import pytest

from helpers import assert_problem
from service.store import get_store


def _create(client, **extra) -> dict:
    response = client.post("/v1/games", json={"game": "counter", **extra})
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _join(client, game: dict, seat: str, code: str, name: str | None = None):
    body = {"code": code} if name is None else {"code": code, "name": name}
    return client.post(f"/v1/games/{game['id']}/seats/{seat}/join", json=body)


def test_invitations_replace_tokens_and_join_gives_the_seat_once(store_client):
    game = _create(store_client, invitations=True)
    north = game["seats"]["north"]
    assert set(north) == {"invitation", "expires_at", "join_url"}
    assert north["join_url"] == f"/referee/#invite={game['id']}.north.{north['invitation']}"
    joined = _join(store_client, game, "north", north["invitation"], "Ana")
    assert joined.status_code == 200 and joined.headers["Cache-Control"] == "no-store"
    token = joined.get_json()["token"]
    view = store_client.get(f"/v1/games/{game['id']}", headers=_bearer(token)).get_json()
    assert view["viewer"] == "north" and view["names"] == {"north": "Ana"}
    assert_problem(_join(store_client, game, "north", north["invitation"]), 409, "invitation-used")
    assert_problem(
        _join(store_client, game, "south", north["invitation"]), 403, "invalid-invitation"
    )  # another seat's code
    assert_problem(_join(store_client, game, "south", "x" * 43), 403, "invalid-invitation")
    assert_problem(_join(store_client, {"id": "nope"}, "south", "x"), 403, "invalid-invitation")


def test_an_expired_invitation_is_410(store_app, store_client):
    game = _create(store_client, invitations=True)
    issued = get_store(store_app).reinvite(game["id"], "south", seconds=-1)
    assert_problem(
        _join(store_client, game, "south", issued["invitation"]), 410, "invitation-expired"
    )


def test_two_joins_with_one_code_give_one_seat(store_app, store_client):
    game = _create(store_client, invitations=True)
    code = game["seats"]["south"]["invitation"]
    statuses: list[int] = []

    def join() -> None:
        statuses.append(_join(store_app.test_client(), game, "south", code).status_code)

    threads = [threading.Thread(target=join) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 409, 409, 409]


def test_the_referee_invites_again_and_the_old_code_and_token_stop(store_client):
    game = _create(store_client, invitations=True)
    first = _join(store_client, game, "north", game["seats"]["north"]["invitation"])
    old_token = first.get_json()["token"]
    referee = _bearer(game["referee_token"])
    assert_problem(
        store_client.post(
            f"/v1/games/{game['id']}/seats/north/invitation", headers=_bearer(old_token)
        ),
        403,
        "referee-only",
    )
    again = store_client.post(f"/v1/games/{game['id']}/seats/north/invitation", headers=referee)
    assert again.status_code == 200
    assert_problem(
        store_client.get(f"/v1/games/{game['id']}", headers=_bearer(old_token)), 401, "unauthorized"
    )
    fresh = _join(store_client, game, "north", again.get_json()["invitation"], "Bo")
    assert fresh.status_code == 200
    assert_problem(
        store_client.post(f"/v1/games/{game['id']}/seats/west/invitation", headers=referee),
        404,
        "seat-not-found",
    )


@pytest.mark.parametrize(
    "name",
    [
        "",
        " Ana",
        "Ana ",
        "a" * 41,
        "Ana\nBo",
        "\x07",
        "\u202eAna",  # a right-to-left override: what follows the name runs backwards
        "Ana\u2066",  # an isolate left open
        "\u200b",  # nothing visible
        "\u200dAna",  # a joiner at an end joins nothing
        "A\ufeffna",
    ],
)
def test_a_display_name_is_1_to_40_printable_characters(store_client, name):
    response = store_client.post("/v1/games", json={"game": "counter", "names": {"north": name}})
    assert_problem(response, 422, "invalid-body")


def test_names_are_stored_as_given_and_refused_for_unknown_seats(store_client):
    odd = '<svg onload="x()">&"ț'
    game = _create(store_client, names={"north": odd, "south": "Bo"})
    view = store_client.get(
        f"/v1/games/{game['id']}", headers=_bearer(game["seats"]["south"]["token"])
    )
    assert view.get_json()["names"] == {"north": odd, "south": "Bo"}
    assert "ț".encode() in view.get_data()  # plain UTF-8 JSON
    response = store_client.post("/v1/games", json={"game": "counter", "names": {"west": "X"}})
    assert_problem(response, 422, "invalid-seat")
    assert response.get_json()["errors"] == {"json": {"names": {"west": ["no such seat"]}}}


def test_a_rematch_is_the_same_game_with_a_fresh_seed_linked_both_ways(store_client):
    game = _create(store_client, names={"north": "Ana"}, seed="cd" * 32)
    referee = _bearer(game["referee_token"])
    assert_problem(
        store_client.post(
            f"/v1/games/{game['id']}/rematch", headers=_bearer(game["seats"]["north"]["token"])
        ),
        403,
        "referee-only",
    )
    again = store_client.post(f"/v1/games/{game['id']}/rematch", headers=referee)
    assert again.status_code == 201
    second = again.get_json()
    assert second["game"] == "counter" and set(second["seats"]) == {"north", "south"}
    assert second["seed_commitment"] != game["seed_commitment"]
    assert again.headers["Location"] == f"/v1/games/{second['id']}"
    old = store_client.get(f"/v1/games/{game['id']}", headers=referee).get_json()
    new = store_client.get(
        f"/v1/games/{second['id']}", headers=_bearer(second["referee_token"])
    ).get_json()
    assert old["rematch"] == second["id"] and new["rematch_of"] == game["id"]
    assert new["names"] == {"north": "Ana"}
    twice = store_client.post(f"/v1/games/{game['id']}/rematch", headers=referee)
    assert_problem(twice, 409, "rematch-exists")
    assert twice.get_json()["rematch"] == second["id"]


def test_a_rematch_of_an_invitation_game_invites_again(store_client):
    game = _create(store_client, invitations=True)
    again = store_client.post(
        f"/v1/games/{game['id']}/rematch", headers=_bearer(game["referee_token"])
    ).get_json()
    assert all(
        set(entry) == {"invitation", "expires_at", "join_url"} for entry in again["seats"].values()
    )


@pytest.mark.parametrize("name", ["👨\u200d👩\u200d👧 Ana", "דנה", "مريم", "Zoë"])
def test_names_in_any_script_and_emoji_joined_inside_are_taken(store_client, name):
    game = _create(store_client, names={"north": name})
    view = store_client.get(
        f"/v1/games/{game['id']}", headers=_bearer(game["seats"]["north"]["token"])
    )
    assert view.get_json()["names"]["north"] == name


def test_a_name_given_when_joining_is_checked_as_at_creation(store_client):
    game = _create(store_client, names={"north": "Ana"}, invitations=True)
    code = game["seats"]["north"]["invitation"]
    assert_problem(_join(store_client, game, "north", code, "\u202e\u202e"), 422, "invalid-body")
    joined = _join(store_client, game, "north", code, "Bo")
    assert joined.status_code == 200


@pytest.mark.parametrize("flag", ["yes", "true", 1, "on", None])
def test_invitations_is_true_or_false_in_json_nothing_else(store_client, flag):
    response = store_client.post("/v1/games", json={"game": "counter", "invitations": flag})
    body = assert_problem(response, 422, "invalid-body")
    assert "invitations" in body["errors"]["json"]


@pytest.mark.parametrize(
    "name",
    [
        "\u00ad",  # a soft hyphen: shown only where a line breaks
        "\u3164",  # the Hangul filler, a "letter" drawn as nothing
        "\u115f\u1160",  # the Hangul choseong and jungseong fillers
        "\uffa0",  # the halfwidth Hangul filler
        "\u180e",  # the Mongolian vowel separator
        "\ufe0f",  # a variation selector with nothing to vary
        "\u034f",  # the combining grapheme joiner
        "\u2800\u2800",  # blank Braille patterns
        "\u3164\u00a0\u3164",  # blank letters around a no-break space
        "A" + "\u0301" * 38,  # a letter under a tower of accents
        "Ana" + "\u0301" * 5,  # five marks in a row, even after a real name
    ],
)
def test_a_display_name_must_show_something(store_client, name):
    response = store_client.post("/v1/games", json={"game": "counter", "names": {"north": name}})
    body = assert_problem(response, 422, "invalid-body")
    assert body["errors"]["json"]["names"]["north"]["value"] == [
        "at least one visible character, and at most 4 combining marks in a row"
    ]


@pytest.mark.parametrize(
    "name",
    [
        "Ngọc Ánh",
        "Ngo\u0323c A\u0301nh",  # the same, decomposed: one mark on each letter
        "अनुष्का",
        "李小龙",
        "Zoë",
        "A" + "\u0301" * 4,  # four marks in a row are still taken
        "\u3164Ana",  # a filler beside a real letter shows the letter
    ],
)
def test_a_display_name_with_something_to_see_is_taken(store_client, name):
    game = _create(store_client, names={"north": name})
    view = store_client.get(
        f"/v1/games/{game['id']}", headers=_bearer(game["seats"]["north"]["token"])
    )
    assert view.get_json()["names"] == {"north": name}


def test_a_name_with_nothing_to_see_is_refused_when_joining(store_client):
    game = _create(store_client, invitations=True)
    code = game["seats"]["north"]["invitation"]
    body = assert_problem(_join(store_client, game, "north", code, "\u3164"), 422, "invalid-body")
    assert body["errors"]["json"]["name"] == [
        "at least one visible character, and at most 4 combining marks in a row"
    ]
    assert _join(store_client, game, "north", code, "Ana").status_code == 200  # code unused
