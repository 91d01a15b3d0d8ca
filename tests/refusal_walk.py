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
    return tw.manifest_of(state)[state["hands"][seat][i]][seat]


def _tw_placed(state):
    """blue placed a tile on [0, 0]."""
    events = tw.apply(
        state, "blue", {"type": "place", "tile": _tw_face(state, "blue"), "cell": [0, 0]}
    )
    return _fold(tw, events, state)


def _tw_table_dealt():
    state = _tw(dealing="table")
    for seat in tw.SEATS:
        state = _fold(
            tw,
            tw.apply(state, "referee", {"type": "draw", "seat": seat, "tiles": state["bag"][:5]}),
            state,
        )
    return state


def _tw_blue_dealt():
    """Table mode: the referee has reported blue's starting tiles 0 to 4."""
    state = _tw(dealing="table")
    return _fold(
        tw,
        tw.apply(state, "referee", {"type": "draw", "seat": "blue", "tiles": list(range(5))}),
        state,
    )


def _tw_over(reason="set-complete"):
    state = copy.deepcopy(_tw())
    state["status"] = "finished"
    state["result"] = {
        "winners": [],
        "scores": {"blue": 0, "green": 0},
        "reason": reason,
        "two_way": {"completer": None},
    }
    return state


def _tw_held_three(state):
    state = copy.deepcopy(state)
    state["bases"]["blue"].append({"length": 3})
    for c in range(3):
        state["grid"][1][c] = state["hands"]["green"][c]
    return state


def _tw_ambiguous():
    """Table mode, dealt: two tiles of blue's hand show AS (AS/KH and QD/AS)."""
    state = copy.deepcopy(_tw_table_dealt())
    manifest = list(tw.manifest_of(state))
    manifest[state["hands"]["blue"][0]] = {"blue": "AS", "green": "KH"}
    manifest[state["hands"]["blue"][1]] = {"blue": "QD", "green": "AS"}
    state["manifest"] = tw.manifest_text(manifest)
    return state


TWO_WAY = [
    ("invalid-option", "TW-D3", lambda: tw.new_game("two-way", {"variant": "hard"}, SEED)),
    ("unknown-game", "G-O1", lambda: tw.new_game("chess", {}, SEED)),
    ("invalid-action", "TW-T2", lambda: tw.apply(_tw(), "blue", {"type": "place"})),
    ("not-your-seat", "G-M1", lambda: tw.apply(_tw(), "blue", {"type": "draw", "seat": "green"})),
    (
        "referee-reports-draws",
        "G-M2",
        lambda: tw.apply(_tw_table_dealt(), "blue", {"type": "draw", "tiles": [1]}),
    ),
    ("referee-cannot-act", "G-M1", lambda: tw.apply(_tw(), "referee", {"type": "draw"})),
    (
        "off-grid",
        "TW-C1",
        lambda: tw.apply(_tw(), "blue", {"type": "place", "tile": 1, "cell": [7, 0]}),
    ),
    (
        "invalid-tile",
        "TW-C2",
        lambda: tw.apply(
            _tw_table_dealt(),
            "referee",
            {"type": "place", "seat": "blue", "tile": 500, "cell": [0, 0]},
        ),
    ),
    (
        "tile-not-in-hand",
        "TW-T2",
        lambda: tw.apply(
            _tw_table_dealt(),
            "referee",
            {"type": "place", "seat": "blue", "tile": _tw_table_dealt()["bag"][0], "cell": [0, 0]},
        ),
    ),
    (
        "invalid-card",
        "TW-T2",
        lambda: tw.apply(_tw(), "blue", {"type": "place", "tile": "ZZ", "cell": [0, 0]}),
    ),
    (
        "wrong-tile-count",
        "TW-T1",
        lambda: tw.apply(
            _tw(dealing="table"), "referee", {"type": "draw", "seat": "green", "tiles": [1, 2]}
        ),
    ),
    ("wrong-phase", "TW-T2", lambda: tw.apply(_tw(), "blue", {"type": "draw"})),
    (
        "tile-not-in-bag",
        "G-M2",
        lambda: tw.apply(
            _tw_blue_dealt(), "referee", {"type": "draw", "seat": "green", "tiles": [0, 5, 6, 7, 8]}
        ),
    ),
    (
        "already-dealt",
        "TW-T1",
        lambda: tw.apply(
            _tw_blue_dealt(),
            "referee",
            {"type": "draw", "seat": "blue", "tiles": list(range(5, 10))},
        ),
    ),
    (
        "space-occupied",
        "TW-T2",
        lambda: tw.apply(
            _tw_placed(_tw()),
            "blue",
            {"type": "place", "tile": _tw_face(_tw_placed(_tw()), "blue"), "cell": [0, 0]},
        ),
    ),
    (
        "not-a-line",
        "TW-D1",
        lambda: tw.apply(_tw(), "blue", {"type": "declare", "cells": [[0, 0], [0, 1], [0, 3]]}),
    ),
    (
        "length-not-allowed",
        "TW-D1",
        lambda: tw.apply(_tw(), "blue", {"type": "declare", "cells": [[0, 0], [0, 1]]}),
    ),
    (
        "empty-cell",
        "TW-D1",
        lambda: tw.apply(_tw(), "blue", {"type": "declare", "cells": [[0, 0], [0, 1], [0, 2]]}),
    ),
    (
        "length-already-held",
        "TW-D3",
        lambda: tw.apply(
            _tw_held_three(_tw()), "blue", {"type": "declare", "cells": [[1, 0], [1, 1], [1, 2]]}
        ),
    ),
    ("unknown-actor", "G-M1", lambda: tw.apply(_tw(), "red", {"type": "draw"})),
    ("game-over", "TW-E1", lambda: tw.apply(_tw_over(), "blue", {"type": "draw"})),
    ("not-your-turn", "TW-T2", lambda: tw.apply(_tw(), "green", {"type": "draw"})),
    (
        "ambiguous-tile",
        "G-M2",
        lambda: tw.apply(
            _tw_ambiguous(),
            "referee",
            {"type": "place", "seat": "blue", "tile": "AS", "cell": [0, 0]},
        ),
    ),
    (
        "invalid-position",
        "G-P1",
        lambda: tw.start_from_position(
            "two-way", {}, SEED, {"game": "two-way", "grid": [[None] * 7] * 7, "colour": 1}
        ),
    ),
    (
        "invalid-position",
        "TW-T2",
        lambda: tw.start_from_position(
            "two-way", {}, SEED, {"game": "two-way", "grid": [[None] * 7] * 7, "turn": "red"}
        ),
    ),
    # every other (code, rule) of seeds/refusals/two-way.yaml
    ("invalid-option", "G-O1", lambda: tw.new_game("two-way", {"colour": 1}, SEED)),
    ("invalid-option", "G-M1", lambda: tw.new_game("two-way", {"dealing": "post"}, SEED)),
    ("invalid-option", "TW-E3", lambda: tw.new_game("two-way", {"win_condition": "x"}, SEED)),
    ("invalid-option", "TW-C2", lambda: tw.new_game("two-way", {"tile_manifest": []}, SEED)),
    ("invalid-option", "G-T1", lambda: tw.new_game("two-way", {"idle_seconds": 0}, SEED)),
    ("invalid-position", "G-M1", lambda: _tw_pos({}, grid=_tw_grid({(0, 0): 5}))),
    ("invalid-position", "G-O1", lambda: _tw_pos({}, phase="deal", dealt=[], turn="green")),
    ("invalid-position", "TW-C1", lambda: _tw_pos(grid=[[None] * 7])),
    ("invalid-position", "TW-C2", lambda: _tw_pos(grid=_tw_grid({(0, 0): "ZZ/KH"}))),
    (
        "invalid-position",
        "TW-D1",
        lambda: _tw_pos(
            bases={
                "blue": [{"cells": [[6, 0], [6, 1], [6, 3]], "tiles": _tw_blue("AS", "2S", "3S")}]
            }
        ),
    ),
    (
        "invalid-position",
        "TW-D3",
        lambda: _tw_pos(
            {"dealing": "table", "variant": "easy"},
            bases={
                "blue": [
                    {
                        "cells": [[6, c] for c in range(6)],
                        "tiles": _tw_blue(*"AS 2S 3S 4S 5S 6S".split()),
                    }
                ]
            },
        ),
    ),
    (
        "invalid-position",
        "TW-D4",
        lambda: _tw_pos(
            bases={
                "blue": [{"cells": [[6, 0], [6, 1], [6, 2]], "tiles": _tw_blue("AS", "KH", "7D")}]
            }
        ),
    ),
    (
        "invalid-position",
        "TW-E1",
        lambda: _tw_pos({"dealing": "table", "variant": "easy"}, bases=_tw_easy_set()),
    ),
    (
        "invalid-position",
        "TW-E2",
        lambda: _tw_pos(grid=[list(range(r * 7, r * 7 + 7)) for r in range(7)]),
    ),
    ("invalid-position", "TW-E3", lambda: _tw_pos(scores={"blue": 5, "green": 0})),
    ("invalid-position", "TW-T1", lambda: _tw_pos(dealt=["blue"])),
    ("invalid-position", "TW-T4", lambda: _tw_pos(phase="draw", placed=1)),
    ("invalid-position", "TW-T5", lambda: _tw_pos(pending_skips={"blue": 2, "green": 0})),
    (
        "invalid-position",
        "TW-D5",
        lambda: _tw_pos(turn="green", turn_number=2, pending_skips={"blue": 1, "green": 0}),
    ),
    ("invalid-action", "G-R1", lambda: tw.apply(_tw(), "blue", {"type": "fly"})),
    ("invalid-action", "TW-D1", lambda: tw.apply(_tw(), "blue", {"type": "declare"})),
    (
        "invalid-action",
        "TW-C1",
        lambda: tw.apply(_tw(), "blue", {"type": "place", "tile": "AS", "cell": "a1"}),
    ),
    ("invalid-action", "G-M1", lambda: tw.apply(_tw(), "blue", {"type": "draw", "tiles": [1]})),
    (
        "invalid-action",
        "G-M2",
        lambda: tw.apply(
            _tw_table_dealt(), "referee", {"type": "place", "tile": 0, "cell": [0, 0]}
        ),
    ),
    (
        "not-your-seat",
        "G-M2",
        lambda: tw.apply(
            _tw_table_dealt(),
            "blue",
            {"type": "place", "seat": "green", "tile": "AS", "cell": [0, 0]},
        ),
    ),
    ("game-over", "TW-E2", lambda: tw.apply(_tw_over("grid-full"), "blue", {"type": "draw"})),
    (
        "wrong-phase",
        "TW-T1",
        lambda: tw.apply(
            _tw(dealing="table"), "blue", {"type": "place", "tile": "AS", "cell": [0, 0]}
        ),
    ),
    ("wrong-phase", "TW-T4", lambda: tw.apply(_tw_freed(), "blue", {"type": "draw"})),
    (
        "wrong-tile-count",
        "TW-T2",
        lambda: tw.apply(
            _tw_table_placed(),
            "referee",
            {"type": "draw", "seat": "blue", "tiles": _tw_table_placed()["bag"][:3]},
        ),
    ),
    (
        "wrong-tile-count",
        "TW-T4",
        lambda: tw.apply(
            _tw_table_one_placed(),
            "referee",
            {"type": "draw", "seat": "blue", "tiles": _tw_table_one_placed()["bag"][:4]},
        ),
    ),
    (
        "length-not-allowed",
        "TW-D3",
        lambda: tw.apply(
            _tw(variant="easy"), "blue", {"type": "declare", "cells": [[0, c] for c in range(6)]}
        ),
    ),
]


