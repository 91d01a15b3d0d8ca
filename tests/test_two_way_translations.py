"""Translations players can trust (issue: player colour vs suit): in German, French and
Romanian the card suit is "Farbe", "couleur", "culoare"; 2-Way Cards names a player's
colour by the tile's face instead ("Seite", "face", "față"), and uses the card terms of
each language for a run and a suit set (RULES.md TW-C3, TW-D2, TW-S1, TW-S4)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
RULES = {
    r["id"]: r
    for r in yaml.safe_load((ROOT / "seeds" / "rules" / "two-way.yaml").read_text("utf-8"))["rules"]
}
SUIT = {"de": "Farbe", "fr": "couleur", "ro": "culoare"}
FACE = {"de": "Seite", "fr": "face", "ro": "fe"}  # ro: față / fețe


def catalog(lang: str):
    path = ROOT / "service" / "translations" / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as handle:
        return read_po(handle, locale=lang)


@pytest.mark.parametrize("lang", SUIT)
@pytest.mark.parametrize("rule", ["TW-C3", "TW-D2"])
def test_tw_c3_tw_d2_the_players_colour_is_not_called_a_suit(lang, rule):
    title = RULES[rule]["title"][lang]
    assert SUIT[lang].lower() not in title.lower() and FACE[lang] in title.lower() + title


@pytest.mark.parametrize("lang", SUIT)
def test_tw_c3_messages_about_a_seats_faces_say_face_not_suit(lang):
    messages = [m for m in catalog(lang) if m.id and "faces" in m.id]
    assert len(messages) >= 5
    for message in messages:
        assert FACE[lang] in message.string.lower() + message.string, message.id


def test_tw_s1_tw_s4_german_card_terms_for_a_run_and_a_suit_set():
    assert RULES["TW-S1"]["title"]["de"] == "Straße"
    assert RULES["TW-S4"]["title"]["de"] == "Satz einer Farbe"
    de = catalog("de")
    assert de["one suit, but a card appears twice: not a suit set"].string.endswith(
        "kein Satz einer Farbe"
    )
    assert (
        "Straße"
        in de[
            "one suit, but the ranks do not follow each other in one "
            "direction along the line: not a run"
        ].string
    )


def test_tw_t5_tw_s8_french_titles_are_french():
    assert RULES["TW-T5"]["title"]["fr"] == "Passer son tour"  # the sheet: "passe son tour"
    assert RULES["TW-S8"]["title"]["fr"] == "Les jokers remplacent toute carte"
