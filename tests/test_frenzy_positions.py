"""Solitaire Frenzy positions (G-P1): starting from a stated position, reading a game's
position, refusing every position the rules cannot reach, and play going on from a
position exactly as from a deal (races, stuck rounds, column moves, waste cycling)."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api.solitaire_frenzy import SolitaireFrenzyPositionSchema
from service.cards import DECK
from service.games import RuleViolation
from service.games import solitaire_frenzy as sf
from test_frenzy_properties import check_invariants, reshuffle_hidden

SEED = "5e" * 32
SEEDS = st.binary(min_size=32, max_size=32).map(bytes.hex)


def start(position: dict, **options) -> tuple[dict, list[dict]]:
    events = sf.start_from_position(sf.GAME, {"players": 2, **options}, SEED, position)
    return sf.fold_all(None, events), events


def seat(
    pile_top="5H",
    pile_size=13,
    columns=(("9C",), ("KD",), ("QS",), ("4S",)),
    waste=(),
    hand_size=None,
    cycle=None,
    **more,
) -> dict:
    """One seat's tableau, the unplaced cards counted (hand by default)."""
    out = {
        "pile_top": pile_top,
        "pile_size": pile_size,
        "columns": [list(c) for c in columns],
        **more,
    }
    if "waste" not in more and "waste_size" not in more:
        out["waste"] = list(waste)
    if hand_size is not None:
        out["hand_size"] = hand_size
    if cycle:
        out["cycle"] = cycle
    return out


# a seat that went out: its 13-pile played onto its columns, its hand as dealt
OUT = seat(
    pile_top=None,
    pile_size=0,
    columns=(
        ("KS", "QH", "JC", "10D", "9S", "8H", "7C", "6D", "5S", "4H", "3C", "2D"),
        ("KD", "QC", "JH"),
        ("QS",),
        ("4S",),
    ),
)


def filled(position: dict) -> dict:
    """Every seat whose hand is not given takes what its deck has left as its hand."""
    position = copy.deepcopy(position)
    for name, raw in position.get("players", {}).items():
        if "hand" in raw or "hand_size" in raw:
            continue
        board = sum(
            1 for p in position.get("foundations", []) for e in p["cards"] if e["seat"] == name
        )
        waste = len(raw.get("waste", [])) or raw.get("waste_size", 0)
        pile = len(raw["pile"]) if "pile" in raw else raw["pile_size"]
        raw["hand_size"] = 52 - board - pile - waste - sum(map(len, raw["columns"]))
    return position


def pos(players=None, **top) -> dict:
    return filled(
        {
            "game": sf.GAME,
            "round": 1,
            "foundations": [],
            "players": players or {"p1": seat(), "p2": seat()},
            **top,
        }
    )


def refused(position: dict, **options) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        start(position, **options)
    assert caught.value.code == "invalid-position" and caught.value.status == 422
    return caught.value


def held(state: dict, name: str) -> list[str]:
    layout = state["layouts"][name]
    mine = [e["card"] for p in state["foundations"] for e in p["cards"] if e["seat"] == name]
    return sorted(
        layout["pile"] + sum(layout["columns"], []) + layout["hand"] + layout["waste"] + mine
    )


# ----- starting from a position ---------------------------------------------------------


def test_g_p1_a_stated_position_is_the_state_and_the_rest_comes_from_the_seed():
    state, events = start(pos())
    assert [e["type"] for e in events] == ["game-created", "position-set"]
    assert events[0]["from_position"] is True
    for name in ("p1", "p2"):
        layout = state["layouts"][name]
        assert layout["pile"][-1] == "5H" and len(layout["pile"]) == 13
        assert layout["columns"] == [["9C"], ["KD"], ["QS"], ["4S"]]
        assert len(layout["hand"]) == 52 - 13 - 4 and held(state, name) == sorted(DECK)
    again = sf.fold_all(None, sf.start_from_position(sf.GAME, {"players": 2}, SEED, pos()))
    assert again == state, "the seed deals the rest deterministically"
    view = sf.view(state, "p1")
    assert view["from_position"] is True and view["players"]["p1"]["pile_top"] == "5H"
    assert (
        sf.view(sf.fold_all(None, sf.new_game(sf.GAME, {}, SEED)), None)["from_position"] is False
    )