def _tw_grid(cells: dict) -> list:
    return [[cells.get((r, c)) for c in range(7)] for r in range(7)]


def _tw_pos(options=None, **fields):
    """start_from_position (default: table dealing, the shipped manifest) with an
    empty grid and ``fields``."""
    position = {"game": "two-way", "grid": _tw_grid({}), **fields}
    return tw.start_from_position(
        "two-way", {"dealing": "table"} if options is None else options, SEED, position
    )


def _tw_blue(*cards, skip=()):
    """Tiles of the shipped manifest whose blue faces are ``cards``."""
    manifest = tw.default_manifest()
    out = []
    for card in cards:
        out.append(
            next(
                i
                for i, f in enumerate(manifest)
                if f["blue"] == card and i not in out and i not in skip
            )
        )
    return out


def _tw_easy_set():
    """bases.blue holding a 3-, a 4- and a 5-run: every length of the easy variant."""
    runs = ["AS 2S 3S", "4S 5S 6S 7S", "8S 9S 10S JS QS"]
    used, entries = [], []
    for r, run in enumerate(runs):
        tiles = _tw_blue(*run.split(), skip=used)
        used += tiles
        entries.append({"cells": [[r, c] for c in range(len(tiles))], "tiles": tiles})
    return {"blue": entries}


def _tw_freed():
    """Blue placed once, then a declaration freed spaces on a full grid (TW-T4)."""
    state = copy.deepcopy(_tw())
    state.update(placed=1, freed=True)
    return state


def _tw_table_placed():
    """Table mode: blue has placed two tiles; its draw of 4 is due."""
    state = _tw_table_dealt()
    for cell in ([0, 0], [0, 1]):
        state = _fold(
            tw,
            tw.apply(
                state,
                "referee",
                {"type": "place", "seat": "blue", "tile": state["hands"]["blue"][0], "cell": cell},
            ),
            state,
        )
    return state


def _tw_table_one_placed():
    """Table mode: blue placed one tile, the grid then full (TW-T4): its draw takes 3."""
    state = copy.deepcopy(_tw_table_dealt())
    state["hands"]["blue"].pop()
    state.update(placed=1, phase="draw")
    return state


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
    return [(r, c) for r, row in enumerate(state["board"]) for c, v in enumerate(row) if v == card]


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
            state = _fold(
                sq, sq.apply(state, "referee", {"type": "draw", "seat": seat, "card": card}), state
            )
    return state


def _sq_move(**body):
    return sq.check_move(
        "sequence",
        body.get("chips", {"green": []}),
        body.get("sequences", []),
        body.get("side", "green"),
        body.get("card", "2S"),
        body.get("cell", [0, 1]),
        body.get("board"),
        body.get("sequence"),
    )


