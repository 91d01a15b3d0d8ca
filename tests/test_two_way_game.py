"""2-Way Cards game flow (RULES.md §1: TW-C1..C3, TW-T1..T5, TW-D1..D5, TW-E1..E4,
dealing modes). Pure engine tests: every state is reached through new_game/apply/fold.

Table-mode games let the referee choose which tiles are drawn, so a test can build any
grid it needs (``table_game``) without touching the state by hand.
"""

from __future__ import annotations

import json
import random
import re
from itertools import combinations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from service.cards import DECK, JOKER
from service.games import RuleViolation, engine
from service.games import two_way as tw
from service.games.rng import Stream

from helpers import walk_keys

SEED = "5e" * 32
MANIFEST = tw.default_manifest()
SEATS = ("blue", "green")


# ----- helpers -----


def other(seat: str) -> str:
    return "green" if seat == "blue" else "blue"


def tile_ids(faces: list[str], colour: str, taken: set[int]) -> list[int]:
    """Distinct unused manifest ids showing ``faces`` on their ``colour`` side; the ids
    are added to ``taken``."""
    out = []
    for face in faces:
        out.append(next(i for i, t in enumerate(MANIFEST) if t[colour] == face and i not in taken))
        taken.add(out[-1])
    return out


def line(
    cells: list[list[int]], faces: list[str], taken: set[int], colour: str = "blue"
) -> list[tuple[list[int], int]]:
    """Targets putting tiles whose ``colour`` faces are ``faces`` on ``cells``."""
    return list(zip(cells, tile_ids(faces, colour, taken)))


def row(r: int, start: int, n: int) -> list[list[int]]:
    return [[r, start + i] for i in range(n)]


class Game:
    """A game and its event log, advanced only through apply/fold."""

    def __init__(self, options: dict | None = None, seed: str = SEED):
        self.log = tw.new_game("two-way", dict(options or {}), seed)
        self.state = None
        for event in self.log:
            self.state = tw.fold(self.state, event)

    def act(self, actor: str, action: dict) -> list[dict]:
        given = json.dumps(self.state, sort_keys=True)
        events = tw.apply(self.state, actor, action)
        assert (
            json.dumps(self.state, sort_keys=True) == given
        )  # apply is pure (the store folds its input)
        for event in events:
            before = json.dumps(self.state, sort_keys=True)
            state = tw.fold(self.state, event)
            assert json.dumps(self.state, sort_keys=True) == before  # fold is pure
            self.state = state
        self.log.extend(events)
        return events

    def ref(self, action: dict) -> list[dict]:
        """The referee acts for the seat to move (table mode)."""
        return self.act("referee", {**action, "seat": self.state["turn"]})

    def refused(self, actor: str, action: dict) -> RuleViolation:
        """The RuleViolation ``action`` raises; asserts nothing was recorded."""
        before, length = json.dumps(self.state, sort_keys=True), len(self.log)
        with pytest.raises(RuleViolation) as info:
            self.act(actor, action)
        assert json.dumps(self.state, sort_keys=True) == before and len(self.log) == length
        return info.value

    def replay(self) -> dict:
        state = None
        for event in self.log:
            state = tw.fold(state, event)
        return state

    @property
    def turn(self) -> str:
        return self.state["turn"]

    def hand(self, seat: str) -> list[int]:
        return list(self.state["hands"][seat])

    def face(self, tile: int, colour: str) -> str:
        """``tile``'s face in ``colour`` in this game's manifest."""
        return tw.manifest_of(self.state)[tile][colour]

    def own(self, seat: str, index: int = 0) -> str:
        """The face ``seat`` sees on its ``index``-th hand tile (how a seat names it)."""
        return self.face(self.state["hands"][seat][index], seat)

    def spare(self, count: int, reserved: set[int]) -> list[int]:
        return [t for t in self.state["bag"] if t not in reserved][:count]


def table_game(
    targets: list[tuple[list[int], int]], options: dict | None = None, finish_last_turn: bool = True
) -> Game:
    """A table-mode game in which the seats, turn by turn from the first player, placed
    ``targets`` ([cell, tile id]) two per turn; the referee deals and draws so each
    seat holds its tiles in time, and discards other tiles. ``finish_last_turn``
    False stops the last turn after its placements (its seat may still declare).
    An odd number of targets gets one more: the lowest free id on the last free space."""
    if len(targets) % 2:
        used = [cell for cell, _ in targets]
        free = [[r, c] for r in range(7) for c in range(7) if [r, c] not in used][-1]
        targets = [*targets, (free, min(set(range(108)) - {t for _, t in targets}))]
    game = Game({"dealing": "table", **(options or {})})
    reserved = {t for _, t in targets}
    turns = [targets[i : i + 2] for i in range(0, len(targets), 2)]
    first = game.turn

    def needs(k: int) -> list[int]:
        return [t for _, t in turns[k]] if k < len(turns) else []

    for k, seat in enumerate((first, other(first))):
        hand = needs(k) + game.spare(5 - len(needs(k)), reserved)
        game.act("referee", {"type": "draw", "seat": seat, "tiles": hand})
    for k, pair in enumerate(turns):
        for cell, t in pair:
            game.ref({"type": "place", "tile": t, "cell": cell})
        if k == len(turns) - 1 and not finish_last_turn:
            break
        coming = needs(k + 2)
        game.ref({"type": "draw", "tiles": coming + game.spare(4 - len(coming), reserved)})
        game.ref(
            {
                "type": "discard",
                "tiles": [t for t in game.hand(game.turn) if t not in reserved][-2:],
            }
        )
    return game


def filler_turn(game: Game, cells: list[list[int]]) -> list[dict]:
    """The seat to move places its first hand tiles on ``cells``, the referee draws
    the lowest ids in the bag and the seat discards its two last tiles. Returns the
    discard's events."""
    for cell in cells:
        game.ref({"type": "place", "tile": game.hand(game.turn)[0], "cell": cell})
    game.ref({"type": "draw", "tiles": game.state["bag"][:4]})
    return game.ref({"type": "discard", "tiles": game.hand(game.turn)[-2:]})


def server_turn(game: Game) -> list[dict]:
    """The seat to move (server mode) places its two first faces on the first empty
    spaces, draws, and discards its two first faces."""
    seat = game.turn
    for _ in range(2):
        empty = next([r, c] for r in range(7) for c in range(7) if game.state["grid"][r][c] is None)
        game.act(seat, {"type": "place", "tile": game.own(seat), "cell": empty})
    game.act(seat, {"type": "draw"})
    faces = [game.own(seat, 0), game.own(seat, 1)]
    return game.act(seat, {"type": "discard", "tiles": faces})


def tile_places(state: dict) -> list[int]:
    """Every tile id in the bag, the hands, the grid and the bases (with repeats)."""
    places = list(state["bag"])
    for seat in SEATS:
        places += state["hands"][seat]
        for entry in state["bases"][seat]:
            places += entry["tiles"]
    places += [t for r in state["grid"] for t in r if t is not None]
    return places


HIDDEN_KEYS = {"tile", "tiles", "bag", "manifest", "faces", "dealt"}


def check_seat_view(state: dict, viewer: str) -> None:
    """TW-C3: a seat's view shows grid, both hands and both bases in its colour only,
    no tile id, no bag content, no seed while active."""
    shown = tw.view(state, viewer)
    faces = tw.manifest_of(state)
    assert not HIDDEN_KEYS & set(walk_keys(shown))
    assert shown["grid"] == [
        [None if t is None else faces[t][viewer] for t in r] for r in state["grid"]
    ]
    assert shown["hands"] == {s: [faces[t][viewer] for t in state["hands"][s]] for s in SEATS}
    for seat in SEATS:
        for entry, real in zip(shown["bases"][seat], state["bases"][seat], strict=True):
            assert entry["cards"] == [faces[t][viewer] for t in real["tiles"]]
            assert ("assignment" in entry) == (seat == viewer)
    assert shown["bag_count"] == len(state["bag"])
    if state["status"] == "active":
        assert shown["seed"] is None


def check_seat_event(state: dict, event: dict, viewer: str) -> None:
    """The same filter over one logged event."""
    shown = tw.view_event(state, event, viewer)
    faces = tw.manifest_of(state)
    assert not HIDDEN_KEYS & set(walk_keys(shown))
    if "tile" in event:
        assert shown["card"] == faces[event["tile"]][viewer]
    if "tiles" in event and event["type"] != "game-created":
        assert shown["cards"] == [faces[t][viewer] for t in event["tiles"]]
    for key in ("assignment", "reasons"):
        if key in event:
            assert (key in shown) == (event["seat"] == viewer)
    if state["status"] == "active":
        assert "seed" not in shown


# ----- catalog and options -----


