"""The rule book ships with the service (G-R1): every rule ID cited anywhere is in it,
every one of its IDs is cited by a test, the documents are current, and the endpoints
serve it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from service import rulebook
from service.games import ENGINE_MODULES, engine

from helpers import assert_problem

ROOT = Path(__file__).resolve().parent.parent
RULE_ID = re.compile(r"\b(?:G|TW|SQ|SN|HV|SF)-[A-Z][0-9]+\b")
TEST_NAME_ID = re.compile(r"\b(?:test_)?(g|tw|sq|sn|hv|sf)_([a-z][0-9]+)")
THIS = Path(__file__).name


def _cited(paths) -> dict[str, set[str]]:
    """rule ID -> the files citing it (as TW-S7, or in a test name as tw_s7)."""
    cited: dict[str, set[str]] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        found = set(RULE_ID.findall(text))
        found |= {f"{a.upper()}-{b.upper()}" for a, b in TEST_NAME_ID.findall(text)}
        for rule_id in found:
            cited.setdefault(rule_id, set()).add(path.name)
    return cited


def test_g_r1_every_rule_id_cited_by_the_code_or_tests_is_in_the_rule_book():
    files = [
        *ROOT.joinpath("service").rglob("*.py"),
        *ROOT.joinpath("tests").glob("*.py"),
        ROOT / "README.md",
        *ROOT.joinpath("seeds", "rules").glob("*.yaml"),
        ROOT / "seeds" / "problems.yaml",
    ]
    unknown = {
        rule_id: sorted(where)
        for rule_id, where in _cited(files).items()
        if rulebook.rule(rule_id) is None
    }
    assert not unknown, f"cited but not in the rule book: {unknown}"


def test_g_r1_every_rule_of_the_book_is_cited_by_a_test():
    tests = [p for p in ROOT.joinpath("tests").glob("*.py") if p.name != THIS]
    cited = _cited(tests)
    uncited = [r["id"] for r in rulebook.rules() if r["id"] not in cited]
    assert not uncited, f"no test cites {uncited}"


def test_g_r1_the_book_covers_every_section_with_its_titles_in_six_languages():
    assert [s["section"] for s in rulebook.sections()] == list(rulebook.SECTIONS)
    for entry in rulebook.rules():
        assert set(entry["title"]) == set(rulebook.LANGUAGES), entry["id"]
        assert entry["statement"].strip() and all(r.strip() for r in entry["rulings"])


def test_g_o1_the_options_a_rule_names_are_options_of_its_games():
    options = {
        name: {o["name"] for o in engine(name).CATALOG[name]["options"]} for name in ENGINE_MODULES
    }
    every = set().union(*options.values()) | {"seed", "first_player"}
    for entry in rulebook.rules():
        known = every if entry["section"] == "every-game" else options[entry["section"]]
        assert set(entry["options"]) <= known, (entry["id"], entry["options"])


@pytest.mark.parametrize("name", sorted(rulebook.DOCUMENTS))
def test_the_rendered_documents_are_current(name):
    committed = (ROOT / "docs" / name).read_text(encoding="utf-8")
    assert committed == rulebook.DOCUMENTS[name](), f"docs/{name} is stale: run `make docs`"


def test_readme_points_to_the_rule_book_in_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/RULES.md" in readme and "../shared/RULES.md" not in readme


# ----- the problem catalog ----------------------------------------------------------

_REFUSERS = {  # callee -> positions of a code among its positional arguments
    "RuleViolation": (0,),
    "InputError": (0,),
    "Refusal": (0,),
    "_refuse": (0,),
    "_forbid": (0,),
    "_malformed": (1,),
    "_bad": (1,),
    "bad_request": (1,),
    "bad": (0,),
    "Refused": (1,),
    "problem": (1,),
    "problem_bytes": (1,),
    "abort": (),
    "refuse": (0,),
    "malformed": (1,),
}  # the last two: service.games.solitaire_frenzy.errors


def _codes_in_source() -> set[str]:
    """Every problem code written in service/: refusal calls' code arguments (and the
    ``code`` defaults of the helpers), refusal tuples, the HTTP status codes."""
    codes: set[str] = set()
    for path in ROOT.joinpath("service").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                if name == "refuse" and "two_way" in path.parts:
                    continue  # 2-Way Cards positions: refuse(field, rule, detail), always
                    # invalid-position (written in that module's RuleViolation call)
                if name in _REFUSERS:
                    args = [node.args[i] for i in _REFUSERS[name] if i < len(node.args)]
                    args += [k.value for k in node.keywords if k.arg == "code"]
                    codes |= {a.value for a in args if isinstance(a, ast.Constant)}
            elif isinstance(node, ast.FunctionDef) and node.name in _REFUSERS:
                defaults = dict(
                    zip([a.arg for a in node.args.args][::-1], node.args.defaults[::-1])
                )
                if isinstance(defaults.get("code"), ast.Constant):
                    codes.add(defaults["code"].value)
            elif (
                isinstance(node, ast.Tuple)
                and len(node.elts) == 3
                and isinstance(node.elts[0], ast.Constant)
                and getattr(node.elts[1], "func", None) is not None
                and getattr(node.elts[1].func, "id", None) == "Message"
            ):
                codes.add(node.elts[0].value)
            elif (
                isinstance(node, ast.Dict)
                and path.name in ("errors.py", "server.py")
                and all(isinstance(k, ast.Constant) and isinstance(k.value, int) for k in node.keys)
                and all(isinstance(v, ast.Constant) for v in node.values)
            ):
                codes |= {v.value for v in node.values}
            elif (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and any(getattr(t, "id", None) == "code" for t in node.targets)
            ):
                codes.add(node.value.value)
    return {c for c in codes if isinstance(c, str)}


def test_g_r1_every_problem_code_in_the_code_is_documented_and_none_is_stale():
    documented, written = set(rulebook.problems()), _codes_in_source()
    assert written - documented == set(), "codes without an entry in seeds/problems.yaml"
    assert documented - written == set(), "entries of seeds/problems.yaml no code uses"


# ----- the endpoints ----------------------------------------------------------------


def test_g_r1_get_rule_serves_one_rule_with_its_title_in_the_requested_language(client):
    response = client.get("/v1/rules/SQ-T3", headers={"Accept-Language": "it"})
    assert response.status_code == 200
    assert response.headers["Content-Language"] == "it"
    assert "Accept-Language" in response.headers["Vary"]
    body = response.get_json()
    assert body["id"] == "SQ-T3" and body["section"] == "sequence"
    assert body["title"] == "Jack con un occhio" == body["titles"]["it"]
    assert body["titles"]["en"] == "One-eyed Jacks"
    assert "one opponent chip" in body["statement"]


def test_g_r1_an_unknown_rule_is_a_404_problem(client):
    body = assert_problem(
        client.get("/v1/rules/XX-Y9", headers={"Accept-Language": "fr"}), 404, "rule-not-found"
    )
    assert body["detail"] == "Aucune règle 'XX-Y9' dans le livre de règles."


def test_g_r1_list_rules_by_section(client):
    every = client.get("/v1/rules").get_json()["rules"]
    assert [r["id"] for r in every] == [r["id"] for r in rulebook.rules()]
    halves = client.get("/v1/rules?game=halves").get_json()["rules"]
    assert [r["id"] for r in halves][:3] == ["HV-C1", "HV-P1", "HV-P2"]
    assert {r["section"] for r in halves} == {"halves"}
    assert_problem(client.get("/v1/rules?game=chess"), 422, "invalid-query")


def test_g_r1_a_problem_type_resolves_to_its_page(client):
    body = client.post(
        "/v1/two-way/sequences/check", data="x", content_type="text/plain"
    ).get_json()
    page = client.get(
        "/problems/" + body["type"].rsplit("/", 1)[1], headers={"Accept-Language": "de"}
    ).get_json()
    assert page["code"] == "unsupported-media-type" and page["status"] == [415]
    assert page["rules"] == []
    stale = client.get("/problems/stale-top-card", headers={"Accept-Language": "de"}).get_json()
    assert stale["type"] == "https://card-referee.dev/problems/stale-top-card"
    assert stale["rules"] == [
        {"id": "HV-T3", "title": "Der erste Spielzug zählt"},
        {"id": "SF-T1", "title": "Auf den Zielstapeln zählt der erste Spielzug"},
    ]
    assert_problem(client.get("/problems/no-such-code"), 404, "problem-not-found")


# the rules RULES.md (the product's rule book) decides by a ruling where the sheets are
# silent or disagree: the rule texts label each as a ruling, apart from the sheet's text
RULED = [
    "G-O1",
    "G-T1",
    "TW-T4",
    "TW-T5",
    "TW-D3",
    "TW-D5",
    "TW-S1",
    "TW-E2",
    "TW-E4",
    "SQ-C3",
    "SQ-T3",
    "SQ-T8",
    "SQ-S5",
    "SQ-E1",
    "SN-P1",
    "HV-P1",
    "HV-T1",
    "HV-T3",
    "HV-T5",
    "HV-T6",
    "HV-E1",
    "SF-P0",
    "SF-F1",
    "SF-R4",
    "SF-O1",
    "SF-E1",
    "SF-E3",
    "SF-E2",
]


@pytest.mark.parametrize("rule_id", RULED)
def test_every_ruling_of_the_rule_book_is_labelled_a_ruling(rule_id):
    assert rulebook.rule(rule_id)["rulings"], f"{rule_id}: its ruling is not labelled"


def test_tw_t4_the_freed_placement_due_again_is_a_ruling():
    rulings = " ".join(rulebook.rule("TW-T4")["rulings"])
    assert "due again" in rulings and "wrong-phase" in rulings


def test_hv_e1_the_last_card_may_be_in_the_pile_is_a_ruling():
    assert "may still be in the pile" in " ".join(rulebook.rule("HV-E1")["rulings"])
