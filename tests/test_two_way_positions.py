"""G-P1 for 2-Way Cards: a game started from a stated position (engine level).

Refusals of unreachable positions (each naming its field and rule), the round trip
(a referee's or a finished game's position posted back gives an equal view), the
filters of a position (TW-C3), and a property test: take a random game's position at
a random point, start from it, and play on to the end with legal actions.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.cards import DECK, JOKER
from service.games import RuleViolation
from service.games import two_way as tw
from service.pictures import two_way as picture

SEED = "0123456789abcdef" * 4
OTHER_SEED = "fedcba9876543210" * 4
FACE_COUNTS = Counter({**{card: 2 for card in DECK}, JOKER: 4})


def fold_all(events: list[dict], state: dict | None = None) -> dict:
    for event in events:
        state = tw.fold(state, event)
    return state


def step(state: dict, rnd: random.Random) -> dict:
    """One random legal action: the seat to move in server dealing, the referee in
    table dealing (deals and draws included)."""
    actor = "referee" if state["options"]["dealing"] == "table" else state["turn"]
    actions = tw.legal_actions(state, actor)
    assert actions, "a running game always has a legal action"
    return fold_all(tw.apply(state, actor, rnd.choice(actions)), state)


def played(options: dict, steps: int, seed: str = SEED, rnd_seed: int = 1) -> dict:
    state = fold_all(tw.new_game("two-way", options, seed))
    rnd = random.Random(rnd_seed)
    for _ in range(steps):
        if state["status"] != "active":
            break
        state = step(state, rnd)
    return state


def finish(state: dict, rnd: random.Random, limit: int = 3000) -> dict:
    for _ in range(limit):
        if state["status"] != "active":
            return state
        state = step(state, rnd)
    raise AssertionError("the game did not end")


def start(position: dict, options: dict | None = None, seed: str = OTHER_SEED) -> dict:
    return fold_all(tw.start_from_position("two-way", options or {}, seed, position))


def comparable(view: dict) -> dict:
    """A view without what differs between two games by nature (seed, commitment)."""
    return {k: v for k, v in view.items() if k not in ("seed", "seed_commitment", "from_position")}


def assert_conserved(state: dict) -> None:
    """TW-C2: every tile once across grid, hands, bag and bases."""
    places = [t for row in state["grid"] for t in row if t is not None]
    places += [t for s in tw.SEATS for t in state["hands"][s]] + state["bag"]
    places += [t for s in tw.SEATS for e in state["bases"][s] for t in e["tiles"]]
    assert sorted(places) == list(range(tw.TILE_COUNT))
    for colour in tw.SEATS:
        assert Counter(t[colour] for t in tw.manifest_of(state)) == FACE_COUNTS


# ----- starting and reading -----------------------------------------------------------


def test_g_p1_a_stated_position_is_played_on_and_says_so():
    state = played({"dealing": "table"}, 30)
    position = tw.position(state, "referee")
    events = tw.start_from_position("two-way", {"dealing": "table"}, OTHER_SEED, position)
    assert events[0]["type"] == "game-created" and events[0]["from_position"] is True
    assert events[1]["type"] == "position-set"
    started = fold_all(events)
    assert tw.view(started, "blue")["from_position"] is True
    assert tw.view(state, "blue")["from_position"] is False
    assert comparable(tw.view(started, "referee")) == comparable(tw.view(state, "referee"))
    assert tw.legal_actions(started, "referee") == tw.legal_actions(state, "referee")


def test_g_p1_round_trip_of_a_finished_game_gives_an_equal_view():
    state = finish(played({}, 0), random.Random(5))
    position = tw.position(state, "green")  # finished: anyone reads everything
    assert "manifest" in position and "bag" in position
    started = start(position)
    assert started["status"] == "finished"
    for viewer in ("referee", "blue", "green", None):
        assert comparable(tw.view(started, viewer)) == comparable(tw.view(state, viewer))


@pytest.mark.parametrize(
    "options", [{}, {"dealing": "table"}, {"variant": "easy", "easy_extra_threes": True}]
)
def test_g_p1_round_trip_of_a_referee_position_mid_game(options):
    state = played(options, 45, rnd_seed=3)
    started = start(tw.position(state, "referee"), options)
    assert comparable(tw.view(started, "referee")) == comparable(tw.view(state, "referee"))
    assert_conserved(started)


def test_tw_c3_a_seats_position_shows_its_own_colour_only_and_the_bag_as_a_count():
    state = played({}, 20)
    position = tw.position(state, "blue")
    view = tw.view(state, "blue")
    assert position["grid"] == view["grid"] and position["hands"] == view["hands"]
    assert "bag" not in position and position["bag_count"] == len(state["bag"])
    assert "manifest" not in position
    public = tw.position(state, None)
    assert public["hand_counts"] == {"blue": 5, "green": 5} or state["phase"] != "place"
    assert "hands" not in public and all(isinstance(c, bool) for r in public["grid"] for c in r)


def test_g_p1_the_position_set_event_is_filtered_like_the_view():
    state = played({}, 20)
    started = start(tw.position(state, "referee"))
    events = tw.start_from_position("two-way", {}, OTHER_SEED, tw.position(state, "referee"))
    for viewer in ("blue", "green"):
        shown = tw.view_event(started, events[1], viewer)
        assert shown["position"]["grid"] == tw.view(started, viewer)["grid"]
        assert "stated" not in shown and "state" not in shown and "bag" not in shown["position"]
    assert tw.view_event(started, events[1], "referee")["stated"]["grid"][0]


def test_g_p1_the_picture_says_started_from_a_stated_position():
    started = start(tw.position(played({}, 10), "referee"))
    svg = picture.draw(tw.view(started, "blue"), "two-way").tobytes().decode()
    assert "started from a stated position" in svg
    fresh = picture.draw(tw.view(played({}, 10), "blue"), "two-way").tobytes().decode()
    assert "started from a stated position" not in fresh


def test_g_p1_what_the_position_leaves_out_is_dealt_from_the_seed():
    grid = [[None] * 7 for _ in range(7)]
    grid[3][3] = "AS/KH"
    position = {"game": "two-way", "grid": grid}
    first = start(position, seed=SEED)
    again = start(position, seed=SEED)
    other = start(position, seed=OTHER_SEED)
    assert first == again and first["hands"] != other["hands"]
    assert [len(first["hands"][s]) for s in tw.SEATS] == [5, 5]
    assert tw.manifest_of(first)[first["grid"][3][3]] == {"blue": "AS", "green": "KH"}
    assert first["phase"] == "place" and first["turn"] == "blue"
    assert_conserved(first)
    assert tw.legal_actions(first, "blue")


def test_g_p1_a_dealing_position_in_server_mode_deals_the_rest():
    started = start(
        {"game": "two-way", "grid": [[None] * 7 for _ in range(7)], "phase": "deal", "dealt": []}
    )
    assert started["phase"] == "place" and started["turn_number"] == 1
    assert [len(started["hands"][s]) for s in tw.SEATS] == [5, 5]


def test_g_p1_a_full_grid_position_can_end_with_the_last_discard():
    """A position just before TW-E2: the filler's discard ends the game."""
    position = {
        "game": "two-way",
        "grid": [list(range(r * 7, r * 7 + 7)) for r in range(7)],
        "hands": {"blue": list(range(49, 56)), "green": list(range(56, 61))},
        "phase": "discard",
        "placed": 2,
        "turn_number": 25,
    }
    started = start(position, {"dealing": "table"})
    discard = tw.legal_actions(started, "referee")
    discard = next(a for a in discard if a["type"] == "discard")
    ended = fold_all(tw.apply(started, "referee", discard), started)
    assert ended["result"]["reason"] == "grid-full"


