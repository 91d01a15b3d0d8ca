"""Every error is RFC 9457 problem+json, hostile JSON included (never a 500)."""

import json

import pytest

from service.api.base import MAX_DEPTH, InvalidJSON, strict_loads

from helpers import PROBLEM, assert_problem  # noqa: F401


def post_routes(app):
    """Every POST route without path parameters (they take a JSON body)."""
    routes = [r.rule for r in app.url_map.iter_rules() if "POST" in r.methods and "<" not in r.rule]
    assert routes, "no POST endpoint to test"
    return routes


def test_unknown_route_is_404_problem(client):
    assert_problem(client.get("/v1/nothing-here"), 404, "not-found")


def test_wrong_method_is_405_problem_and_keeps_allow(client):
    response = client.delete("/healthz")
    assert_problem(response, 405, "method-not-allowed")
    assert "GET" in response.headers["Allow"]


@pytest.mark.parametrize(
    "raw, reason",
    [
        ("[" * 1000 + "]" * 1000, "nested"),
        ('{"cards": [' * 40 + "]}" * 40, "nested"),
        ('{"cards": NaN}', "NaN"),
        ('{"cards": Infinity}', "Infinity"),
        ('{"cards": -Infinity}', "Infinity"),
        ('{"cards": [], "cards": []}', "duplicate"),
        ('{"cards": [', "Expecting"),
        ("\xff", "UTF-8"),
        ('{"cards": [], "\\ud800": 1}', "unpaired surrogate"),  # a key: was a 500
        ('{"cards": ["AS", "\\uDC00x"]}', "unpaired surrogate"),
    ],
)
def test_hostile_json_is_400_on_every_post(app, client, raw, reason):
    data = raw.encode("latin-1") if raw == "\xff" else raw.encode()
    for route in post_routes(app):
        response = client.post(route, data=data, content_type="application/json")
        body = assert_problem(response, 400, "invalid-json")
        assert reason in body["detail"]


def test_body_over_64_kib_is_413(app, client):
    """64 KiB for every body but an import's (MAX_IMPORT_BYTES, 4 MiB by default)."""
    big = json.dumps({"cards": ["AS"] * 20000})
    assert len(big) > 64 * 1024
    for route in post_routes(app):
        body = big
        if route == "/v1/games/import":
            body = json.dumps({"cards": ["AS"] * (app.config["MAX_IMPORT_BYTES"] // 6)})
            assert len(body) > app.config["MAX_IMPORT_BYTES"]
        assert_problem(
            client.post(route, data=body, content_type="application/json"), 413, "payload-too-large"
        )


def test_wrong_content_type_is_415(app, client):
    for route in post_routes(app):
        response = client.post(
            route, data="cards=AS", content_type="application/x-www-form-urlencoded"
        )
        assert_problem(response, 415, "unsupported-media-type")


def test_strict_loads_accepts_plain_json_and_names_defects():
    assert strict_loads('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}
    assert strict_loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(InvalidJSON, match="deeper"):
        strict_loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    # brackets inside strings do not count towards the depth
    assert strict_loads('["' + "[" * 100 + '"]') == ["[" * 100]


def test_an_escaped_surrogate_pair_is_one_character_and_passes():
    assert strict_loads('["\\ud83d\\ude00", "\\uD83C\\uDCA1"]') == ["\U0001f600", "\U0001f0a1"]
    with pytest.raises(InvalidJSON, match="unpaired surrogate"):
        strict_loads('{"a": "\\ude00\\ud83d"}')  # the halves in the wrong order
    with pytest.raises(InvalidJSON, match="unpaired surrogate"):
        strict_loads('{"\\ud800": 1}', scan=False)  # an import's body too


def test_overflowing_number_literal_is_400(app, client):
    for route in post_routes(app):
        body = assert_problem(
            client.post(route, data='{"cards": [1e999]}', content_type="application/json"),
            400,
            "invalid-json",
        )
        assert "1e999" in body["detail"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Content-Type": "application/json; charset=latin1"},
        {"Content-Type": "application/json", "Content-Encoding": "gzip"},
    ],
)
def test_other_charset_or_encoding_is_415(app, client, headers):
    for route in post_routes(app):
        response = client.post(route, data=b'{"cards": ["AS", "2S", "3S"]}', headers=headers)
        assert_problem(response, 415, "unsupported-media-type")


def test_double_slash_is_404_problem_not_a_redirect(client):
    assert_problem(client.get("/v1//games/catalog"), 404, "not-found")


BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def test_a_browser_at_the_services_address_lands_on_the_referees_page(client):
    # a referee at a game night types the address; an API client still gets a problem
    response = client.get("/", headers={"Accept": BROWSER})
    assert (response.status_code, response.headers["Location"]) == (302, "/referee/")
    assert response.data == b"" and "Content-Type" not in response.headers
    for accept in ("*/*", "application/json"):
        assert_problem(client.get("/", headers={"Accept": accept}), 404, "not-found")


def test_the_page_without_its_slash_redirects_with_no_html(client):
    response = client.get("/referee", headers={"Accept": BROWSER})
    assert (response.status_code, response.headers["Location"]) == (308, "/referee/")
    assert response.data == b"" and "Content-Type" not in response.headers


def test_a_number_of_more_than_64_digits_is_400_in_plain_words(app, client):
    for route in post_routes(app):
        body = assert_problem(
            client.post(
                route, data='{"cards": ' + "9" * 5000 + "}", content_type="application/json"
            ),
            400,
            "invalid-json",
        )
        assert body["detail"] == "Invalid JSON body: a number has more than 64 digits"


def test_problems_and_answers_are_compact_json(client):
    assert client.get("/healthz").get_data(as_text=True).strip() == '{"status":"ok"}'
    assert '", "' not in client.get("/nothing").get_data(as_text=True)
