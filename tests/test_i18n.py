"""Six languages (G-R1): the catalogs are complete and consistent, every refusal and
invalid verdict of every game comes back in each language with its rule ID, and a
French request to every endpoint gets French text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from service import rulebook
from service.api.games import _rule_violation
from service.errors import TITLES
from service.games import RuleViolation
from service.i18n import LANGUAGES
from service.messages import Message

from helpers import assert_problem
from refusal_walk import SCENARIOS

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "service" / "translations"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _catalog(path: Path, lang: str | None = None):
    with path.open("rb") as handle:
        return read_po(handle, locale=lang)


CATALOGS = {
    lang: _catalog(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po", lang)
    for lang in LANGUAGES[1:]
}


def expected(message: Message, lang: str) -> str:
    """``message`` in ``lang`` as the committed catalog words it (read from the .po,
    independently of the compiled .mo the service uses)."""
    params = {
        k: expected(v, lang) if isinstance(v, Message) else v for k, v in message.params.items()
    }
    text = message.msgid if lang == "en" else CATALOGS[lang][message.msgid].string
    return text % params if params else text


# ----- the catalogs -------------------------------------------------------------------


def test_g_r1_the_template_holds_exactly_the_messages_of_the_code():
    """`make messages` was run after the last change of a Message."""
    extracted = {
        message
        for _, _, message, *_ in extract_from_dir(
            str(ROOT / "service"), [("**.py", "python")], keywords={"Message": None}
        )
    }
    template = {m.id for m in _catalog(TRANSLATIONS / "messages.pot") if m.id}
    assert extracted == template, "run `make messages` and translate the new entries"


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_g_r1_every_message_exists_in_every_language_with_the_same_placeholders(lang):
    template = {m.id for m in _catalog(TRANSLATIONS / "messages.pot") if m.id}
    catalog = CATALOGS[lang]
    assert {m.id for m in catalog if m.id} == template
    for message in catalog:
        if not message.id:
            continue
        assert message.string, f"{lang}: not translated: {message.id!r}"
        assert "fuzzy" not in message.flags, f"{lang}: fuzzy: {message.id!r}"
        assert sorted(PLACEHOLDER.findall(message.string)) == sorted(
            PLACEHOLDER.findall(message.id)
        ), f"{lang}: placeholders of {message.id!r}"
    assert [errors for _, errors in catalog.check() if errors] == []  # Babel's checkers


# ----- every refusal of every game, in each language ---------------------------------


@pytest.fixture(scope="module")
def walk_app():
    """One app for the whole walk (it only renders problems)."""
    from service import create_app

    return create_app({"TESTING": True, "DATABASE_URL": "sqlite://"})


def _violation(provoke) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        provoke()
    return caught.value


def test_g_r1_the_walk_covers_every_game_refusal_code():
    walked = {code for _, code, _, _ in SCENARIOS}
    ruled = {code for code, entry in rulebook.problems().items() if entry["rules"]}
    # the API's own: seat-mismatch (see the replay test), the Solitaire Frenzy
    # picture's invalid-foundation (tests/test_pictures.py, in French), and G-P1's
    # position-unavailable and invalid-position for an engine without positions
    # (tests/test_positions_api.py; the engines' own invalid-position may be walked)
    assert (
        {"seat-mismatch", "invalid-foundation"}
        <= ruled - walked
        <= {"seat-mismatch", "invalid-foundation", "position-unavailable", "invalid-position"}
    )


@pytest.mark.parametrize(
    "game, code, rule, provoke", SCENARIOS, ids=[f"{g}-{c}-{r}" for g, c, r, _ in SCENARIOS]
)
def test_g_r1_every_refusal_comes_back_with_its_rule_in_each_language(
    walk_app, game, code, rule, provoke
):
    violation = _violation(provoke)
    assert (violation.code, violation.rule) == (code, rule)
    assert isinstance(violation.detail, Message), "a refusal's detail is a Message"
    entry = rulebook.problems()[code]
    assert rule in entry["rules"] and violation.status in entry["status"]
    for lang in LANGUAGES:
        with walk_app.test_request_context(headers={"Accept-Language": lang}):
            response = walk_app.process_response(_rule_violation(violation))
        body = response.get_json()
        assert response.headers["Content-Language"] == lang
        assert (body["code"], body["rule"], body["status"]) == (code, rule, violation.status)
        assert body["type"] == "https://card-referee.dev/problems/" + code
        assert body["detail"] == expected(violation.detail, lang)
        assert body["title"] == expected(TITLES[violation.status], lang)


# ----- every invalid verdict of the checks, in each language ---------------------------

_MOVE = {"chips": {"green": [[0, 1], [0, 2]], "blue": [[1, 1]]}, "side": "green"}
CHECKS = [  # (path, body, where the verdicts are, expected (code, rule) of each)
    (
        "/v1/two-way/sequences/check",
        {"cards": ["2H", "5S", "9D"]},
        "reasons",
        [("mixed-ranks-and-suits", "TW-S4")],
    ),
    (
        "/v1/two-way/sequences/check",
        {"cards": ["2H", "5H", "2H"]},
        "reasons",
        [("not-consecutive", "TW-S1"), ("duplicate-card", "TW-S4")],
    ),
    (
        "/v1/two-way/sequences/check",
        {"cards": ["7H", "7H", "7S"]},
        "reasons",
        [("identical-adjacent", "TW-S5")],
    ),
    (
        "/v1/two-way/sequences/check",
        {"cards": ["7H", "7S", "7S", "7D", "7C"]},
        "reasons",
        [("identical-adjacent", "TW-S6")],
    ),
    (
        "/v1/sequence/moves/check",
        {**_MOVE, "card": "JD", "cell": [1, 1]},
        None,
        [("space-occupied", "SQ-T2")],
    ),  # a wild goes on an open space (SQ-T2)
    (
        "/v1/sequence/moves/check",
        {**_MOVE, "card": "JD", "cell": [0, 0]},
        None,
        [("space-occupied", "SQ-C1")],
    ),
    (
        "/v1/sequence/moves/check",
        {**_MOVE, "card": "7H", "cell": [0, 4]},
        None,
        [("card-not-on-space", "SQ-T1")],
    ),
    (
        "/v1/sequence/moves/check",
        {**_MOVE, "card": "JS", "cell": [0, 4]},
        None,
        [("no-chip", "SQ-T3")],
    ),
    (
        "/v1/sequence/moves/check",
        {**_MOVE, "card": "JS", "cell": [0, 1]},
        None,
        [("own-chip", "SQ-T3")],
    ),
    (
        "/v1/sequence/moves/check",
        {
            "chips": {"green": [[0, 1]], "blue": [[0, 2]]},
            "sequences": [],
            "side": "green",
            "card": "JH",
            "cell": [0, 2],
        },
        None,
        [],
    ),
    (
        "/v1/sequence/moves/check",
        {
            "chips": {"blue": [[0, c] for c in range(1, 5)]},
            "sequences": [{"side": "blue", "cells": [[0, c] for c in range(0, 5)]}],
            "side": "green",
            "card": "JH",
            "cell": [0, 2],
        },
        None,
        [("chip-locked", "SQ-S2")],
    ),
    (
        "/v1/sequence/moves/check",
        {
            "chips": {"green": [[0, c] for c in range(1, 5)]},
            "side": "green",
            "card": "6S",
            "cell": [0, 5],
            "sequence": [[1, c] for c in range(1, 6)],
        },
        None,
        [("invalid-sequence", "SQ-S5")],
    ),
    (
        "/v1/sequence-numbers/moves/check",
        {"chips": {"green": []}, "side": "green", "card": "7 - 3", "cell": [0, 5]},
        None,
        [("card-not-on-space", "SN-C1")],
    ),
    ("/v1/halves/plays/check", {"top": "RC-GS", "card": "GT-YC"}, None, [("no-match", "HV-T1")]),
    (
        "/v1/halves/plays/check",
        {"top": "RC-GS", "card": "RT-BS", "match": "whole_card"},
        None,
        [("no-match", "HV-T1")],
    ),
    (
        "/v1/solitaire-frenzy/plays/check",
        {"card": "5H", "onto": None, "to": "foundation"},
        None,
        [("new-pile-needs-ace", "SF-F1")],
    ),
    (
        "/v1/solitaire-frenzy/plays/check",
        {"card": "AH", "onto": "4H", "to": "foundation"},
        None,
        [("ace-needs-new-pile", "SF-F1")],
    ),
    (
        "/v1/solitaire-frenzy/plays/check",
        {"card": "2H", "onto": "KH", "to": "foundation"},
        None,
        [("pile-complete", "SF-F1")],
    ),
    (
        "/v1/solitaire-frenzy/plays/check",
        {"card": "5S", "onto": "4H", "to": "foundation"},
        None,
        [("wrong-suit", "SF-F1")],
    ),
    (
        "/v1/solitaire-frenzy/plays/check",
        {"card": "6H", "onto": "4H", "to": "foundation"},
        None,
        [("wrong-rank", "SF-F1")],
    ),
    (
        "/v1/solitaire-frenzy/plays/check",
        {"card": "7H", "onto": "9S", "to": "column"},
        None,
        [("wrong-rank", "SF-R1")],
    ),
    (
        "/v1/solitaire-frenzy/plays/check",
        {"card": "8H", "onto": "9D", "to": "column"},
        None,
        [("wrong-colour", "SF-R1")],
    ),
]


def test_g_r1_every_invalid_verdict_of_the_checks_names_its_rule_in_each_language(client):
    """Each verdict's rule and code never change; its detail is the one English sentence
    translated (a different text in each language)."""
    for path, body, where, verdicts in CHECKS:
        details = {}
        for lang in LANGUAGES:
            response = client.post(path, json=body, headers={"Accept-Language": lang})
            assert response.status_code == 200, response.get_data(as_text=True)
            assert response.headers["Content-Language"] == lang
            assert "Accept-Language" in response.headers["Vary"]
            answer = response.get_json()
            found = answer[where] if where else ([answer] if answer.get("code") else [])
            assert [(v["code"], v["rule"]) for v in found] == verdicts, (path, body)
            details[lang] = [v["detail"] for v in found]
        for lang in LANGUAGES[1:]:
            assert all(a != b for a, b in zip(details[lang], details["en"])), (lang, path)


# ----- a French request to every endpoint ---------------------------------------------

_FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}
# endpoints whose every answer is data without sentences (no error without a bad URL)
_TEXTLESS = {
    "meta.healthz",
    "meta.get_metrics",
    "openapi_yaml",
    "games.get_catalog",
    "api-docs.openapi_json",
    "referee.page",
    "home.page_without_slash",
}  # static HTML (and the redirect to it, with no body); the page's verdicts come in its language


def _french_answer(client, rule) -> tuple[int, dict]:
    """A French request to ``rule``'s endpoint that its own code answers with text: a
    body that does not fit (POST), a bad token (a game's routes), an unknown ID."""
    url = re.sub(
        r"<(?:\w+:)?(\w+)>",
        lambda m: {"rule_id": "XX-Y9", "code": "nope"}.get(m.group(1), "nope"),
        rule.rule,
    )
    headers = {**_FRENCH, "Authorization": "Bearer nope"}
    if "POST" in rule.methods:
        response = client.post(url, json=[], headers=headers)
    else:
        response = client.get(url, headers=headers)
    return response.status_code, response


def test_g_r1_a_french_request_to_every_endpoint_gets_french_text(app, client):
    french_titles = {expected(m, "fr") for m in TITLES.values()}
    seen = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint in _TEXTLESS or rule.endpoint == "static":
            continue
        seen.add(rule.endpoint)
        status, response = _french_answer(client, rule)
        assert response.headers.get("Content-Language") == "fr", rule.rule
        body = response.get_json()
        if status >= 400:
            assert body["title"] in french_titles, (rule.rule, body)
            assert body["detail"] != "", rule.rule
        else:  # the rule book lists its titles in the language asked
            assert body["rules"][0]["title"] == rulebook.rules()[0]["title"]["fr"]
    assert {
        "games.post_action",
        "rules.get_rule",
        "problems.get_problem_type",
        "two-way.check_sequence",
    } <= seen


def test_g_r1_french_details_of_request_problems(client):
    body = assert_problem(
        client.post("/v1/halves/plays/check", data="x", content_type="text/plain", headers=_FRENCH),
        415,
    )
    assert body == {
        "type": "https://card-referee.dev/problems/unsupported-media-type",
        "title": "Type de média non pris en charge",
        "status": 415,
        "detail": "Envoyez le corps en application/json.",
        "code": "unsupported-media-type",
    }
    body = assert_problem(
        client.post("/v1/halves/plays/check", json={"top": "RC-GS"}, headers=_FRENCH),
        422,
        "invalid-body",
    )
    assert body["detail"] == "La requête ne correspond pas au schéma : voir errors."
    assert "rule" not in body  # a request problem names no rule
    body = assert_problem(
        client.post(
            "/v1/two-way/sequences/check",
            data='{"cards": NaN}',
            content_type="application/json",
            headers=_FRENCH,
        ),
        400,
        "invalid-json",
    )
    assert body["detail"] == "Corps JSON invalide : NaN n'est pas un nombre JSON"


def test_g_r1_sequence_check_input_errors_name_their_rule_in_the_language(client):
    body = assert_problem(
        client.post(
            "/v1/sequence/moves/check",
            headers=_FRENCH,
            json={"chips": {"green": [[0, 0]]}, "side": "green", "card": "2S", "cell": [0, 1]},
        ),
        422,
        "invalid-cell",
    )
    assert body["rule"] == "SQ-C1"
    assert body["detail"] == (
        "chips.green.0 : [0, 0] est un coin libre, il ne porte pas de jeton (SQ-C1)"
    )
    assert body["errors"] == {"json": {"chips.green.0": [body["detail"]]}}


# ----- a stored refusal replayed in another language -----------------------------------


def test_g_r1_a_replayed_refusal_comes_back_in_the_replaying_requests_language(
    store_client, make_game
):
    """The idempotency record keeps the refusal's message and values, not its words."""
    game = make_game("sequence", seed="ab" * 32)
    url = f"/v1/games/{game['id']}/actions"
    body = {"type": "pass", "expected_version": 1}
    headers = {**game["auth"]["p2"], "Idempotency-Key": "k-1"}
    first = store_client.post(url, json=body, headers={**headers, "Accept-Language": "de"})
    again = store_client.post(url, json=body, headers={**headers, "Accept-Language": "ro"})
    assert first.status_code == again.status_code == 409
    assert again.headers["Idempotent-Replayed"] == "true"
    de, ro = first.get_json(), again.get_json()
    assert de["detail"] == "p1 ist am Zug" and ro["detail"] == "este rândul lui p1"
    assert {k: v for k, v in de.items() if k not in ("title", "detail")} == {
        k: v for k, v in ro.items() if k not in ("title", "detail")
    }
    assert "_detail" not in ro and ro["rule"] == "SQ-P1" and ro["title"] == "Conflict"
    mismatch = assert_problem(
        store_client.post(
            url,
            json={**body, "seat": "p1"},
            headers={**game["auth"]["p2"], "Accept-Language": "es"},
        ),
        403,
        "seat-mismatch",
    )
    assert mismatch["rule"] == "G-M1"
    assert mismatch["detail"] == "El token de un puesto solo actúa por ese puesto."


def test_replies_are_plain_utf8_json_never_escaped(client):
    """Non-English text leaves as UTF-8 (``Trimiteți``), not ``\\u`` escapes, in problems,
    the stateless checks and the game store's replies."""
    refused = client.post(
        "/v1/two-way/sequences/check",
        data="x",
        headers={"Accept-Language": "ro", "Content-Type": "text/plain"},
    )
    raw = refused.get_data()
    assert refused.status_code == 415 and "Trimiteți".encode() in raw and b"\\u" not in raw
    verdict = client.post(
        "/v1/solitaire-frenzy/plays/check",
        headers={"Accept-Language": "ro"},
        json={"card": "8H", "onto": "9D", "to": "column"},
    )
    assert "ș".encode() in verdict.get_data() and b"\\u" not in verdict.get_data()
    rule = client.get("/v1/rules/SF-T1", headers={"Accept-Language": "ro"}).get_data()
    assert "câștigă".encode() in rule and b"\\u" not in rule


@pytest.mark.parametrize(
    "header, lang",
    [
        ("fr-CH, en;q=0.9", "fr"),  # a region tag is its language (RFC 4647 lookup)
        ("de-DE, en;q=0.5", "de"),
        ("en-GB, de;q=0.5", "en"),
        ("en-US, fr;q=0.9", "en"),
        ("nl, it-IT;q=0.8, es;q=0.7", "it"),  # the first of ours by quality
        ("es;q=0.4, ro;q=0.6", "ro"),
        ("*, de;q=0.5", "en"),  # any language: the default
        ("fr;q=0, de-AT", "de"),
        ("nl, pt", "en"),
    ],
)
def test_the_language_is_the_first_of_the_highest_quality_by_its_primary_tag(client, header, lang):
    response = client.post(
        "/v1/two-way/sequences/check",
        data="x",
        headers={"Accept-Language": header, "Content-Type": "text/plain"},
    )
    assert response.status_code == 415
    assert response.headers["Content-Language"] == lang