def test_tw_t2_a_left_out_turn_number_is_the_first_turn_of_the_seat_on_turn():
    for turn, number in (("blue", 1), ("green", 2)):
        position = {"game": "two-way", "grid": [[None] * 7 for _ in range(7)], "turn": turn}
        started = start(position)
        assert (started["turn"], started["turn_number"]) == (turn, number)
    read = tw.position(played({}, 30), "referee")
    assert read["turn_number"] % 2 == (read["turn"] == "blue")
    assert start({**read, "turn_number": read["turn_number"] + 2})["turn"] == read["turn"]


# ----- refusals: each names its field and rule ----------------------------------------


def _base() -> dict:
    """A table game's referee position in the placing phase (blue dealt tiles 0-4,
    green 5-9), the bag and manifest left out, tiles by id."""
    state = played({"dealing": "table"}, 2)
    assert state["phase"] == "place"
    position = tw.position(state, "referee")
    return {
        **position,
        "hands": {s: list(state["hands"][s]) for s in tw.SEATS},
        "bag": None,
        "manifest": None,
        "custom_manifest": None,
        "scores": None,
    }


def _with(**changes):
    def make():
        position = copy.deepcopy(_base())
        for key, value in changes.items():
            position[key] = value(position) if callable(value) else value
        return {k: v for k, v in position.items() if v is not None}

    return make


