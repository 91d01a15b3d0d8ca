"""Table dealing (G-M2): the referee reports tiles by manifest id, by their faces
"AS/KH" or by one face "AS" (docs/games/two-way.md, "Naming tiles in table dealing"); a name that is no tile or that fits
several tiles is refused naming the body field."""

from __future__ import annotations

import pytest

from service.games import RuleViolation
from service.games import two_way as tw
from test_two_way_positions import fold_all

SEED = "0123456789abcdef" * 4


def dealt() -> dict:
    """A table game (shipped manifest) whose deal the referee reported: blue 0-4,
    green 5-9."""
    state = fold_all(tw.new_game("two-way", {"dealing": "table"}, SEED))
    for seat, tiles in (("blue", [0, 1, 2, 3, 4]), ("green", [5, 6, 7, 8, 9])):
        state = fold_all(
            tw.apply(state, "referee", {"type": "draw", "seat": seat, "tiles": tiles}), state
        )
    return state


def name(state: dict, tile: int) -> str:
    return tw.pair_name(tw.manifest_of(state)[tile])


def unique_face(state: dict, hand: list[int]) -> tuple[int, str]:
    """A tile of ``hand`` with a face no other tile of the hand shows."""
    for tile in hand:
        for face in tw.manifest_of(state)[tile].values():
            if sum(face in tw.manifest_of(state)[t].values() for t in hand) == 1:
                return tile, face
    raise AssertionError("no unique face")


def place(state: dict, tile: object, cell=(3, 3)) -> list[dict]:
    return tw.apply(
        state, "referee", {"type": "place", "seat": "blue", "tile": tile, "cell": list(cell)}
    )


def refusal(call) -> RuleViolation:
    with pytest.raises(RuleViolation) as error:
        call()
    return error.value


def test_g_m2_the_referee_names_a_tile_by_id_by_its_faces_or_by_one_face():
    state = dealt()
    by_id = place(state, 2)
    assert place(state, name(state, 2)) == by_id
    assert place(state, name(state, 2).lower()) == by_id  # any card spelling
    tile, face = unique_face(state, state["hands"]["blue"])
    assert place(state, face)[0]["tile"] == tile


def test_g_m2_a_face_shown_by_several_tiles_of_the_hand_is_ambiguous():
    state = dealt()
    hand = state["hands"]["blue"]
    faces = list(tw.manifest_of(state))
    faces[0] = {"blue": "AS", "green": "KH"}  # two tiles of blue's hand now show AS
    faces[1] = {"blue": "QD", "green": "AS"}
    state["manifest"] = tw.manifest_text(faces)
    error = refusal(lambda: place(state, "AS"))
    assert (error.code, error.status, error.rule) == ("ambiguous-tile", 422, "G-M2")
    assert error.extra == {"field": "tile", "candidates": ["AS/KH", "QD/AS"]}
    assert hand == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("value", ["ZZ", "AS/ZZ", "AS/KH/QD", 108, -1, True, None])
def test_g_m2_a_name_that_is_no_tile_is_invalid_tile_naming_the_field(value):
    error = refusal(lambda: place(dealt(), value))
    assert (error.code, error.status, error.rule) == ("invalid-tile", 422, "TW-C2")
    assert error.extra["field"] == "tile"


def test_g_m2_a_pair_no_tile_of_the_manifest_shows_is_invalid_tile():
    state = dealt()
    missing = next(
        f"{b}/{g}"
        for b in ("AS", "KH")
        for g in ("2C", "3D", "4H", "5S")
        if not any((m["blue"], m["green"]) == (b, g) for m in tw.manifest_of(state))
    )
    error = refusal(lambda: place(state, missing))
    assert (error.code, error.extra["field"]) == ("invalid-tile", "tile")


def test_tw_t2_a_real_tile_not_in_the_hand_is_tile_not_in_hand():
    state = dealt()
    error = refusal(lambda: place(state, name(state, 50)))
    assert (error.code, error.status, error.rule) == ("tile-not-in-hand", 409, "TW-T2")


def test_g_m2_draws_and_discards_are_reported_by_faces_too():
    state = dealt()
    for cell in ((0, 0), (0, 1)):
        state = fold_all(place(state, state["hands"]["blue"][0], cell), state)
    bag = state["bag"][:4]
    draw = {"type": "draw", "seat": "blue", "tiles": [name(state, t) for t in bag]}
    events = tw.apply(state, "referee", draw)
    assert sorted(events[0]["tiles"]) == sorted(bag)
    state = fold_all(events, state)
    hand = state["hands"]["blue"]
    discard = {"type": "discard", "seat": "blue", "tiles": [hand[0], name(state, hand[1])]}
    assert tw.apply(state, "referee", discard)[0]["tiles"] == hand[:2]
    wrong = {"type": "discard", "seat": "blue", "tiles": [hand[0], "ZZ"]}
    assert refusal(lambda: tw.apply(state, "referee", wrong)).extra["field"] == "tiles[1]"


def test_g_m2_a_drawn_tile_not_in_the_bag_is_tile_not_in_bag():
    state = dealt()
    for cell in ((0, 0), (0, 1)):
        state = fold_all(place(state, state["hands"]["blue"][0], cell), state)
    draw = {"type": "draw", "seat": "blue", "tiles": [name(state, 5), 20, 21, 22]}
    error = refusal(lambda: tw.apply(state, "referee", draw))
    assert (error.code, error.status, error.rule) == ("tile-not-in-bag", 409, "G-M2")
    assert error.extra["field"] == "tiles[0]"
