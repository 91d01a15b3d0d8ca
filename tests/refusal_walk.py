"""Every refusal code of every game, provoked once on the engines: the walk that
tests/test_i18n.py renders in each of the six languages (G-R1).

``SCENARIOS`` is a list of ``(game, code, rule, provoke)``: ``provoke()`` raises the
RuleViolation (engine refusal) with that code and rule. Positions are built from the
games' own setup and the engine tests' helpers; each scenario is one situation a
player, a seat or a referee can really send.
"""
from __future__ import annotations

import copy

from service.games import halves, sequence as sq, solitaire_frenzy as sf, two_way as tw

SEED = "0123456789abcdef" * 4


def _fold(module, events, state=None):
    for event in events:
        state = module.fold(state, event)
    return state


def _new(module, game, **options):
    return _fold(module, module.new_game(game, options, SEED))


# ----- 2-Way Cards ------------------------------------------------------------------

def _tw(**options):
    return _new(tw, "two-way", **options)


def _tw_face(state, seat, i=0):
    return state["manifest"][state["hands"][seat][i]][seat]


def _tw_placed(state):
    """blue placed a tile on [0, 0]."""
    events = tw.apply(state, "blue", {"type": "place", "tile": _tw_face(state, "blue"),
                                     "cell": [0, 0]})
    return _fold(tw, events, state)


def _tw_table_dealt():
    state = _tw(dealing="table")
    for seat in tw.SEATS:
        state = _fold(tw, tw.apply(state, "referee", {"type": "draw", "seat": seat,
                                                       "tiles": state["bag"][:5]}), state)
    return state


def _tw_blue_dealt():
    """Table mode: the referee has reported blue's starting tiles 0 to 4."""
    state = _tw(dealing="table")
    return _fold(tw, tw.apply(state, "referee", {"type": "draw", "seat": "blue",
                                                  "tiles": list(range(5))}), state)


def _tw_over():
    state = copy.deepcopy(_tw())
    state["status"] = "finished"
    return state


def _tw_held_three(state):
    state = copy.deepcopy(state)
    state["bases"]["blue"].append({"length": 3})
    for c in range(3):
        state["grid"][1][c] = state["hands"]["green"][c]
    return state


TWO_WAY = [
    ("invalid-option", "TW-D3", lambda: tw.new_game("two-way", {"variant": "hard"}, SEED)),
    ("unknown-game", "G-O1", lambda: tw.new_game("chess", {}, SEED)),
    ("invalid-action", "TW-T2", lambda: tw.apply(_tw(), "blue", {"type": "place"})),
    ("not-your-seat", "G-M1", lambda: tw.apply(_tw(), "blue", {"type": "draw", "seat": "green"})),
    ("referee-reports-draws", "G-M2",
     lambda: tw.apply(_tw_table_dealt(), "blue", {"type": "draw", "tiles": [1]})),
    ("referee-cannot-act", "G-M1", lambda: tw.apply(_tw(), "referee", {"type": "draw"})),
    ("off-grid", "TW-C1", lambda: tw.apply(_tw(), "blue", {"type": "place", "tile": 1,
                                                            "cell": [7, 0]})),
    ("invalid-tile", "TW-C2", lambda: tw.apply(_tw_table_dealt(), "referee", {
        "type": "place", "seat": "blue", "tile": 500, "cell": [0, 0]})),
    ("tile-not-in-hand", "TW-T2", lambda: tw.apply(_tw_table_dealt(), "referee", {
        "type": "place", "seat": "blue", "tile": _tw_table_dealt()["bag"][0],
        "cell": [0, 0]})),
    ("invalid-card", "TW-T2", lambda: tw.apply(_tw(), "blue", {"type": "place", "tile": "ZZ",
                                                                "cell": [0, 0]})),
    ("wrong-tile-count", "TW-T2", lambda: tw.apply(_tw(dealing="table"), "referee", {
        "type": "draw", "seat": "green", "tiles": [1, 2]})),
    ("wrong-phase", "TW-T2", lambda: tw.apply(_tw(), "blue", {"type": "draw"})),
    ("tile-not-in-bag", "G-M2", lambda: tw.apply(_tw_blue_dealt(), "referee", {
        "type": "draw", "seat": "green", "tiles": [0, 5, 6, 7, 8]})),
    ("already-dealt", "TW-T1", lambda: tw.apply(_tw_blue_dealt(), "referee", {
        "type": "draw", "seat": "blue", "tiles": list(range(5, 10))})),
    ("space-occupied", "TW-T2", lambda: tw.apply(_tw_placed(_tw()), "blue", {
        "type": "place", "tile": _tw_face(_tw_placed(_tw()), "blue"), "cell": [0, 0]})),
    ("not-a-line", "TW-D1", lambda: tw.apply(_tw(), "blue", {
        "type": "declare", "cells": [[0, 0], [0, 1], [0, 3]]})),
    ("length-not-allowed", "TW-D1", lambda: tw.apply(_tw(), "blue", {
        "type": "declare", "cells": [[0, 0], [0, 1]]})),
    ("empty-cell", "TW-D1", lambda: tw.apply(_tw(), "blue", {
        "type": "declare", "cells": [[0, 0], [0, 1], [0, 2]]})),
    ("length-already-held", "TW-D3", lambda: tw.apply(_tw_held_three(_tw()), "blue", {
        "type": "declare", "cells": [[1, 0], [1, 1], [1, 2]]})),
    ("unknown-actor", "G-M1", lambda: tw.apply(_tw(), "red", {"type": "draw"})),
    ("game-over", "TW-E1", lambda: tw.apply(_tw_over(), "blue", {"type": "draw"})),
    ("not-your-turn", "TW-T2", lambda: tw.apply(_tw(), "green", {"type": "draw"})),
]