def test_catalog_entry_lists_the_options_with_defaults():
    entry = engine("two-way").CATALOG["two-way"]
    assert entry["seats"] == ["blue", "green"] and entry["players"] == [2]
    defaults = {o["name"]: o["default"] for o in entry["options"]}
    assert defaults == {
        "dealing": "server",
        "variant": "standard",
        "easy_extra_threes": False,
        "win_condition": "first_complete",
        "first_seat": "blue",
        "idle_seconds": 300,
        "tile_manifest": None,
    }
    json.dumps(entry)


@pytest.mark.parametrize(
    "options",
    [
        {"first_seat": "green"},
        {"first_player": "green"},
        {"first_seat": "green", "first_player": "green"},
    ],
)
def test_g_o1_first_seat_names_who_starts_and_first_player_is_still_accepted(options):
    """G-O1: ``first_seat`` in every game; 2-Way Cards also takes its older name
    ``first_player``. Either way the options kept name ``first_seat``."""
    game = Game(options)
    assert game.state["options"]["first_seat"] == "green"
    assert "first_player" not in game.state["options"]
    assert game.turn == "green" and [e["seat"] for e in game.log[1:]] == ["green", "blue"]


def test_g_o1_first_seat_and_first_player_naming_different_seats_is_refused():
    with pytest.raises(RuleViolation) as info:
        tw.new_game("two-way", {"first_seat": "blue", "first_player": "green"}, SEED)
    assert (info.value.code, info.value.status, info.value.rule) == ("invalid-option", 422, "G-O1")


@pytest.mark.parametrize(
    "options, name",
    [
        ({"dealing": "online"}, "dealing"),
        ({"variant": "hard"}, "variant"),
        ({"easy_extra_threes": "yes"}, "easy_extra_threes"),
        ({"win_condition": "most"}, "win_condition"),
        ({"first_player": "red"}, "first_seat"),
        ({"first_seat": "red"}, "first_seat"),
        ({"colour": "blue"}, "colour"),
        ({"tile_manifest": [{"blue": "AS", "green": "2S"}]}, "tile_manifest"),
    ],
)
def test_invalid_options_are_refused_naming_the_option(options, name):
    with pytest.raises(RuleViolation) as info:
        tw.new_game("two-way", options, SEED)
    assert info.value.code == "invalid-option" and info.value.status == 422
    assert repr(name) in info.value.detail


def test_created_event_carries_options_manifest_and_seed_and_folds_to_the_initial_state():
    created = tw.new_game("two-way", {"first_seat": "green"}, SEED)[0]
    assert created["type"] == "game-created" and created["seat"] is None
    assert (
        created["seed"] == SEED and tw.validate_manifest(created["manifest"]) == created["manifest"]
    )
    assert created["options"]["first_seat"] == "green" and created["seats"] == ["blue", "green"]
    state = tw.fold(None, created)
    assert state["status"] == "active" and state["seats"] == ["blue", "green"]
    assert state["bag"] == list(range(108)) and state["hands"] == {"blue": [], "green": []}
    assert json.loads(json.dumps(state)) == state


# ----- TW-C: components -----


def test_tw_c1_grid_is_7_by_7_with_row_col_coordinates():
    game = Game()
    seat = game.turn
    face = game.own(seat)
    game.act(seat, {"type": "place", "tile": face, "cell": [0, 6]})
    grid = tw.view(game.state, seat)["grid"]
    assert len(grid) == 7 and all(len(r) == 7 for r in grid)
    assert grid[0][6] == face and sum(c is not None for r in grid for c in r) == 1
    for cell in ([7, 0], [0, 7], [-1, 3]):
        error = game.refused(seat, {"type": "place", "tile": game.own(seat), "cell": cell})
        assert (error.code, error.status) == ("off-grid", 422)


def test_tw_c2_every_game_has_108_tiles_with_two_different_faces():
    state = Game().state
    assert len(tw.manifest_of(state)) == 108
    assert all(t["blue"] != t["green"] for t in tw.manifest_of(state))
    assert sorted(tile_places(state)) == list(range(108))


def test_tw_c2_custom_manifest_is_used_for_faces():
    swapped = [{"blue": t["green"], "green": t["blue"]} for t in MANIFEST]
    game = Game({"tile_manifest": swapped})
    assert game.state["custom_manifest"] is True
    hand = game.hand("blue")
    assert tw.view(game.state, "blue")["hands"]["blue"] == [MANIFEST[t]["green"] for t in hand]


def test_tw_c2_ruling_server_games_re_pair_the_public_manifest_from_the_seed():
    one, again, two = (
        list(tw.manifest_of(Game(seed=s).state)) for s in ("01" * 32, "01" * 32, "02" * 32)
    )
    assert one == again and one != two and one != MANIFEST
    for manifest in (one, two):
        assert tw.validate_manifest(manifest) == manifest  # TW-C2 still holds
        assert [t["blue"] for t in manifest] == [t["blue"] for t in MANIFEST]
    assert list(tw.manifest_of(Game({"dealing": "table"}).state)) == MANIFEST
    swapped = [{"blue": t["green"], "green": t["blue"]} for t in MANIFEST]
    assert list(tw.manifest_of(Game({"tile_manifest": swapped}).state)) == swapped


def test_tw_c2_manifest_with_a_tile_showing_one_card_twice_is_refused():
    bad = [dict(t) for t in MANIFEST]
    # swap two green faces so that tile 0 shows its blue card on both sides
    j = next(i for i, t in enumerate(bad) if t["green"] == bad[0]["blue"])
    bad[0]["green"], bad[j]["green"] = bad[j]["green"], bad[0]["green"]
    with pytest.raises(RuleViolation) as info:
        tw.new_game("two-way", {"tile_manifest": bad}, SEED)
    assert info.value.code == "invalid-option" and "both faces" in info.value.detail


def test_tw_c3_seat_view_shows_grid_and_both_hands_in_its_own_colour_only():
    game = Game()
    server_turn(game)
    game.act(game.turn, {"type": "place", "tile": game.own(game.turn), "cell": [3, 3]})
    for seat in SEATS:
        check_seat_view(game.state, seat)
        shown = tw.view(game.state, seat)
        # the opponent's hand is its backs: the viewer's colour of those tiles
        assert shown["hands"][other(seat)] == [game.face(t, seat) for t in game.hand(other(seat))]
        assert shown["hands"][other(seat)] != [
            game.face(t, other(seat)) for t in game.hand(other(seat))
        ]
    referee = tw.view(game.state, "referee")
    assert referee["grid"][3][3]["blue"] == game.face(game.state["grid"][3][3], "blue")
    assert referee["grid"][3][3]["green"] == game.face(game.state["grid"][3][3], "green")
    assert [t["tile"] for t in referee["bag"]] == game.state["bag"]
    public = tw.view(game.state, None)
    assert public["grid"][3][3] is True and "hands" not in public
    assert not HIDDEN_KEYS & set(walk_keys(public))


def test_tw_c3_event_views_show_draws_as_the_viewers_faces():
    game = Game()
    seat = game.turn
    for cell in ([0, 0], [0, 1]):
        game.act(seat, {"type": "place", "tile": game.own(seat), "cell": cell})
    draw = game.act(seat, {"type": "draw"})[0]
    assert tw.view_event(game.state, draw, seat)["cards"] == [
        game.face(t, seat) for t in draw["tiles"]
    ]
    backs = tw.view_event(game.state, draw, other(seat))["cards"]
    assert backs == [game.face(t, other(seat)) for t in draw["tiles"]]
    assert tw.view_event(game.state, draw, None) == {
        "type": "drawn",
        "seat": seat,
        "by": seat,
        "count": 4,
    }
    assert tw.view_event(game.state, draw, "referee")["tiles"] == draw["tiles"]
    for event in game.log:
        for viewer in SEATS:
            check_seat_event(game.state, event, viewer)
    created = game.log[0]
    assert "seed" not in tw.view_event(game.state, created, "blue")
    assert "manifest" not in tw.view_event(game.state, created, None)
    assert "seed" not in tw.view_event(game.state, created, "referee")
    assert tw.view_event(game.state, created, "referee")["manifest"] == created["manifest"]
    assert tw.view(game.state, "referee")["seed"] is None
    assert (
        tw.view(game.state, "referee")["seed_commitment"]
        == tw.view(game.state, "blue")["seed_commitment"]
    )


# ----- TW-T: turns -----


def test_tw_t1_each_player_draws_five_and_the_first_player_starts():
    for first in SEATS:
        game = Game({"first_seat": first})
        deals = [e for e in game.log if e["type"] == "dealt"]
        assert [e["seat"] for e in deals] == [first, other(first)]
        assert all(len(game.hand(s)) == 5 for s in SEATS)
        assert len(game.state["bag"]) == 98
        assert game.turn == first and game.state["phase"] == "place"
        assert tw.legal_actions(game.state, other(first)) == []


def test_tw_t1_server_deals_replay_from_the_seed():
    assert tw.new_game("two-way", {}, SEED) == tw.new_game("two-way", {}, SEED)
    one = Game(seed="01" * 32)
    two = Game(seed="02" * 32)
    assert one.hand("blue") != two.hand("blue")


