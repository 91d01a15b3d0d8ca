"""The rule book the service ships: every rule ID, its title in six languages, its
statement, rulings and options; and the catalog of problem codes. Pure data loading.

Sources (one truth each, reference data like the boards and decks):

* ``seeds/rules/<section>.yaml``, one per section: ``every-game`` (G-*), ``two-way``,
  ``sequence``, ``sequence-numbers``, ``halves``, ``solitaire-frenzy``::

      section: two-way
      name: 2-Way Cards
      sheet: two-way-cards.en-fr-de-es-it.txt (English, French, German, Spanish, Italian)
      rules:
        - id: TW-C1
          title: {en: ..., fr: ..., de: ..., es: ..., it: ..., ro: ...}
          statement: the rule in English, written by us from the sheets
          rulings: [what the service decided where the sheet is silent or unclear]
          options: [the game options that change the rule]

* ``seeds/problems.yaml``: every problem ``code`` with its HTTP ``status`` (one or
  more), a one-line ``summary`` and the ``rules`` its refusals cite (none for
  problems about the request itself).

Served by ``GET /v1/rules``, ``GET /v1/rules/{id}`` and ``GET /problems/{code}``
(service.api.rules) and rendered into ``docs/RULES.md`` and ``docs/PROBLEMS.md`` by
``python -m service.rulebook`` (``make docs``; a test fails when they are stale).
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path
from typing import NotRequired, TypedDict

import yaml

from service.data import seed_file

ROOT = Path(__file__).resolve().parents[1]
RULES_DIR = seed_file("rules")
PROBLEMS_FILE = seed_file("problems.yaml")
DOCS = ROOT / "docs"  # `make docs` writes there (a checkout only)
LANGUAGES = ("en", "fr", "de", "es", "it", "ro")
SECTIONS = ("every-game", "two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy")
PREFIXES = {
    "every-game": "G",
    "two-way": "TW",
    "sequence": "SQ",
    "sequence-numbers": "SN",
    "halves": "HV",
    "solitaire-frenzy": "SF",
}
TYPE_BASE = "https://card-referee.dev/problems/"


class RuleBookError(ValueError):
    """A rule book file that does not have the documented shape."""


class Rule(TypedDict):
    """One rule of ``seeds/rules/<section>.yaml`` as loaded (``rulings`` and
    ``options`` default to [], ``section`` is its file's)."""

    id: str
    section: str
    title: dict[str, str]  # language -> title, every one of LANGUAGES
    statement: str
    rulings: list[str]
    options: list[str]


class Section(TypedDict):
    """One file of ``seeds/rules/`` (see the module docstring)."""

    section: str
    name: str
    sheet: NotRequired[str]
    intro: NotRequired[str]
    rules: list[Rule]


class ProblemType(TypedDict):
    """One entry of ``seeds/problems.yaml`` (``rules`` defaults to [])."""

    status: list[int]
    summary: str
    rules: list[str]


def _section(name: str) -> Section:
    # checked below (and each rule's defaults filled in) before it is returned
    data: Section = yaml.safe_load((RULES_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
    if data.get("section") != name:
        raise RuleBookError(f"{name}.yaml: section is {data.get('section')!r}")
    for rule in data["rules"]:
        if not rule["id"].startswith(PREFIXES[name] + "-"):
            raise RuleBookError(f"{name}.yaml: {rule['id']} is not a {PREFIXES[name]} rule")
        missing = [lang for lang in LANGUAGES if not rule.get("title", {}).get(lang)]
        if missing or not rule.get("statement"):
            raise RuleBookError(f"{rule['id']}: title in {missing} or statement missing")
        rule.setdefault("rulings", [])
        rule.setdefault("options", [])
        rule["section"] = name
    return data


@lru_cache(maxsize=1)
def sections() -> tuple[Section, ...]:
    """Every section of the rule book, in :data:`SECTIONS` order (read once)."""
    return tuple(_section(name) for name in SECTIONS)


@lru_cache(maxsize=1)
def _by_id() -> dict[str, Rule]:
    out: dict[str, Rule] = {}
    for section in sections():
        for rule in section["rules"]:
            if rule["id"] in out:
                raise RuleBookError(f"{rule['id']} twice")
            out[rule["id"]] = rule
    return out


def rules(section: str | None = None) -> list[Rule]:
    """The rules in book order; ``section``: only that section's (``halves``...)."""
    return [rule for rule in _by_id().values() if section in (None, rule["section"])]


def rule(rule_id: str) -> Rule | None:
    """The rule with ID ``rule_id`` (``"SQ-T3"``), or None."""
    return _by_id().get(rule_id)


@lru_cache(maxsize=1)
def problems() -> dict[str, ProblemType]:
    """code -> ``{"status": [int], "summary": str, "rules": [rule ID]}``, by code."""
    # checked below (and each entry's rules filled in) before it is returned
    data: dict[str, ProblemType] = yaml.safe_load(PROBLEMS_FILE.read_text(encoding="utf-8"))
    for code, entry in data.items():
        unknown = [r for r in entry.get("rules", []) if rule(r) is None]
        if unknown:
            raise RuleBookError(f"problem {code} cites {unknown}, not in the rule book")
        entry.setdefault("rules", [])
    return dict(sorted(data.items()))


# ----- the documents ------------------------------------------------------------------


def rules_markdown() -> str:
    """docs/RULES.md: the whole rule book, readable."""
    lines = [
        "# Card Referee rule book",
        "",
        "Generated from `seeds/rules/*.yaml` by `make docs`; do not edit by hand.",
        "Every rule ID is what the service cites as `rule` in its refusals and "
        "verdicts; `GET /v1/rules/{id}` serves the same entry (title in the "
        "language of `Accept-Language`). Rule titles in English, French, German, "
        "Spanish, Italian and Romanian; statements and rulings in English.",
        "",
    ]
    for section in sections():
        lines += [f"## {section['name']} ({PREFIXES[section['section']]}-*)", ""]
        if section.get("sheet"):
            lines += [f"Publisher's sheet: {section['sheet']}.", ""]
        if section.get("intro"):
            lines += [section["intro"].strip(), ""]
        for entry in section["rules"]:
            lines += [
                f"### {entry['id']} {entry['title']['en']}",
                "",
                entry["statement"].strip(),
                "",
            ]
            if entry["rulings"]:
                lines += ["Rulings:", ""] + [f"- {r.strip()}" for r in entry["rulings"]] + [""]
            if entry["options"]:
                lines += ["Options: " + ", ".join(f"`{o}`" for o in entry["options"]), ""]
            lines += [" | ".join(f"{lang} {entry['title'][lang]}" for lang in LANGUAGES[1:]), ""]
    return "\n".join(lines)


def problems_markdown() -> str:
    """docs/PROBLEMS.md: every problem code, the page its ``type`` names."""
    lines = [
        "# Card Referee problem types",
        "",
        "Generated from `seeds/problems.yaml` by `make docs`; do not edit by hand.",
        f"Every error is `application/problem+json` (RFC 9457) whose `type` is "
        f"`{TYPE_BASE}<code>`: the entry below, also served as "
        "`GET /problems/<code>`. `rule` names the rule a refusal applies (see "
        "[RULES.md](RULES.md)); problems about the request itself (format, size, "
        "tokens, versions, keys, limits) name none. `title` and `detail` follow "
        "`Accept-Language`; `code`, `rule` and `type` never change.",
        "",
        "| code | status | rules | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for code, entry in problems().items():
        cited = ", ".join(f"[{r}](RULES.md#{_anchor(r)})" for r in entry["rules"]) or "-"
        statuses = ", ".join(str(s) for s in entry["status"])
        lines.append(
            f'| <a id="{code}"></a>`{code}` | {statuses} | {cited} | {entry["summary"].strip()} |'
        )
    return "\n".join(lines) + "\n"


def _anchor(rule_id: str) -> str:
    """GitHub's anchor of a rule's heading (``### TW-C1 Grid...`` -> ``tw-c1-grid...``)."""
    heading = f"{rule_id} {_by_id()[rule_id]['title']['en']}".lower()
    return "".join(c for c in heading.replace(" ", "-") if c.isalnum() or c in "-_")


DOCUMENTS = {"RULES.md": rules_markdown, "PROBLEMS.md": problems_markdown}


def main(argv: list[str]) -> int:
    """``python -m service.rulebook``: write docs/RULES.md and docs/PROBLEMS.md."""
    DOCS.mkdir(exist_ok=True)
    for name, render in DOCUMENTS.items():
        (DOCS / name).write_text(render(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
