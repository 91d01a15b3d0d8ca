"""Translations players can trust: the catalogs and the rule titles use the glossary's
word for each game term in every language, and never a word it forbids
(service/translations/glossary.yaml; e.g. French "talon" for the waste, the suit's word
for Solitaire Frenzy's red/black or for 2-Way Cards' blue/green)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from babel.messages.pofile import read_po

from service import rulebook
from service.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "service" / "translations"
GLOSSARY = yaml.safe_load((TRANSLATIONS / "glossary.yaml").read_text(encoding="utf-8"))
# what names no term: placeholders, quoted names, code, snake_case identifiers
NOT_WORDS = re.compile(r"%\(\w+\)s|(?<!\w)'[\w-]+'(?!\w)|\"[^\"]*\"|`[^`]*`|\w+_\w+|\w+\[")


def _plain(text: str) -> str:
    return NOT_WORDS.sub(" ", text)


def _texts(lang: str) -> list[tuple[str, str, str]]:
    """(context, English, translation) of every catalog entry and every rule title."""
    with (TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as handle:
        texts = [(m.id, m.id, m.string) for m in read_po(handle, locale=lang) if m.id]
    for section in rulebook.sections():
        for rule in section["rules"]:
            english = rule["title"]["en"]
            texts.append(
                (f"{section['section']} {rule['id']} {english}", english, rule["title"][lang])
            )
    return texts


def _misused(lang: str) -> list[str]:
    found = []
    for name, term in GLOSSARY["terms"].items():
        english = re.compile(term["en"], re.I)
        context = re.compile(term.get("context", ""), re.I)
        skip = re.compile(term["skip"], re.I) if "skip" in term else None
        use = re.compile(term["use"][lang], re.I)
        avoid = term.get("avoid", {}).get(lang)
        for where, source, text in _texts(lang):
            if not english.search(_plain(source)) or not context.search(where):
                continue
            if skip and skip.search(source):
                continue
            if english.search(_plain(text)):  # the English word kept: a field or name
                continue
            if not use.search(_plain(text)):
                found.append(f"{name}: {source!r} -> {text!r} lacks /{term['use'][lang]}/")
            if avoid and re.search(avoid, _plain(text), re.I):
                found.append(f"{name}: {source!r} -> {text!r} uses /{avoid}/")
    return found


def test_the_glossary_names_every_language_for_every_term():
    for name, term in GLOSSARY["terms"].items():
        assert set(term["use"]) == set(LANGUAGES[1:]), name
        assert set(term.get("avoid", {})) <= set(LANGUAGES[1:]), name


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_the_catalogs_and_rule_titles_use_the_glossary_terms(lang):
    assert _misused(lang) == []


def test_the_glossary_check_finds_a_forbidden_or_missing_word():
    """The check is not vacuous: the issue's own examples are caught."""
    waste = GLOSSARY["terms"]["waste"]
    assert re.search(waste["avoid"]["fr"], "le talon est vide")
    assert not re.search(waste["use"]["fr"], "le talon est vide")
    colour = GLOSSARY["terms"]["card colour"]
    assert re.search(colour["avoid"]["de"], "in einer Spalte wechseln die Farben")
    assert re.search(colour["avoid"]["ro"], "culori alternante")
    player = GLOSSARY["terms"]["player colour"]
    assert re.search(player["avoid"]["fr"], "Chacun voit sa couleur")


def test_every_glossary_term_applies_to_some_catalog_entry_or_title():
    """A term whose English pattern matches nothing checks nothing."""
    texts = _texts("fr")
    for name, term in GLOSSARY["terms"].items():
        english = re.compile(term["en"], re.I)
        context = re.compile(term.get("context", ""), re.I)
        assert any(
            english.search(_plain(source)) and context.search(where) for where, source, _ in texts
        ), name


def test_the_check_reports_a_wrong_catalog_entry(monkeypatch):
    wrong = [
        ("your waste is empty", "your waste is empty", "votre talon est vide"),
        (
            "%(a)s and %(b)s are both red: columns alternate colours",
            "%(a)s and %(b)s are both red: columns alternate colours",
            "%(a)s et %(b)s sont rouges : les couleurs alternent",
        ),
        ("must be an object by seat", "must be an object by seat", "doit être un objet par joueur"),
    ]
    monkeypatch.setattr(__import__(__name__), "_texts", lambda lang: wrong)
    found = _misused("fr")
    assert [line.split(":")[0] for line in found] == [
        "seat",
        "seat",
        "waste",
        "waste",
        "column",
        "card colour",
    ]