def test_tw_t1_table_mode_referee_reports_the_deal():
    game = Game({"dealing": "table"})
    assert game.state["phase"] == "deal" and game.state["hands"] == {"blue": [], "green": []}
    error = game.refused("blue", {"type": "place", "tile": "AS", "cell": [0, 0]})
    assert (error.code, error.status) == ("wrong-phase", 409)
    error = game.refused("referee", {"type": "draw", "seat": "blue", "tiles": [0, 1, 2, 3]})
    assert (error.code, error.status) == ("wrong-tile-count", 422)
    game.act("referee", {"type": "draw", "seat": "green", "tiles": [10, 11, 12, 13, 14]})
    error = game.refused("referee", {"type": "draw", "seat": "green", "tiles": [0, 1, 2, 3, 4]})
    assert error.code == "already-dealt"
    error = game.refused("referee", {"type": "draw", "seat": "blue", "tiles": [10, 1, 2, 3, 4]})
    assert (error.code, error.status) == ("tile-not-in-bag", 409)
    game.act("referee", {"type": "draw", "seat": "blue", "tiles": [0, 1, 2, 3, 4]})
    assert game.state["phase"] == "place" and game.turn == "blue"
    assert game.hand("green") == [10, 11, 12, 13, 14]


def test_tw_t2_turn_is_place_place_draw_four_discard_two_in_that_order():
    game = Game()
    seat = game.turn
    face = lambda i=0: game.own(seat, i)  # noqa: E731
    assert game.refused(seat, {"type": "draw"}).code == "wrong-phase"
    assert (
        game.refused(seat, {"type": "discard", "tiles": [face(0), face(1)]}).code == "wrong-phase"
    )
    game.act(seat, {"type": "place", "tile": face(), "cell": [2, 2]})
    assert game.refused(seat, {"type": "draw"}).code == "wrong-phase"
    game.act(seat, {"type": "place", "tile": face(), "cell": [2, 3]})
    assert len(game.hand(seat)) == 3
    assert (
        game.refused(seat, {"type": "place", "tile": face(), "cell": [2, 4]}).code == "wrong-phase"
    )
    drawn = game.act(seat, {"type": "draw"})[0]["tiles"]
    assert len(drawn) == 4 and len(game.hand(seat)) == 7 and len(game.state["bag"]) == 94
    assert game.refused(seat, {"type": "draw"}).code == "wrong-phase"
    error = game.refused(seat, {"type": "discard", "tiles": [face(0)]})
    assert (error.code, error.status) == ("wrong-tile-count", 422)
    discarded = game.hand(seat)[5:]
    events = game.act(seat, {"type": "discard", "tiles": [face(5), face(6)]})
    assert [e["type"] for e in events] == ["discarded"]
    assert len(game.hand(seat)) == 5 and all(t in game.state["bag"] for t in discarded)
    assert game.turn == other(seat) and game.state["phase"] == "place"
    assert (
        game.refused(seat, {"type": "place", "tile": face(), "cell": [4, 4]}).code
        == "not-your-turn"
    )


def test_tw_t2_placement_checks_space_and_hand():
    game = Game()
    seat = game.turn
    own = game.own(seat)
    game.act(seat, {"type": "place", "tile": own, "cell": [1, 1]})
    nxt = game.own(seat)
    assert (
        game.refused(seat, {"type": "place", "tile": nxt, "cell": [1, 1]}).code == "space-occupied"
    )
    missing = next(
        c
        for c in (*DECK, JOKER)
        if c not in [game.own(seat, i) for i in range(len(game.hand(seat)))]
    )
    error = game.refused(seat, {"type": "place", "tile": missing, "cell": [1, 2]})
    assert (error.code, error.status) == ("tile-not-in-hand", 409)
    error = game.refused(seat, {"type": "place", "tile": "1X", "cell": [1, 2]})
    assert error.status == 422
    error = game.refused(seat, {"type": "place", "tile": nxt, "cell": [1, 2], "colour": "x"})
    assert (error.code, error.status) == ("invalid-action", 422)


def test_a_seat_names_a_tile_by_face_and_takes_the_earliest_drawn_of_two():
    # server dealing: the service's tiles are the record, and the seat cannot tell its
    # two 7H apart either: the earliest drawn goes first
    hand = ["7H/KH", "7H/KC", "2S/3D", "4S/5D", "6S/7D"]
    position = {"game": "two-way", "grid": [[None] * 7 for _ in range(7)], "hands": {"blue": hand}}
    state = None
    for event in tw.start_from_position("two-way", {}, SEED, position):
        state = tw.fold(state, event)
    first, second = state["hands"]["blue"][:2]
    event = tw.apply(state, "blue", {"type": "place", "tile": "7h", "cell": [0, 0]})[0]
    assert event["tile"] == first
    state = tw.fold(state, event)
    event = tw.apply(state, "blue", {"type": "place", "tile": "7H", "cell": [0, 1]})[0]
    assert event["tile"] == second


def test_g_m2_at_the_table_a_seat_face_that_fits_two_of_its_tiles_is_the_referees_to_name():
    # table dealing: the tiles on the table are the record; blue cannot say which of its
    # two 7H it laid (their green faces are hidden from it, and the refusal does not
    # depend on them), so the referee names it; a truthful report of that tile later
    # must not be refused as a conflict
    taken: set[int] = set()
    a, b = tile_ids(["7H", "7H"], "blue", taken)
    game = Game({"dealing": "table"})
    rest = game.spare(3, {a, b})
    game.act("referee", {"type": "draw", "seat": "blue", "tiles": [b, *rest[:2], a, rest[2]]})
    game.act("referee", {"type": "draw", "seat": "green", "tiles": game.spare(5, {a, b})})
    error = game.refused("blue", {"type": "place", "tile": "7h", "cell": [0, 0]})
    assert (error.code, error.status, error.rule) == ("ambiguous-tile", 422, "G-M2")
    assert error.extra == {"field": "tile"} and "2 tiles" in str(error.detail)
    assert not any(
        a.get("tile") == "7H" for a in tw.legal_actions(game.state, "blue") if a["type"] == "place"
    )
    event = game.act("referee", {"type": "place", "seat": "blue", "tile": a, "cell": [0, 0]})[0]
    assert event["tile"] == a
    event = game.act("blue", {"type": "place", "tile": "7H", "cell": [0, 1]})[0]
    assert event["tile"] == b  # the only 7H left: no doubt


def test_tw_t3_declarations_before_between_after_placing_and_after_drawing():
    taken: set[int] = set()
    targets = (
        line(row(0, 0, 3), ["AH", "2H", "3H"], taken)
        + line(row(2, 0, 4), ["4S", "5S", "6S", "7S"], taken)
        + line(row(4, 0, 5), ["5D", "6D", "7D", "8D", "9D"], taken)
        + line(row(6, 0, 6), ["8C", "9C", "10C", "JC", "QC", "KC"], taken)
    )
    game = table_game(targets, {"first_seat": "green"})  # 9 turns: green ... green
    assert game.turn == "blue" and game.state["phase"] == "place"
    first = game.ref({"type": "declare", "cells": row(0, 0, 3)})  # before placing
    game.ref({"type": "place", "tile": game.hand("blue")[0], "cell": [1, 6]})
    second = game.ref({"type": "declare", "cells": row(2, 0, 4)[::-1]})  # between
    game.ref({"type": "place", "tile": game.hand("blue")[0], "cell": [3, 6]})
    third = game.ref({"type": "declare", "cells": row(4, 0, 5)})  # after both placements
    game.ref({"type": "draw", "tiles": game.state["bag"][:4]})
    fourth = game.ref({"type": "declare", "cells": row(6, 0, 6)})  # after drawing
    assert [len(e) for e in (first, second, third)] == [1, 1, 1]
    assert [e[0]["type"] for e in (first, second, third, fourth)] == ["declared"] * 4
    assert [e[0]["length"] for e in (first, second, third, fourth)] == [3, 4, 5, 6]
    assert game.state["scores"]["blue"] == 5 + 7 + 10 + 12
    assert fourth[1]["type"] == "game-ended"  # TW-E1: the set is complete


def test_tw_t3_declaration_is_refused_out_of_turn():
    taken: set[int] = set()
    game = table_game(line(row(0, 0, 3), ["AH", "2H", "3H"], taken) + line([[6, 6]], ["KC"], taken))
    assert game.turn == "blue"
    error = game.refused("green", {"type": "declare", "cells": row(0, 0, 3)})
    assert (error.code, error.status) == ("not-your-turn", 409)