# ----- Sequence, Sequence Numbers -----------------------------------------------------

def _sq(game="sequence", **options):
    return _new(sq, game, **options)


def _sq_with(state=None, hand=None, chips=(), locked=(), **fields):
    """A copy of ``state`` (default: a new 2-player server game, p1 green to play) with
    p1's hand, green ``chips`` (and ``locked`` green sequences' cells), and ``fields``."""
    state = copy.deepcopy(state or _sq())
    if hand is not None:
        state["hands"]["p1"] = list(hand)
    for r, c in chips:
        state["chips"][r][c] = "green"
    if locked:
        for r, c in locked:
            state["chips"][r][c] = "green"
        state["sequences"].append({"side": "green", "cells": [list(x) for x in locked]})
    state.update(fields)
    return state


def _sq_cells(state, card):
    return [(r, c) for r, row in enumerate(state["board"]) for c, v in enumerate(row)
            if v == card]


def _sq_dead():
    """p1 holds 2S, both of whose spaces are covered by blue chips."""
    state = _sq_with(hand=["2S"])
    for r, c in _sq_cells(state, "2S"):
        state["chips"][r][c] = "blue"
    return state


def _sq_table():
    """A 4-player table game (2 teams of 2) whose deal the referee has reported."""
    state = _sq(players=4, dealing="table")
    for seat in state["seats"]:
        for card in state["deck"][:6]:
            state = _fold(sq, sq.apply(state, "referee", {"type": "draw", "seat": seat,
                                                            "card": card}), state)
    return state


def _sq_move(**body):
    return sq.check_move("sequence", body.get("chips", {"green": []}),
                         body.get("sequences", []), body.get("side", "green"),
                         body.get("card", "2S"), body.get("cell", [0, 1]), body.get("board"),
                         body.get("sequence"))


_ROW = [(0, c) for c in range(1, 6)]  # the top row after its free corner: 2S to 6S

