"""The stateless Sequence / Sequence Numbers endpoints through the Flask test client."""

import pytest

from service.games import sequence as sq

PROBLEM = "application/problem+json"
INDEX = sq.spaces_index([list(r) for r in sq.NUMBERS_BOARD])


def ok(response):
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    return response.get_json()


def problem(response, code=None):
    assert response.status_code == 422, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = response.get_json(force=True)
    if code:
        assert body["code"] == code
    return body


def test_sq_s1_sequences_check_row_with_a_corner(client):
    body = ok(
        client.post(
            "/v1/sequence/sequences/check",
            json={"chips": {"green": [[0, 1], [0, 2], [0, 3], [0, 4]], "blue": [[1, 1]]}},
        )
    )
    assert body == {
        "counts": {"green": 1, "blue": 0},
        "sequences": {
            "green": [{"cells": [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]], "locked": False}],
            "blue": [],
        },
    }


def test_sq_s4_sequences_check_nine_in_a_row_is_two(client):
    body = ok(
        client.post(
            "/v1/sequence/sequences/check", json={"chips": {"blue": [[7, c] for c in range(9)]}}
        )
    )
    assert body["counts"] == {"blue": 2}
    assert [s["cells"][0] for s in body["sequences"]["blue"]] == [[7, 0], [7, 4]]


def test_sq_s2_sequences_check_keeps_the_locked_ones(client):
    locked = {"side": "green", "cells": [[5, c] for c in range(2, 7)]}
    body = ok(
        client.post(
            "/v1/sequence/sequences/check",
            json={"chips": {"green": [[5, c] for c in range(10)]}, "sequences": [locked]},
        )
    )
    # every other window of the row shares 2 or more spaces with 2-6 (SQ-S4)
    assert body["sequences"]["green"] == [{"cells": locked["cells"], "locked": True}]


def test_sq_t1_moves_check_legal_and_what_it_completes(client):
    body = ok(
        client.post(
            "/v1/sequence/moves/check",
            json={
                "chips": {"green": [[0, 1], [0, 2], [0, 3]]},
                "side": "green",
                "card": "5s",
                "cell": [0, 4],
            },
        )
    )
    assert body == {
        "legal": True,
        "code": None,
        "detail": None,
        "rule": "SQ-T1",
        "action": "play",
        "card": "5S",
        "sequences": [{"side": "green", "cells": [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]}],
    }


@pytest.mark.parametrize(
    "path, card, cell, rule",
    [
        ("/v1/sequence/moves/check", "JD", [5, 5], "SQ-T2"),
        ("/v1/sequence/moves/check", "JS", [4, 4], "SQ-T3"),
        ("/v1/sequence-numbers/moves/check", "PLUS", [5, 5], "SN-C2"),
        ("/v1/sequence-numbers/moves/check", "MINUS", [4, 4], "SN-C2"),
    ],
)
def test_g_r1_a_legal_move_names_the_rule_of_its_card(client, path, card, cell, rule):
    body = ok(
        client.post(
            path,
            json={"chips": {"blue": [[4, 4]]}, "side": "green", "card": card, "cell": cell},
        )
    )
    assert (body["legal"], body["rule"]) == (True, rule)


@pytest.mark.parametrize(
    "card, cell, code, rule",
    [
        ("6S", [0, 6], "card-not-on-space", "SQ-T1"),
        ("2S", [0, 1], "space-occupied", "SQ-T1"),
        ("JD", [9, 9], "space-occupied", "SQ-C1"),
        ("JH", [0, 1], "own-chip", "SQ-T3"),
        ("JS", [4, 4], "no-chip", "SQ-T3"),
        ("JS", [6, 0], "chip-locked", "SQ-S2"),
    ],
)
def test_sq_t1_t2_t3_moves_check_codes(client, card, cell, code, rule):
    """Each refusal names its rule (G-R1)."""
    body = ok(
        client.post(
            "/v1/sequence/moves/check",
            json={
                "chips": {"green": [[0, 1]], "blue": [[r, 0] for r in range(5, 10) if r < 9]},
                "sequences": [{"side": "blue", "cells": [[r, 0] for r in range(5, 10)]}],
                "side": "green",
                "card": card,
                "cell": cell,
            },
        )
    )
    assert body["legal"] is False and body["code"] == code and body["detail"]
    assert body["rule"] == rule