def _blue(cards: list[str], skip: set[int] = frozenset()) -> list[int]:
    """Tiles of the shipped manifest showing ``cards`` on their blue faces, outside
    the hands of the base position (ids 0-9) and ``skip``."""
    manifest = tw.default_manifest()
    out: list[int] = []
    for card in cards:
        out.append(
            next(
                i
                for i, f in enumerate(manifest)
                if f["blue"] == card and i >= 10 and i not in skip and i not in out
            )
        )
    return out


RUN = ["AS", "2S", "3S"]


def _complete_bases() -> dict:
    runs = [
        RUN,
        ["4S", "5S", "6S", "7S"],
        ["8S", "9S", "10S", "JS", "QS"],
        ["AH", "2H", "3H", "4H", "5H", "6H"],
    ]
    used: set[int] = set()
    entries = []
    for r, run in enumerate(runs):
        tiles = _blue(run, used)
        used.update(tiles)
        entries.append({"cells": [[r, c] for c in range(len(run))], "tiles": tiles})
    return {"blue": entries}


def _full_grid_without(bases: list) -> list:
    """49 tiles outside the base position's hands (ids 0-9) and ``bases``."""
    used = {t for entry in bases for t in entry["tiles"]}
    free = [i for i in range(10, 108) if i not in used][:49]
    return [free[r * 7 : r * 7 + 7] for r in range(7)]


def _row(tiles: list) -> list:
    return list(tiles) + [None] * (7 - len(tiles))