SEQUENCE = [
    ("invalid-option", "SQ-P2", lambda: sq.new_game("sequence", {"players": 5}, SEED)),
    ("invalid-option", "SN-P1", lambda: sq.new_game("sequence-numbers", {"players": 5}, SEED)),
    ("invalid-card", "SQ-C2", lambda: sq.apply(_sq(), "p1", {"type": "play", "card": "JK",
                                                              "cell": [0, 1]})),
    ("invalid-card", "SN-C1", lambda: sq.apply(_sq("sequence-numbers"), "p1", {
        "type": "play", "card": "7 / 0", "cell": [0, 1]})),
    ("invalid-cell", "SQ-C1", lambda: _sq_move(cell=[10, 0])),
    ("invalid-board", "SQ-C1", lambda: _sq_move(board=[[1]])),
    ("invalid-board", "SN-C0", lambda: sq.check_board("sequence-numbers", {"green": []},
                                                      [], [[1]])),
    ("invalid-chips", "SQ-C3", lambda: _sq_move(chips={"green": 3})),
    ("invalid-side", "SQ-C3", lambda: _sq_move(side="purple")),
    ("invalid-sequence", "SQ-S1", lambda: _sq_move(sequences=[{"side": "green", "cells": [
        [0, 1], [0, 2], [0, 3], [0, 4], [1, 5]]}])),
    ("invalid-sequence", "SQ-S5", lambda: _sq_move(sequence=[[0, 1]] * 5)),
    ("invalid-sequence", "SQ-S5", lambda: sq.apply(_sq_with(hand=["6S"], chips=_ROW[:4]), "p1", {
        "type": "play", "card": "6S", "cell": list(_ROW[4]),
        "sequence": [[1, 1], [1, 2], [1, 3], [1, 4], [1, 5]]})),
    ("referee-not-allowed", "G-M1", lambda: sq.apply(_sq(), "referee", {"type": "pass"})),
    ("seat-required", "G-M2", lambda: sq.apply(_sq_table(), "referee", {"type": "pass"})),
    ("invalid-seat", "G-M2", lambda: sq.apply(_sq_table(), "referee", {"type": "pass",
                                                                        "seat": "p9"})),
    ("unknown-actor", "G-M1", lambda: sq.apply(_sq(), "p9", {"type": "pass"})),
    ("referee-only", "SQ-T6", lambda: sq.apply(_sq(), "p1", {"type": "penalty",
                                                              "side": "green"})),
    ("not-your-seat", "G-M1", lambda: sq.apply(_sq(), "p1", {"type": "pass", "seat": "p2"})),
    ("deal-not-finished", "SQ-P2", lambda: sq.apply(_sq(dealing="table"), "referee", {
        "type": "pass", "seat": "p1"})),
    ("penalty-due", "SQ-T6", lambda: sq.apply(_sq_with(penalty_due=["p1"]), "p1", {
        "type": "pass"})),
    ("not-your-turn", "SQ-P1", lambda: sq.apply(_sq(), "p2", {"type": "pass"})),
    ("draw-first", "SQ-T4", lambda: sq.apply(_sq_with(replacement_due="p1"), "p1", {
        "type": "pass"})),
    ("card-not-in-hand", "SQ-T1", lambda: sq.apply(_sq_with(hand=["3S"]), "p1", {
        "type": "play", "card": "2S", "cell": [0, 1]})),
    ("card-cannot-place", "SQ-T3", lambda: sq.apply(_sq_with(hand=["JS"]), "p1", {
        "type": "play", "card": "JS", "cell": [0, 1]})),
    ("card-cannot-remove", "SQ-T3", lambda: sq.apply(_sq_with(hand=["2S"]), "p1", {
        "type": "remove-chip", "card": "2S", "cell": [0, 1]})),
    ("space-occupied", "SQ-C1", lambda: sq.apply(_sq_with(hand=["JD"]), "p1", {
        "type": "play", "card": "JD", "cell": [0, 0]})),
    ("card-not-on-space", "SQ-T1", lambda: sq.apply(_sq_with(hand=["7H"]), "p1", {
        "type": "play", "card": "7H", "cell": [0, 1]})),
    ("no-chip", "SQ-T3", lambda: sq.apply(_sq_with(hand=["JS"]), "p1", {
        "type": "remove-chip", "card": "JS", "cell": [0, 1]})),
    ("own-chip", "SQ-T3", lambda: sq.apply(_sq_with(hand=["JS"], chips=[(0, 1)]), "p1", {
        "type": "remove-chip", "card": "JS", "cell": [0, 1]})),
    ("chip-locked", "SN-S2", lambda: sq.apply(_sn_locked(), "p2", {
        "type": "remove-chip", "card": "MINUS", "cell": [0, 1]})),
    ("already-exchanged", "SQ-T4", lambda: sq.apply(_sq_with(exchanged=True, hand=["2S"]),
                                                    "p1", {"type": "exchange-dead-card",
                                                           "card": "2S"})),
    ("not-dead", "SQ-T4", lambda: sq.apply(_sq_with(hand=["2S"]), "p1", {
        "type": "exchange-dead-card", "card": "2S"})),
    ("card-not-in-deck", "G-M2", lambda: sq.apply(_sq_no_two_of_spades(), "referee", {
        "type": "draw", "seat": "p1", "card": "2S"})),
    ("not-table-mode", "G-M1", lambda: sq.apply(_sq(), "p1", {"type": "draw", "card": "2S"})),
    ("hand-full", "SQ-P2", lambda: sq.apply(_sq_p1_dealt(), "referee", {
        "type": "draw", "seat": "p1", "card": _sq_p1_dealt()["deck"][0]})),
    ("draw-not-due", "SQ-T5", lambda: sq.apply(_sq_table(), "referee", {
        "type": "draw", "seat": "p1", "card": _sq_table()["deck"][0]})),
    ("must-play", "SQ-T8", lambda: sq.apply(_sq_with(hand=["2S"]), "p1", {"type": "pass"})),
    ("must-exchange", "SQ-T8", lambda: sq.apply(_sq_dead(), "p1", {"type": "pass"})),
    ("invalid-side", "SQ-T6", lambda: sq.apply(_sq(), "referee", {"type": "penalty",
                                                                   "side": "purple"})),
    ("invalid-seat", "SQ-T6", lambda: sq.apply(_sq(players=4), "referee", {
        "type": "penalty", "side": "green", "offender": "p2"})),
    ("not-a-team", "SQ-T6", lambda: sq.apply(_sq(), "referee", {"type": "penalty",
                                                                 "side": "green"})),
    ("penalty-pending", "SQ-T6", lambda: sq.apply(_sq_with(_sq(players=4),
                                                           penalty_due=["p1"]),
                                                  "referee", {"type": "penalty",
                                                              "side": "green"})),
    ("nothing-to-discard", "SQ-T6", lambda: sq.apply(_sq_empty_team(), "referee", {
        "type": "penalty", "side": "green"})),
    ("no-penalty-due", "SQ-T6", lambda: sq.apply(_sq(), "p1", {"type": "penalty-discard",
                                                                "card": "2S"})),
    ("invalid-action", "SQ-P1", lambda: sq.apply(_sq(), "p1", {"type": "fly"})),
    ("game-over", "SQ-E1", lambda: sq.apply(_sq_with(status="finished"), "p1",
                                            {"type": "pass"})),
]


