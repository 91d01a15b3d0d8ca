"""2-Way Cards game flow (RULES.md §1: TW-C1..C3, TW-T1..T5, TW-D1..D5, TW-E1..E4,
dealing modes). Pure engine tests: every state is reached through new_game/apply/fold.

Table-mode games let the referee choose which tiles are drawn, so a test can build any
grid it needs (``table_game``) without touching the state by hand.
"""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant,
                                 precondition, rule)

from service.cards import DECK, JOKER
from service.games import RuleViolation, engine
from service.games import two_way as tw

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


def line(cells: list[list[int]], faces: list[str], taken: set[int], colour: str = "blue"
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
        events = tw.apply(self.state, actor, action)
        for event in events:
            self.state = tw.fold(self.state, event)
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

    def spare(self, count: int, reserved: set[int]) -> list[int]:
        return [t for t in self.state["bag"] if t not in reserved][:count]


def table_game(targets: list[tuple[list[int], int]], options: dict | None = None,
               finish_last_turn: bool = True) -> Game:
    """A table-mode game in which the seats, turn by turn from the first player, placed
    ``targets`` ([cell, tile id]) two per turn; the referee deals and draws so each
    seat holds its tiles in time, and discards other tiles. ``finish_last_turn``
    False stops the last turn after its placements (its seat may still declare)."""
    assert len(targets) % 2 == 0
    game = Game({"dealing": "table", **(options or {})})
    reserved = {t for _, t in targets}
    turns = [targets[i:i + 2] for i in range(0, len(targets), 2)]
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
        game.ref({"type": "discard",
                  "tiles": [t for t in game.hand(game.turn) if t not in reserved][-2:]})
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
        game.act(seat, {"type": "place", "tile": MANIFEST[game.hand(seat)[0]][seat], "cell": empty})
    game.act(seat, {"type": "draw"})
    faces = [MANIFEST[t][seat] for t in game.hand(seat)[:2]]
    return game.act(seat, {"type": "discard", "tiles": faces})


def walk_keys(value: object):
    """Every dict key anywhere inside ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from walk_keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk_keys(item)


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
    faces = state["manifest"]
    assert not HIDDEN_KEYS & set(walk_keys(shown))
    assert shown["grid"] == [[None if t is None else faces[t][viewer] for t in r]
                             for r in state["grid"]]
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
    faces = state["manifest"]
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
    assert defaults == {"dealing": "server", "variant": "standard", "easy_extra_threes": False,
                        "win_condition": "score", "first_player": "blue", "tile_manifest": None}
    json.dumps(entry)


@pytest.mark.parametrize("options, name", [
    ({"dealing": "online"}, "dealing"), ({"variant": "hard"}, "variant"),
    ({"easy_extra_threes": "yes"}, "easy_extra_threes"),
    ({"win_condition": "most"}, "win_condition"), ({"first_player": "red"}, "first_player"),
    ({"colour": "blue"}, "colour"), ({"tile_manifest": [{"blue": "AS", "green": "2S"}]},
                                     "tile_manifest"),
])
def test_invalid_options_are_refused_naming_the_option(options, name):
    with pytest.raises(RuleViolation) as info:
        tw.new_game("two-way", options, SEED)
    assert info.value.code == "invalid-option" and info.value.status == 422
    assert repr(name) in info.value.detail


def test_created_event_carries_options_manifest_and_seed_and_folds_to_the_initial_state():
    created = tw.new_game("two-way", {"first_player": "green"}, SEED)[0]
    assert created["type"] == "game-created" and created["seat"] is None
    assert created["seed"] == SEED and created["manifest"] == MANIFEST
    assert created["options"]["first_player"] == "green" and created["seats"] == ["blue", "green"]
    state = tw.fold(None, created)
    assert state["status"] == "active" and state["seats"] == ["blue", "green"]
    assert state["bag"] == list(range(108)) and state["hands"] == {"blue": [], "green": []}
    assert json.loads(json.dumps(state)) == state


# ----- TW-C: components -----

def test_tw_c1_grid_is_7_by_7_with_row_col_coordinates():
    game = Game()
    seat = game.turn
    face = MANIFEST[game.hand(seat)[0]][seat]
    game.act(seat, {"type": "place", "tile": face, "cell": [0, 6]})
    grid = tw.view(game.state, seat)["grid"]
    assert len(grid) == 7 and all(len(r) == 7 for r in grid)
    assert grid[0][6] == face and sum(c is not None for r in grid for c in r) == 1
    for cell in ([7, 0], [0, 7], [-1, 3]):
        error = game.refused(seat, {"type": "place", "tile": MANIFEST[game.hand(seat)[0]][seat],
                                    "cell": cell})
        assert (error.code, error.status) == ("off-grid", 422)


def test_tw_c2_every_game_has_108_tiles_with_two_different_faces():
    state = Game().state
    assert len(state["manifest"]) == 108
    assert all(t["blue"] != t["green"] for t in state["manifest"])
    assert sorted(tile_places(state)) == list(range(108))


def test_tw_c2_custom_manifest_is_used_for_faces():
    swapped = [{"blue": t["green"], "green": t["blue"]} for t in MANIFEST]
    game = Game({"tile_manifest": swapped})
    assert game.state["custom_manifest"] is True
    hand = game.hand("blue")
    assert tw.view(game.state, "blue")["hands"]["blue"] == [MANIFEST[t]["green"] for t in hand]


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
    game.act(game.turn, {"type": "place", "tile": MANIFEST[game.hand(game.turn)[0]][game.turn],
                         "cell": [3, 3]})
    for seat in SEATS:
        check_seat_view(game.state, seat)
        shown = tw.view(game.state, seat)
        # the opponent's hand is its backs: the viewer's colour of those tiles
        assert shown["hands"][other(seat)] == [MANIFEST[t][seat] for t in game.hand(other(seat))]
        assert shown["hands"][other(seat)] != [MANIFEST[t][other(seat)]
                                               for t in game.hand(other(seat))]
    referee = tw.view(game.state, "referee")
    assert referee["grid"][3][3]["blue"] == MANIFEST[game.state["grid"][3][3]]["blue"]
    assert referee["grid"][3][3]["green"] == MANIFEST[game.state["grid"][3][3]]["green"]
    assert [t["tile"] for t in referee["bag"]] == game.state["bag"]
    public = tw.view(game.state, None)
    assert public["grid"][3][3] is True and "hands" not in public
    assert not HIDDEN_KEYS & set(walk_keys(public))


def test_tw_c3_event_views_show_draws_as_the_viewers_faces():
    game = Game()
    seat = game.turn
    for cell in ([0, 0], [0, 1]):
        game.act(seat, {"type": "place", "tile": MANIFEST[game.hand(seat)[0]][seat], "cell": cell})
    draw = game.act(seat, {"type": "draw"})[0]
    assert tw.view_event(game.state, draw, seat)["cards"] == [MANIFEST[t][seat] for t in draw["tiles"]]
    backs = tw.view_event(game.state, draw, other(seat))["cards"]
    assert backs == [MANIFEST[t][other(seat)] for t in draw["tiles"]]
    assert tw.view_event(game.state, draw, None) == {"type": "draw", "seat": seat, "by": seat,
                                                     "count": 4}
    assert tw.view_event(game.state, draw, "referee")["tiles"] == draw["tiles"]
    for event in game.log:
        for viewer in SEATS:
            check_seat_event(game.state, event, viewer)
    created = game.log[0]
    assert "seed" not in tw.view_event(game.state, created, "blue")
    assert "manifest" not in tw.view_event(game.state, created, None)
    assert tw.view_event(game.state, created, "referee")["seed"] == SEED


# ----- TW-T: turns -----

def test_tw_t1_each_player_draws_five_and_the_first_player_starts():
    for first in SEATS:
        game = Game({"first_player": first})
        deals = [e for e in game.log if e["type"] == "deal"]
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
    face = lambda i=0: MANIFEST[game.hand(seat)[i]][seat]  # noqa: E731
    assert game.refused(seat, {"type": "draw"}).code == "wrong-phase"
    assert game.refused(seat, {"type": "discard", "tiles": [face(0), face(1)]}).code == "wrong-phase"
    game.act(seat, {"type": "place", "tile": face(), "cell": [2, 2]})
    assert game.refused(seat, {"type": "draw"}).code == "wrong-phase"
    game.act(seat, {"type": "place", "tile": face(), "cell": [2, 3]})
    assert len(game.hand(seat)) == 3
    assert game.refused(seat, {"type": "place", "tile": face(), "cell": [2, 4]}).code == "wrong-phase"
    drawn = game.act(seat, {"type": "draw"})[0]["tiles"]
    assert len(drawn) == 4 and len(game.hand(seat)) == 7 and len(game.state["bag"]) == 94
    assert game.refused(seat, {"type": "draw"}).code == "wrong-phase"
    error = game.refused(seat, {"type": "discard", "tiles": [face(0)]})
    assert (error.code, error.status) == ("wrong-tile-count", 422)
    discarded = game.hand(seat)[5:]
    events = game.act(seat, {"type": "discard", "tiles": [face(5), face(6)]})
    assert [e["type"] for e in events] == ["discard"]
    assert len(game.hand(seat)) == 5 and all(t in game.state["bag"] for t in discarded)
    assert game.turn == other(seat) and game.state["phase"] == "place"
    assert game.refused(seat, {"type": "place", "tile": face(), "cell": [4, 4]}).code == "not-your-turn"


def test_tw_t2_placement_checks_space_and_hand():
    game = Game()
    seat = game.turn
    own = MANIFEST[game.hand(seat)[0]][seat]
    game.act(seat, {"type": "place", "tile": own, "cell": [1, 1]})
    nxt = MANIFEST[game.hand(seat)[0]][seat]
    assert game.refused(seat, {"type": "place", "tile": nxt, "cell": [1, 1]}).code == "space-occupied"
    missing = next(c for c in (*DECK, JOKER) if c not in [MANIFEST[t][seat] for t in game.hand(seat)])
    error = game.refused(seat, {"type": "place", "tile": missing, "cell": [1, 2]})
    assert (error.code, error.status) == ("tile-not-in-hand", 409)
    error = game.refused(seat, {"type": "place", "tile": "1X", "cell": [1, 2]})
    assert error.status == 422
    error = game.refused(seat, {"type": "place", "tile": nxt, "cell": [1, 2], "colour": "x"})
    assert (error.code, error.status) == ("invalid-action", 422)


def test_a_seat_names_a_tile_by_face_and_takes_the_earliest_drawn_of_two():
    taken: set[int] = set()
    a, b = tile_ids(["7H", "7H"], "blue", taken)
    game = Game({"dealing": "table"})
    rest = game.spare(3, {a, b})
    game.act("referee", {"type": "draw", "seat": "blue", "tiles": [b, *rest[:2], a, rest[2]]})
    game.act("referee", {"type": "draw", "seat": "green", "tiles": game.spare(5, {a, b})})
    event = game.act("blue", {"type": "place", "tile": "7h", "cell": [0, 0]})[0]
    assert event["tile"] == b  # drawn first, although its id is higher or lower
    event = game.act("blue", {"type": "place", "tile": "7H", "cell": [0, 1]})[0]
    assert event["tile"] == a


def test_tw_t3_declarations_before_between_after_placing_and_after_drawing():
    taken: set[int] = set()
    targets = (line(row(0, 0, 3), ["AH", "2H", "3H"], taken)
               + line(row(2, 0, 4), ["4S", "5S", "6S", "7S"], taken)
               + line(row(4, 0, 5), ["5D", "6D", "7D", "8D", "9D"], taken)
               + line(row(6, 0, 6), ["8C", "9C", "10C", "JC", "QC", "KC"], taken))
    game = table_game(targets, {"first_player": "green"})  # 9 turns: green ... green
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
    game = table_game(line(row(0, 0, 3), ["AH", "2H", "3H"], taken)
                      + line([[6, 6]], ["KC"], taken))
    assert game.turn == "blue"
    error = game.refused("green", {"type": "declare", "cells": row(0, 0, 3)})
    assert (error.code, error.status) == ("not-your-turn", 409)
