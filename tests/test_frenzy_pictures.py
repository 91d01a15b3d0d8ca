"""The Solitaire Frenzy picture explains itself (issue 20): each seat's 13-pile, waste,
hand and columns are labelled in the request's language, a game started from a stated
position says so (G-P1), and the text stays legible on a phone (font sizes in viewBox
units on a 400-unit-wide picture)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from service.games import solitaire_frenzy as sf
from service.pictures import solitaire_frenzy as picture

SEED = "7a" * 32
NS = "{http://www.w3.org/2000/svg}"
LABELS = {
    "en": ("13-pile", "waste", "hand", "columns", "started from a stated position"),
    "de": ("13er-Stapel", "Abwurf", "Hand", "Spalten", "ab einer angegebenen Stellung begonnen"),
    "fr": (
        "pile de 13",
        "défausse",
        "main",
        "colonnes",
        "commencée à partir d'une position donnée",
    ),
    "ro": ("teancul de 13", "cărți întoarse", "mâna", "coloane", "începută dintr-o poziție dată"),
}


def _svg(app, lang: str, state: dict) -> ET.Element:
    with app.test_request_context(headers={"Accept-Language": lang}):
        return ET.fromstring(picture.draw(sf.view(state, "p1"), sf.GAME).tobytes())


def _texts(root: ET.Element) -> list[str]:
    return [t.text for t in root.iter(f"{NS}text")]


@pytest.mark.parametrize("lang", sorted(LABELS))
def test_g_p1_the_picture_labels_each_seat_and_says_it_started_from_a_position(app, lang):
    state = sf.fold_all(
        None,
        sf.start_from_position(
            sf.GAME,
            {"players": 3},
            SEED,
            {
                "game": sf.GAME,
                "players": {
                    seat: {
                        "pile_top": "5H",
                        "pile_size": 9,
                        "columns": [["KS", "QH"], [], ["9C", "8H", "7S", "6H", "5S"], ["4S"]],
                        "hand_size": 29,
                        "waste_top": "9D",
                        "waste_size": 6,
                    }
                    for seat in ("p1", "p2", "p3")
                },
            },
        ),
    )
    texts = _texts(_svg(app, lang, state))
    pile, waste, hand, columns, stated = LABELS[lang]
    for label in (pile, waste, hand, columns):
        assert texts.count(label) == 3, (label, texts)
    assert stated in texts
    assert texts.count("9") == 3 and texts.count("29") == 3 and "\u00d72" in texts


def test_sf_p1_a_fresh_deal_says_nothing_of_a_position_and_text_is_phone_legible(app):
    state = sf.fold_all(None, sf.new_game(sf.GAME, {"players": 2}, SEED))
    root = _svg(app, "en", state)
    assert "started from a stated position" not in _texts(root)
    assert root.get("viewBox").split()[2] == "400"  # ~1 unit per px at 390 px wide
    sizes = [float(t.get("font-size")) for t in root.iter(f"{NS}text")]
    assert min(sizes) >= 12, "no text under 12 units (about 12 px on a phone)"


@pytest.mark.parametrize(
    ("lang", "status"), [("en", "In play"), ("fr", "En cours"), ("de", "Läuft")]
)
def test_a_race_in_play_is_headed_in_the_request_language(app, lang, status):
    # no turn in a race: the header says the game is in play, in words, never "active"
    state = sf.fold_all(None, sf.new_game(sf.GAME, {"players": 2}, SEED))
    texts = _texts(_svg(app, lang, state))
    assert texts[0] == status and "active" not in texts