def _sq_no_two_of_spades():
    """A table game at the deal whose deck no longer holds a 2S (both reported dealt)."""
    state = _sq(dealing="table")
    for _ in range(2):
        state = _fold(sq, sq.apply(state, "referee", {"type": "draw", "seat": "p1",
                                                        "card": "2S"}), state)
    return state


def _sq_p1_dealt():
    """A 4-player table game at the deal: p1 has been dealt its 6 cards, nobody else."""
    state = _sq(players=4, dealing="table")
    for card in state["deck"][:6]:
        state = _fold(sq, sq.apply(state, "referee", {"type": "draw", "seat": "p1",
                                                        "card": card}), state)
    return state


def _sn_locked():
    """Sequence Numbers: p2 holds MINUS; [0, 1] is in a locked green sequence."""
    state = _sq("sequence-numbers")
    cells = [(0, c) for c in range(1, 6)]
    state = _sq_with(state, locked=cells, turn="p2")
    state["hands"]["p2"] = ["MINUS"]
    return state


def _sq_empty_team():
    state = copy.deepcopy(_sq(players=4))
    for seat in state["teams"]["green"]:
        state["hands"][seat] = []
    return state


# ----- Halves -------------------------------------------------------------------------

def _hv(**kwargs):
    from halves_helpers import position
    return position(**kwargs)


