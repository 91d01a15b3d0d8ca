"""HTTP: POST /v1/two-way/sequences/check and /v1/two-way/grid/sequences
(RULES.md TW-S1..TW-S10, TW-D1)."""

from __future__ import annotations

import pytest

CHECK = "/v1/two-way/sequences/check"
GRID = "/v1/two-way/grid/sequences"
PROBLEM = "application/problem+json"


def check(client, cards):
    response = client.post(CHECK, json={"cards": cards})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def assert_422(response, errors):
    assert response.status_code == 422, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = response.get_json(force=True)
    assert body["code"] == "invalid-body"
    assert body["errors"] == {"json": errors}


def test_tw_s7_check_wrap_run(client):
    assert check(client, ["KS", "AS", "2S", "3S"]) == {
        "valid": True,
        "kind": "run",
        "tier": "high",
        "points": 7,
        "length": 4,
        "cards": ["KS", "AS", "2S", "3S"],
        "assignment": ["KS", "AS", "2S", "3S"],
        "reasons": [],
        "rule": "TW-S1",
    }


@pytest.mark.parametrize(
    "cards, kind, tier, points, rule",
    [
        (["5H", "6H", "7H"], "run", "high", 5, "TW-S1"),
        (["7H", "7S", "7D"], "same-rank", "high", 5, "TW-S2"),
        (["KH", "KS", "KD", "KC", "KH"], "same-rank", "high", 10, "TW-S3"),
        (["2H", "9H", "KH", "5H"], "suit-set", "low", 4, "TW-S4"),
        (["7H", "7S", "7H"], "same-rank", "low", 3, "TW-S5"),
        (["4C", "4H", "4C", "4H", "4C"], "same-rank", "low", 6, "TW-S6"),
        (["3D", "2D", "AD", "KD"], "run", "high", 7, "TW-S1"),  # TW-S7: the ace joins
    ],
)
def test_check_examples(client, cards, kind, tier, points, rule):
    """Each verdict names the rule of its kind (G-R1)."""
    body = check(client, cards)
    assert (body["valid"], body["kind"], body["tier"], body["points"]) == (True, kind, tier, points)
    assert body["rule"] == rule


def test_tw_s8_check_reports_joker_assignment(client):
    body = check(client, ["QS", "JK", "10S"])
    assert body["assignment"] == ["QS", "JS", "10S"]
    assert body["cards"] == ["QS", "JK", "10S"]


def test_tw_s10_invalid_line_is_200_with_reasons(client):
    """Each reason names its code and rule (G-R1): identical neighbours break the
    low-tier same-rank rule of the line's length, TW-S5 for 3-4 cards, TW-S6 for 5-6."""
    body = check(client, ["7H", "7H", "7S"])
    assert body == {
        "valid": False,
        "kind": None,
        "tier": None,
        "points": 0,
        "length": 3,
        "cards": ["7H", "7H", "7S"],
        "assignment": ["7H", "7H", "7S"],
        "reasons": [
            {
                "code": "identical-adjacent",
                "rule": "TW-S5",
                "detail": "one rank, but two identical cards (same rank "
                "and suit) lie next to each other",
            }
        ],
        "rule": "TW-S5",
    }
    assert check(client, ["QH", "QH", "JK"])["valid"] is False
    # the verdict cites the loosest kind that could have taken the line: 5H 9H 5H is no
    # run (TW-S1) and, what rules it out, no suit set (TW-S4: all cards different)
    body = check(client, ["5H", "9H", "5H"])
    assert [r["rule"] for r in body["reasons"]] == ["TW-S1", "TW-S4"]
    assert body["rule"] == "TW-S4"
    assert check(client, ["5H", "9S", "KD"])["rule"] == "TW-S4"  # mixed-ranks-and-suits
    five = check(client, ["7H", "7S", "7S", "7D", "7C"])["reasons"]
    assert [(r["code"], r["rule"]) for r in five] == [("identical-adjacent", "TW-S6")]


def test_tw_s4_a_one_suit_line_with_a_card_twice_names_both_broken_kinds(client):
    """2H 5H 2H: one suit but a repeated card, so neither a run (TW-S1) nor a suit set
    (TW-S4); cards sharing neither suit nor rank fit no kind (TW-S4, the loosest)."""
    reasons = check(client, ["2H", "5H", "2H"])["reasons"]
    assert [(r["code"], r["rule"]) for r in reasons] == [
        ("not-consecutive", "TW-S1"),
        ("duplicate-card", "TW-S4"),
    ]
    mixed = check(client, ["2H", "5S", "9D"])["reasons"]
    assert [(r["code"], r["rule"]) for r in mixed] == [("mixed-ranks-and-suits", "TW-S4")]