def nearly_full(taken: set[int]) -> Game:
    """A table game whose grid is full but for [6, 6], blue to move: [6, 0..2] hold a
    blue run AH 2H 3H, the other spaces the lowest other ids."""
    targets = line(row(6, 0, 3), ["AH", "2H", "3H"], taken)
    cells = [[r, c] for r in range(7) for c in range(7) if r < 6 or 3 <= c < 6]
    others = [i for i in range(108) if i not in taken]
    targets += list(zip(cells, others[: len(cells)]))
    taken.update(others[: len(cells)])
    game = table_game(targets)  # 48 placements: 24 turns, blue moves next
    assert game.turn == "blue" and sum(t is None for r in game.state["grid"] for t in r) == 1
    return game


def test_tw_t4_with_one_empty_space_the_player_places_one_then_draws():
    game = nearly_full(set())
    assert tw.view(game.state, "blue")["placements_left"] == 1
    game.ref({"type": "place", "tile": game.hand("blue")[0], "cell": [6, 6]})
    assert game.state["phase"] == "draw" and tw.view(game.state, "blue")["placements_left"] == 0
    assert (
        game.refused(
            "referee",
            {"type": "place", "tile": game.hand("blue")[0], "cell": [6, 6], "seat": "blue"},
        ).code
        == "wrong-phase"
    )


def test_tw_t2_tw_t4_ruling_a_one_placement_turn_draws_up_to_7_and_discards_down_to_5():
    """TW-T2 "hand = 7" / "hand = 5" also after a TW-T4 turn with one placement: the
    draw takes 3 (not 4: the hand would be 8 and the turn end on 6), a declaration
    after the draw changes nothing, the discard takes 2 and the hand is 5 again."""
    game = nearly_full(set())
    game.ref({"type": "place", "tile": game.hand("blue")[0], "cell": [6, 6]})
    assert len(game.hand("blue")) == 4
    example = [a for a in tw.legal_actions(game.state, "referee") if a["type"] == "draw"]
    assert [len(a["tiles"]) for a in example] == [3]
    error = game.refused(
        "referee", {"type": "draw", "tiles": game.state["bag"][:4], "seat": "blue"}
    )
    assert (error.code, error.status) == ("wrong-tile-count", 422)
    drawn = game.ref({"type": "draw", "tiles": game.state["bag"][:3]})[0]["tiles"]
    assert len(drawn) == 3 and len(game.hand("blue")) == 7
    declared = game.ref({"type": "declare", "cells": row(6, 0, 3)})  # after the draw
    assert declared[0]["type"] == "declared" and len(game.hand("blue")) == 7
    assert tw.view(game.state, "blue")["discards_due"] == 2
    error = game.refused(
        "referee", {"type": "discard", "tiles": game.hand("blue")[:3], "seat": "blue"}
    )
    assert (error.code, error.status) == ("wrong-tile-count", 422)
    events = game.ref({"type": "discard", "tiles": game.hand("blue")[:2]})
    assert [e["type"] for e in events] == ["discarded"]  # 3 spaces are empty again
    assert len(game.hand("blue")) == 5 and len(game.hand("green")) == 5
    assert game.turn == "green" and game.state["phase"] == "place"


def test_tw_t4_ruling_spaces_emptied_by_a_declaration_take_the_second_placement():
    game = nearly_full(set())
    game.ref({"type": "place", "tile": game.hand("blue")[0], "cell": [6, 6]})
    game.ref({"type": "declare", "cells": row(6, 0, 3)})
    assert game.state["phase"] == "place" and tw.view(game.state, "blue")["placements_left"] == 1
    assert (
        game.refused(
            "referee", {"type": "draw", "tiles": game.state["bag"][:4], "seat": "blue"}
        ).code
        == "wrong-phase"
    )
    game.ref({"type": "place", "tile": game.hand("blue")[0], "cell": [6, 1]})
    assert game.state["phase"] == "draw"


def wrong_line_game() -> Game:
    """Blue to move; [0, 0..2] hold blue faces 2C 9H 5D (no valid sequence); blue
    faces AH 2H 3H on [2, 0..2]."""
    taken: set[int] = set()
    return table_game(
        line(row(0, 0, 3), ["2C", "9H", "5D"], taken)
        + line(row(2, 0, 3), ["AH", "2H", "3H"], taken),
        {"first_seat": "green"},
    )


def test_tw_t5_a_missed_turn_is_skipped_with_an_event():
    game = wrong_line_game()
    rejected = game.ref({"type": "declare", "cells": row(0, 0, 3)})
    assert [e["type"] for e in rejected] == ["declaration-rejected"]
    assert game.state["pending_skips"] == {"blue": 1, "green": 0}
    filler_turn(game, [[5, 0], [5, 1]])  # blue finishes this turn normally
    assert game.turn == "green"
    events = filler_turn(game, [[5, 2], [5, 3]])
    assert [(e["type"], e["seat"]) for e in events] == [
        ("discarded", "green"),
        ("turn-skipped", "blue"),
    ]
    assert tw.view_event(game.state, events[1], "green")["rule"] == "TW-T5"  # G-R1
    assert game.turn == "green" and game.state["pending_skips"] == {"blue": 0, "green": 0}
    events = filler_turn(game, [[5, 4], [5, 5]])
    assert [e["type"] for e in events] == ["discarded"] and game.turn == "blue"


def test_tw_t5_ruling_when_both_owe_a_turn_each_misses_one():
    game = wrong_line_game()
    game.ref({"type": "declare", "cells": row(0, 0, 3)})
    filler_turn(game, [[5, 0], [5, 1]])
    green_faces = [MANIFEST[game.state["grid"][0][c]]["green"] for c in (2, 1, 0)]
    assert not tw.classify_line(green_faces)["valid"]  # precondition: wrong for green too
    game.ref({"type": "declare", "cells": row(0, 0, 3)[::-1]})
    assert game.state["pending_skips"] == {"blue": 1, "green": 1}
    events = filler_turn(game, [[5, 2], [5, 3]])
    assert [(e["type"], e["seat"]) for e in events] == [
        ("discarded", "green"),
        ("turn-skipped", "blue"),
        ("turn-skipped", "green"),
    ]
    assert game.turn == "blue" and game.state["pending_skips"] == {"blue": 0, "green": 0}


def test_tw_t5_ruling_two_wrong_declarations_in_a_turn_cost_one_missed_turn():
    """TW-T5/TW-D5: the player "will miss their next turn": one turn, however many
    wrong declarations it made; the second is still recorded."""
    taken: set[int] = set()
    game = table_game(line(row(0, 0, 4), ["2C", "9H", "5D", "KS"], taken))
    assert game.turn == "blue"
    first = game.ref({"type": "declare", "cells": row(0, 0, 3)})
    second = game.ref({"type": "declare", "cells": row(0, 0, 4)})
    assert [e["type"] for e in first + second] == ["declaration-rejected"] * 2
    assert second[0]["cards"] == ["2C", "9H", "5D", "KS"]
    assert game.state["pending_skips"] == {"blue": 1, "green": 0}
    assert tw.view(game.state, "green")["pending_skips"] == {"blue": 1, "green": 0}
    filler_turn(game, [[5, 0], [5, 1]])  # blue ends its turn
    events = filler_turn(game, [[5, 2], [5, 3]])  # green
    assert [(e["type"], e["seat"]) for e in events] == [
        ("discarded", "green"),
        ("turn-skipped", "blue"),
    ]
    assert game.state["pending_skips"] == {"blue": 0, "green": 0}
    events = filler_turn(game, [[5, 4], [5, 5]])  # green again, then blue plays
    assert [e["type"] for e in events] == ["discarded"] and game.turn == "blue"
    assert sum(e["type"] == "turn-skipped" for e in game.log) == 1


# ----- TW-D: declarations -----


@pytest.mark.parametrize(
    "cells",
    [
        row(3, 1, 3),  # horizontal
        [[1, 4], [2, 4], [3, 4]],  # vertical
        [[1, 1], [2, 2], [3, 3]],  # diagonal
        [[1, 5], [2, 4], [3, 3]],  # anti-diagonal
    ],
)
@pytest.mark.parametrize("backwards", [False, True])
def test_tw_d1_lines_in_four_directions_read_either_way(cells, backwards):
    taken: set[int] = set()
    game = table_game(line(cells, ["4C", "5C", "6C"], taken) + line([[6, 6]], ["KD"], taken))
    events = game.ref({"type": "declare", "cells": cells[::-1] if backwards else cells})
    assert events[0]["type"] == "declared" and events[0]["kind"] == "run"
    assert all(game.state["grid"][r][c] is None for r, c in cells)