REFUSALS = [
    ("game", "G-P1", lambda: {"game": "chess"}),
    ("colour", "G-P1", _with(colour="blue")),
    ("grid", "TW-C1", _with(grid=[[None] * 7])),
    ("grid[0][0]", "TW-C2", _with(grid=lambda p: [_row(["ZZ/KH"])] + p["grid"][1:])),
    ("grid[0][0]", "TW-C2", _with(grid=lambda p: [_row([500])] + p["grid"][1:])),
    (
        "hands.green[0]",
        "G-P1",
        _with(grid=lambda p: [_row(p["hands"]["green"][:1])] + p["grid"][1:]),
    ),
    (
        "hands.blue",
        "TW-T2",
        _with(hands=lambda p: {"blue": p["hands"]["blue"][:4], "green": p["hands"]["green"]}),
    ),
    ("bag", "G-P1", _with(bag=lambda p: list(range(11, 108)))),
    ("turn", "TW-T2", _with(turn="nobody")),
    ("turn", "TW-T2", _with(turn=["blue", "green"])),
    ("phase", "TW-T2", _with(phase="thinking")),
    ("placed", "TW-T2", _with(placed=3)),
    ("placed", "TW-T4", _with(phase="draw", placed=1)),
    ("pending_skips", "TW-T5", _with(pending_skips={"blue": 2, "green": 0})),
    ("dealt", "TW-T1", _with(dealt=["blue"])),
    ("scores", "TW-E3", _with(scores={"blue": 5, "green": 0})),
    (
        "bases.blue[0]",
        "TW-D4",
        _with(
            bases={
                "blue": [{"cells": [[6, 0], [6, 1], [6, 2]], "tiles": _blue(["AS", "KH", "7D"])}]
            }
        ),
    ),
    (
        "bases.blue[0].cells",
        "TW-D1",
        _with(bases={"blue": [{"cells": [[6, 0], [6, 1], [6, 3]], "tiles": _blue(RUN)}]}),
    ),
    (
        "bases.blue[1]",
        "TW-D3",
        _with(
            bases={
                "blue": [
                    {"cells": [[6, 0], [6, 1], [6, 2]], "tiles": _blue(RUN)},
                    {"cells": [[5, 0], [5, 1], [5, 2]], "tiles": _blue(["4S", "5S", "6S"])},
                ]
            }
        ),
    ),
    ("bases.blue", "TW-E1", _with(bases=_complete_bases())),
    ("phase", "TW-E1", _with(phase="over")),
    (
        "grid",
        "TW-E2",
        _with(
            grid=[list(range(100, 107))] + [list(range(r * 7 + 10, r * 7 + 17)) for r in range(6)],
            hands=None,
        ),
    ),
    (
        "grid",
        "TW-T1",
        _with(
            phase="deal",
            dealt=[],
            hands={},
            turn_number=0,
            grid=lambda p: [_row([50])] + p["grid"][1:],
        ),
    ),
    ("manifest", "TW-C2", _with(manifest=["AS/AS"] * 108)),
    # TW-T2: a turn places 2 tiles at most: 3 on the grid need 2 turns before this one
    ("turn_number", "TW-T2", _with(grid=lambda p: [_row(_blue(RUN))] + p["grid"][1:])),
    # TW-T5: the seat off turn at turn 1 has had no turn in which to declare wrongly
    ("pending_skips", "TW-T5", _with(pending_skips={"blue": 0, "green": 1})),
    # TW-T4: a discard with a placement still due (no idle turns: hands are never short)
    ("placed", "TW-T4", _with(phase="discard", placed=0, hands=None)),
    # TW-E1: the seat that completed its lengths did so in its own turn
    ("turn", "TW-E1", _with(phase="over", turn="green", turn_number=2, bases=_complete_bases())),
    # TW-T2: the seats alternate, so a seat's turns are all odd or all even
    # TW-D5: a missed turn is owed for a wrong declaration of 3 occupied spaces
    (
        "pending_skips",
        "TW-D5",
        _with(turn="green", turn_number=2, pending_skips={"blue": 1, "green": 0}),
    ),
    # TW-E1: the completing declaration took its line off the grid, so it is not full
    (
        "grid",
        "TW-E1",
        _with(
            phase="over",
            turn_number=61,
            bases=_complete_bases(),
            grid=lambda p: _full_grid_without(p["bases"]["blue"]),
        ),
    ),
    # TW-T5: without G-T1 half the turns placed a tile at least (skipped turns aside)
    ("turn_number", "TW-T5", _with(turn_number=7)),
    ("turn_number", "TW-T2", _with(turn_number=lambda p: p["turn_number"] + 1)),
    ("turn_number", "TW-T2", _with(turn_number=lambda p: p["turn_number"] + 3)),
    (
        "grid[0][0]",
        "G-M1",
        lambda: {"game": "two-way", "grid": [_row([5])] + [[None] * 7 for _ in range(6)]},
    ),
]


@pytest.mark.parametrize("field,rule,make", REFUSALS, ids=[f"{f}-{r}" for f, r, _ in REFUSALS])
def test_g_p1_unreachable_positions_are_refused_naming_field_and_rule(field, rule, make):
    options = {} if rule == "G-M1" else {"dealing": "table"}
    with pytest.raises(RuleViolation) as error:
        tw.start_from_position("two-way", options, SEED, make())
    assert (error.value.code, error.value.status) == ("invalid-position", 422)
    assert (error.value.extra["field"], error.value.rule) == (field, rule), error.value.detail


def test_g_p1_a_tile_twice_is_refused_naming_where_it_already_is():
    position = _with()()
    position["grid"][2][2] = position["hands"]["blue"][0]
    with pytest.raises(RuleViolation) as error:
        tw.start_from_position("two-way", {"dealing": "table"}, SEED, position)
    assert error.value.extra["field"] == "hands.blue[0]" and error.value.rule == "G-P1"
    assert "grid[2][2]" in error.value.detail