def test_sq_s5_moves_check_with_a_named_sequence(client):
    chips = {"green": [[5, c] for c in (0, 2, 3, 4, 5)]}
    named = [[5, c] for c in range(1, 6)]
    body = ok(
        client.post(
            "/v1/sequence/moves/check",
            json={
                "chips": chips,
                "side": "green",
                "card": "10S",
                "cell": [5, 1],
                "sequence": named,
            },
        )
    )
    assert body["sequences"] == [{"side": "green", "cells": named}]
    body = ok(
        client.post(
            "/v1/sequence/moves/check",
            json={
                "chips": chips,
                "side": "green",
                "card": "10S",
                "cell": [5, 1],
                "sequence": [[5, c] for c in range(2, 7)],
            },
        )
    )
    assert body["legal"] is False and body["code"] == "invalid-sequence"
    assert body["rule"] == "SQ-S5"


@pytest.mark.parametrize(
    "payload, code, field",
    [
        ({"chips": {"green": [[0, 10]]}}, "invalid-cell", "chips.green.0"),
        ({"chips": {"green": [[2, 2], [-1, 3]]}}, "invalid-cell", "chips.green.1"),
        ({"chips": {"green": [[9, 9]]}}, "invalid-cell", "chips.green.0"),
        ({"chips": {"green": [[1, 1]], "red": [[1, 1]]}}, "invalid-cell", "chips.red.0"),
        ({"chips": {"green": [[1, 1]]}, "card": "ZZ"}, "invalid-card", "card"),
        ({"chips": {"green": [[1, 1]]}, "card": "JK"}, "invalid-card", "card"),
        ({"chips": {"green": [[1, 1]]}, "cell": [10, 0]}, "invalid-cell", "cell"),
        (
            {
                "chips": {"green": [[1, c] for c in range(5)]},
                "sequences": [{"side": "green", "cells": [[1, 0], [1, 1], [1, 2], [1, 3], [2, 4]]}],
            },
            "invalid-sequence",
            "sequences.0.cells",
        ),
    ],
)
def test_malformed_moves_are_422_naming_the_field(client, payload, code, field):
    body = {"side": "green", "card": "5S", "cell": [0, 4], **payload}
    answer = problem(client.post("/v1/sequence/moves/check", json=body), code)
    assert field in answer["errors"]["json"]
    assert answer["rule"].startswith("SQ-")  # G-R1


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"chips": {"purple": [[1, 1]]}}, "chips"),
        ({"chips": {"green": [[1, True]]}}, "chips"),
        ({"chips": {"green": [[1.5, 1]]}}, "chips"),
        ({"chips": {"green": [[1, 1, 1]]}}, "chips"),
        ({"side": "pink"}, "side"),
        ({"cell": [1]}, "cell"),
        ({"card": 7}, "card"),
        ({"extra": 1}, "extra"),
    ],
)
def test_schema_errors_are_422_naming_the_field(client, payload, field):
    body = {"chips": {"green": []}, "side": "green", "card": "5S", "cell": [0, 4], **payload}
    answer = problem(client.post("/v1/sequence/moves/check", json=body), "invalid-body")
    assert field in answer["errors"]["json"]


@pytest.mark.parametrize(
    "payload, path",
    [
        ({"chips": {"green": [[1, 1], [2, True]]}}, ["chips", "green", "value", "1", "1"]),
        ({"chips": {"blue": [[0, 1], [2, 2], [3]]}}, ["chips", "blue", "value", "2"]),
        ({"sequence": [[0, 1], [0, 2], [0, 3], [0, 4], [0, 5.0]]}, ["sequence", "4", "1"]),
        (
            {"sequences": [{"side": "green", "cells": [[1, 1], [1, 2], "13", [1, 4], [1, 5]]}]},
            ["sequences", "0", "cells", "2"],
        ),
    ],
)
def test_a_bad_cell_among_good_ones_is_named_by_its_index(client, payload, path):
    """Lists of cells load in one step when every item is [row, col]; one bad item
    sends the list through item by item, so the error names it."""
    body = {"chips": {"green": []}, "side": "green", "card": "5S", "cell": [0, 4], **payload}
    errors = problem(client.post("/v1/sequence/moves/check", json=body), "invalid-body")
    node = errors["errors"]["json"]
    for key in path:
        node = node[key]
    assert isinstance(node, list) and node