@pytest.mark.parametrize(
    "cells, code, status",
    [
        ([[3, 1], [3, 2], [3, 4]], "not-a-line", 422),  # gap
        ([[3, 1], [3, 2], [4, 2]], "not-a-line", 422),  # bent
        ([[3, 1], [3, 1], [3, 2]], "not-a-line", 422),  # repeated space
        ([[3, 2], [3, 1], [3, 2]], "not-a-line", 422),  # repeated, out of order
        ([[3, 4], [3, 1], [3, 2]], "not-a-line", 422),  # gap, out of order
        ([[3, 2], [4, 1], [3, 1]], "not-a-line", 422),  # bent, out of order
        ([[3, 1], [3, 2]], "length-not-allowed", 422),  # too short
        ([[3, 0], [3, 1], [3, 2], [3, 3], [3, 4], [3, 5], [3, 6]], "length-not-allowed", 422),
        ([[3, 5], [3, 6], [3, 7]], "off-grid", 422),
        ([[3, 2], [3, 3], [3, 4]], "empty-cell", 409),
        ([[3, 1], [3, 2], "x"], "invalid-action", 422),
    ],
)
def test_tw_d5_malformed_declarations_are_refused_and_nothing_is_recorded(cells, code, status):
    taken: set[int] = set()
    game = table_game(
        line(row(3, 0, 3), ["4C", "5C", "6C"], taken)
        + line([[3, 5], [3, 6], [0, 0]], ["2D", "3D", "KD"], taken)[:1]
        + line([[3, 6]], ["QD"], taken)
    )
    error = game.refused("referee", {"type": "declare", "cells": cells, "seat": game.turn})
    assert (error.code, error.status) == (code, status)
    assert game.state["pending_skips"] == {"blue": 0, "green": 0}


@pytest.mark.parametrize(
    "cells, ordered",
    [
        ([[0, 1], [0, 0], [0, 2]], row(0, 0, 3)),  # row
        ([[3, 4], [1, 4], [2, 4]], [[1, 4], [2, 4], [3, 4]]),  # column
        ([[3, 3], [1, 1], [2, 2]], [[1, 1], [2, 2], [3, 3]]),  # diagonal
        ([[2, 4], [3, 3], [1, 5]], [[1, 5], [2, 4], [3, 3]]),  # anti-diagonal
    ],
)
def test_tw_d1_ruling_cells_in_any_order_are_judged_along_the_line(cells, ordered):
    """TW-D1: a straight contiguous line, whatever order its cells are named in; the
    cards are judged in line order (4C 5C 6C: a high run, not a low suit set)."""
    taken: set[int] = set()
    game = table_game(line(ordered, ["4C", "5C", "6C"], taken) + line([[6, 6]], ["KD"], taken))
    event = game.ref({"type": "declare", "cells": cells})[0]
    assert (event["type"], event["kind"], event["tier"], event["points"]) == (
        "declared",
        "run",
        "high",
        5,
    )
    assert event["cells"] == ordered and event["cards"] == ["4C", "5C", "6C"]
    assert all(game.state["grid"][r][c] is None for r, c in ordered)


def test_tw_d1_ruling_a_line_in_either_direction_keeps_the_declarers_order():
    taken: set[int] = set()
    game = table_game(
        line(row(0, 0, 3), ["QS", "JK", "10S"], taken) + line([[6, 6]], ["KD"], taken)
    )
    event = game.ref({"type": "declare", "cells": row(0, 0, 3)[::-1]})[0]
    assert event["cells"] == row(0, 0, 3)[::-1] and event["cards"] == ["10S", "JK", "QS"]
    assert event["assignment"] == ["10S", "JS", "QS"]


def test_tw_d2_judged_on_the_declarers_faces_using_the_opponents_tiles():
    taken: set[int] = set()
    targets = line(row(3, 0, 3), ["4C", "5C", "6C"], taken)
    # blue places 4C and 5C, green the 6C tile and a tile elsewhere
    game = table_game(targets + line([[6, 6]], ["KD"], taken))
    placed_by = {e["tile"]: e["seat"] for e in game.log if e["type"] == "placed"}
    assert placed_by[game.state["grid"][3][2]] == "green"
    green_faces = [MANIFEST[game.state["grid"][3][c]]["green"] for c in range(3)]
    assert not tw.classify_line(green_faces)["valid"]  # precondition of the test
    filler_turn(game, [[5, 0], [5, 1]])  # blue
    rejected = game.ref({"type": "declare", "cells": row(3, 0, 3)})  # green: its faces
    assert rejected[0]["type"] == "declaration-rejected" and rejected[0]["cards"] == green_faces
    filler_turn(game, [[5, 2], [5, 3]])  # green
    declared = game.ref({"type": "declare", "cells": row(3, 0, 3)})  # blue
    assert declared[0]["type"] == "declared" and declared[0]["cards"] == ["4C", "5C", "6C"]


def test_tw_d3_a_length_already_held_is_refused_without_penalty():
    taken: set[int] = set()
    game = table_game(
        line(row(0, 0, 3), ["4C", "5C", "6C"], taken)
        + line(row(2, 0, 3), ["9S", "9H", "9D"], taken),
        {"first_seat": "green"},
    )
    game.ref({"type": "declare", "cells": row(0, 0, 3)})
    error = game.refused("referee", {"type": "declare", "cells": row(2, 0, 3), "seat": "blue"})
    assert (error.code, error.status) == ("length-already-held", 409)
    assert game.state["pending_skips"]["blue"] == 0
    assert tw.view(game.state, "blue")["slots"]["blue"] == {
        "3": {"allowed": 1, "held": 1},
        "4": {"allowed": 1, "held": 0},
        "5": {"allowed": 1, "held": 0},
        "6": {"allowed": 1, "held": 0},
    }


def test_tw_d3_easy_variant_has_no_six_slot():
    taken: set[int] = set()
    game = table_game(
        line(row(0, 0, 6), ["AS", "2S", "3S", "4S", "5S", "6S"], taken), {"variant": "easy"}
    )
    error = game.refused("referee", {"type": "declare", "cells": row(0, 0, 6), "seat": "green"})
    assert (error.code, error.status) == ("length-not-allowed", 422)
    assert set(tw.view(game.state, None)["slots"]["blue"]) == {"3", "4", "5"}


def test_tw_d3_easy_extra_threes_hold_three_sequences_of_three():
    """TW-D3 with easy_extra_threes: three sequences of 3 (declared over three turns
    here); a fourth is refused as a length already held."""
    taken: set[int] = set()
    targets = []
    for r, suit in zip((0, 2, 4, 6), "SHDC"):
        targets += line(row(r, 0, 3), [f"4{suit}", f"5{suit}", f"6{suit}"], taken)
    game = table_game(targets, {"variant": "easy", "easy_extra_threes": True})
    assert game.turn == "blue"
    fillers = iter([[r, c] for r in (1, 3, 5) for c in range(4, 7)])
    for r in (0, 2, 4):
        assert game.ref({"type": "declare", "cells": row(r, 0, 3)})[0]["type"] == "declared"
        if r < 4:
            filler_turn(game, [next(fillers), next(fillers)])  # blue
            filler_turn(game, [next(fillers), next(fillers)])  # green
    error = game.refused("referee", {"type": "declare", "cells": row(6, 0, 3), "seat": "blue"})
    assert (error.code, error.rule) == ("length-already-held", "TW-D3")
    assert tw.view(game.state, "green")["slots"]["blue"]["3"] == {"allowed": 3, "held": 3}


def test_tw_d3_easy_extra_threes_accept_several_threes_in_one_turn():
    """TW-D3/TW-T3: with easy_extra_threes, correct 3-lines are accepted in one turn
    while a 3-slot is free (legal_actions keeps offering them); the fourth 3 of the
    game is refused (length-already-held, 409, nothing recorded)."""
    taken: set[int] = set()
    targets = (
        line(row(0, 0, 3), ["4S", "5S", "6S"], taken, "green")
        + line(row(2, 0, 3), ["4H", "5H", "6H"], taken, "green")
        + line(row(4, 0, 3), ["4D", "5D", "6D"], taken, "green")
        + line(row(6, 0, 3), ["4C", "5C", "6C"], taken, "green")
    )
    game = table_game(
        targets, {"variant": "easy", "easy_extra_threes": True, "first_seat": "green"}
    )
    assert game.turn == "green"
    for r in (0, 2):
        assert game.ref({"type": "declare", "cells": row(r, 0, 3)})[0]["type"] == "declared"
        declares = [
            a["cells"] for a in tw.legal_actions(game.state, "green") if a["type"] == "declare"
        ]
        assert row(4, 0, 3) in declares and row(6, 0, 3) in declares
    assert game.ref({"type": "declare", "cells": row(4, 0, 3)})[0]["type"] == "declared"
    assert [e["length"] for e in game.state["bases"]["green"]] == [3, 3, 3]
    assert game.state["scores"]["green"] == 3 * 5
    error = game.refused("referee", {"type": "declare", "cells": row(6, 0, 3), "seat": "green"})
    assert (error.code, error.status, error.rule) == ("length-already-held", 409, "TW-D3")
    assert not [a for a in tw.legal_actions(game.state, "green") if a["type"] == "declare"]


