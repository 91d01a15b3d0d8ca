"""G-R1 across the engines: every game of the rule book has its refusal table beside the
rule book (seeds/refusals/<game>.yaml), every refusal code an engine's source can raise
is in its game's table, the walk (tests/refusal_walk.py) provokes refusals of every
engine, and `game-over` cites, in every engine, each rule that can end that game."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from refusal_walk import SCENARIOS
from service import rulebook
from test_rulebook import _REFUSERS

ROOT = Path(__file__).resolve().parent.parent
ENGINES = {
    "two-way": "two_way",
    "sequence": "sequence",
    "halves": "halves",
    "solitaire-frenzy": "solitaire_frenzy",
}
# the rules that end a game (RULES.md): G-R1 says game-over cites the one that did
ENDINGS = {
    "two-way": {"TW-E1", "TW-E2"},
    "sequence": {"SQ-S3", "SN-S1", "SQ-E1", "G-T1"},
    "halves": {"HV-E1", "HV-T5", "HV-T6"},
    "solitaire-frenzy": {"SF-E2", "SF-E3"},
}


def _rules(entry) -> set[str]:
    """The rule IDs of one code's entry, whichever of the tables' shapes it has."""
    if isinstance(entry, list):
        return {item["rule"] for item in entry}
    if "rules" in entry:
        return set(entry["rules"])
    return set(entry)


def _table(game: str) -> tuple[set[str], dict[str, set[str]]]:
    data = yaml.safe_load((ROOT / "seeds" / "refusals" / f"{game}.yaml").read_text("utf-8"))
    games = set(data.get("games") or [data["game"]])
    return games, {code: _rules(entry) for code, entry in data["refusals"].items()}


TABLES = {game: _table(game) for game in ENGINES}


def _codes_raised(package: str) -> set[str]:
    codes: set[str] = set()
    for path in (ROOT / "service" / "games" / package).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name not in _REFUSERS or (name == "refuse" and package == "two_way"):
                continue  # 2-Way Cards' positions refuse(field, ...) is invalid-position
            args = [node.args[i] for i in _REFUSERS[name] if i < len(node.args)]
            args += [k.value for k in node.keywords if k.arg == "code"]
            codes |= {
                a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)
            }
    return codes


def test_g_r1_every_game_of_the_rule_book_has_a_refusal_table():
    games = {section["section"] for section in rulebook.sections()} - {"every-game"}
    covered = set().union(*(listed for listed, _ in TABLES.values()))
    assert (
        games
        == covered
        == {"two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy"}
    )


@pytest.mark.parametrize("game", ENGINES)
def test_g_r1_every_code_an_engine_raises_is_in_its_table(game):
    raised = _codes_raised(ENGINES[game])
    assert raised, f"no refusal found in service/games/{ENGINES[game]}"
    assert raised - set(TABLES[game][1]) == set()


@pytest.mark.parametrize("game", ENGINES)
def test_g_r1_the_walk_provokes_refusals_of_every_engine_with_table_rules(game):
    walked = {(code, rule) for g, code, rule, _ in SCENARIOS if g == game}
    assert walked, game
    table = TABLES[game][1]
    assert {pair for pair in walked if pair[1] not in table.get(pair[0], set())} == set()
    problems = rulebook.problems()
    for code, rules in table.items():
        assert rules <= set(problems[code]["rules"]), (game, code)


@pytest.mark.parametrize("game", ENGINES)
def test_g_r1_game_over_cites_each_rule_that_ends_the_game(game):
    assert TABLES[game][1]["game-over"] == ENDINGS[game]
    walked = {rule for g, code, rule, _ in SCENARIOS if g == game and code == "game-over"}
    assert walked == ENDINGS[game]