_ROW = [(0, c) for c in range(1, 6)]  # the top row after its free corner: 2S to 6S


def _sq_position(game="sequence", options=None, **fields):
    """Start a 2-player game from a position: p1 to play, hands dealt from the seed."""
    position = {
        "game": game,
        "chips": {},
        "hands": {"p1": 7 if game == "sequence" else 5, "p2": 7 if game == "sequence" else 5},
        "turn": "p1",
        **fields,
    }
    return sq.start_from_position(game, options or {}, SEED, position)


def _sn(**options):
    return _sq("sequence-numbers", **options)


def _sq_act(state, body, actor="p1"):
    return lambda: sq.apply(state() if callable(state) else state, actor, body)


def _sq_dealt_p1(game):
    """A 4-player table game at the deal: p1 has been dealt its hand, nobody else."""
    state = _sq(game, players=4, dealing="table")
    for card in state["deck"][: state["hand_size"]]:
        state = _fold(
            sq, sq.apply(state, "referee", {"type": "draw", "seat": "p1", "card": card}), state
        )
    return state


def _sq_ended(game, reason):
    return _sq_with(_sq(game), status="finished", result={"reason": reason})


def _sq_locked_classic():
    """p2 holds JS; [0, 1] is in a locked green sequence."""
    state = _sq_with(locked=_ROW, turn="p2")
    state["hands"]["p2"] = ["JS"]
    return state


_WIDE = [[0, c] for c in range(1, 7)]  # 2S to 7S: two windows sharing four spaces

SEQUENCE_MORE = [
    (
        "card-cannot-place",
        "SN-C2",
        _sq_act(
            lambda: _sq_with(_sn(), hand=["MINUS"]),
            {"type": "play", "card": "MINUS", "cell": [0, 1]},
        ),
    ),
    (
        "card-cannot-remove",
        "SN-C2",
        _sq_act(
            lambda: _sq_with(_sn(), hand=["PLUS"]),
            {"type": "remove-chip", "card": "PLUS", "cell": [0, 1]},
        ),
    ),
    (
        "card-not-in-hand",
        "SN-C2",
        _sq_act(
            lambda: _sq_with(_sn(), hand=["PLUS"]),
            {"type": "remove-chip", "card": "MINUS", "cell": [0, 1]},
        ),
    ),
    (
        "card-not-in-hand",
        "SQ-T3",
        _sq_act(
            lambda: _sq_with(hand=["2S"]), {"type": "remove-chip", "card": "JS", "cell": [0, 1]}
        ),
    ),
    (
        "card-not-in-hand",
        "SQ-T4",
        _sq_act(lambda: _sq_with(hand=["2S"]), {"type": "exchange-dead-card", "card": "3S"}),
    ),
    (
        "card-not-in-hand",
        "SQ-T6",
        _sq_act(
            lambda: _sq_with(hand=["2S"], penalty_due=["p1"]),
            {"type": "penalty-discard", "card": "3S"},
        ),
    ),
    (
        "card-not-on-space",
        "SN-C1",
        _sq_act(
            lambda: _sq_with(_sn(), hand=["1 + 1"]),
            {"type": "play", "card": "1 + 1", "cell": [0, 1]},
        ),
    ),
    (
        "chip-locked",
        "SQ-S2",
        _sq_act(_sq_locked_classic, {"type": "remove-chip", "card": "JS", "cell": [0, 1]}, "p2"),
    ),
    (
        "deal-not-finished",
        "SN-P2",
        _sq_act(lambda: _sn(dealing="table"), {"type": "pass", "seat": "p1"}, "referee"),
    ),
    (
        "deal-not-finished",
        "SQ-T6",
        _sq_act(
            lambda: _sq(players=4, dealing="table"), {"type": "penalty", "side": "green"}, "referee"
        ),
    ),
    (
        "draw-first",
        "SQ-T8",
        _sq_act(
            lambda: _sq_with(_sq_table(), hand=[], pending_draws={"p1": 1}),
            {"type": "pass", "seat": "p1"},
            "referee",
        ),
    ),
    ("game-over", "G-T1", _sq_act(lambda: _sq_ended("sequence", "idle"), {"type": "pass"})),
    ("game-over", "SQ-S3", _sq_act(lambda: _sq_ended("sequence", "sequences"), {"type": "pass"})),
    (
        "game-over",
        "SN-S1",
        _sq_act(lambda: _sq_ended("sequence-numbers", "sequences"), {"type": "pass"}),
    ),
    (
        "hand-full",
        "SN-P2",
        lambda: sq.apply(
            _sq_dealt_p1("sequence-numbers"),
            "referee",
            {"type": "draw", "seat": "p1", "card": _sq_dealt_p1("sequence-numbers")["deck"][-1]},
        ),
    ),
    ("invalid-action", "G-M2", _sq_act(_sq_table, {"type": "draw", "seat": "p1"}, "referee")),
    (
        "invalid-action",
        "SN-C2",
        _sq_act(_sn, {"type": "remove-chip", "card": "MINUS", "cell": [0, 1], "colour": "green"}),
    ),
    (
        "invalid-action",
        "SQ-T1",
        _sq_act(_sq, {"type": "play", "card": "2S", "cell": [0, 1], "colour": "green"}),
    ),
    (
        "invalid-action",
        "SQ-T3",
        _sq_act(_sq, {"type": "remove-chip", "card": "JS", "cell": [0, 1], "colour": "green"}),
    ),
    (
        "invalid-action",
        "SQ-T4",
        _sq_act(_sq, {"type": "exchange-dead-card", "card": "2S", "colour": "green"}),
    ),
    ("invalid-action", "SQ-T5", _sq_act(_sq, {"type": "draw", "card": "2S", "from": "deck"})),
    (
        "invalid-action",
        "SQ-T6",
        _sq_act(_sq, {"type": "penalty-discard", "card": "2S", "colour": "green"}),
    ),
    ("invalid-action", "SQ-T8", _sq_act(_sq, {"type": "pass", "colour": "green"})),
    ("invalid-option", "G-M1", lambda: sq.new_game("sequence", {"dealing": "cloud"}, SEED)),
    ("invalid-option", "G-O1", lambda: sq.new_game("sequence", {"colour": "green"}, SEED)),
    ("invalid-option", "SN-C0", lambda: sq.new_game("sequence-numbers", {"board": [[1]]}, SEED)),
    (
        "invalid-option",
        "SN-C1",
        lambda: sq.new_game("sequence-numbers", {"deck": ["100 + 7"]}, SEED),
    ),
    ("invalid-option", "SQ-E1", lambda: sq.new_game("sequence", {"stalemate": "never"}, SEED)),
    ("invalid-option", "SQ-P1", lambda: sq.new_game("sequence", {"sides": 3}, SEED)),
    ("invalid-option", "SQ-S3", lambda: sq.new_game("sequence", {"sequences_to_win": 9}, SEED)),
    # Sequence Numbers cites its own rules for the same options
    (
        "invalid-option",
        "SN-P1",
        lambda: sq.new_game("sequence-numbers", {"players": 4, "sides": 3}, SEED),
    ),
    (
        "invalid-option",
        "SN-S1",
        lambda: sq.new_game("sequence-numbers", {"sequences_to_win": 5}, SEED),
    ),
    ("invalid-position", "G-M1", lambda: _sq_position(owed_draws=["p1"])),
    (
        "invalid-position",
        "SN-C1",
        lambda: _sq_position("sequence-numbers", hands={"p1": ["7 / 0"], "p2": 5}),
    ),
    (
        "invalid-position",
        "SN-P2",
        lambda: _sq_position("sequence-numbers", hands={"p1": 6, "p2": 5}),
    ),
    (
        "invalid-position",
        "SN-S1",
        lambda: _sq_position(
            "sequence-numbers",
            chips={"green": _WIDE[:5]},
            reshuffles=1,
            sequences=[{"side": "green", "cells": _WIDE[:5]}],
        ),
    ),
    ("invalid-position", "SQ-C1", lambda: _sq_position(chips={"green": [[0, 0]]})),
    ("invalid-position", "SQ-C2", lambda: _sq_position(hands={"p1": ["JK"], "p2": 7})),
    ("invalid-position", "SQ-C3", lambda: _sq_position(chips={"red": [[3, 3]]}, reshuffles=1)),
    ("invalid-position", "SQ-E1", lambda: _sq_position(passes=5)),
    (
        "invalid-position",
        "SQ-S1",
        lambda: _sq_position(
            chips={"green": _WIDE}, sequences=[{"side": "green", "cells": _WIDE[:4] + [[1, 1]]}]
        ),
    ),
    (
        "invalid-position",
        "SQ-S3",
        lambda: _sq_position(
            chips={"green": _WIDE[:5] + [[c, 0] for c in range(1, 6)]},
            reshuffles=1,
            sequences=[
                {"side": "green", "cells": _WIDE[:5]},
                {"side": "green", "cells": [[c, 0] for c in range(1, 6)]},
            ],
        ),
    ),
    (
        "invalid-position",
        "SQ-S4",
        lambda: _sq_position(
            chips={"green": _WIDE},
            reshuffles=1,
            sequences=[
                {"side": "green", "cells": _WIDE[:5]},
                {"side": "green", "cells": _WIDE[1:]},
            ],
        ),
    ),
    ("invalid-position", "SQ-T4", lambda: _sq_position(exchanged=True)),
    (
        "invalid-position",
        "SQ-T5",
        lambda: _sq_position(options={"dealing": "table"}, owed_draws=["p1"]),
    ),
    ("invalid-position", "SQ-T6", lambda: _sq_position(penalty_due=["p1"])),
    ("invalid-position", "SQ-T7", lambda: _sq_position(reshuffles=-1)),
    (
        "invalid-sequence",
        "SQ-S4",
        lambda: _sq_move(
            chips={"green": _WIDE},
            sequences=[
                {"side": "green", "cells": _WIDE[:5]},
                {"side": "green", "cells": _WIDE[1:]},
            ],
        ),
    ),
    (
        "no-chip",
        "SN-C2",
        _sq_act(
            lambda: _sq_with(_sn(), hand=["MINUS"]),
            {"type": "remove-chip", "card": "MINUS", "cell": [0, 1]},
        ),
    ),
    (
        "not-dead",
        "SN-C2",
        _sq_act(
            lambda: _sq_with(_sn(), hand=["PLUS"]), {"type": "exchange-dead-card", "card": "PLUS"}
        ),
    ),
    (
        "not-dead",
        "SQ-C2",
        _sq_act(lambda: _sq_with(hand=["JH"]), {"type": "exchange-dead-card", "card": "JH"}),
    ),
    ("not-your-seat", "G-M2", _sq_act(_sq_table, {"type": "pass", "seat": "p2"})),
    (
        "own-chip",
        "SN-C2",
        _sq_act(
            lambda: _sq_with(_sn(), hand=["MINUS"], chips=[(0, 1)]),
            {"type": "remove-chip", "card": "MINUS", "cell": [0, 1]},
        ),
    ),
    (
        "space-occupied",
        "SN-C1",
        _sq_act(
            lambda: _sq_with(_sn(), hand=["PLUS"]), {"type": "play", "card": "PLUS", "cell": [0, 0]}
        ),
    ),
    (
        "space-occupied",
        "SN-C2",
        _sq_act(
            lambda: _sq_with(_sn(), hand=["PLUS"], chips=[(0, 1)]),
            {"type": "play", "card": "PLUS", "cell": [0, 1]},
        ),
    ),
    (
        "space-occupied",
        "SQ-T1",
        _sq_act(
            lambda: _sq_with(hand=["2S"], chips=[(0, 1)]),
            {"type": "play", "card": "2S", "cell": [0, 1]},
        ),
    ),
    (
        "space-occupied",
        "SQ-T2",
        _sq_act(
            lambda: _sq_with(hand=["JD"], chips=[(0, 1)]),
            {"type": "play", "card": "JD", "cell": [0, 1]},
        ),
    ),
    ("unknown-actor", "G-M2", _sq_act(_sq_table, {"type": "pass"}, "p9")),
]