def test_g_p1_a_seat_sees_hidden_cards_as_counts_and_the_event_too():
    below = ["2S", "3S", "6S", "5S", "7S", "8S", "9S", "10S", "JS", "2D", "3D", "4D"]
    whole = {**seat(), "pile": below + ["5H"]}
    del whole["pile_top"], whole["pile_size"]
    state, events = start(pos({"p1": whole, "p2": seat()}))
    assert state["layouts"]["p1"]["pile"] == below + ["5H"]
    counts = {
        "pile_top": "5H",
        "pile_size": 13,
        "columns": [["9C"], ["KD"], ["QS"], ["4S"]],
        "hand_size": 35,
        "waste_top": None,
        "waste_size": 0,
        "cycle": "turning",
    }
    assert sf.position(state, "p2")["players"]["p1"] == counts
    assert sf.position(state, "referee")["players"]["p1"] == counts, "server: dealt unseen"
    assert sf.view_event(state, events[1], "p2")["position"]["players"]["p1"] == counts


def test_g_p1_position_schema_reads_the_notation():
    loaded = SolitaireFrenzyPositionSchema().load(pos())
    assert loaded["players"]["p1"]["pile_top"] == "5H"


# ----- round trips ----------------------------------------------------------------------


def _public(view: dict) -> dict:
    return {k: v for k, v in view.items() if k not in ("seed", "seed_commitment")}


def test_g_p1_round_trip_of_a_finished_game():
    state = sf.fold_all(None, sf.new_game(sf.GAME, {"players": 2, "rounds": 1}, SEED))
    state = _play(state, random.Random(3), 20_000)
    stated = sf.position(state, "p1")
    assert "hand" in stated["players"]["p1"], "a finished game shows everything"
    again, events = start(json.loads(json.dumps(stated)), rounds=1)
    assert events[-1]["type"] == "game-ended" and again["status"] == "finished"
    assert _public(sf.view(again, None)) == {**_public(sf.view(state, None)), "from_position": True}


def test_g_p1_round_trip_of_a_table_game_with_a_tableau():
    state, _ = start(pos(totals={"p1": 4, "p2": -2}, round=2), dealing="table")
    stated = sf.position(state, "referee")
    assert "hand" in stated["players"]["p1"], "the table's referee sees what it reported"
    again, _ = start(stated, dealing="table")
    assert sf.view(again, "referee") == sf.view(state, "referee")
    assert sf.position(again, "referee") == stated


def test_g_p1_table_mode_position_may_be_the_score_sheet_alone():
    state, _ = start({"game": sf.GAME, "round": 2, "totals": {"p1": 3, "p2": 1}}, dealing="table")
    assert state["round"] == 2 and state["totals"] == {"p1": 3, "p2": 1}
    events = sf.apply(
        state,
        "referee",
        {
            "type": "record-round",
            "round": 2,
            "results": {"p1": {"board": 5, "pile": 0, "out": True}, "p2": {"board": 2, "pile": 4}},
        },
    )
    assert events[0]["totals"] == {"p1": 8, "p2": -1}


# ----- refusals: every unreachable position names its field and rule --------------------