def _hv_play(card, based_on="RC-GS", **extra):
    return {"type": "play", "card": card, "based_on": based_on, **extra}


def _hv_table():
    """A 2-player table game whose deal the referee reported, RC-GS starting."""
    state = _new(halves, "halves", dealing="table")
    return _fold(halves, halves.apply(state, "referee", {"type": "deal", "card": "RC-GS"}),
                 state)


_HV_HANDS = {"p1": ["RT-BS", "GT-YC", "BC-YX"], "p2": ["RX-BT"]}

HALVES = [
    ("invalid-option", "HV-T1", lambda: halves.new_game("halves", {"match": "half"}, SEED)),
    ("invalid-card", "HV-C1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1",
                                                   _hv_play("RZ-BS"))),
    ("invalid-action", "HV-T3", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {
        "type": "play", "card": "RT-BS"})),
    ("invalid-action", "G-R1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1",
                                                    {"type": "fly"})),
    ("seat-required", "HV-M1", lambda: halves.apply(_hv_table(), "referee", {"type": "draw"})),
    ("invalid-seat", "HV-M1", lambda: halves.apply(_hv_table(), "referee", {
        "type": "draw", "seat": "p9"})),
    ("referee-not-allowed", "HV-T6", lambda: halves.apply(_hv(hands=_HV_HANDS), "referee", {
        "type": "draw", "seat": "p1"})),
    ("unknown-actor", "G-M1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p9",
                                                   {"type": "draw"})),
    ("not-your-seat", "G-M1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {
        "type": "draw", "seat": "p2"})),
    ("referee-only", "HV-T6", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {
        "type": "retire"})),
    ("referee-only", "HV-M1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {
        "type": "blocked"})),
    ("referee-reports", "HV-M1", lambda: halves.apply(_hv_table(), "p1", {"type": "draw"})),
    ("stale-top-card", "HV-T3", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1",
                                                     _hv_play("RT-BS", based_on="BC-YX"))),
    ("hand-empty", "HV-M1", lambda: halves.apply(_hv_no_hand(), "referee", {
        "type": "play", "seat": "p1", "card": "RT-BS"})),
    ("card-not-available", "G-M2", lambda: halves.apply(_hv_table(), "referee", {
        "type": "play", "seat": "p1", "card": "RC-GS"})),
    ("not-in-hand", "HV-T1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1",
                                                  _hv_play("RX-BT"))),
    ("turning-not-allowed", "HV-T1", lambda: halves.apply(
        _hv(hands=_HV_HANDS, allow_turning=False), "p1", _hv_play("RT-BS", turned=True))),
    ("no-match", "HV-T1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1",
                                               _hv_play("GT-YC"))),
    ("no-match", "HV-T1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1",
                                               _hv_play("BC-YX"))),
    ("hand-full", "HV-T2", lambda: halves.apply(_hv(hands={
        "p1": ["RT-BS", "GT-YC", "BC-YX", "GX-YT"], "p2": ["RX-BT"]}), "p1",
        {"type": "draw"})),
    ("pile-empty", "HV-T2", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1",
                                                 {"type": "draw"})),
    ("card-required", "HV-T5", lambda: halves.apply(_hv_table(), "referee",
                                                    {"type": "blocked"})),
    ("invalid-action", "HV-T4", lambda: halves.apply(_hv_bottom_due(), "referee", {
        "type": "blocked", "card": "GX-YT"})),
    ("not-table-mode", "HV-M1", lambda: halves.apply(_hv(hands=_HV_HANDS), "referee", {
        "type": "blocked"})),
    ("already-dealt", "HV-M1", lambda: halves.apply(_hv_table(), "referee", {
        "type": "deal", "card": "GX-YT"})),
    ("deal-not-reported", "HV-M1", lambda: halves.apply(
        _new(halves, "halves", dealing="table"), "referee", {"type": "retire", "seat": "p1"})),
    ("seat-retired", "HV-T6", lambda: halves.apply(_hv_retired(), "referee", {
        "type": "retire", "seat": "p1"})),
    ("game-over", "HV-E1", lambda: halves.apply(_hv_over(), "p1", _hv_play("RT-BS"))),
]


