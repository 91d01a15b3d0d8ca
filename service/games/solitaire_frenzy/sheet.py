"""The score sheet a stated position carries (G-P1): the ended rounds (``history``),
each as the referee's record of it would have to be, and the running totals they add
up to (SF-E1, SF-E2). Read by :mod:`service.games.solitaire_frenzy.positions`."""

from __future__ import annotations

from typing import Any

from service.games.solitaire_frenzy.cards import PILE_SIZE
from service.games.solitaire_frenzy.errors import count, invalid, is_int, over_a_deck, shape
from service.games.solitaire_frenzy.state import Retirement, RoundRecord
from service.messages import Message


def read_history(raw: Any, seats: list[str], number: int, penalty: int) -> list[RoundRecord]:
    """SF-E2: the ended rounds 1.. in order, each score board - penalty x pile."""
    if not isinstance(raw, list) or len(raw) not in (number - 1, number):
        raise shape("history", f"[round 1, ..., round {number - 1} (or {number})]", "SF-E2")
    out: list[RoundRecord] = []
    for i, entry in enumerate(raw):
        where = f"history[{i}]"
        keys = {"round", "reason", "out", "board", "pile", "scores"}
        if (
            not isinstance(entry, dict)
            or set(entry) != keys
            or entry["round"] != i + 1
            or entry["reason"] not in ("out", "stuck", "last-seat")
            or (entry["out"] is not None and entry["out"] not in seats)
        ):
            raise shape(
                where,
                f'{{"round": {i + 1}, "reason": out | stuck | last-seat, '
                '"out", "board", "pile", "scores"}',
                "SF-E2",
            )
        board, pile, scores = entry["board"], entry["pile"], entry["scores"]
        if not all(
            isinstance(d, dict)
            and set(d) <= set(seats)
            and set(d) == set(board)
            and all(is_int(v) for v in d.values())
            for d in (board, pile, scores)
        ):
            raise shape(where, "{seat: integer} x 3 (board, pile, scores)", "SF-E2")
        _check_record(entry, where, seats)
        for seat in board:
            if scores[seat] != board[seat] - penalty * pile[seat]:
                raise invalid(
                    f"{where}.scores.{seat}",
                    Message(
                        "%(field)s: %(seat)s scored %(board)s on the board and %(pile)s left in "
                        "the 13-pile, so %(score)s, not %(value)s",
                        field=f"{where}.scores.{seat}",
                        seat=seat,
                        board=board[seat],
                        pile=pile[seat],
                        score=board[seat] - penalty * pile[seat],
                        value=scores[seat],
                    ),
                    "SF-E2",
                )
        out.append(
            {
                "round": entry["round"],
                "reason": entry["reason"],
                "out": entry["out"],
                "board": board,
                "pile": pile,
                "scores": scores,
            }
        )
    return out


def _check_record(entry: dict[str, Any], where: str, seats: list[str]) -> None:
    """One ended round as the referee's record of it would have to be (SF-M1): board
    0 to 52 and 13-pile 0 to 13 per seat, together at most a deck; a round ended
    ``out`` names the one seat that went out, with an empty 13-pile, and every other
    seat still holds 13-pile cards (the round ends as the first one empties, SF-E1)."""
    board, pile, out = entry["board"], entry["pile"], entry["out"]
    for seat in board:
        count(board[seat], f"{where}.board.{seat}", 52, "SF-E2")
        count(pile[seat], f"{where}.pile.{seat}", PILE_SIZE, "SF-E2")
        if board[seat] + pile[seat] > 52:
            raise invalid(
                f"{where}.board.{seat}", over_a_deck(seat, board[seat], pile[seat]), "SF-E2"
            )
    if (entry["reason"] == "out") != (out is not None) or (out is not None and out not in board):
        expected = " | ".join(sorted(board)) if entry["reason"] == "out" else "null"
        raise shape(f"{where}.out", expected, "SF-E1")
    for seat in board:
        if (pile[seat] == 0) != (seat == out):
            raise shape(f"{where}.pile.{seat}", "0" if seat == out else f"1..{PILE_SIZE}", "SF-E1")


def check_round_seats(
    history: list[RoundRecord],
    seats: list[str],
    retired: dict[str, Retirement],
    left_alone: bool,
) -> None:
    """SF-E3: each ended round's record lists exactly the seats that played it (a seat
    that left in round k is in round k's record, with the 13-pile it left with, and in
    no later one), and a round the last seat's retirement ended is the game's last
    (``left_alone``: the game is over with fewer than two seats still playing)."""
    for i, record in enumerate(history):
        where, number = f"history[{i}]", record["round"]
        playing = [s for s in seats if s not in retired or retired[s]["round"] >= number]
        if set(record["board"]) != set(playing):
            raise shape(f"{where}.board", " ".join(playing) + " (the seats of the round)", "SF-E3")
        for seat in playing:
            left = retired.get(seat)
            if (
                left
                and left["round"] == number
                and left["pile"] not in (None, record["pile"][seat])
            ):
                raise invalid(
                    f"{where}.pile.{seat}",
                    Message(
                        "%(seat)s left round %(round)s with %(count)s cards in its 13-pile",
                        seat=seat,
                        round=number,
                        count=left["pile"],
                    ),
                    "SF-E3",
                )
        if record["reason"] == "last-seat" and (i < len(history) - 1 or not left_alone):
            raise invalid(
                f"{where}.reason",
                Message("the last seat's retirement ends the game: no round follows it"),
                "SF-E3",
            )


def read_totals(
    raw: Any, seats: list[str], history: list[RoundRecord] | None, number: int, penalty: int
) -> dict[str, int]:
    """SF-E2: the running totals; they add up the history when it is given, else lie
    within what the rounds played could give."""
    if raw is None:
        raw = {s: sum(r["scores"].get(s, 0) for r in history or []) for s in seats}
    if (
        not isinstance(raw, dict)
        or set(raw) != set(seats)
        or not all(is_int(v) for v in raw.values())
    ):
        raise shape("totals", "{seat: integer} (every seat)", "SF-E2")
    for seat in seats:
        if history is not None:
            due = sum(r["scores"].get(seat, 0) for r in history)
            ok = raw[seat] == due
        else:
            played = number - 1
            ok = -PILE_SIZE * penalty * played <= raw[seat] <= 52 * played
        if not ok:
            raise invalid(
                f"totals.{seat}",
                Message(
                    "%(field)s: %(value)s cannot be %(seat)s's total after the rounds played "
                    "(SF-E2: +1 per own card on the board, minus the 13-pile penalty)",
                    field=f"totals.{seat}",
                    value=raw[seat],
                    seat=seat,
                ),
                "SF-E2",
            )
    return dict(raw)