SEQUENCE = [
    ("invalid-option", "SQ-P2", lambda: sq.new_game("sequence", {"players": 5}, SEED)),
    ("invalid-option", "SN-P1", lambda: sq.new_game("sequence-numbers", {"players": 5}, SEED)),
    ("invalid-option", "G-T1", lambda: sq.new_game("sequence", {"idle_seconds": 0}, SEED)),
    (
        "invalid-card",
        "SQ-C2",
        lambda: sq.apply(_sq(), "p1", {"type": "play", "card": "JK", "cell": [0, 1]}),
    ),
    (
        "invalid-card",
        "SN-C1",
        lambda: sq.apply(
            _sq("sequence-numbers"), "p1", {"type": "play", "card": "7 / 0", "cell": [0, 1]}
        ),
    ),
    ("invalid-cell", "SQ-C1", lambda: _sq_move(cell=[10, 0])),
    ("invalid-board", "SQ-C1", lambda: _sq_move(board=[[1]])),
    (
        "invalid-board",
        "SN-C0",
        lambda: sq.check_board("sequence-numbers", {"green": []}, [], [[1]]),
    ),
    ("invalid-chips", "SQ-C3", lambda: _sq_move(chips={"green": 3})),
    ("invalid-side", "SQ-C3", lambda: _sq_move(side="purple")),
    (
        "invalid-sequence",
        "SQ-S1",
        lambda: _sq_move(
            sequences=[{"side": "green", "cells": [[0, 1], [0, 2], [0, 3], [0, 4], [1, 5]]}]
        ),
    ),
    ("invalid-sequence", "SQ-S5", lambda: _sq_move(sequence=[[0, 1]] * 5)),
    (
        "invalid-sequence",
        "SQ-S5",
        lambda: sq.apply(
            _sq_with(hand=["6S"], chips=_ROW[:4]),
            "p1",
            {
                "type": "play",
                "card": "6S",
                "cell": list(_ROW[4]),
                "sequence": [[1, 1], [1, 2], [1, 3], [1, 4], [1, 5]],
            },
        ),
    ),
    ("referee-not-allowed", "G-M1", lambda: sq.apply(_sq(), "referee", {"type": "pass"})),
    ("seat-required", "G-M2", lambda: sq.apply(_sq_table(), "referee", {"type": "pass"})),
    (
        "invalid-seat",
        "G-M2",
        lambda: sq.apply(_sq_table(), "referee", {"type": "pass", "seat": "p9"}),
    ),
    ("unknown-actor", "G-M1", lambda: sq.apply(_sq(), "p9", {"type": "pass"})),
    ("referee-only", "SQ-T6", lambda: sq.apply(_sq(), "p1", {"type": "penalty", "side": "green"})),
    ("not-your-seat", "G-M1", lambda: sq.apply(_sq(), "p1", {"type": "pass", "seat": "p2"})),
    (
        "deal-not-finished",
        "SQ-P2",
        lambda: sq.apply(_sq(dealing="table"), "referee", {"type": "pass", "seat": "p1"}),
    ),
    (
        "penalty-due",
        "SQ-T6",
        lambda: sq.apply(_sq_with(penalty_due=["p1"]), "p1", {"type": "pass"}),
    ),
    ("not-your-turn", "SQ-P1", lambda: sq.apply(_sq(), "p2", {"type": "pass"})),
    (
        "draw-first",
        "SQ-T4",
        lambda: sq.apply(_sq_with(replacement_due="p1"), "p1", {"type": "pass"}),
    ),
    (
        "card-not-in-hand",
        "SQ-T1",
        lambda: sq.apply(
            _sq_with(hand=["3S"]), "p1", {"type": "play", "card": "2S", "cell": [0, 1]}
        ),
    ),
    (
        "card-cannot-place",
        "SQ-T3",
        lambda: sq.apply(
            _sq_with(hand=["JS"]), "p1", {"type": "play", "card": "JS", "cell": [0, 1]}
        ),
    ),
    (
        "card-cannot-remove",
        "SQ-T3",
        lambda: sq.apply(
            _sq_with(hand=["2S"]), "p1", {"type": "remove-chip", "card": "2S", "cell": [0, 1]}
        ),
    ),
    (
        "space-occupied",
        "SQ-C1",
        lambda: sq.apply(
            _sq_with(hand=["JD"]), "p1", {"type": "play", "card": "JD", "cell": [0, 0]}
        ),
    ),
    (
        "card-not-on-space",
        "SQ-T1",
        lambda: sq.apply(
            _sq_with(hand=["7H"]), "p1", {"type": "play", "card": "7H", "cell": [0, 1]}
        ),
    ),
    (
        "no-chip",
        "SQ-T3",
        lambda: sq.apply(
            _sq_with(hand=["JS"]), "p1", {"type": "remove-chip", "card": "JS", "cell": [0, 1]}
        ),
    ),
    (
        "own-chip",
        "SQ-T3",
        lambda: sq.apply(
            _sq_with(hand=["JS"], chips=[(0, 1)]),
            "p1",
            {"type": "remove-chip", "card": "JS", "cell": [0, 1]},
        ),
    ),
    (
        "chip-locked",
        "SN-S2",
        lambda: sq.apply(
            _sn_locked(), "p2", {"type": "remove-chip", "card": "MINUS", "cell": [0, 1]}
        ),
    ),
    (
        "already-exchanged",
        "SQ-T4",
        lambda: sq.apply(
            _sq_with(exchanged=True, hand=["2S"]),
            "p1",
            {"type": "exchange-dead-card", "card": "2S"},
        ),
    ),
    (
        "not-dead",
        "SQ-T4",
        lambda: sq.apply(_sq_with(hand=["2S"]), "p1", {"type": "exchange-dead-card", "card": "2S"}),
    ),
    (
        "card-not-in-deck",
        "G-M2",
        lambda: sq.apply(
            _sq_no_two_of_spades(), "referee", {"type": "draw", "seat": "p1", "card": "2S"}
        ),
    ),
    ("not-table-mode", "G-M1", lambda: sq.apply(_sq(), "p1", {"type": "draw", "card": "2S"})),
    (
        "hand-full",
        "SQ-P2",
        lambda: sq.apply(
            _sq_p1_dealt(),
            "referee",
            {"type": "draw", "seat": "p1", "card": _sq_p1_dealt()["deck"][0]},
        ),
    ),
    (
        "draw-not-due",
        "SQ-T5",
        lambda: sq.apply(
            _sq_table(), "referee", {"type": "draw", "seat": "p1", "card": _sq_table()["deck"][0]}
        ),
    ),
    ("must-play", "SQ-T8", lambda: sq.apply(_sq_with(hand=["2S"]), "p1", {"type": "pass"})),
    ("must-exchange", "SQ-T8", lambda: sq.apply(_sq_dead(), "p1", {"type": "pass"})),
    (
        "invalid-side",
        "SQ-T6",
        lambda: sq.apply(_sq(), "referee", {"type": "penalty", "side": "purple"}),
    ),
    (
        "invalid-seat",
        "SQ-T6",
        lambda: sq.apply(
            _sq(players=4), "referee", {"type": "penalty", "side": "green", "offender": "p2"}
        ),
    ),
    (
        "not-a-team",
        "SQ-T6",
        lambda: sq.apply(_sq(), "referee", {"type": "penalty", "side": "green"}),
    ),
    (
        "penalty-pending",
        "SQ-T6",
        lambda: sq.apply(
            _sq_with(_sq(players=4), penalty_due=["p1"]),
            "referee",
            {"type": "penalty", "side": "green"},
        ),
    ),
    (
        "nothing-to-discard",
        "SQ-T6",
        lambda: sq.apply(_sq_empty_team(), "referee", {"type": "penalty", "side": "green"}),
    ),
    (
        "no-penalty-due",
        "SQ-T6",
        lambda: sq.apply(_sq(), "p1", {"type": "penalty-discard", "card": "2S"}),
    ),
    ("invalid-action", "G-R1", lambda: sq.apply(_sq(), "p1", {"type": "fly"})),
    ("game-over", "SQ-E1", lambda: sq.apply(_sq_with(status="finished"), "p1", {"type": "pass"})),
    ("invalid-position", "G-P1", lambda: _sq_position(hands={"p1": ["2S"] * 3, "p2": 7})),
    ("invalid-position", "SQ-P2", lambda: _sq_position(hands={"p1": 8, "p2": 7})),
    ("invalid-position", "SQ-S5", lambda: _sq_position(chips={"green": _ROW})),
    ("invalid-position", "SQ-P1", lambda: _sq_position(turn=None)),
    ("invalid-position", "SQ-T1", lambda: _sq_position(chips={"green": _ROW[:2]})),
    *SEQUENCE_MORE,
]


