"""What Solitaire Frenzy shows (RULES.md §5): the legal actions, the views of the game
and of its events, and the stateless check of one play (SF-F1, SF-R1, SF-R4)."""

from __future__ import annotations

from typing import Any

from service.games.rng import commitment
from service.games.solitaire_frenzy.cards import (
    COLUMN,
    FOUNDATION,
    GAME,
    REFEREE,
    builds_on,
    column_refusal,
    foundation_refusal,
)
from service.games.solitaire_frenzy.errors import malformed, read_card
from service.games.solitaire_frenzy.foundations import (
    board_counts,
    board_needs,
    foundation_targets,
)
from service.games.solitaire_frenzy.hand import waste_top_plays
from service.games.solitaire_frenzy.layouts import public_position, sees_everything
from service.games.solitaire_frenzy.rounds import can_move
from service.games.solitaire_frenzy.state import Event, FrenzyState, Needs, seat_layout
from service.games.solitaire_frenzy.tableau import order_first
from service.messages import Message


def _seat_actions(state: FrenzyState, seat: str) -> list[dict[str, Any]]:
    """A seat's plays, moves and refills of its face-up cards, and ``turn``."""
    layout, needs, number = seat_layout(state, seat), board_needs(state), state["round"]
    columns = layout["columns"]
    plays: list[dict[str, Any]] = []
    for source in ("pile", "waste"):
        if not layout[source]:
            continue
        card = layout[source][-1]
        moves = [
            {"type": "play", "round": number, "card": card, **target}
            for target in foundation_targets(state, card, needs)
        ]
        moves += [
            {"type": "play", "round": number, "card": card, "to": COLUMN, "column": j}
            for j, c in enumerate(columns)
            if c and builds_on(card, c[-1])
        ]
        moves += [
            {"type": "refill", "round": number, "card": card, "column": j}
            for j, c in enumerate(columns)
            if not c
        ]
        if (
            source == "waste"
            and moves
            and state["options"]["play_order"] == "strict"
            and order_first(state, seat)
        ):
            moves = []
        plays += moves
    for i, column in enumerate(columns):
        if not column:
            continue
        plays += [
            {"type": "play", "round": number, "card": column[-1], **target}
            for target in foundation_targets(state, column[-1], needs)
        ]
        plays += [
            {"type": "move", "round": number, "from_column": i, "to_column": j}
            for j, other in enumerate(columns)
            if j != i and other and builds_on(column[0], other[-1])
        ]
    if (layout["hand"] or layout["waste"]) and not (
        state["options"]["play_order"] == "strict" and waste_top_plays(state, seat)
    ):
        plays.append({"type": "turn", "round": number})
    return plays


def legal_actions(state: FrenzyState, viewer: str | None) -> list[dict[str, Any]]:
    """Complete action bodies ``apply(state, viewer, body)`` accepts now.

    A seat (server mode, still playing): every play, move and refill of its face-up
    cards, and ``turn`` while its hand or waste holds a card. The referee: ``retire``
    for each seat still playing (the table-mode ``record-round`` takes the referee's
    figures, so it is not listed). A finished game, or anyone else: none.
    """
    if state["status"] != "active":
        return []
    if viewer == REFEREE:
        return [{"type": "retire", "seat": seat} for seat in state["active"]]
    if viewer in state["active"] and state["options"]["dealing"] == "server":
        return _seat_actions(state, viewer)
    return []


def _public_layout(state: FrenzyState, seat: str, board: int, needs: Needs) -> dict[str, Any]:
    out: dict[str, Any] = {"active": seat in state["active"], "board": board}
    layout = state["layouts"][seat]
    if layout is None:
        if seat in state["retired"]:
            out["pile_size"] = state["retired"][seat]["pile"]
        return out
    out.update(
        {
            "pile_top": layout["pile"][-1] if layout["pile"] else None,
            "pile_size": len(layout["pile"]),
            "columns": [list(c) for c in layout["columns"]],
            "waste_top": layout["waste"][-1] if layout["waste"] else None,
            "waste_size": len(layout["waste"]),
            "hand_size": len(layout["hand"]),
        }
    )
    if (
        state["status"] == "active"
        and seat in state["active"]
        and state["options"]["dealing"] == "server"
    ):
        out["can_move"] = can_move(state, seat, needs)
    return out


