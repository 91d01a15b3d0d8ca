"""The 2-Way Cards tile manifest (RULES.md TW-C2): the shipped default and the checks
on a custom one."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from service.cards import DECK, JOKER
from service.games import RuleViolation
from service.games import two_way as tw
from service.games.two_way import tiles

ROOT = Path(__file__).resolve().parents[1]
FACES = Counter({**{card: 2 for card in DECK}, JOKER: 4})


def generator():
    spec = importlib.util.spec_from_file_location(
        "make_two_way_tiles", ROOT / "seeds" / "make_two_way_tiles.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def refusal(manifest) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        tw.validate_manifest(manifest)
    assert info.value.code == "invalid-option" and info.value.status == 422
    assert "tile_manifest" in info.value.detail
    return info.value


def test_tw_c2_default_manifest_is_two_decks_and_four_jokers_per_colour():
    tiles = json.loads((ROOT / "seeds" / "two-way-tiles.json").read_text())["tiles"]
    assert len(tiles) == 108
    for colour in ("blue", "green"):
        assert Counter(t[colour] for t in tiles) == FACES
    assert all(t["blue"] != t["green"] for t in tiles)
    assert tw.default_manifest() == tiles
    assert tw.validate_manifest(tiles) == tiles


def test_default_manifest_file_is_the_generators_output():
    assert (ROOT / "seeds" / "two-way-tiles.json").read_text() == generator().render()


def test_tw_c2_custom_manifest_codes_are_made_canonical():
    tiles = tw.default_manifest()
    loose = [{"blue": t["blue"].replace("10", "t").lower(), "green": t["green"]} for t in tiles]
    assert tw.validate_manifest(loose) == tiles


def test_tw_c2_manifest_must_have_108_tiles():
    tiles = tw.default_manifest()
    assert "108" in refusal(tiles[:-1]).detail
    assert "108" in refusal(tiles + tiles[:1]).detail
    refusal({"tiles": tiles})


def test_tw_c2_each_tile_has_a_blue_and_a_green_card():
    tiles = tw.default_manifest()
    refusal([{"blue": "AS"}, *tiles[1:]])
    refusal([{**tiles[0], "red": "AS"}, *tiles[1:]])
    refusal(["AS/KH", *tiles[1:]])
    assert "ZZ" in refusal([{"blue": "ZZ", "green": "AS"}, *tiles[1:]]).detail


def test_tw_c2_no_tile_shows_one_card_on_both_faces():
    tiles = tw.default_manifest()
    j = next(i for i, t in enumerate(tiles) if t["green"] == tiles[0]["blue"])
    tiles[0]["green"], tiles[j]["green"] = tiles[j]["green"], tiles[0]["green"]
    assert "both faces" in refusal(tiles).detail


def test_tw_c2_each_colour_is_exactly_two_decks_plus_four_jokers():
    tiles = tw.default_manifest()
    k = next(i for i, t in enumerate(tiles) if t["blue"] not in ("JK", "KS") and t["green"] != "KS")
    tiles[k]["blue"] = "KS"  # three KS and one card missing on the blue side
    assert "blue" in refusal(tiles).detail
    tiles = tw.default_manifest()
    k = next(i for i, t in enumerate(tiles) if t["green"] != "JK" and t["blue"] != "JK")
    tiles[k]["green"] = "JK"  # five green jokers
    assert "green" in refusal(tiles).detail


def test_tw_c2_a_state_keeps_the_manifest_as_faces_pairs_in_tile_id_order():
    """The state's manifest is one string, ``blue/green`` per tile in id order; read
    back, tile t shows the faces the game's manifest gives it (custom: as given)."""
    custom = list(reversed(tw.default_manifest()))
    state = None
    for event in tw.new_game("two-way", {"tile_manifest": custom}, "ab" * 32):
        state = tw.fold(state, event)
    pairs = state["manifest"].split(",")
    assert len(pairs) == 108 and pairs[0] == f"{custom[0]['blue']}/{custom[0]['green']}"
    assert pairs[107] == f"{custom[107]['blue']}/{custom[107]['green']}"
    assert list(tw.manifest_of(state)) == custom
    assert tw.manifest_text(tw.manifest_of(state)) == state["manifest"]
    assert tw.manifest_of(dict(state)) is tw.manifest_of(state)  # read once per process
    joker = [{"blue": "JK", "green": "10H"}, {"blue": "AS", "green": "JK"}]
    assert tw.manifest_text(joker) == "JK/10H,AS/JK"
    assert list(tw.manifest_of({"manifest": "JK/10H,AS/JK"})) == joker


def test_tw_c2_manifests_share_one_faces_object_per_pair():
    """Two games' manifests hold one object per face pair (a kept manifest is a row of
    references, about 1 KB), and a worker keeps thousands of them."""
    one = tw.manifest_of({"manifest": "AS/KH,JK/2C"})
    two = tw.manifest_of({"manifest": "JK/2C,QD/AS,AS/KH"})
    assert one[0] is two[2] and one[1] is two[0] and two[1] == {"blue": "QD", "green": "AS"}
    assert tiles.read_manifest.cache_info().maxsize >= 4096