REFUSALS = [
    (
        "a card twice",
        lambda: pos({"p1": seat(columns=(("9C",), ("KD",), ("QS",), ("5H",))), "p2": seat()}),
        "G-P1",
        "players.p1.pile_top",
    ),
    (
        "a card missing",
        lambda: {
            **pos(),
            "players": {**pos()["players"], "p1": {**pos()["players"]["p1"], "hand_size": 30}},
        },
        "G-P1",
        "players.p1",
    ),
    (
        "foundation out of sequence",
        lambda: pos(
            foundations=[{"cards": [{"card": "AH", "seat": "p1"}, {"card": "3H", "seat": "p2"}]}]
        ),
        "SF-F1",
        "foundations[0].cards[1]",
    ),
    (
        "foundation without its Ace",
        lambda: pos(foundations=[{"cards": [{"card": "2H", "seat": "p1"}]}]),
        "SF-F1",
        "foundations[0].cards[0]",
    ),
    (
        "column not alternating",
        lambda: pos({"p1": seat(columns=(("9C", "8S"), ("KD",), ("QS",), ("4S",))), "p2": seat()}),
        "SF-R1",
        "players.p1.columns[0][1]",
    ),
    (
        "13-pile over its size",
        lambda: pos({"p1": seat(pile_size=14), "p2": seat()}),
        "SF-P1",
        "players.p1.pile_size",
    ),
    (
        "listed 13-pile over its size",
        lambda: pos(
            {
                "p1": {
                    "pile": list(DECK[10:24]),
                    "columns": [["9C"], ["KD"], ["QS"], ["4S"]],
                    "hand_size": 34,
                },
                "p2": seat(),
            }
        ),
        "SF-P1",
        "players.p1.pile",
    ),
    (
        "not four columns",
        lambda: pos({"p1": seat(columns=(("9C",),)), "p2": seat()}),
        "SF-P1",
        "players.p1.columns",
    ),
    (
        "an unknown card",
        lambda: pos({"p1": seat(pile_top="ZZ"), "p2": seat()}),
        "G-P1",
        "players.p1.pile_top",
    ),
    ("another game", lambda: {**pos(), "game": "halves"}, "G-P1", "game"),
    ("round out of range", lambda: pos(round=4), "SF-E2", "round"),
    (
        "totals beyond the rounds played",
        lambda: pos(totals={"p1": 1, "p2": 0}),
        "SF-E2",
        "totals.p1",
    ),
    (
        "history not adding up",
        lambda: pos(
            round=2,
            totals={"p1": 9, "p2": 0},
            history=[
                {
                    "round": 1,
                    "reason": "stuck",
                    "out": None,
                    "board": {"p1": 9, "p2": 0},
                    "pile": {"p1": 2, "p2": 13},
                    "scores": {"p1": 8, "p2": -13},
                }
            ],
        ),
        "SF-E2",
        "history[0].scores.p1",
    ),
    # an ended round as the referee's record of it would have to be (SF-M1, SF-E1)
    (
        "a round with more than a deck on the board",
        lambda: pos(round=2, history=[ended("stuck", None, {"p1": 200}, {"p1": 5})]),
        "SF-E2",
        "history[0].board.p1",
    ),
    (
        "a round with a 13-pile over 13",
        lambda: pos(round=2, history=[ended("stuck", None, {}, {"p1": 14, "p2": 14})]),
        "SF-E2",
        "history[0].pile.p1",
    ),
    (
        "a round ended out with its seat still holding 13-pile cards",
        lambda: pos(round=2, history=[ended("out", "p1", {"p1": 13}, {"p1": 13, "p2": 13})]),
        "SF-E1",
        "history[0].pile.p1",
    ),
    (
        "a round ended out naming nobody",
        lambda: pos(round=2, history=[ended("out", None, {}, {"p1": 3, "p2": 4})]),
        "SF-E1",
        "history[0].out",
    ),
    (
        "a round ended stuck with an empty 13-pile",
        lambda: pos(round=2, history=[ended("stuck", None, {}, {"p1": 0, "p2": 4})]),
        "SF-E1",
        "history[0].pile.p1",
    ),
    (
        "a round that a seat went out of, recorded as stuck",
        lambda: pos(round=2, history=[ended("stuck", "p2", {}, {"p1": 3, "p2": 0})]),
        "SF-E1",
        "history[0].out",
    ),
    ("a seat missing", lambda: pos({"p1": seat()}), "G-P1", "players"),
    (
        "two seats out",
        lambda: pos({"p1": OUT, "p2": OUT}),
        "SF-E1",
        "players.p2.pile",
    ),
    (
        "a hand over the 35 dealt (the 13-pile played down to 5, nothing elsewhere)",
        lambda: pos({"p1": seat(pile_size=5), "p2": seat()}),
        "SF-P1",
        "players.p1.hand_size",
    ),
    (
        "hand and waste over the 35 dealt",
        lambda: pos(
            {"p1": seat(pile_size=12, waste=("2C", "3C", "4C"), hand_size=33), "p2": seat()}
        ),
        "SF-P1",
        "players.p1.hand_size",
    ),
    (
        "waste not whole groups in a pass",
        lambda: pos({"p1": seat(waste=("2C", "3C"), cycle="turning"), "p2": seat()}),
        "SF-H1",
        "players.p1.waste",
    ),
    (
        "a pass over an empty hand",
        lambda: pos(
            {
                "p1": seat(waste=("2C", "3C", "4C"), hand_size=0, cycle="turning", pile_size=13),
                "p2": seat(),
            }
        ),
        "SF-H1",
        "players.p1.cycle",
    ),
    (
        "a known cycle with cards in hand and nothing turned since the pick-up",
        lambda: pos({"p1": seat(cycle="known"), "p2": seat()}),
        "SF-H1",
        "players.p1.waste",
    ),
    (
        "fewer than two seats playing",
        lambda: pos({"p1": seat()}, retired={"p2": {"round": 1, "pile": 5}}),
        "SF-E3",
        "retired",
    ),
]