def view(state: FrenzyState, viewer: str | None) -> dict[str, Any]:
    """The game as ``viewer`` (a seat, ``"referee"`` or None) may see it; every viewer
    sees the same, since nobody (the seat itself included) sees face-down cards.

    ``round`` and ``rounds``, ``totals`` and ``history`` (each ended round's board,
    pile, scores, reason, who went out), ``foundations`` (id, suit, cards with their
    owners), per seat in ``players``: ``active``, ``board`` (own cards on the board
    this round), ``pile_top``, ``pile_size``, ``columns``, ``waste_top``,
    ``waste_size``, ``hand_size``, ``can_move`` (SF-E1, from public information);
    ``result`` once finished, the seed commitment (the seed itself once finished);
    ``from_position`` (G-P1: the game started from a stated position); ``timed_out``
    (G-T1: the seats treated as having no move until they act again);
    ``seat`` for a seat viewer.
    """
    board, needs = board_counts(state), board_needs(state)
    out: dict[str, Any] = {
        "game": GAME,
        "status": state["status"],
        "options": state["options"],
        "seats": list(state["seats"]),
        "active": list(state["active"]),
        "round": state["round"],
        "rounds": state["options"]["rounds"],
        "totals": dict(state["totals"]),
        "history": list(state["history"]),
        "foundations": [
            {
                "id": p["id"],
                "suit": p["suit"],
                "top": p["cards"][-1]["card"],
                "cards": [dict(e) for e in p["cards"]],
            }
            for p in state["foundations"]
        ],
        "players": {
            seat: _public_layout(state, seat, board[seat], needs) for seat in state["seats"]
        },
        "result": state["result"],
        "seed_commitment": commitment(state["seed"]),
        "from_position": bool(state.get("from_position", False)),
        "timed_out": list(state.get("timed_out", [])),
    }
    if state["status"] == "finished":
        out["seed"] = state["seed"]
    if viewer in state["seats"]:
        out["seat"] = viewer
    return out


def view_event(state: FrenzyState, event: Event, viewer: str | None) -> dict[str, Any] | None:
    """One log event as ``viewer`` may see it: every event is public (none carries a
    face-down card), except the seed of ``game-created``, shown once the game is over
    (``seed_commitment`` before), and a stated position's face-down cards
    (``position-set``), shown as counts unless the viewer sees everything (G-P1)."""
    if event["type"] == "position-set":
        if sees_everything(state, viewer):
            return dict(event)
        return {**event, "position": public_position(event["position"])}
    if event["type"] != "game-created":
        return dict(event)
    out = {k: v for k, v in event.items() if k != "seed"}
    out["seed_commitment"] = commitment(event["seed"])
    if state["status"] == "finished":
        out["seed"] = event["seed"]
    return out


def check_play(card: Any, onto: Any, to: Any) -> dict[str, Any]:
    """Would ``card`` go ``onto`` a foundation top or a column card (``None``: a new
    pile / an empty column)? ``{"legal", "code", "rule", "detail"}`` (code null when
    legal). ``to``: ``"foundation"`` (SF-F1) or ``"column"`` (SF-R1, SF-R4).
    Raises RuleViolation ``invalid-card`` / ``invalid-action`` (422) for bad input."""
    body = {"card": card} if onto is None else {"card": card, "onto": onto}
    parsed = read_card(body)
    target = None if onto is None else read_card(body, "onto")
    if to == FOUNDATION:
        refusal = foundation_refusal(parsed, target)
        if refusal is None:
            detail = (
                Message("%(card)s starts a new pile", card=parsed)
                if target is None
                else Message("%(card)s follows %(onto)s on its pile", card=parsed, onto=target)
            )
            return {"legal": True, "code": None, "rule": "SF-F1", "detail": detail}
    elif to == COLUMN:
        if target is None:
            return {
                "legal": True,
                "code": None,
                "rule": "SF-R4",
                "detail": Message(
                    "%(card)s may refill an empty column if it is your "
                    "13-pile top or waste top (a column card never moves "
                    "into an empty spot)",
                    card=parsed,
                ),
            }
        refusal = column_refusal(parsed, target)
        if refusal is None:
            return {
                "legal": True,
                "code": None,
                "rule": "SF-R1",
                "detail": Message(
                    "%(card)s builds down on %(onto)s in alternating colours",
                    card=parsed,
                    onto=target,
                ),
            }
    else:
        raise malformed(Message('"to" is "foundation" or "column"'), rule="SF-P2")
    return {"legal": False, "code": refusal.code, "rule": refusal.rule, "detail": refusal.detail}