def _hv_no_hand():
    state = copy.deepcopy(_hv_table())
    state["hands"]["p1"] = []
    return state


def _hv_bottom_due():
    """Table mode: the centre holds two cards and no bottom move was made, so a block's
    step is a bottom-card move, not a pile turn."""
    state = copy.deepcopy(_hv_table())
    state["centre"].insert(0, {"card": "BC-YX", "turned": False})
    return state


def _hv_retired():
    state = copy.deepcopy(_hv(hands=_HV_HANDS, players=3))
    state["retired"] = ["p1"]
    return state


def _hv_over():
    state = copy.deepcopy(_hv(hands=_HV_HANDS))
    state["status"] = "finished"
    return state


# ----- Solitaire Frenzy ---------------------------------------------------------------

def _sf(**options):
    return _new(sf, "solitaire-frenzy", players=2, **options)


def _sf_lay(state=None, pile=("5H",), columns=(("9C",), ("KD",), (), ("4S",)), hand=(),
            waste=(), piles=(), **options):
    """p1's layout replaced (pile top last, waste top last) and the foundations
    ``piles`` (ids 1, 2 ...), each ``(owner, cards)``."""
    state = copy.deepcopy(state or _sf(**options))
    state["layouts"]["p1"] = {"pile": list(pile), "columns": [list(c) for c in columns],
                              "hand": list(hand), "waste": list(waste), "pass": None,
                              "reach": None}
    state["foundations"] = [{"id": i, "suit": cards[0][-1],
                             "cards": [{"card": c, "seat": owner} for c in cards]}
                            for i, (owner, cards) in enumerate(piles, 1)]
    return state


def _sf_play(card, **target):
    return {"type": "play", "round": 1, "card": card, **target}


def _sf_record(results, **extra):
    return {"type": "record-round", "round": 1, "results": results, **extra}


def _res(board=10, pile=3, out=False):
    return {"board": board, "pile": pile, "out": out}


_FOUNDATION = {"to": "foundation"}