def test_missing_chips_is_422(client):
    answer = problem(client.post("/v1/sequence/sequences/check", json={}))
    assert "chips" in answer["errors"]["json"]


def test_sn_c1_numbers_moves_check_on_the_answer(client):
    r, c = INDEX[42][1]
    body = ok(
        client.post(
            "/v1/sequence-numbers/moves/check",
            json={"chips": {}, "side": "blue", "card": "6×7", "cell": [r, c]},
        )
    )
    assert body["legal"] is True and body["card"] == "6 x 7"
    body = ok(
        client.post(
            "/v1/sequence-numbers/moves/check",
            json={"chips": {}, "side": "blue", "card": "84 : 2", "cell": [0, 1]},
        )
    )
    assert body["code"] == "card-not-on-space"


@pytest.mark.parametrize("card", ["7 / 2", "1 / 0", "6 x", "__import__('os')", "2 ** 8"])
def test_sn_c1_bad_problem_cards_are_422_naming_card(client, card):
    answer = problem(
        client.post(
            "/v1/sequence-numbers/moves/check",
            json={"chips": {}, "side": "blue", "card": card, "cell": [0, 1]},
        ),
        "invalid-card",
    )
    assert "card" in answer["errors"]["json"]


def test_sn_c2_numbers_plus_and_minus(client):
    chips = {"green": [[4, 4]], "blue": [[5, 5]]}
    body = ok(
        client.post(
            "/v1/sequence-numbers/moves/check",
            json={"chips": chips, "side": "green", "card": "PLUS", "cell": [3, 3]},
        )
    )
    assert body["legal"] and body["action"] == "play"
    body = ok(
        client.post(
            "/v1/sequence-numbers/moves/check",
            json={"chips": chips, "side": "green", "card": "minus", "cell": [5, 5]},
        )
    )
    assert body["legal"] and body["action"] == "remove-chip" and body["card"] == "MINUS"


def custom_board():
    board = [[None] * 10 for _ in range(10)]
    cells = [(r, c) for r in range(10) for c in range(10) if (r, c) not in sq.CORNERS]
    for i, (r, c) in enumerate(cells):
        board[r][c] = 200 + i % 48
    return board


def test_sn_c0_numbers_custom_board(client):
    board = custom_board()
    body = ok(
        client.post(
            "/v1/sequence-numbers/sequences/check",
            json={"board": board, "chips": {"red": [[0, 1], [0, 2], [0, 3], [0, 4]]}},
        )
    )
    assert body["counts"] == {"red": 1}
    body = ok(
        client.post(
            "/v1/sequence-numbers/moves/check",
            json={"board": board, "chips": {}, "side": "red", "card": "400 / 2", "cell": [0, 1]},
        )
    )
    assert body["legal"] is True
    board[3][3] = board[3][4]  # a number on three spaces
    answer = problem(
        client.post("/v1/sequence-numbers/sequences/check", json={"board": board, "chips": {}}),
        "invalid-board",
    )
    assert "board" in answer["errors"]["json"]


def test_classic_has_no_board_field(client):
    answer = problem(
        client.post("/v1/sequence/sequences/check", json={"board": custom_board(), "chips": {}}),
        "invalid-body",
    )
    assert "board" in answer["errors"]["json"]


def test_catalog_lists_sequence_and_sequence_numbers(client):
    response = client.get("/v1/games/catalog")
    assert response.status_code == 200
    games = {g["game"]: g for g in response.get_json()["games"]}
    assert games["sequence"]["players"] == [2, 3, 4, 6, 8, 9, 10, 12]
    assert games["sequence-numbers"]["players"] == [2, 3, 4, 6]
