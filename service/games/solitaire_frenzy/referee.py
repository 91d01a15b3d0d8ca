"""The referee's actions in Solitaire Frenzy: retiring a seat (RULES.md SF-E3) and, in
table mode, recording a round's result (SF-M1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games import RuleViolation
from service.games.solitaire_frenzy.cards import PILE_SIZE
from service.games.solitaire_frenzy.errors import is_int, malformed, over_a_deck, refuse
from service.games.solitaire_frenzy.fold import emit
from service.games.solitaire_frenzy.rounds import close_round, end_game, settle
from service.games.solitaire_frenzy.state import Action, Event, FrenzyState
from service.messages import Message


def do_retire(state: FrenzyState, action: Action) -> list[Event]:
    """SF-E3: the seat left the table: its board cards stay, its pile, row and hand
    leave play (its penalty counts as the 13-pile stands now), SF-E1 ignores it and it
    plays no later round. With one seat left the round and the game end."""
    seat = action.get("seat")
    if seat not in state["seats"]:
        raise malformed(
            Message("seat must be one of %(seats)s", seats=state["seats"]), "invalid-seat", "SF-E3"
        )
    if seat not in state["active"]:
        raise refuse(
            "seat-retired", Message("%(seat)s has already left the table", seat=seat), "SF-E3"
        )
    layout = state["layouts"][seat]
    events: list[Event] = []
    state = emit(
        events,
        state,
        {"type": "seat-retired", "seat": seat, "pile": len(layout["pile"]) if layout else None},
    )
    if state["options"]["dealing"] == "server":
        settle(events, state)
    elif len(state["active"]) < 2:  # table mode: the unrecorded round is not scored
        end_game(events, state, "last-seat")
    return events


def _report_value(seat: str, entry: Mapping[str, Any], name: str, top: int) -> int:
    """SF-M1: one reported figure, an integer 0 to ``top``."""
    value = entry.get(name)
    if not is_int(value) or not 0 <= value <= top:
        where = f"results.{seat}.{name}"
        raise malformed(
            Message("%(field)s must be an integer 0 to %(most)s", field=where, most=top),
            "invalid-report",
            "SF-M1",
        )
    return value


def do_record(state: FrenzyState, action: Action) -> list[Event]:
    """SF-M1 (table mode): the referee's record of the round, per seat that started it:
    ``{"board": own cards on the board, "pile": cards left in the 13-pile, "out":
    went out}``. Checked: ranges (board 0-52, pile 0-13, together at most 52), at most
    one seat out, the seat out has 0 left and nobody else has 0 (the round ends as the
    last 13-pile card is played), and the optional ``board_total`` (cards on the board)
    and ``foundation_piles`` against the seats' boards (each pile holds 1 to 13 cards
    and starts with an Ace: at most 4 per deck)."""
    if state["options"]["dealing"] != "table":
        raise refuse(
            "not-table-mode",
            Message(
                "in server mode the service referees every card and ends the rounds itself (SF-E1)"
            ),
            "SF-M1",
        )
    results = action.get("results")
    seats = state["round_seats"]
    if not isinstance(results, dict) or set(results) != set(seats):
        raise malformed(
            Message(
                "results: one entry per seat of round %(round)s: %(seats)s",
                round=state["round"],
                seats=seats,
            ),
            "invalid-report",
            "SF-M1",
        )
    board, pile, out = {}, {}, []
    for seat in seats:
        entry = results[seat]
        where = f"results.{seat}"
        if not isinstance(entry, dict) or set(entry) - {"board", "pile", "out"}:
            raise malformed(
                Message('%(field)s: {"board", "pile", "out"}', field=where),
                "invalid-report",
                "SF-M1",
            )
        board[seat] = _report_value(seat, entry, "board", 52)
        pile[seat] = _report_value(seat, entry, "pile", PILE_SIZE)
        if board[seat] + pile[seat] > 52:
            raise malformed(over_a_deck(seat, board[seat], pile[seat]), "invalid-report", "SF-M1")
        if not isinstance(entry.get("out", False), bool):
            raise malformed(
                Message("%(field)s is true or false", field=where + ".out"),
                "invalid-report",
                "SF-M1",
            )
        if entry.get("out", False):
            out.append(seat)
    _check_report(state, board, pile, out, action)
    events: list[Event] = []
    close_round(events, state, "out" if out else "stuck", out[0] if out else None, board, pile)
    return events


def _check_report(
    state: FrenzyState, board: dict[str, int], pile: dict[str, int], out: list[str], action: Action
) -> None:
    def bad(code: str, detail: Message) -> RuleViolation:
        return malformed(detail, code, "SF-M1")

    if len(out) > 1:
        raise bad(
            "several-out",
            Message(
                "%(seats)s cannot all have gone out: the round ends "
                "when the first player plays their last 13-pile "
                "card (SF-E1)",
                seats=", ".join(out),
            ),
        )
    emptied = [s for s in pile if pile[s] == 0]
    if out and pile[out[0]]:
        raise bad(
            "out-with-cards",
            Message(
                "%(seat)s went out, so its 13-pile is empty, not %(count)s",
                seat=out[0],
                count=pile[out[0]],
            ),
        )
    if emptied and emptied != out:
        raise bad(
            "empty-pile-not-out",
            Message(
                "%(seat)s has no 13-pile card left, so it "
                'went out: mark it "out" (only one player '
                "can)",
                seat=emptied[0],
            ),
        )
    total = sum(board.values())
    reported = action.get("board_total")
    if reported is not None and (not is_int(reported) or reported != total):
        raise bad(
            "board-total-mismatch",
            Message(
                "the seats' boards add up to %(total)s, not %(reported)s",
                total=total,
                reported=repr(reported),
            ),
        )
    piles = action.get("foundation_piles")
    if piles is not None:
        decks = len(state["round_seats"])
        if not is_int(piles) or not 0 <= piles <= 4 * decks:
            raise bad(
                "invalid-report",
                Message("foundation_piles is 0 to %(most)s (one per Ace)", most=4 * decks),
            )
        if not piles <= total <= 13 * piles:
            raise bad(
                "board-total-mismatch",
                Message(
                    "%(piles)s foundation piles hold 1 to "
                    "13 cards each, so not %(total)s cards "
                    "in all",
                    piles=piles,
                    total=total,
                ),
            )


REFEREE_HANDLERS = {"retire": do_retire, "record-round": do_record}