def test_check_accepts_every_notation_and_answers_canonical(client):
    body = check(client, ["TH", "jh", "Qh"])
    assert body["cards"] == ["10H", "JH", "QH"]
    assert (body["kind"], body["points"]) == ("run", 5)
    assert check(client, ["10h", "jk", "QH"])["cards"] == ["10H", "JK", "QH"]


@pytest.mark.parametrize(
    "body, errors",
    [
        ({"cards": ["KS", "ZZ", "2S"]}, {"cards": {"1": ["unknown card code 'ZZ'"]}}),
        (
            {"cards": ["KS", 7, "2S"]},
            {"cards": {"1": ["a card code is a string such as '10H', not int"]}},
        ),
        ({"cards": ["KS", "2S"]}, {"cards": ["Length must be between 3 and 6."]}),
        ({"cards": ["KS"] * 7}, {"cards": ["Length must be between 3 and 6."]}),
        ({}, {"cards": ["Missing data for required field."]}),
        ({"cards": "KS AS 2S"}, {"cards": ["Not a valid list."]}),
        ({"cards": ["AS", "2S", "3S"], "colour": "blue"}, {"colour": ["Unknown field."]}),
    ],
)
def test_check_malformed_body_is_422_naming_the_field(client, body, errors):
    assert_422(client.post(CHECK, json=body), errors)


def test_check_null_card_is_422(client):
    response = client.post(CHECK, json={"cards": ["AS", None, "3S"]})
    assert response.status_code == 422
    assert "1" in response.get_json(force=True)["errors"]["json"]["cards"]


def test_check_non_object_body_is_422(client):
    response = client.post(CHECK, json=["AS", "2S", "3S"])
    assert response.status_code == 422
    assert response.mimetype == PROBLEM


def empty_grid():
    return [[None] * 7 for _ in range(7)]


def test_tw_d1_grid_sequences(client):
    grid = empty_grid()
    grid[2][1:4] = ["qs", "JK", "TS"]
    grid[4][4], grid[5][5], grid[6][6] = "7H", "7S", "7D"
    response = client.post(GRID, json={"grid": grid})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json() == {
        "sequences": [
            {
                "cells": [[2, 1], [2, 2], [2, 3]],
                "cards": ["QS", "JK", "10S"],
                "kind": "run",
                "tier": "high",
                "points": 5,
                "assignment": ["QS", "JS", "10S"],
            },
            {
                "cells": [[4, 4], [5, 5], [6, 6]],
                "cards": ["7H", "7S", "7D"],
                "kind": "same-rank",
                "tier": "high",
                "points": 5,
                "assignment": ["7H", "7S", "7D"],
            },
        ]
    }


def test_grid_empty_is_no_sequences(client):
    response = client.post(GRID, json={"grid": empty_grid()})
    assert response.get_json() == {"sequences": []}


def test_grid_bad_code_is_422_naming_the_cell(client):
    grid = empty_grid()
    grid[3][5] = "ZZ"
    assert_422(
        client.post(GRID, json={"grid": grid}), {"grid": {"3": {"5": ["unknown card code 'ZZ'"]}}}
    )


@pytest.mark.parametrize(
    "grid, errors",
    [
        ([[None] * 7] * 6, {"grid": ["Length must be 7."]}),
        ([[None] * 7] * 6 + [[None] * 8], {"grid": {"6": ["Length must be 7."]}}),
        ([[None] * 7] * 6 + ["row"], {"grid": {"6": ["Not a valid list."]}}),
        ("grid", {"grid": ["Not a valid list."]}),
        (
            [["AS"] * 7] * 6 + [["AS", "2S", 7, "4S", None, None, None]],
            {"grid": {"6": {"2": ["a card code is a string such as '10H', not int"]}}},
        ),
        ([["AS"] * 7] * 7 + [[None] * 7], {"grid": ["Length must be 7."]}),
    ],
)
def test_grid_not_7_by_7_is_422(client, grid, errors):
    assert_422(client.post(GRID, json={"grid": grid}), errors)
