"""Every Halves refusal names the rule it applies (RULES.md G-R1), as the table beside
the rule book says (seeds/refusals/halves.yaml): the walk of tests/refusal_walk.py
provokes each refusal on the engine."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from refusal_walk import HALVES
from service import rulebook
from service.games import RuleViolation

TABLE = yaml.safe_load(
    (Path(__file__).resolve().parent.parent / "seeds" / "refusals" / "halves.yaml").read_text(
        encoding="utf-8"
    )
)["refusals"]


def _provoke(provoke) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        provoke()
    return caught.value


@pytest.mark.parametrize(
    "code, rule, provoke", HALVES, ids=[f"{code}-{rule}" for code, rule, _ in HALVES]
)
def test_g_r1_each_halves_refusal_cites_the_rule_its_table_gives(code, rule, provoke):
    violation = _provoke(provoke)
    assert (violation.code, violation.rule) == (code, rule), str(violation.detail)
    assert code in TABLE, f"{code} is not in seeds/refusals/halves.yaml"
    assert rule in TABLE[code]["rules"], f"{code} cites {rule}, not in its table entry"
    assert violation.status == TABLE[code]["status"]


def test_g_r1_every_entry_of_the_halves_table_is_walked_and_in_the_problem_catalog():
    walked = {(code, rule) for code, rule, _ in HALVES}
    listed = {(code, rule) for code, entry in TABLE.items() for rule in entry["rules"]}
    assert listed - walked == set(), "table entries no refusal of the walk provokes"
    assert walked - listed == set()
    problems = rulebook.problems()
    for code, rule in listed:
        assert rule in problems[code]["rules"], (code, rule)
        assert TABLE[code]["status"] in problems[code]["status"], code
        assert rulebook.rule(rule) is not None, rule


def test_hv_t2_a_play_of_several_cards_cites_one_card_per_play():
    several = [_provoke(p) for c, r, p in HALVES if (c, r) == ("invalid-action", "HV-T2")]
    assert [v.detail for v in several[:2]] == [
        "one card per play: send each card as a play of its own (HV-T2)"
    ] * 2


def test_hv_t5_game_over_after_a_block_nothing_helps_cites_hv_t5_not_hv_e1():
    over = [p for c, r, p in HALVES if c == "game-over"]
    assert {_provoke(p).rule for p in over} == {"HV-E1", "HV-T5", "HV-T6"}
