"""G-R1 for Solitaire Frenzy: every refusal names the rule actually applied, as the
table seeds/refusals/solitaire-frenzy.yaml says (code -> rule IDs and when). Walks
every refusal of tests/refusal_walk.py and of the position refusals."""

from __future__ import annotations

import pathlib

import pytest
import yaml

from refusal_walk import FRENZY
from service import rulebook
from service.games import RuleViolation
from service.games import solitaire_frenzy as sf
from test_frenzy_positions import REFUSALS as POSITIONS

TABLE = yaml.safe_load(
    (
        pathlib.Path(__file__).parent.parent / "seeds" / "refusals" / "solitaire-frenzy.yaml"
    ).read_text(encoding="utf-8")
)
RULES = {code: {entry["rule"] for entry in entries} for code, entries in TABLE["refusals"].items()}
SEED = "0123456789abcdef" * 4

EXTRA = [  # refusals whose rule the main walk does not reach
    ("invalid-option", "G-O1", lambda: sf.new_game(sf.GAME, {"colour": "red"}, SEED)),
    ("invalid-option", "G-T1", lambda: sf.new_game(sf.GAME, {"idle_seconds": 0}, SEED)),
    ("invalid-option", "SF-O1", lambda: sf.new_game(sf.GAME, {"play_order": "x"}, SEED)),
    (
        "referee-not-allowed",
        "G-M2",
        lambda: sf.apply(_table(), "referee", {"type": "turn", "round": 1}),
    ),
    (
        "invalid-action",
        "SF-T1",
        lambda: sf.apply(
            _server(),
            "p1",
            {"type": "play", "round": 1, "card": "5H", "to": "foundation", "pile": 1},
        ),
    ),
]
WALK = [(code, rule, provoke) for code, rule, provoke in FRENZY + EXTRA] + [
    (
        "invalid-position",
        rule,
        lambda build=build: sf.start_from_position(sf.GAME, {"players": 2}, SEED, build()),
    )
    for _, build, rule, _ in POSITIONS
]


def _server() -> dict:
    return sf.fold_all(None, sf.new_game(sf.GAME, {}, SEED))


def _table() -> dict:
    return sf.fold_all(None, sf.new_game(sf.GAME, {"dealing": "table"}, SEED))


@pytest.mark.parametrize(
    "code,rule,provoke", WALK, ids=[f"{code}-{rule}" for code, rule, _ in WALK]
)
def test_g_r1_every_frenzy_refusal_cites_the_rule_its_table_names(code, rule, provoke):
    with pytest.raises(RuleViolation) as caught:
        provoke()
    assert (caught.value.code, caught.value.rule) == (code, rule), caught.value.detail
    assert rule in RULES[code], f"{code} cites {rule}, not in the table: {RULES[code]}"


def test_g_r1_the_table_lists_real_rules_and_every_code_is_walked():
    walked = {code for code, _, _ in WALK}
    assert set(RULES) == walked, "every code of the table is walked, and only those"
    for code, rules in RULES.items():
        for rule in rules:
            assert rulebook.rule(rule) is not None, (code, rule)
        assert rules <= set(rulebook.problems()[code]["rules"]), code