def _sq_no_two_of_spades():
    """A table game at the deal whose deck no longer holds a 2S (both reported dealt)."""
    state = _sq(dealing="table")
    for _ in range(2):
        state = _fold(
            sq, sq.apply(state, "referee", {"type": "draw", "seat": "p1", "card": "2S"}), state
        )
    return state


def _sq_p1_dealt():
    """A 4-player table game at the deal: p1 has been dealt its 6 cards, nobody else."""
    state = _sq(players=4, dealing="table")
    for card in state["deck"][:6]:
        state = _fold(
            sq, sq.apply(state, "referee", {"type": "draw", "seat": "p1", "card": card}), state
        )
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
    return _fold(halves, halves.apply(state, "referee", {"type": "deal", "card": "RC-GS"}), state)


_HV_HANDS = {"p1": ["RT-BS", "GT-YC", "BC-YX"], "p2": ["RX-BT"]}

HALVES = [
    ("invalid-option", "HV-T1", lambda: halves.new_game("halves", {"match": "half"}, SEED)),
    ("invalid-card", "HV-C1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", _hv_play("RZ-BS"))),
    (
        "invalid-action",
        "HV-T3",
        lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {"type": "play", "card": "RT-BS"}),
    ),
    ("invalid-action", "G-R1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {"type": "fly"})),
    ("seat-required", "HV-M1", lambda: halves.apply(_hv_table(), "referee", {"type": "draw"})),
    (
        "invalid-seat",
        "HV-M1",
        lambda: halves.apply(_hv_table(), "referee", {"type": "draw", "seat": "p9"}),
    ),
    (
        "referee-not-allowed",
        "G-M1",
        lambda: halves.apply(_hv(hands=_HV_HANDS), "referee", {"type": "draw", "seat": "p1"}),
    ),
    ("unknown-actor", "G-M1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p9", {"type": "draw"})),
    (
        "not-your-seat",
        "G-M1",
        lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {"type": "draw", "seat": "p2"}),
    ),
    ("referee-only", "HV-T6", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {"type": "retire"})),
    (
        "referee-only",
        "HV-M1",
        lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {"type": "blocked"}),
    ),
    ("referee-reports", "HV-M1", lambda: halves.apply(_hv_table(), "p1", {"type": "draw"})),
    (
        "stale-top-card",
        "HV-T3",
        lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", _hv_play("RT-BS", based_on="BC-YX")),
    ),
    (
        "hand-empty",
        "HV-M1",
        lambda: halves.apply(
            _hv_no_hand(), "referee", {"type": "play", "seat": "p1", "card": "RT-BS"}
        ),
    ),
    (
        "card-not-available",
        "G-M2",
        lambda: halves.apply(
            _hv_table(), "referee", {"type": "play", "seat": "p1", "card": "RC-GS"}
        ),
    ),
    ("not-in-hand", "HV-T1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", _hv_play("RX-BT"))),
    (
        "turning-not-allowed",
        "HV-T1",
        lambda: halves.apply(
            _hv(hands=_HV_HANDS, allow_turning=False), "p1", _hv_play("RT-BS", turned=True)
        ),
    ),
    ("no-match", "HV-T1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", _hv_play("GT-YC"))),
    ("no-match", "HV-T1", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", _hv_play("BC-YX"))),
    (
        "hand-full",
        "HV-T2",
        lambda: halves.apply(
            _hv(hands={"p1": ["RT-BS", "GT-YC", "BC-YX", "GX-YT"], "p2": ["RX-BT"]}),
            "p1",
            {"type": "draw"},
        ),
    ),
    ("pile-empty", "HV-T2", lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {"type": "draw"})),
    ("card-required", "HV-T5", lambda: halves.apply(_hv_table(), "referee", {"type": "blocked"})),
    (
        "invalid-action",
        "HV-T4",
        lambda: halves.apply(_hv_bottom_due(), "referee", {"type": "blocked", "card": "GX-YT"}),
    ),
    (
        "not-table-mode",
        "HV-M1",
        lambda: halves.apply(_hv(hands=_HV_HANDS), "referee", {"type": "blocked"}),
    ),
    (
        "already-dealt",
        "HV-M1",
        lambda: halves.apply(_hv_table(), "referee", {"type": "deal", "card": "GX-YT"}),
    ),
    (
        "deal-not-reported",
        "HV-M1",
        lambda: halves.apply(
            _new(halves, "halves", dealing="table"), "referee", {"type": "retire", "seat": "p1"}
        ),
    ),
    (
        "seat-retired",
        "HV-T6",
        lambda: halves.apply(_hv_retired(), "referee", {"type": "retire", "seat": "p1"}),
    ),
    (
        "game-over",
        "HV-E1",
        lambda: halves.apply(_hv_over({"hands": {"p1": 1, "p2": 3}}), "p2", {"type": "draw"}),
    ),
    (
        "game-over",
        "HV-T5",
        lambda: halves.apply(
            _hv_over({"hands": {"p1": ["BX-YT", "BT-YX"], "p2": ["BX-YC", "BT-YS", "BC-YT"]}}),
            "p1",
            _hv_play("BX-YT"),
        ),
    ),
    (
        "game-over",
        "HV-T6",
        lambda: halves.apply(
            _hv_over({"hands": {"p1": 3}, "retired": {"p2": 9}}), "p1", {"type": "draw"}
        ),
    ),
    (
        "invalid-action",
        "HV-T2",
        lambda: halves.apply(
            _hv(hands=_HV_HANDS),
            "p1",
            {"type": "play", "cards": ["RT-BS", "GT-YC"], "based_on": "RC-GS"},
        ),
    ),
    (
        "invalid-action",
        "HV-T2",
        lambda: halves.apply(
            _hv(hands=_HV_HANDS),
            "p1",
            {"type": "play", "card": ["RT-BS", "GT-YC"], "based_on": "RC-GS"},
        ),
    ),
    (
        "invalid-action",
        "HV-T2",
        lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", {"type": "draw", "turned": True}),
    ),
    (
        "invalid-action",
        "HV-T1",
        lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", _hv_play("RT-BS", turned="yes")),
    ),
    (
        "invalid-action",
        "HV-T1",
        lambda: halves.apply(_hv(hands=_HV_HANDS), "p1", _hv_play("RT-BS", face="up")),
    ),
    (
        "invalid-action",
        "HV-T6",
        lambda: halves.apply(
            _hv(hands=_HV_HANDS), "referee", {"type": "retire", "seat": "p2", "card": "RT-BS"}
        ),
    ),
    (
        "invalid-action",
        "HV-M1",
        lambda: halves.apply(
            _new(halves, "halves", dealing="table"),
            "referee",
            {"type": "deal", "card": "RC-GS", "seat": "p1"},
        ),
    ),
    ("invalid-option", "HV-P1", lambda: halves.new_game("halves", {"players": 1}, SEED)),
    ("invalid-option", "HV-P1", lambda: halves.new_game("chess", {}, SEED)),
    ("invalid-option", "HV-C1", lambda: halves.new_game("halves", {"deck": ["RC-RC"]}, SEED)),
    ("invalid-option", "G-M1", lambda: halves.new_game("halves", {"dealing": "online"}, SEED)),
    ("invalid-option", "G-O1", lambda: halves.new_game("halves", {"first_seat": "p9"}, SEED)),
    ("invalid-position", "G-P1", lambda: _hv_position({"centre": ["RC-GS", "GS-RC"]})),
    ("invalid-position", "G-P1", lambda: _hv_position({"hands": {"p1": 4, "p2": 4}, "box": 3})),
    ("invalid-position", "G-P1", lambda: _hv_position({"piles": {"p1": 70}})),
    ("invalid-position", "G-P1", lambda: _hv_position({"game": "two-way"})),
    ("invalid-position", "HV-T5", lambda: _hv_position({"in_a_row": "x"})),
    ("invalid-position", "G-P1", lambda: _hv_position({"counts": []})),
    ("invalid-position", "G-P1", lambda: _hv_position({"hands": []})),
    ("invalid-position", "G-P1", lambda: _hv_position({"hands": {"p3": 2}})),
    ("invalid-position", "G-P1", lambda: _hv_position({"board": 1})),
    ("invalid-position", "G-P1", lambda: _hv_position({"centre": "RC-GS"})),
    ("invalid-position", "G-P1", lambda: _hv_position({"hands": {"p1": 2}})),
    ("invalid-position", "G-P1", lambda: halves.start_from_position("halves", {}, SEED, [])),
    ("invalid-position", "HV-C1", lambda: _hv_position({"centre": ["RZ-GS"]})),
    ("invalid-position", "HV-C1", lambda: _hv_position({"centre": ["RC-RS"]})),
    ("invalid-position", "HV-P2", lambda: _hv_position({"centre": []})),
    ("invalid-position", "HV-P1", lambda: _hv_position({"piles": {"p1": 34}})),
    ("invalid-position", "HV-T2", lambda: _hv_position({"hands": {"p1": 5, "p2": 2}})),
    ("invalid-position", "HV-M1", lambda: _hv_position({}, dealing="table")),
    ("invalid-position", "HV-E1", lambda: _hv_position({"hands": {"p1": 0, "p2": 2}})),
    ("invalid-position", "HV-E1", lambda: _hv_position({"hands": {"p1": 1, "p2": 1}})),
    ("invalid-position", "HV-E1", lambda: _hv_position({"hands": {"p1": 2}, "retired": {"p2": 1}})),
    ("invalid-position", "HV-T6", lambda: _hv_position({"retired": {"p2": 4}})),
    (
        "invalid-position",
        "HV-T6",
        lambda: _hv_position({"hands": {}, "retired": {"p1": 2, "p2": 2}}),
    ),
    (
        "invalid-position",
        "HV-T6",
        lambda: _hv_position({"hands": {"p1": 4}, "piles": {"p1": 66}, "retired": {"p2": 5}}),
    ),
    ("invalid-position", "HV-T5", lambda: _hv_position({"pile_turns_from": "p9"})),
    ("invalid-position", "G-T1", lambda: _hv_position({"timed_out": ["p3"]})),
    ("invalid-position", "G-T1", lambda: _hv_position({"timed_out": "p1"})),
    ("invalid-option", "G-T1", lambda: halves.new_game("halves", {"idle_seconds": 0}, SEED)),
    (
        "invalid-option",
        "G-T1",
        lambda: halves.new_game("halves", {"dealing": "table", "idle_seconds": 30}, SEED),
    ),
]