def test_tw_d3_a_second_correct_line_of_a_held_length_in_one_turn_is_refused():
    """TW-D3 (standard slots): after a correct 3 this turn the player holds its 3, so
    another 3 in the same turn is a length already held; other lengths go on."""
    taken: set[int] = set()
    targets = (
        line(row(0, 0, 3), ["4S", "5S", "6S"], taken, "green")
        + line(row(2, 0, 3), ["4H", "5H", "6H"], taken, "green")
        + line(row(4, 0, 4), ["4D", "5D", "6D", "7D"], taken, "green")
    )
    game = table_game(targets)
    game.ref({"type": "declare", "cells": row(0, 0, 3)})
    error = game.refused("referee", {"type": "declare", "cells": row(2, 0, 3), "seat": "green"})
    assert (error.code, error.rule) == ("length-already-held", "TW-D3")
    assert game.ref({"type": "declare", "cells": row(4, 0, 4)})[0]["type"] == "declared"


def test_tw_t3_tw_d5_a_wrong_declaration_uses_up_no_length():
    """TW-T3/TW-D5: after a wrong 3-line the player goes on with its turn and may
    declare a 3 again: the correct one is accepted (and offered by legal_actions),
    the same wrong line again is recorded again; still one missed turn owed."""
    game = wrong_line_game()
    assert game.ref({"type": "declare", "cells": row(0, 0, 3)})[0]["type"] == "declaration-rejected"
    declares = [a["cells"] for a in tw.legal_actions(game.state, "blue") if a["type"] == "declare"]
    assert row(2, 0, 3) in declares
    again = game.ref({"type": "declare", "cells": row(0, 0, 3)})
    assert [e["type"] for e in again] == ["declaration-rejected"]
    events = game.ref({"type": "declare", "cells": row(2, 0, 3)})
    assert [e["type"] for e in events] == ["declared"] and events[0]["length"] == 3
    assert game.state["scores"]["blue"] == 5 and game.state["pending_skips"]["blue"] == 1


def test_tw_d3_extra_threes_need_the_easy_variant():
    with pytest.raises(RuleViolation) as info:
        tw.new_game("two-way", {"easy_extra_threes": True}, SEED)
    assert info.value.code == "invalid-option" and "easy_extra_threes" in info.value.detail


def test_tw_d4_correct_declaration_moves_tiles_to_the_base_and_scores():
    taken: set[int] = set()
    game = table_game(
        line(row(3, 0, 3), ["QS", "JK", "10S"], taken) + line([[6, 6]], ["KD"], taken)
    )
    ids = [game.state["grid"][3][c] for c in range(3)]
    event = game.ref({"type": "declare", "cells": row(3, 0, 3)})[0]
    assert (event["kind"], event["tier"], event["points"]) == ("run", "high", 5)
    assert event["assignment"] == ["QS", "JS", "10S"] and event["tiles"] == ids
    assert [game.state["grid"][3][c] for c in range(3)] == [None, None, None]
    base = game.state["bases"]["blue"]
    assert base == [
        {
            "cells": row(3, 0, 3),
            "tiles": ids,
            "cards": ["QS", "JK", "10S"],
            "kind": "run",
            "tier": "high",
            "points": 5,
            "length": 3,
            "assignment": ["QS", "JS", "10S"],
        }
    ]
    assert game.state["scores"] == {"blue": 5, "green": 0}
    assert sorted(tile_places(game.state)) == list(range(108))
    green_view = tw.view(game.state, "green")["bases"]["blue"][0]
    assert green_view["cards"] == [MANIFEST[t]["green"] for t in ids]
    assert "assignment" not in green_view and "tiles" not in green_view


def test_tw_d5_incorrect_declaration_leaves_the_tiles_and_is_recorded():
    game = wrong_line_game()
    grid = json.loads(json.dumps(game.state["grid"]))
    events = game.ref({"type": "declare", "cells": row(0, 0, 3)})
    assert events == [
        {
            "type": "declaration-rejected",
            "seat": "blue",
            "by": "referee",
            "cells": row(0, 0, 3),
            "tiles": [grid[0][c] for c in range(3)],
            "cards": ["2C", "9H", "5D"],
            "reasons": tw.classify_line(["2C", "9H", "5D"])["reasons"],
        }
    ]
    assert game.state["grid"] == grid and game.state["scores"]["blue"] == 0
    assert game.state["pending_skips"]["blue"] == 1
    # G-R1: every copy of the verdict names its rule; the reasons stay the declarer's
    for viewer in ("blue", "green", "referee", None):
        shown = tw.view_event(game.state, events[0], viewer)
        assert shown["rule"] == "TW-D5"
        assert ("reasons" in shown) == (viewer in ("blue", "referee"))
    # the turn goes on (TW-T3; the length stays free: see test_tw_t3_tw_d5_...)
    assert game.state["phase"] == "place"
    game.ref({"type": "place", "tile": game.hand("blue")[0], "cell": [5, 0]})


# ----- TW-E: end of game -----


def test_tw_e1_easy_set_complete_ends_the_game_at_once():
    taken: set[int] = set()
    targets = (
        line(row(0, 0, 3), ["AH", "2H", "3H"], taken)
        + line(row(2, 0, 4), ["4S", "5S", "6S", "7S"], taken)
        + line(row(4, 0, 5), ["5D", "6D", "7D", "8D", "9D"], taken)
        + line([[6, 6]], ["KC"], taken)
    )
    game = table_game(targets, {"variant": "easy"}, finish_last_turn=False)
    assert game.turn == "blue" and game.state["phase"] == "draw"
    game.ref({"type": "declare", "cells": row(0, 0, 3)})
    game.ref({"type": "declare", "cells": row(2, 0, 4)})
    events = game.ref({"type": "declare", "cells": row(4, 0, 5)})
    assert [e["type"] for e in events] == ["declared", "game-ended"]
    assert events[1] == {
        "type": "game-ended",
        "seat": None,
        "result": {
            "winners": ["blue"],
            "scores": {"blue": 22, "green": 0},
            "reason": "set-complete",
            "two_way": {"completer": "blue"},
        },
    }
    assert tw.view(game.state, "green")["result"] == events[1]["result"]
    assert game.state["status"] == "finished" and tw.legal_actions(game.state, "blue") == []
    error = game.refused(
        "referee", {"type": "draw", "tiles": game.state["bag"][:4], "seat": "blue"}
    )
    assert error.code == "game-over"


@pytest.mark.parametrize(
    "options, slots",
    [
        ({}, {"3": 1, "4": 1, "5": 1, "6": 1}),
        ({"variant": "easy"}, {"3": 1, "4": 1, "5": 1}),
        ({"variant": "easy", "easy_extra_threes": True}, {"3": 3, "4": 1, "5": 1}),
    ],
)
def test_tw_e1_required_slots_per_variant(options, slots):
    """TW-E1: 3, 4, 5, 6 by default; 3, 4, 5 easy; 3, 3, 3, 4, 5 with extra threes."""
    shown = tw.view(Game(options).state, None)["slots"]
    for seat in SEATS:
        assert {n: v["allowed"] for n, v in shown[seat].items()} == slots


def test_tw_e1_extra_threes_end_only_when_all_five_slots_are_held():
    taken: set[int] = set()
    targets = (
        line(row(0, 0, 3), ["4S", "5S", "6S"], taken, "green")
        + line(row(2, 0, 3), ["4H", "5H", "6H"], taken, "green")
        + line(row(4, 0, 3), ["4D", "5D", "6D"], taken, "green")
        + line(row(6, 0, 4), ["8C", "9C", "10C", "JC"], taken, "green")
        + line(row(1, 2, 5), ["AS", "2S", "3S", "4S", "5S"], taken, "green")
    )
    game = table_game(targets, {"variant": "easy", "easy_extra_threes": True})
    assert game.turn == "green"
    for cells in (row(6, 0, 4), row(1, 2, 5), row(0, 0, 3), row(2, 0, 3)):
        assert [e["type"] for e in game.ref({"type": "declare", "cells": cells})] == ["declared"]
    events = game.ref({"type": "declare", "cells": row(4, 0, 3)})
    assert [e["type"] for e in events] == ["declared", "game-ended"]
    assert events[1]["result"]["winners"] == ["green"]
    assert events[1]["result"]["reason"] == "set-complete"