def test_g_p1_a_valid_line_left_on_the_grid_is_reachable():
    """TW-T3: declaring is the player's choice, so an undeclared sequence is no
    refusal."""
    # turn_number left out: the first of blue's turns that could have placed 3 tiles
    position = _with(grid=lambda p: [_row(_blue(RUN))] + p["grid"][1:], turn_number=None)()
    started = start(position, {"dealing": "table"})
    assert started["turn_number"] == 3
    assert {"type": "declare", "cells": [[0, 0], [0, 1], [0, 2]]} in tw.legal_actions(
        started, "blue"
    )


# ----- property: from a random point, play on to the end -----------------------------


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.sampled_from(["server", "table"]),
    st.integers(0, 160),
    st.integers(0, 10**6),
    st.sampled_from([{}, {"variant": "easy"}, {"win_condition": "score"}]),
)
def test_g_p1_property_random_positions_play_on_to_the_end(dealing, steps, rnd_seed, extra):
    options = {"dealing": dealing, **extra}
    state = played(options, steps, rnd_seed=rnd_seed)
    viewer = "referee" if state["status"] == "active" else None
    position = tw.position(state, viewer or "blue")
    started = start(position, options)
    assert comparable(tw.view(started, "referee")) == comparable(tw.view(state, "referee"))
    rnd = random.Random(rnd_seed)
    for _ in range(3000):
        assert_conserved(started)
        if started["status"] != "active":
            break
        started = step(started, rnd)
    assert started["status"] == "finished"
    assert started["result"]["reason"] in ("set-complete", "grid-full")


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 120)
    | st.text(max_size=6)
    | st.sampled_from(["AS/KH", "JK/2C", "blue", "green", "place"]),
    lambda inner: (
        st.lists(inner, max_size=8)
        | st.dictionaries(st.sampled_from(["blue", "green", "cells", "tiles"]), inner, max_size=3)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from(sorted(tw.positions.FIELDS - {"game"})), JSON, max_size=5),
    st.sampled_from(["server", "table"]),
)
def test_g_p1_any_malformed_position_is_a_422_naming_its_field(fields, dealing):
    """Whatever a position holds, the engine answers a game or a 422 invalid-position
    (never an exception of its own)."""
    position = {"game": "two-way", "grid": [[None] * 7 for _ in range(7)], **fields}
    try:
        events = tw.start_from_position("two-way", {"dealing": dealing}, SEED, position)
    except RuleViolation as error:
        assert (error.code, error.status) == ("invalid-position", 422)
        assert isinstance(error.extra["field"], str) and error.rule
    else:
        assert_conserved(fold_all(events))


def test_tw_t4_a_declaration_after_the_draw_leaves_the_discard_due():
    """A grid one space short: blue fills it (1 placement, TW-T4), draws, then declares a
    line, so 3 spaces are empty in the discard phase and no placement is due: that
    position, read back, is taken (G-P1)."""
    line = _blue(RUN)
    others = [i for i in range(10, 108) if i not in line][:45]
    grid = [others[r * 7 : r * 7 + 7] for r in range(6)] + [line + others[42:45] + [None]]
    options = {"dealing": "table"}  # G-T1 is off in table dealing
    state = start({"game": "two-way", "grid": grid, "turn": "blue"}, options)
    for kind in ("place", "draw"):
        action = next(a for a in tw.legal_actions(state, "referee") if a["type"] == kind)
        state = fold_all(tw.apply(state, "referee", action), state)
    declare = {"type": "declare", "cells": [[6, 0], [6, 1], [6, 2]]}
    state = fold_all(tw.apply(state, "blue", declare), state)
    assert (state["phase"], state["placed"]) == ("discard", 1)
    again = start(tw.position(state, "referee"), options)
    assert (again["phase"], again["placed"], again["turn"]) == ("discard", 1, "blue")
    # without the declaration's base, the empty spaces could not be
    position = {**tw.position(state, "referee"), "bases": {"blue": [], "green": []}}
    del position["scores"]
    with pytest.raises(RuleViolation) as error:
        start(position, options)
    assert (error.value.extra["field"], error.value.rule) == ("placed", "TW-T4")