def ended(reason: str, out: str | None, board: dict, pile: dict, penalty: int = 1) -> dict:
    """Round 1 of a 2-seat history, its scores and a position's totals adding up."""
    board = {"p1": 0, "p2": 0, **board}
    pile = {"p1": 5, "p2": 5, **pile}
    scores = {s: board[s] - penalty * pile[s] for s in board}
    return {
        "round": 1,
        "reason": reason,
        "out": out,
        "board": board,
        "pile": pile,
        "scores": scores,
    }


@pytest.mark.parametrize("what,build,rule,field", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_g_p1_unreachable_positions_are_refused(what, build, rule, field):
    error = refused(build())
    assert (error.rule, error.extra["field"]) == (rule, field), error.detail


@pytest.mark.parametrize("dealing", ["server", "table"])
def test_sf_e3_a_game_ended_by_a_retirement_starts_again_from_its_position(dealing):
    # at a table the round in play is not scored (the players keep their piles), so the
    # position has no history of it: one seat left is the finished game all the same
    options = {"players": 2, "dealing": dealing}
    state = sf.fold_all(None, sf.new_game(sf.GAME, options, SEED))
    state = sf.fold_all(state, sf.apply(state, "referee", {"type": "retire", "seat": "p1"}))
    assert state["result"]["reason"] == "last-seat"
    position = json.loads(json.dumps(sf.position(state, "referee")))
    again = sf.fold_all(None, sf.start_from_position(sf.GAME, options, SEED, position))
    shown, before = sf.view(again, "referee"), sf.view(state, "referee")
    assert {**shown, "from_position": False} == before
    assert again["result"] == state["result"]


def test_sf_e1_two_seats_out_is_unreachable_at_a_table_too():
    # the round ended when the first went out; SF-M1's record refuses several out alike
    error = refused(pos({"p1": OUT, "p2": OUT}), dealing="table")
    assert (error.rule, error.extra["field"]) == ("SF-E1", "players.p2.pile")


def test_sf_f1_one_pile_per_suit_refuses_two_open_piles_of_a_suit():
    two = [{"cards": [{"card": "AH", "seat": "p1"}]}, {"cards": [{"card": "AH", "seat": "p2"}]}]
    error = refused(pos(foundations=two), one_pile_per_suit=True)
    assert (error.rule, error.extra["field"]) == ("SF-F1", "foundations")
    assert start(pos(foundations=two))[0]["foundations"][1]["id"] == 2


# ----- the situations, set up from positions ------------------------------------


def _race_position() -> dict:
    board = [
        {"cards": [{"card": c, "seat": "p1"} for c in ("AH", "2H", "3H", "4H")]},
        {"cards": [{"card": c, "seat": "p2"} for c in ("AS", "2S", "3S", "4S", "5S")]},
    ]
    return pos(
        {
            "p1": seat(pile_top="5H"),
            "p2": seat(pile_top="5H", columns=(("9C",), ("KD",), ("QH",), ("6S",))),
        },
        foundations=board,
    )


def test_sf_t1_two_foundations_one_card_from_a_race():
    state, _ = start(_race_position())
    aim = {
        "type": "play",
        "round": 1,
        "card": "5H",
        "to": "foundation",
        "pile": 1,
        "based_on": "4H",
    }
    assert aim in sf.legal_actions(state, "p1") and aim in sf.legal_actions(state, "p2")
    state = sf.fold_all(state, sf.apply(state, "p1", aim))
    with pytest.raises(RuleViolation) as late:
        sf.apply(state, "p2", aim)
    assert late.value.code == "stale-top-card" and late.value.extra["top"]["card"] == "5H"
    six = {**aim, "card": "6S", "pile": 2, "based_on": "5S"}
    assert six in sf.legal_actions(state, "p2")


def _stuck_seat() -> dict:
    """Aces on the board, every Two and Queen under the 13-pile top, Kings exposed: the
    seat has no productive move once its hand's cycle is known."""
    below = [r + s for r in "2Q" for s in "SHDC"] + ["6C", "7C", "8C", "9C"]
    return {
        "pile": below + ["5H"],
        "columns": [["KS"], ["KH"], ["KD"], ["KC"]],
        "hand": [],
        "waste": [
            c
            for c in DECK
            if c not in set(below) | {"5H", "KS", "KH", "KD", "KC", "AS", "AH", "AD", "AC"}
        ],
        "cycle": "known",
    }


def _stuck_position(cycle: str = "known") -> dict:
    aces = [{"cards": [{"card": "A" + s, "seat": name}]} for name in ("p1", "p2") for s in "SHDC"]
    players = {name: {**_stuck_seat(), "cycle": cycle} for name in ("p1", "p2")}
    return {"game": sf.GAME, "foundations": aces, "players": players}


def test_sf_e1_a_stuck_round_ends_as_it_is_stated():
    state, events = start(_stuck_position())
    ended = next(e for e in events if e["type"] == "round-ended")
    assert (ended["reason"], ended["scores"]) == ("stuck", {"p1": 4 - 13, "p2": 4 - 13})
    assert state["round"] == 2


def test_sf_e1_a_seat_that_has_not_turned_through_its_hand_can_still_move():
    position = _stuck_position("broken")
    state, events = start(position)
    assert [e["type"] for e in events] == ["game-created", "position-set"]
    assert sf.view(state, "p1")["players"]["p1"]["can_move"] is True


def test_sf_r2_a_whole_column_moves_from_a_position():
    state, _ = start(pos({"p1": seat(columns=(("9C", "8H"), ("10D",), (), ("KS",))), "p2": seat()}))
    move = {"type": "move", "round": 1, "from_column": 0, "to_column": 1}
    assert move in sf.legal_actions(state, "p1")
    state = sf.fold_all(state, sf.apply(state, "p1", move))
    assert state["layouts"]["p1"]["columns"][:2] == [[], ["10D", "9C", "8H"]]


def test_sf_h1_the_waste_is_picked_up_and_turned_again_from_a_position():
    face_up = {"5H", "9C", "KD", "QS", "4S"}
    waste = [c for c in DECK if c not in face_up][:35]
    stated = pos({"p1": seat(waste=waste, hand_size=0, cycle="known"), "p2": seat()})
    state, _ = start(stated)
    assert state["layouts"]["p1"]["reach"] == sorted(set(waste[2::3] + [waste[-1]]))
    turned = sf.apply(state, "p1", {"type": "turn", "round": 1})[0]
    assert (turned["recycled"], turned["top"], turned["count"]) == (True, waste[2], 3)


# ----- property: from a random game's position, play goes on to the end -----------------


def _play(state: dict, rng: random.Random, limit: int) -> dict:
    for _ in range(limit):
        if state["status"] != "active":
            return state
        movers = [s for s in state["active"] if sf.legal_actions(state, s)]
        assert movers, "nobody has anything to do, yet the round goes on"
        actor = rng.choice(movers)
        events = sf.apply(state, actor, rng.choice(sf.legal_actions(state, actor)))
        state = sf.fold_all(state, events)
        check_invariants(state, state["active"])
    raise AssertionError("the game does not end")


def _seen(view: dict, hidden: bool) -> dict:
    return {
        s: {k: v for k, v in layout.items() if not (hidden and k == "can_move")}
        for s, layout in view["players"].items()
    }


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=SEEDS,
    players=st.integers(2, 4),
    steps=st.integers(0, 400),
    client=st.integers(0, 2**32),
    hidden=st.booleans(),
)
def test_g_p1_play_goes_on_from_a_random_games_position(seed, players, steps, client, hidden):
    """A random game's position at a random point (as a seat sees it, hidden cards
    dealt again from the seed, or whole), started from: legal actions play it to the
    end (races, stuck rounds, waste cycling), each seat's 52 cards conserved."""
    options = {"players": players, "rounds": 2}
    rng = random.Random(client)
    state = sf.fold_all(None, sf.new_game(sf.GAME, options, seed))
    for _ in range(steps):
        if state["status"] != "active":
            break
        actor = rng.choice(state["active"])
        actions = sf.legal_actions(state, actor)
        if actions:
            state = sf.fold_all(state, sf.apply(state, actor, rng.choice(actions)))
    stated = (
        sf.position(state, "p1") if hidden else sf.position({**state, "status": "finished"}, None)
    )
    events = sf.start_from_position(sf.GAME, options, seed[::-1], json.loads(json.dumps(stated)))
    again = sf.fold_all(None, events)
    check_invariants(again, again["active"])
    if state["status"] == "active":  # the same public position (hidden: dealt again,
        for name in again["active"]:  # so what turning reaches may differ)
            assert _seen(sf.view(again, name), hidden) == _seen(sf.view(state, name), hidden)
    again = _play(again, rng, 20_000)
    assert again["status"] == "finished"
    assert again["result"]["scores"] == {
        s: sum(r["scores"].get(s, 0) for r in again["history"]) for s in again["seats"]
    }


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, steps=st.integers(0, 200), client=st.integers(0, 2**32))
def test_g_m1_a_seats_position_never_depends_on_hidden_cards(seed, steps, client):
    """Two states differing only in where the hidden cards lie give every seat (and the
    referee of a server game) the same position, and the same position-set event."""
    rng = random.Random(client)
    state = sf.fold_all(None, sf.new_game(sf.GAME, {"players": 3}, seed))
    for _ in range(steps):
        if state["status"] != "active":
            break
        actor = rng.choice(state["active"])
        actions = sf.legal_actions(state, actor)
        if actions:
            state = sf.fold_all(state, sf.apply(state, actor, rng.choice(actions)))
    other = reshuffle_hidden(state, "referee", rng)
    for viewer in ("p1", "p2", "referee", None):
        assert sf.position(state, viewer) == sf.position(other, viewer)
    stated = sf.position({**state, "status": "finished"}, None)
    if state["status"] == "active":
        event = sf.start_from_position(sf.GAME, {"players": 3}, seed, stated)[1]
        shown = sf.view_event(state, event, "p2")
        again = sf.position({**other, "status": "finished"}, None)
        event2 = sf.start_from_position(sf.GAME, {"players": 3}, seed, again)[1]
        assert shown == sf.view_event(other, event2, "p2")


