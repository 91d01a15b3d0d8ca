"""G-R1 for Sequence and Sequence Numbers: every refusal the engine raises cites the rule
it really applies, as seeds/refusals/sequence.yaml (kept beside the rule book) says; the
walk (tests/refusal_walk.py) provokes every code with every rule the table lists."""

import re
from pathlib import Path

import pytest
import yaml
from refusal_walk import SCENARIOS

from service import rulebook
from service.games import RuleViolation

TABLE = yaml.safe_load(
    (Path(__file__).resolve().parents[1] / "seeds" / "refusals" / "sequence.yaml").read_text(
        encoding="utf-8"
    )
)
PAIRS = {(code, rule) for code, rules in TABLE["refusals"].items() for rule in rules}
WALK = [(code, rule, provoke) for game, code, rule, provoke in SCENARIOS if game in TABLE["games"]]


@pytest.mark.parametrize("code, rule, provoke", WALK, ids=[f"{c}-{r}" for c, r, _ in WALK])
def test_g_r1_each_sequence_refusal_cites_the_rule_the_table_gives(code, rule, provoke):
    with pytest.raises(RuleViolation) as caught:
        provoke()
    assert (caught.value.code, caught.value.rule) == (code, rule)
    assert (code, rule) in PAIRS, f"{code} citing {rule} is not in seeds/refusals/sequence.yaml"


@pytest.mark.parametrize(
    "code, rule, provoke",
    [w for w in WALK if w[1].startswith("SN-")],
    ids=[f"{c}-{r}" for c, r, _ in WALK if r.startswith("SN-")],
)
def test_g_r1_a_sequence_numbers_refusal_names_its_rule_in_its_words(code, rule, provoke):
    """The detail of a refusal citing a Sequence Numbers rule, where it names rules,
    names that one (e.g. SN-S2, not only SQ-S2, for a locked chip)."""
    with pytest.raises(RuleViolation) as caught:
        provoke()
    detail = str(caught.value.detail)
    assert rule in detail or not re.search(r"\b(SQ|SN|G)-[A-Z]+\d", detail), detail


def test_g_r1_the_walk_provokes_every_code_and_rule_of_the_table():
    walked = {(code, rule) for code, rule, _ in WALK}
    assert PAIRS - walked == set()


def test_g_r1_the_table_names_known_codes_and_rule_ids():
    problems = rulebook.problems()
    known = {rule["id"] for section in rulebook.sections() for rule in section["rules"]}
    for code, rules in TABLE["refusals"].items():
        assert set(rules) <= set(problems[code]["rules"]), code
        assert set(rules) <= known and all(rules.values()), code