FRENZY = [
    ("invalid-option", "SF-P0", lambda: sf.new_game("solitaire-frenzy", {"players": 9}, SEED)),
    ("invalid-action", "G-R1", lambda: sf.apply(_sf(), "p1", {"type": "fly"})),
    ("invalid-action", "SF-P2", lambda: sf.apply(_sf(), "p1", _sf_play("5H", to="sky"))),
    ("invalid-card", "SF-P2", lambda: sf.apply(_sf(), "p1", _sf_play("JK", to="column",
                                                                     column=0))),
    ("invalid-column", "SF-R4", lambda: sf.apply(_sf(), "p1", {
        "type": "refill", "round": 1, "card": "5H", "column": 4})),
    ("round-over", "SF-E1", lambda: sf.apply(_sf_round_two(), "p1", {"type": "turn",
                                                                     "round": 1})),
    ("invalid-round", "SF-E2", lambda: sf.apply(_sf(), "p1", {"type": "turn", "round": 2})),
    ("invalid-action", "SF-E1", lambda: sf.apply(_sf(), "p1", {"type": "turn"})),
    ("referee-not-allowed", "G-M1", lambda: sf.apply(_sf(), "referee", {"type": "turn",
                                                                        "round": 1})),
    ("unknown-actor", "G-M1", lambda: sf.apply(_sf(), "p9", {"type": "turn", "round": 1})),
    ("not-your-seat", "G-M1", lambda: sf.apply(_sf(), "p1", {"type": "turn", "round": 1,
                                                             "seat": "p2"})),
    ("table-mode", "SF-M1", lambda: sf.apply(_sf(dealing="table"), "p1", {
        "type": "turn", "round": 1})),
    ("seat-retired", "SF-E3", lambda: sf.apply(_sf_retired(), "p1", {"type": "turn",
                                                                     "round": 1})),
    ("game-over", "SF-E2", lambda: sf.apply(_sf_over(), "referee", {"type": "retire",
                                                                    "seat": "p1"})),
    ("referee-only", "SF-E3", lambda: sf.apply(_sf(), "p1", {"type": "retire",
                                                             "seat": "p2"})),
    ("referee-only", "SF-M1", lambda: sf.apply(_sf(dealing="table"), "p1",
                                               _sf_record({}))),
    ("card-not-on-top", "SF-R3", lambda: sf.apply(_sf_lay(columns=(("9C", "8H"), (), (), ())),
                                                  "p1", _sf_play("9C", **_FOUNDATION,
                                                                 based_on="8C", pile=1))),
    ("card-not-on-top", "SF-H1", lambda: sf.apply(_sf_lay(hand=["2C"]), "p1", _sf_play(
        "2C", to="column", column=0))),
    ("card-on-board", "SF-F1", lambda: sf.apply(_sf_lay(piles=[("p1", ["AS", "2S"])]), "p1",
                                                _sf_play("2S", to="column", column=1))),
    ("play-order", "SF-O1", lambda: sf.apply(_sf_lay(
        pile=("AD",), waste=("8H",), play_order="strict"), "p1",
        _sf_play("8H", to="column", column=0))),
    ("nothing-to-turn", "SF-H1", lambda: sf.apply(_sf_lay(), "p1", {"type": "turn",
                                                                    "round": 1})),
    ("not-whole-column", "SF-R2", lambda: sf.apply(_sf_lay(columns=(
        ("9C", "8H"), ("KD",), (), ("4S",))), "p1", _sf_play("9C", to="column", column=1))),
    ("unknown-pile", "SF-F1", lambda: sf.apply(_sf_lay(pile=("2H",)), "p1", _sf_play(
        "2H", **_FOUNDATION, pile=7, based_on="AH"))),
    ("suit-pile-open", "SF-F1", lambda: sf.apply(_sf_lay(
        pile=("AH",), piles=[("p2", ["AH", "2H"])], one_pile_per_suit=True), "p1",
        _sf_play("AH", **_FOUNDATION, based_on="new"))),
    ("stale-top-card", "SF-T1", lambda: sf.apply(_sf_lay(piles=[("p2", ["AH", "2H", "3H",
                                                                        "4H", "5H"])],
                                                         pile=("6H",)), "p1",
                                                 _sf_play("6H", **_FOUNDATION, pile=1,
                                                          based_on="4H"))),
    ("not-pile-top", "SF-T1", lambda: sf.apply(_sf_lay(piles=[("p2", ["AH", "2H"])],
                                                       pile=("3H",)), "p1",
                                               _sf_play("3H", **_FOUNDATION, pile=1,
                                                        based_on="7H"))),
    ("same-column", "SF-R2", lambda: sf.apply(_sf_lay(), "p1", {
        "type": "move", "round": 1, "from_column": 0, "to_column": 0})),
    ("column-empty", "SF-R2", lambda: sf.apply(_sf_lay(), "p1", {
        "type": "move", "round": 1, "from_column": 2, "to_column": 0})),
    ("move-to-empty", "SF-R2", lambda: sf.apply(_sf_lay(), "p1", {
        "type": "move", "round": 1, "from_column": 0, "to_column": 2})),
    ("wrong-colour", "SF-R2", lambda: sf.apply(_sf_lay(columns=(("9C",), ("KD",), (),
                                                                ("10S",))), "p1", {
        "type": "move", "round": 1, "from_column": 0, "to_column": 3})),
    ("column-not-empty", "SF-R4", lambda: sf.apply(_sf_lay(), "p1", {
        "type": "refill", "round": 1, "card": "5H", "column": 0})),
    ("invalid-seat", "SF-E3", lambda: sf.apply(_sf(), "referee", {"type": "retire",
                                                                  "seat": "p9"})),
    ("not-table-mode", "SF-M1", lambda: sf.apply(_sf(), "referee", _sf_record({}))),
    ("invalid-report", "SF-M1", lambda: sf.apply(_sf(dealing="table"), "referee",
                                                 _sf_record({"p1": _res()}))),
    ("several-out", "SF-M1", lambda: sf.apply(_sf(dealing="table"), "referee", _sf_record(
        {"p1": _res(pile=0, out=True), "p2": _res(pile=0, out=True)}))),
    ("out-with-cards", "SF-M1", lambda: sf.apply(_sf(dealing="table"), "referee", _sf_record(
        {"p1": _res(pile=2, out=True), "p2": _res()}))),
    ("empty-pile-not-out", "SF-M1", lambda: sf.apply(_sf(dealing="table"), "referee",
                                                     _sf_record({"p1": _res(pile=0),
                                                                 "p2": _res()}))),
    ("board-total-mismatch", "SF-M1", lambda: sf.apply(_sf(dealing="table"), "referee",
                                                       _sf_record({"p1": _res(),
                                                                   "p2": _res()},
                                                                  board_total=7))),
    ("new-pile-needs-ace", "SF-F1", lambda: sf.apply(_sf_lay(), "p1", _sf_play(
        "5H", **_FOUNDATION, based_on="new"))),
    ("ace-needs-new-pile", "SF-F1", lambda: sf.apply(_sf_lay(
        pile=("AH",), piles=[("p2", ["AH", "2H"])]), "p1", _sf_play(
        "AH", **_FOUNDATION, pile=1, based_on="2H"))),
    ("pile-complete", "SF-F1", lambda: sf.apply(_sf_lay(pile=("2H",), piles=[(
        "p2", ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS",
               "KS"])]), "p1", _sf_play("2H", **_FOUNDATION, pile=1, based_on="KS"))),
    ("wrong-suit", "SF-F1", lambda: sf.apply(_sf_lay(pile=("2H",), piles=[("p2", ["AS"])]),
                                             "p1", _sf_play("2H", **_FOUNDATION, pile=1,
                                                            based_on="AS"))),
    ("wrong-rank", "SF-F1", lambda: sf.apply(_sf_lay(pile=("3H",), piles=[("p2", ["AH"])]),
                                             "p1", _sf_play("3H", **_FOUNDATION, pile=1,
                                                            based_on="AH"))),
    ("wrong-rank", "SF-R1", lambda: sf.apply(_sf_lay(pile=("7H",)), "p1", _sf_play(
        "7H", to="column", column=0))),
    ("wrong-colour", "SF-R1", lambda: sf.apply(_sf_lay(pile=("QH",)), "p1", _sf_play(
        "QH", to="column", column=1))),
    ("play-order", "SF-O1", lambda: sf.apply(_sf_lay(
        waste=("8C",), hand=("2C",), play_order="strict"), "p1", {"type": "turn", "round": 1})),
    ("game-over", "SF-E3", lambda: sf.apply(_sf_last_seat(), "p1", {"type": "turn",
                                                                     "round": 2})),
    ("invalid-position", "SF-F1", lambda: sf.start_from_position(sf.GAME, {}, SEED, {
        "game": sf.GAME, "foundations": [{"cards": [{"card": "2H", "seat": "p1"}]}]})),
]


def _sf_round_two():
    state = copy.deepcopy(_sf())
    state["round"] = 2
    return state


def _sf_retired():
    state = copy.deepcopy(_new(sf, "solitaire-frenzy", players=3))
    state["active"] = ["p2", "p3"]
    return state


def _sf_last_seat():
    state = _sf()
    return _fold(sf, sf.apply(state, "referee", {"type": "retire", "seat": "p2"}), state)


def _sf_over():
    state = copy.deepcopy(_sf())
    state["status"] = "finished"
    return state


SCENARIOS = [(game, code, rule, provoke)
             for game, table in (("two-way", TWO_WAY), ("sequence", SEQUENCE),
                                 ("halves", HALVES), ("solitaire-frenzy", FRENZY))
             for code, rule, provoke in table]