def _three(dealing: str = "server", **top) -> dict:
    """A 3-seat position: every seat still playing laid out, or at a table the score
    sheet alone."""
    players = {s: seat() for s in ("p1", "p2", "p3") if s not in top.get("retired", {})}
    position = pos(players, **top)
    if dealing == "table":
        del position["players"]
    return position


def _record(number: int, board: dict, pile: dict, out=None, reason=None) -> dict:
    return {
        "round": number,
        "reason": reason or ("out" if out else "stuck"),
        "out": out,
        "board": board,
        "pile": pile,
        "scores": {s: board[s] - pile[s] for s in board},
    }


@pytest.mark.parametrize("dealing", ["server", "table"])
def test_sf_e3_the_score_sheet_lists_the_seats_that_played_each_round(dealing):
    options = {"players": 3, "dealing": dealing}
    # round 1 without p3, who still plays: every seat of the round is recorded
    record = _record(1, {"p1": 5, "p2": 3}, {"p1": 0, "p2": 4}, out="p1")
    error = refused(_three(dealing, round=2, history=[record]), **options)
    assert (error.rule, error.extra["field"]) == ("SF-E3", "history[0].board")
    # p3 left in round 1: in round 1's record with the 13-pile it left with, in no later one
    left = {"p3": {"round": 1, "pile": 5}}
    first = _record(1, {"p1": 5, "p2": 3, "p3": 2}, {"p1": 0, "p2": 4, "p3": 5}, out="p1")
    state, _ = start(_three(dealing, round=2, history=[first], retired=left), **options)
    assert state["round"] == 2 and state["active"] == ["p1", "p2"]
    eleven = _record(1, {"p1": 5, "p2": 3, "p3": 2}, {"p1": 0, "p2": 4, "p3": 11}, out="p1")
    error = refused(_three(dealing, round=2, history=[eleven], retired=left), **options)
    assert (error.rule, error.extra["field"]) == ("SF-E3", "history[0].pile.p3")
    second = _record(2, {"p1": 5, "p2": 3, "p3": 9}, {"p1": 0, "p2": 4, "p3": 2}, out="p1")
    error = refused(_three(dealing, round=3, history=[first, second], retired=left), **options)
    assert (error.rule, error.extra["field"]) == ("SF-E3", "history[1].board")


def test_sf_e3_a_round_the_last_seat_ended_is_the_games_last():
    record = _record(
        1, {"p1": 5, "p2": 3, "p3": 2}, {"p1": 3, "p2": 4, "p3": 2}, reason="last-seat"
    )
    error = refused(_three(round=2, history=[record]), players=3)
    assert (error.rule, error.extra["field"]) == ("SF-E3", "history[0].reason")


def test_sf_e1_a_seat_with_an_empty_13_pile_went_out_and_cannot_have_left():
    error = refused(_three(retired={"p3": {"round": 1, "pile": 0}}), players=3)
    assert (error.rule, error.extra["field"]) == ("SF-E1", "retired.p3.pile")