def _hv_position(changes, **options):
    """A 2-player Halves position with ``changes``, started (G-P1)."""
    position = {"centre": ["RC-GS"], "hands": {"p1": ["RT-BS", "GT-YC"], "p2": 3}, **changes}
    return halves.start_from_position("halves", options, SEED, position)


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


def _hv_over(changes):
    """A game that a stated position (G-P1) ended at once: HV-E1, HV-T5 or HV-T6."""
    state = _fold(halves, _hv_position(changes))
    assert state["status"] == "finished"
    return state


# ----- Solitaire Frenzy ---------------------------------------------------------------


def _sf(**options):
    return _new(sf, "solitaire-frenzy", players=2, **options)


def _sf_lay(
    state=None,
    pile=("5H",),
    columns=(("9C",), ("KD",), (), ("4S",)),
    hand=(),
    waste=(),
    piles=(),
    **options,
):
    """p1's layout replaced (pile top last, waste top last) and the foundations
    ``piles`` (ids 1, 2 ...), each ``(owner, cards)``."""
    state = copy.deepcopy(state or _sf(**options))
    state["layouts"]["p1"] = {
        "pile": list(pile),
        "columns": [list(c) for c in columns],
        "hand": list(hand),
        "waste": list(waste),
        "pass": None,
        "reach": None,
    }
    state["foundations"] = [
        {"id": i, "suit": cards[0][-1], "cards": [{"card": c, "seat": owner} for c in cards]}
        for i, (owner, cards) in enumerate(piles, 1)
    ]
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
    ("invalid-card", "SF-P2", lambda: sf.apply(_sf(), "p1", _sf_play("JK", to="column", column=0))),
    (
        "invalid-column",
        "SF-R4",
        lambda: sf.apply(_sf(), "p1", {"type": "refill", "round": 1, "card": "5H", "column": 4}),
    ),
    ("round-over", "SF-E1", lambda: sf.apply(_sf_round_two(), "p1", {"type": "turn", "round": 1})),
    ("invalid-round", "SF-E2", lambda: sf.apply(_sf(), "p1", {"type": "turn", "round": 2})),
    ("invalid-action", "SF-E1", lambda: sf.apply(_sf(), "p1", {"type": "turn"})),
    (
        "referee-not-allowed",
        "G-M1",
        lambda: sf.apply(_sf(), "referee", {"type": "turn", "round": 1}),
    ),
    ("unknown-actor", "G-M1", lambda: sf.apply(_sf(), "p9", {"type": "turn", "round": 1})),
    (
        "not-your-seat",
        "G-M1",
        lambda: sf.apply(_sf(), "p1", {"type": "turn", "round": 1, "seat": "p2"}),
    ),
    (
        "table-mode",
        "SF-M1",
        lambda: sf.apply(_sf(dealing="table"), "p1", {"type": "turn", "round": 1}),
    ),
    ("seat-retired", "SF-E3", lambda: sf.apply(_sf_retired(), "p1", {"type": "turn", "round": 1})),
    (
        "game-over",
        "SF-E2",
        lambda: sf.apply(_sf_over(), "referee", {"type": "retire", "seat": "p1"}),
    ),
    ("referee-only", "SF-E3", lambda: sf.apply(_sf(), "p1", {"type": "retire", "seat": "p2"})),
    ("referee-only", "SF-M1", lambda: sf.apply(_sf(dealing="table"), "p1", _sf_record({}))),
    (
        "card-not-on-top",
        "SF-R3",
        lambda: sf.apply(
            _sf_lay(columns=(("9C", "8H"), (), (), ())),
            "p1",
            _sf_play("9C", **_FOUNDATION, based_on="8C", pile=1),
        ),
    ),
    (
        "card-not-on-top",
        "SF-H1",
        lambda: sf.apply(_sf_lay(hand=["2C"]), "p1", _sf_play("2C", to="column", column=0)),
    ),
    (
        "card-on-board",
        "SF-F1",
        lambda: sf.apply(
            _sf_lay(piles=[("p1", ["AS", "2S"])]), "p1", _sf_play("2S", to="column", column=1)
        ),
    ),
    (
        "play-order",
        "SF-O1",
        lambda: sf.apply(
            _sf_lay(pile=("AD",), waste=("8H",), play_order="strict"),
            "p1",
            _sf_play("8H", to="column", column=0),
        ),
    ),
    ("nothing-to-turn", "SF-H1", lambda: sf.apply(_sf_lay(), "p1", {"type": "turn", "round": 1})),
    (
        "not-whole-column",
        "SF-R2",
        lambda: sf.apply(
            _sf_lay(columns=(("9C", "8H"), ("KD",), (), ("4S",))),
            "p1",
            _sf_play("9C", to="column", column=1),
        ),
    ),
    (
        "unknown-pile",
        "SF-F1",
        lambda: sf.apply(
            _sf_lay(pile=("2H",)), "p1", _sf_play("2H", **_FOUNDATION, pile=7, based_on="AH")
        ),
    ),
    (
        "stale-top-card",
        "SF-T1",
        lambda: sf.apply(
            _sf_lay(pile=("AH",), piles=[("p2", ["AH", "2H"])], one_pile_per_suit=True),
            "p1",
            _sf_play("AH", **_FOUNDATION, based_on="new"),
        ),
    ),
    (
        "stale-top-card",
        "SF-T1",
        lambda: sf.apply(
            _sf_lay(piles=[("p2", ["AH", "2H", "3H", "4H", "5H"])], pile=("6H",)),
            "p1",
            _sf_play("6H", **_FOUNDATION, pile=1, based_on="4H"),
        ),
    ),
    (
        "not-pile-top",
        "SF-T1",
        lambda: sf.apply(
            _sf_lay(piles=[("p2", ["AH", "2H"])], pile=("3H",)),
            "p1",
            _sf_play("3H", **_FOUNDATION, pile=1, based_on="7H"),
        ),
    ),
    (
        "same-column",
        "SF-R2",
        lambda: sf.apply(
            _sf_lay(), "p1", {"type": "move", "round": 1, "from_column": 0, "to_column": 0}
        ),
    ),
    (
        "column-empty",
        "SF-R2",
        lambda: sf.apply(
            _sf_lay(), "p1", {"type": "move", "round": 1, "from_column": 2, "to_column": 0}
        ),
    ),
    (
        "move-to-empty",
        "SF-R2",
        lambda: sf.apply(
            _sf_lay(), "p1", {"type": "move", "round": 1, "from_column": 0, "to_column": 2}
        ),
    ),
    (
        "wrong-colour",
        "SF-R2",
        lambda: sf.apply(
            _sf_lay(columns=(("9C",), ("KD",), (), ("10S",))),
            "p1",
            {"type": "move", "round": 1, "from_column": 0, "to_column": 3},
        ),
    ),
    (
        "column-not-empty",
        "SF-R4",
        lambda: sf.apply(
            _sf_lay(), "p1", {"type": "refill", "round": 1, "card": "5H", "column": 0}
        ),
    ),
    ("invalid-seat", "SF-E3", lambda: sf.apply(_sf(), "referee", {"type": "retire", "seat": "p9"})),
    ("not-table-mode", "SF-M1", lambda: sf.apply(_sf(), "referee", _sf_record({}))),
    (
        "invalid-report",
        "SF-M1",
        lambda: sf.apply(_sf(dealing="table"), "referee", _sf_record({"p1": _res()})),
    ),
    (
        "several-out",
        "SF-M1",
        lambda: sf.apply(
            _sf(dealing="table"),
            "referee",
            _sf_record({"p1": _res(pile=0, out=True), "p2": _res(pile=0, out=True)}),
        ),
    ),
    (
        "out-with-cards",
        "SF-M1",
        lambda: sf.apply(
            _sf(dealing="table"),
            "referee",
            _sf_record({"p1": _res(pile=2, out=True), "p2": _res()}),
        ),
    ),
    (
        "empty-pile-not-out",
        "SF-M1",
        lambda: sf.apply(
            _sf(dealing="table"), "referee", _sf_record({"p1": _res(pile=0), "p2": _res()})
        ),
    ),
    (
        "board-total-mismatch",
        "SF-M1",
        lambda: sf.apply(
            _sf(dealing="table"), "referee", _sf_record({"p1": _res(), "p2": _res()}, board_total=7)
        ),
    ),
    (
        "new-pile-needs-ace",
        "SF-F1",
        lambda: sf.apply(_sf_lay(), "p1", _sf_play("5H", **_FOUNDATION, based_on="new")),
    ),
    (
        "ace-needs-new-pile",
        "SF-F1",
        lambda: sf.apply(
            _sf_lay(pile=("AH",), piles=[("p2", ["AH", "2H"])]),
            "p1",
            _sf_play("AH", **_FOUNDATION, pile=1, based_on="2H"),
        ),
    ),
    (
        "pile-complete",
        "SF-F1",
        lambda: sf.apply(
            _sf_lay(
                pile=("2H",),
                piles=[
                    (
                        "p2",
                        [
                            "AS",
                            "2S",
                            "3S",
                            "4S",
                            "5S",
                            "6S",
                            "7S",
                            "8S",
                            "9S",
                            "10S",
                            "JS",
                            "QS",
                            "KS",
                        ],
                    )
                ],
            ),
            "p1",
            _sf_play("2H", **_FOUNDATION, pile=1, based_on="KS"),
        ),
    ),
    (
        "wrong-suit",
        "SF-F1",
        lambda: sf.apply(
            _sf_lay(pile=("2H",), piles=[("p2", ["AS"])]),
            "p1",
            _sf_play("2H", **_FOUNDATION, pile=1, based_on="AS"),
        ),
    ),
    (
        "wrong-rank",
        "SF-F1",
        lambda: sf.apply(
            _sf_lay(pile=("3H",), piles=[("p2", ["AH"])]),
            "p1",
            _sf_play("3H", **_FOUNDATION, pile=1, based_on="AH"),
        ),
    ),
    (
        "wrong-rank",
        "SF-R1",
        lambda: sf.apply(_sf_lay(pile=("7H",)), "p1", _sf_play("7H", to="column", column=0)),
    ),
    (
        "wrong-colour",
        "SF-R1",
        lambda: sf.apply(_sf_lay(pile=("QH",)), "p1", _sf_play("QH", to="column", column=1)),
    ),
    (
        "play-order",
        "SF-O1",
        lambda: sf.apply(
            _sf_lay(waste=("8C",), hand=("2C",), play_order="strict"),
            "p1",
            {"type": "turn", "round": 1},
        ),
    ),
    ("game-over", "SF-E3", lambda: sf.apply(_sf_last_seat(), "p1", {"type": "turn", "round": 2})),
    ("round-over", "SF-E3", lambda: sf.apply(_sf_last_seat(), "p1", {"type": "turn", "round": 1})),
    (
        "invalid-position",
        "SF-F1",
        lambda: sf.start_from_position(
            sf.GAME,
            {},
            SEED,
            {"game": sf.GAME, "foundations": [{"cards": [{"card": "2H", "seat": "p1"}]}]},
        ),
    ),
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


SCENARIOS = [
    (game, code, rule, provoke)
    for game, table in (
        ("two-way", TWO_WAY),
        ("sequence", SEQUENCE),
        ("halves", HALVES),
        ("solitaire-frenzy", FRENZY),
    )
    for code, rule, provoke in table
]