@pytest.mark.parametrize(
    "options, winner",
    [
        ({}, "blue"),
        ({"win_condition": "first_complete"}, "blue"),
        ({"win_condition": "score"}, "green"),
    ],
)
def test_tw_e3_the_completer_wins_outright_by_default_even_with_fewer_points(options, winner):
    """TW-E3: blue completes the easy set with 13 points against green's 17 and wins
    (the default, first_complete); win_condition score: the higher score wins."""
    taken: set[int] = set()
    targets = (
        line(row(0, 0, 3), ["2C", "9C", "5C"], taken)  # blue 3
        + line(row(1, 0, 4), ["3D", "JD", "7D", "KD"], taken)  # blue 4
        + line(row(2, 0, 5), ["AS", "4S", "9S", "QS", "6S"], taken)  # blue 6
        + line(row(4, 0, 5), ["5H", "6H", "7H", "8H", "9H"], taken, "green")  # 10
        + line(row(5, 0, 4), ["JC", "QC", "KC", "AC"], taken, "green")  # 7
        + line([[6, 6]], ["KH"], taken)
    )
    game = table_game(targets, {"variant": "easy", **options})
    assert game.turn == "green"
    game.ref({"type": "declare", "cells": row(4, 0, 5)})
    game.ref({"type": "declare", "cells": row(5, 0, 4)})
    filler_turn(game, [[3, 0], [3, 1]])
    for cells in (row(0, 0, 3), row(1, 0, 4), row(2, 0, 5)):
        events = game.ref({"type": "declare", "cells": cells})
    assert [e["tier"] for e in game.state["bases"]["blue"]] == ["low"] * 3
    result = events[-1]["result"]
    assert events[-1]["type"] == "game-ended" and result["two_way"] == {"completer": "blue"}
    assert result["scores"] == {"blue": 3 + 4 + 6, "green": 10 + 7}
    assert result["reason"] == "set-complete"
    assert result["winners"] == [winner] and game.state["result"] == result


def play_by_choice(seed: str, choose, options: dict | None = None, limit: int = 2000) -> Game:
    """A game in which the seat to move always takes ``choose(legal_actions)``."""
    game = Game(options, seed)
    for _ in range(limit):
        if game.state["status"] != "active":
            return game
        actor = game.turn
        actions = tw.legal_actions(game.state, actor)
        if not actions:
            actor = "referee"
            actions = tw.legal_actions(game.state, actor)
        game.act(actor, choose(actions))
    raise AssertionError("the game did not end")


def test_tw_e2_full_grid_at_the_end_of_a_turn_ends_the_game_and_equal_scores_draw():
    game = play_by_choice(SEED, lambda actions: actions[0])  # never declares
    assert game.state["result"]["reason"] == "grid-full"
    assert all(t is not None for r in game.state["grid"] for t in r)
    assert game.log[-2]["type"] == "discarded"  # ended at the end of a turn
    # 49 spaces: the 25th turn places one tile (TW-T4), draws 3 and ends on 5 (TW-T2)
    draws = [len(e["tiles"]) for e in game.log if e["type"] == "drawn"]
    assert draws == [4] * 24 + [3]
    assert [len(game.hand(s)) for s in SEATS] == [5, 5]
    assert game.state["scores"] == {"blue": 0, "green": 0}
    assert game.state["result"] == {
        "winners": [],
        "scores": {"blue": 0, "green": 0},
        "reason": "grid-full",
        "two_way": {"completer": None},
    }
    assert game.replay() == game.state


def test_tw_e2_grid_filled_mid_turn_does_not_end_before_the_discard():
    """TW-E2 ruling: checked at the end of the turn that filled the grid, so the
    filler may still declare in that turn."""
    game = nearly_full(set())
    game.ref({"type": "place", "tile": game.hand("blue")[0], "cell": [6, 6]})
    game.ref({"type": "draw", "tiles": game.state["bag"][:3]})  # up to 7 in hand (TW-T2)
    assert game.state["status"] == "active"
    declare = {"type": "declare", "cells": row(6, 0, 3), "seat": "blue"}
    assert declare in [{**a, "seat": "blue"} for a in tw.legal_actions(game.state, "blue")]
    assert [e["type"] for e in tw.apply(game.state, "referee", declare)] == ["declared"]
    events = game.ref({"type": "discard", "tiles": game.hand("blue")[:2]})
    assert [e["type"] for e in events] == ["discarded", "game-ended"]
    assert events[1]["result"]["reason"] == "grid-full" and game.state["status"] == "finished"


@pytest.mark.parametrize("seed", ["a1" * 32, "b2" * 32, "c3" * 32])
def test_tw_e2_games_driven_by_legal_actions_end(seed):
    rnd = random.Random(seed)

    def choose(actions):
        declarations = [a for a in actions if a["type"] == "declare"]
        return (
            rnd.choice(declarations) if declarations and rnd.random() < 0.8 else rnd.choice(actions)
        )

    for options in ({}, {"dealing": "table", "variant": "easy"}):
        game = play_by_choice(seed, choose, options)
        assert game.state["result"]["reason"] in ("grid-full", "set-complete")
        assert game.replay() == game.state
        assert sorted(tile_places(game.state)) == list(range(108))


def test_tw_e4_draw_four_of_108_tiles_and_180_tiles_refused():
    game = Game()
    assert len(tw.manifest_of(game.state)) == 108 and len(tile_places(game.state)) == 108
    events = server_turn(game)
    draw = [e for e in game.log if e["type"] == "drawn"][0]
    assert len(draw["tiles"]) == 4 and events[0]["type"] == "discarded"
    tiles = (MANIFEST * 2)[:180]
    with pytest.raises(RuleViolation) as info:
        tw.new_game("two-way", {"tile_manifest": tiles}, SEED)
    assert info.value.code == "invalid-option" and "108" in info.value.detail


# ----- modes and actors -----


def test_server_mode_refuses_the_referee_and_reported_tiles():
    game = Game()
    error = game.refused("referee", {"type": "draw", "seat": "blue"})
    assert (error.code, error.status) == ("referee-cannot-act", 403)
    seat = game.turn
    for cell in ([0, 0], [0, 1]):
        game.act(seat, {"type": "place", "tile": game.own(seat), "cell": cell})
    error = game.refused(seat, {"type": "draw", "tiles": [1, 2, 3, 4]})
    assert error.status == 422
    error = game.refused(seat, {"type": "draw", "seat": other(seat)})
    assert (error.code, error.status) == ("not-your-seat", 403)
    error = game.refused("dealer", {"type": "draw"})
    assert error.status == 403
    assert tw.legal_actions(game.state, "referee") == []


def test_server_mode_draws_are_deterministic_from_the_seed():
    one, two = Game(), Game()
    server_turn(one)
    server_turn(two)
    assert one.log == two.log
    # auditable: draw n takes randbelow(len(bag)) picks from the sorted bag, stream "draw:n"
    draw = next(e for e in one.log if e["type"] == "drawn")
    bag = sorted(
        set(range(108))
        - {t for e in one.log[1:3] for t in e["tiles"]}
        - {e["tile"] for e in one.log if e["type"] == "placed"}
    )
    stream = Stream(SEED, "draw:2")
    assert draw["tiles"] == [bag.pop(stream.randbelow(len(bag))) for _ in range(4)]


def test_table_mode_draws_are_reported_by_the_referee_and_checked_against_the_bag():
    taken: set[int] = set()
    game = table_game(line(row(0, 0, 2), ["4C", "5C"], taken), finish_last_turn=False)
    assert game.turn == "blue" and game.state["phase"] == "draw"
    error = game.refused("blue", {"type": "draw"})
    assert (error.code, error.status) == ("referee-reports-draws", 403)
    in_hand = game.hand("green")[0]
    error = game.refused(
        "referee", {"type": "draw", "seat": "blue", "tiles": [in_hand, *game.state["bag"][:3]]}
    )
    assert (error.code, error.status) == ("tile-not-in-bag", 409)
    error = game.refused("referee", {"type": "draw", "seat": "blue", "tiles": [999, 1, 2, 3]})
    assert error.status == 422
    error = game.refused(
        "referee", {"type": "draw", "seat": "green", "tiles": game.state["bag"][:4]}
    )
    assert error.code == "not-your-turn"
    error = game.refused("referee", {"type": "draw", "tiles": game.state["bag"][:4]})
    assert error.status == 422  # the referee must name the seat
    bag = game.state["bag"][-4:]
    assert game.ref({"type": "draw", "tiles": bag})[0]["tiles"] == bag
    # seats may still act for themselves in table mode, by face
    face = MANIFEST[game.hand("blue")[0]]["blue"]
    game.act("blue", {"type": "discard", "tiles": [face, MANIFEST[game.hand("blue")[1]]["blue"]]})
    assert game.turn == "green"


def test_expected_version_in_a_body_is_ignored():
    game = Game()
    seat = game.turn
    face = game.own(seat)
    events = game.act(seat, {"type": "place", "tile": face, "cell": [4, 4], "expected_version": 3})
    assert events[0]["cell"] == [4, 4] and "expected_version" not in events[0]


@pytest.mark.parametrize("kind", [["place"], {"place": 1}, 3, None, "fly"])
def test_g_r1_a_type_naming_no_action_is_invalid_action(kind):
    """A body whose "type" is no action type of the game, even one that is not a string
    (a list or an object), is a malformed body: 422 invalid-action citing G-R1."""
    game = Game()
    error = game.refused(game.turn, {"type": kind})
    assert (error.code, error.status, error.rule) == ("invalid-action", 422, "G-R1")


# ----- legal actions -----


