"""G-R1 for 2-Way Cards: every refusal names the rule it really applies. The table
seeds/refusals/two-way.yaml lists each refusal code of the engine with the rule(s) it
cites and when; the walk (tests/refusal_walk.py) provokes every entry of it, and every
code the engine can raise is in the table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from refusal_walk import TWO_WAY
from service import rulebook
from service.games import RuleViolation
from service.games.two_way import manifest_of

ROOT = Path(__file__).resolve().parent.parent
TABLE = yaml.safe_load((ROOT / "seeds" / "refusals" / "two-way.yaml").read_text("utf-8"))
CITED = {(code, entry["rule"]) for code, entries in TABLE["refusals"].items() for entry in entries}


@pytest.mark.parametrize("code, rule, provoke", TWO_WAY, ids=[f"{c}-{r}" for c, r, _ in TWO_WAY])
def test_g_r1_each_refusal_cites_the_rule_the_table_gives_it(code, rule, provoke):
    with pytest.raises(RuleViolation) as error:
        provoke()
    assert (error.value.code, error.value.rule) == (code, rule), error.value.detail
    assert (code, rule) in CITED, "a refusal missing from seeds/refusals/two-way.yaml"


def test_g_r1_the_walk_provokes_every_entry_of_the_table():
    assert CITED - {(code, rule) for code, rule, _ in TWO_WAY} == set()


def test_g_r1_every_rule_of_the_table_is_in_the_rule_book_and_the_problem_catalog():
    problems = rulebook.problems()
    for code, rule in CITED:
        assert rulebook.rule(rule) is not None, rule
        assert rule in problems[code]["rules"], (code, rule)
        assert TABLE["refusals"][code], code


def _codes_raised() -> set[str]:
    """The first (code) argument of every RuleViolation/bad_request written in the
    engine package, and the code defaults of its helpers."""
    codes = set()
    for path in (ROOT / "service" / "games" / "two_way").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None)
                index = {"RuleViolation": 0, "bad_request": 1}.get(name)
                if (
                    index is not None
                    and len(node.args) > index
                    and isinstance(node.args[index], ast.Constant)
                ):
                    codes.add(node.args[index].value)
    return codes | {"invalid-action"}  # bad_request's default


def test_g_r1_every_code_the_engine_raises_is_in_the_table():
    assert _codes_raised() == set(TABLE["refusals"])


# ----- the rules really applied, in play ----------------------------------------------


def _nearly_full() -> dict:
    """Table mode, blue to place: every space full but [6, 6], blue's run AS 2S 3S on
    [0, 0..2] (shipped manifest)."""
    from refusal_walk import _tw_blue
    from test_two_way_positions import start

    run = _tw_blue("AS", "2S", "3S")
    others = [t for t in range(108) if t not in run]
    hands = {"blue": others[:5], "green": others[5:10]}
    rest = iter(others[10:])
    grid = [[None] * 7 for _ in range(7)]
    for r in range(7):
        for c in range(7):
            grid[r][c] = run[c] if r == 0 and c < 3 else (None if (r, c) == (6, 6) else next(rest))
    return start({"game": "two-way", "grid": grid, "hands": hands}, {"dealing": "table"})


def test_tw_t4_a_declaration_freeing_spaces_makes_the_placement_due_and_refuses_the_draw():
    from service.games import two_way as tw
    from test_two_way_positions import fold_all

    state = _nearly_full()
    state = fold_all(
        tw.apply(
            state,
            "blue",
            {
                "type": "place",
                "tile": manifest_of(state)[state["hands"]["blue"][0]]["blue"],
                "cell": [6, 6],
            },
        ),
        state,
    )
    assert state["phase"] == "draw"  # TW-T4: one placement fitted
    state = fold_all(
        tw.apply(state, "blue", {"type": "declare", "cells": [[0, 0], [0, 1], [0, 2]]}), state
    )
    assert state["phase"] == "place" and tw.view(state, "blue")["placements_left"] == 1
    with pytest.raises(RuleViolation) as error:
        tw.apply(state, "referee", {"type": "draw", "seat": "blue", "tiles": state["bag"][:3]})
    assert (error.value.code, error.value.rule) == ("wrong-phase", "TW-T4")
    face = manifest_of(state)[state["hands"]["blue"][0]]["blue"]
    state = fold_all(
        tw.apply(state, "blue", {"type": "place", "tile": face, "cell": [0, 0]}), state
    )
    assert state["phase"] == "draw"


def test_tw_e2_game_over_after_a_full_grid_cites_tw_e2():
    from service.games import two_way as tw
    from test_two_way_positions import fold_all, start

    position = {
        "game": "two-way",
        "grid": [list(range(r * 7, r * 7 + 7)) for r in range(7)],
        "hands": {"blue": list(range(49, 56)), "green": list(range(56, 61))},
        "phase": "discard",
        "placed": 2,
    }
    state = start(position, {"dealing": "table"})
    state = fold_all(
        tw.apply(
            state,
            "blue",
            {
                "type": "discard",
                "tiles": [manifest_of(state)[t]["blue"] for t in state["hands"]["blue"][:2]],
            },
        ),
        state,
    )
    assert state["result"]["reason"] == "grid-full"
    with pytest.raises(RuleViolation) as error:
        tw.apply(state, "green", {"type": "declare", "cells": [[0, 0], [0, 1], [0, 2]]})
    assert (error.value.code, error.value.rule) == ("game-over", "TW-E2")
