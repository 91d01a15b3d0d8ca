"""The contract against the served app (schemathesis): requests generated from
openapi.yaml get no 5xx, only responses the contract describes, and a schema-valid
request is never refused as malformed (400/422).

Bounded (a few examples per operation) so that it stays within seconds; a temp SQLite
database migrated like production."""

from __future__ import annotations

import jsonschema
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import positive_data_acceptance, response_schema_conformance

from service.games.sequence import allowed_sides
from tests.conftest import migrated_app

EXAMPLES = 12
# a well-formed request may still be refused by credentials or by the game's state
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "412", "428"]


# Refusals no schema can state: an import whose events do not replay (what a document
# must replay to is its content, as no schema states which tokens exist), and both of
# the stream's alternative credentials at once (security requirements are "one of").
# The Sequence checks take a position whose consistency is its content too: a chip on a
# free corner or on a space another side holds (invalid-cell), locked sequences that are
# not lines of their side's chips (invalid-sequence), a custom board (invalid-board), a
# problem card whose division is inexact or whose answer is not on the board
# (invalid-card; its form has a pattern). Their pictures take the same positions,
# as the Solitaire Frenzy picture takes foundations that SF-F1 may not build.
_POSITION = {"invalid-cell", "invalid-sequence", "invalid-board", "invalid-card"}
# An action is judged against its game: a seat the game does not have (invalid-seat: the
# player count), a Halves card outside the game's deck (invalid-card), a Solitaire Frenzy
# round not yet started (invalid-round), If-Match and expected_version naming different
# versions (conflicting-versions), a key sent again with another body
# (idempotency-key-reused).
_ACTION = {
    (422, "invalid-seat"),
    (422, "invalid-card"),
    (422, "invalid-round"),
    (400, "conflicting-versions"),
    (422, "idempotency-key-reused"),
}
NOT_FORM = (
    {("POST /v1/games/{game_id}/actions", status, code) for status, code in _ACTION}
    | {
        ("POST /v1/games/import", 422, "import-mismatch"),
        # G-P1: whether the rules can reach a stated position is its content, as for an
        # import (and a Sequence position names either Sequence game in its schema)
        ("POST /v1/games", 422, "invalid-position"),
        # a display name for a seat the game does not have (its seats follow its options)
        ("POST /v1/games", 422, "invalid-seat"),
        ("POST /v1/games/{game_id}/rematch", 422, "invalid-seat"),
        ("GET /v1/games/{game_id}/stream", 400, "conflicting-credentials"),
    }
    | {
        (f"POST /v1/{game}/{path}", 422, code)
        for code in _POSITION
        for game in ("sequence", "sequence-numbers")
        for path in ("sequences/check", "moves/check", "picture.svg")
    }
    | {("POST /v1/solitaire-frenzy/foundations/picture.svg", 422, "invalid-foundation")}
)


def accepted(ctx, response, case):
    """positive_data_acceptance, but for the refusals of :data:`NOT_FORM`."""
    if response.status_code in (400, 422):
        code = response.json().get("code")
        if (case.operation.label, response.status_code, code) in NOT_FORM:
            return None
    return positive_data_acceptance(ctx, response, case)


CHECKS = [not_a_server_error, response_schema_conformance, accepted]


@pytest.fixture(scope="module")
def fuzz_app(new_database):
    url = new_database("sqlite")
    with migrated_app(url) as app:
        yield app


@pytest.fixture(scope="module")
def contract(fuzz_app):
    config = SchemathesisConfig.from_dict(
        {"checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED}}}
    )
    return schemathesis.openapi.from_wsgi("/openapi.yaml", fuzz_app, config=config)


def within_cross_rules(case) -> bool:
    """False for a game creation that breaks an option rule the contract states in
    words only (OpenAPI 3.0 has no if/then; service.api.creation._CROSS): first_seat
    within the player count, sides allowed for it, easy_extra_threes with variant
    easy, a custom tile manifest, board or deck (108 tiles, 10 x 10...)."""
    if case.operation.label != "POST /v1/games" or not isinstance(case.body, dict):
        return True
    game, options = case.body.get("game"), case.body.get("options") or {}
    players = options.get("players", 2)
    if any(options.get(name) is not None for name in ("tile_manifest", "board", "deck")):
        return False
    first = str(options.get("first_seat", "p1"))  # p1, p2... (2-Way Cards: blue, green)
    if first[1:].isdigit() and int(first[1:]) > players:
        return False
    if game in ("sequence", "sequence-numbers") and "sides" in options:
        return options["sides"] in allowed_sides(game, players)
    return not (options.get("easy_extra_threes") and options.get("variant") != "easy")


def test_the_service_keeps_its_contract(contract):
    failures = []
    for result in contract.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy().filter(within_cross_rules))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case):
            case.call_and_validate(checks=CHECKS)

        try:
            check()
        except Exception as failure:  # noqa: BLE001 - gathered, then reported together
            failures.append(f"{operation.label}: {failure}")
    assert not failures, "\n\n".join(failures)