def test_legal_actions_are_complete_and_each_is_accepted():
    taken: set[int] = set()
    game = table_game(
        line(row(0, 0, 3), ["4C", "5C", "6C"], taken)
        + line(row(2, 0, 4), ["8D", "8S", "8H", "8C"], taken)
    )
    state = game.state
    seat = game.turn
    actions = tw.legal_actions(state, seat)
    faces = {game.face(t, seat) for t in game.hand(seat)}
    empty = sum(t is None for r in state["grid"] for t in r)
    places = [a for a in actions if a["type"] == "place"]
    assert len(places) == len(faces) * empty
    declares = [a["cells"] for a in actions if a["type"] == "declare"]
    scanned = [x["cells"] for x in tw.scan_grid(game_faces(state, seat))]
    assert declares == scanned and row(0, 0, 3) in declares and row(2, 0, 4) in declares
    for action in actions:
        tw.apply(state, seat, action)
    referee = tw.legal_actions(state, "referee")
    assert all(a["seat"] == seat for a in referee)
    assert {a["tile"] for a in referee if a["type"] == "place"} == set(game.hand(seat))
    for action in referee:
        tw.apply(state, "referee", action)
    assert tw.legal_actions(state, other(seat)) == []
    assert tw.legal_actions(state, None) == []


def game_faces(state: dict, colour: str) -> list[list[str | None]]:
    faces = tw.manifest_of(state)
    return [[None if t is None else faces[t][colour] for t in r] for r in state["grid"]]


def test_legal_discards_are_distinct_by_faces_and_skip_held_lengths():
    taken: set[int] = set()
    a, b = tile_ids(["7H", "7H"], "blue", taken)
    game = Game({"dealing": "table"})
    game.act("referee", {"type": "draw", "seat": "blue", "tiles": [a, b, *game.spare(3, taken)]})
    game.act("referee", {"type": "draw", "seat": "green", "tiles": game.spare(5, taken)})
    for cell in ([3, 3], [3, 4]):
        game.ref({"type": "place", "tile": game.hand("blue")[-1], "cell": cell})
    game.ref({"type": "draw", "tiles": game.spare(4, taken)})
    discards = [a["tiles"] for a in tw.legal_actions(game.state, "blue") if a["type"] == "discard"]
    faces = [MANIFEST[t]["blue"] for t in game.hand("blue")]
    assert faces.count("7H") == 2 and ["7H", "7H"] in discards
    keys = [tuple(sorted(d)) for d in discards]
    # at the table a seat names every tile of a face it shows twice, or none (G-M2)
    whole = {
        tuple(sorted(p))
        for p in combinations(faces, 2)
        if all(p.count(f) == faces.count(f) for f in p)
    }
    assert len(keys) == len(set(keys)) == len(whole) and set(keys) == whole
    for body in discards:
        tw.apply(game.state, "blue", {"type": "discard", "tiles": body})
    error = game.refused("blue", {"type": "discard", "tiles": ["7H", faces[-1]]})
    assert (error.code, error.extra["field"]) == ("ambiguous-tile", "tiles[0]")


# ----- integrity under random legal and illegal actions -----

CELL = st.lists(st.integers(-1, 7), min_size=2, max_size=2)
NAME = st.one_of(st.sampled_from([*DECK, JOKER, "10h", "TS", "ZZ", ""]), st.integers(-2, 110))
STRAIGHT = st.builds(
    lambda r, c, d, n, back: [[r + i * d[0], c + i * d[1]] for i in range(n)][:: -1 if back else 1],
    st.integers(0, 6),
    st.integers(0, 6),
    st.sampled_from([(0, 1), (1, 0), (1, 1), (1, -1)]),
    st.integers(2, 7),
    st.booleans(),
)
ACTION = st.one_of(
    st.fixed_dictionaries({"type": st.just("place"), "tile": NAME, "cell": CELL}),
    st.fixed_dictionaries(
        {"type": st.just("draw")}, optional={"tiles": st.lists(st.integers(-1, 109), max_size=5)}
    ),
    st.fixed_dictionaries({"type": st.just("discard"), "tiles": st.lists(NAME, max_size=3)}),
    st.fixed_dictionaries(
        {"type": st.just("declare"), "cells": st.one_of(STRAIGHT, st.lists(CELL, max_size=7))}
    ),
    st.dictionaries(
        st.sampled_from(["type", "tile", "cells", "cell", "x"]),
        st.one_of(st.integers(), st.text(max_size=3), st.none()),
        max_size=3,
    ),
)


class TwoWayMachine(RuleBasedStateMachine):
    """Random legal and illegal actions in both modes; after every step: 108 tiles
    each in exactly one place, the state is JSON, seat views and seat event views
    show only the viewer's faces and no id; at the end, replaying the log from None
    gives the state."""

    @initialize(
        dealing=st.sampled_from(["server", "table"]),
        variant=st.sampled_from(
            [{}, {"variant": "easy"}, {"variant": "easy", "easy_extra_threes": True}]
        ),
        first=st.sampled_from(SEATS),
        seed=st.binary(min_size=32, max_size=32),
    )
    def start(self, dealing, variant, first, seed):
        self.game = Game({"dealing": dealing, "first_seat": first, **variant}, seed.hex())
        self.checked = 0

    def active(self) -> bool:
        return self.game.state["status"] == "active"

    def legal_move(self, pick: int) -> None:
        state = self.game.state
        actor = state["turn"]
        actions = [] if state["phase"] == "deal" else tw.legal_actions(state, actor)
        if not actions:
            actor = "referee"
            actions = tw.legal_actions(state, actor)
        assert actions, "an active game always has a legal action"
        declarations = [a for a in actions if a["type"] == "declare"]
        chosen = declarations or actions
        self.game.act(actor, chosen[pick % len(chosen)])

    @precondition(lambda self: self.active())
    @rule(pick=st.integers(0, 10_000))
    def legal(self, pick):
        self.legal_move(pick)

    @precondition(lambda self: self.active())
    @rule(picks=st.lists(st.integers(0, 10_000), min_size=5, max_size=12))
    def legal_run(self, picks):
        for pick in picks:
            if self.active():
                self.legal_move(pick)

    @precondition(lambda self: self.active() and self.game.state["phase"] != "deal")
    @rule(pick=st.integers(0, 10_000), by_referee=st.booleans())
    def declare_occupied_line(self, pick, by_referee):
        """A well-formed declaration (correct or not: TW-D5) on occupied spaces."""
        grid = self.game.state["grid"]
        lines = [
            [[r + i * dr, c + i * dc] for i in range(n)]
            for r in range(7)
            for c in range(7)
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
            for n in range(3, 7)
            if all(
                0 <= r + i * dr < 7
                and 0 <= c + i * dc < 7
                and grid[r + i * dr][c + i * dc] is not None
                for i in range(n)
            )
        ]
        if not lines:
            return
        table = self.game.state["options"]["dealing"] == "table"
        actor = "referee" if by_referee and table else self.game.turn
        try:
            self.game.act(
                actor,
                {"type": "declare", "cells": lines[pick % len(lines)], "seat": self.game.turn},
            )
        except RuleViolation as error:
            assert error.code in ("length-already-held", "length-not-allowed")

    @rule(
        actor=st.sampled_from(["blue", "green", "referee", "referee"]),
        seat=st.sampled_from(["turn", "blue", "green", None]),
        action=ACTION,
    )
    def anything(self, actor, seat, action):
        if seat is not None:
            action = {**action, "seat": self.game.turn if seat == "turn" else seat}
        try:
            self.game.act(actor, action)
        except RuleViolation as error:
            assert error.status in (403, 409, 422)
            assert re.fullmatch(r"(G-[MOR]|TW-[CTDSE])\d+", error.rule)  # G-R1

    @invariant()
    def tiles_are_each_in_one_place(self):
        assert sorted(tile_places(self.game.state)) == list(range(108))

    @invariant()
    def hands_and_missed_turns_stay_in_bounds(self):
        """TW-T2: 5 in hand between turns, 7 at most after the draw; TW-D5: a seat owes
        one missed turn at most."""
        state = self.game.state
        for seat in SEATS:
            limit = 7 if seat == state["turn"] and state["phase"] == "discard" else 5
            assert len(state["hands"][seat]) <= limit
        assert set(state["pending_skips"].values()) <= {0, 1}

    @invariant()
    def state_is_json(self):
        assert json.loads(json.dumps(self.game.state)) == self.game.state

    @invariant()
    def views_hide_the_other_colour(self):
        state = self.game.state
        for seat in SEATS:
            check_seat_view(state, seat)
        public = tw.view(state, None)
        assert not HIDDEN_KEYS & set(walk_keys(public)) and "hands" not in public
        for event in self.game.log[self.checked :]:
            for seat in SEATS:
                check_seat_event(state, event, seat)
            assert "cards" not in tw.view_event(state, event, None)
        self.checked = len(self.game.log)

    def teardown(self):
        if hasattr(self, "game"):
            assert self.game.replay() == self.game.state


TestTwoWayIntegrity = TwoWayMachine.TestCase
TestTwoWayIntegrity.settings = settings(
    max_examples=30,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