GAMES = ["two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy"]
READS = [
    ("/v1/games/{game_id}", "GET"),
    ("/v1/games/{game_id}/events", "GET"),
    ("/v1/games/{game_id}/legal-actions", "GET"),
    ("/v1/games/{game_id}/export", "GET"),
    ("/v1/games/{game_id}/stream-tickets", "POST"),
]


@pytest.fixture(scope="module")
def open_games(fuzz_app):
    """One new game of each kind: (game id, the referee's and the first seat's tokens)."""
    client, out = fuzz_app.test_client(), []
    for game in GAMES:
        created = client.post("/v1/games", json={"game": game}).get_json()
        seat = next(iter(created["seats"].values()))["token"]
        out.append((created["id"], created["referee_token"], seat))
    return out


def test_a_game_read_by_its_players_keeps_the_contract(contract, open_games):
    """The game's own operations with real tokens (its views, events, legal actions,
    export, stream tickets; generated queries and headers): typed per game as the
    contract says, for the referee and for a seat."""
    failures = []
    for path, method in READS:
        operation = contract[path][method]
        for game_id, *tokens in open_games:
            for token in tokens:

                def authorised(case, game_id=game_id, token=token):
                    case.path_parameters = {"game_id": game_id}
                    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
                    case.headers.pop("If-None-Match", None)
                    return case

                @given(case=operation.as_strategy().map(authorised))
                @settings(
                    max_examples=3,
                    deadline=None,
                    derandomize=True,
                    database=None,
                    suppress_health_check=list(HealthCheck),
                )
                def check(case):
                    case.call_and_validate(checks=CHECKS)

                try:
                    check()
                except Exception as failure:  # noqa: BLE001 - reported together
                    failures.append(f"{method} {path} ({game_id}): {failure}")
    assert not failures, "\n\n".join(failures)


def _turned_without_card(body) -> bool:
    """A Halves ``blocked`` report with ``turned`` but no ``card`` (HV-T4): its description
    states that ``turned`` goes with a card; OpenAPI 3.0 has no ``dependentRequired``, and
    the ``anyOf`` that would state it breaks the generated clients' discriminated unions."""
    return (
        isinstance(body, dict)
        and body.get("type") == "blocked"
        and "turned" in body
        and "card" not in body
    )


def test_actions_posted_with_real_tokens_keep_the_contract(contract, open_games):
    """Action bodies valid for the game's own union (TwoWayAction...), posted by its
    referee and a seat: never a 5xx, every reply as the contract says, and no refusal
    as malformed but those of :data:`_ACTION`."""
    from service.api.actions import GAMES

    spec = contract.raw_schema
    operation = contract["/v1/games/{game_id}/actions"]["POST"]
    failures = []
    for (game_id, *tokens), prefix in zip(open_games, GAMES.values()):
        union = jsonschema.Draft4Validator(
            {"$ref": f"#/components/schemas/{prefix}Action", "components": spec["components"]}
        )
        for token in tokens:

            def authorised(case, game_id=game_id, token=token):
                case.path_parameters = {"game_id": game_id}
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
                return case

            strategy = (
                operation.as_strategy()
                .filter(
                    lambda case, union=union: (
                        union.is_valid(case.body) and not _turned_without_card(case.body)
                    )
                )
                .map(authorised)
            )

            @given(case=strategy)
            @settings(
                max_examples=10,
                deadline=None,
                derandomize=True,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            def check(case):
                case.call_and_validate(checks=CHECKS)

            try:
                check()
            except Exception as failure:  # noqa: BLE001 - reported together
                failures.append(f"{prefix} ({game_id}): {failure}")
    assert not failures, "\n\n".join(failures)
