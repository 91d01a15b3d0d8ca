"""Turn flow shared by the moves: refusals, whose turn, the end of a turn, the draw,
the reshuffle and the stalemate (SQ-P1, SQ-T1, SQ-T4, SQ-T7, SQ-S3, SN-S1, SQ-E1)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from service.games import RuleViolation
from service.games.sequence.cards import (
    FREE,
    SIZE,
    STALEMATE_HARD_LIMIT,
    Cell,
    card_class,
    label_of,
    spaces_index,
)
from service.games.sequence.fold import _emit, deck_count
from service.games.sequence.lines import _locked_cells, can_still_build
from service.games.sequence.state import (
    Action,
    ChipGrid,
    Event,
    Grid,
    Reason,
    Result,
    SequenceRecord,
    SequenceState,
)
from service.messages import Message

_ACTION_KEYS = {
    "play": {"card", "cell", "sequence"},
    "remove-chip": {"card", "cell"},
    "exchange-dead-card": {"card"},
    "draw": {"card"},
    "pass": set(),
    "penalty": {"side", "offender"},
    "penalty-discard": {"card"},
}
_ACTION_RULES = {
    "play": "SQ-T1",
    "remove-chip": "SQ-T3",
    "exchange-dead-card": "SQ-T4",
    "draw": "SQ-T5",
    "pass": "SQ-T8",
    "penalty": "SQ-T6",
    "penalty-discard": "SQ-T6",
}
_ALWAYS = {"type", "seat", "expected_version"}


def _malformed(detail: Message, code: str = "invalid-action", rule: str = "SQ-P1") -> RuleViolation:
    return RuleViolation(code, detail, 422, rule=rule)


def _refuse(code: str, detail: Message, rule: str) -> RuleViolation:
    return RuleViolation(code, detail, 409, rule=rule)


def _mode_rule(state: SequenceState) -> str:
    """G-M1 (server dealing) or G-M2 (table dealing): who may act, and how."""
    return "G-M2" if state["options"]["dealing"] == "table" else "G-M1"


def _on_turn(state: SequenceState, seat: str) -> None:
    """Refuse unless ``seat`` may make a turn move now (409)."""
    if state["phase"] != "play":
        raise _refuse(
            "deal-not-finished",
            Message("the deal is not finished: report it with draws"),
            "SQ-P2" if state["game"] == "sequence" else "SN-P2",
        )
    if seat in state["penalty_due"]:
        raise _refuse(
            "penalty-due",
            Message(
                "%(seat)s must first discard a card for the table-talk penalty (SQ-T6)", seat=seat
            ),
            "SQ-T6",
        )
    if state["turn"] != seat:
        raise _refuse(
            "not-your-turn", Message("it is %(seat)s's turn", seat=state["turn"]), "SQ-P1"
        )
    if state["replacement_due"] == seat:
        raise _refuse(
            "draw-first", Message("report the replacement for the dead card first (SQ-T4)"), "SQ-T4"
        )


def _in_hand(state: SequenceState, seat: str, card: str, rule: str) -> None:
    if card not in state["hands"][seat]:
        raise _refuse(
            "card-not-in-hand",
            Message("%(card)s is not in %(seat)s's hand", card=card, seat=seat),
            rule,
        )


def _side_count(state: SequenceState, side: str) -> int:
    return sum(1 for s in state["sequences"] if s["side"] == side)


def _counts(state: SequenceState) -> dict[str, int]:
    return {side: _side_count(state, side) for side in state["teams"]}


def _finish(
    events: list[Event], state: SequenceState, reason: Reason, side: str | None = None
) -> SequenceState:
    """Emit ``game-ended`` ``{"result": RESULT}``. ``side`` reached its sequences
    (SQ-S3/SN-S1); without it (SQ-E1 ruling) the game is a draw, or with option
    ``stalemate`` most_sequences the side with more sequences wins (equal: a draw).
    RESULT: ``winners`` every seat of the winning side, ``scores`` each seat's side's
    sequences, ``reason``, ``"sequence": {"winning_side", "sequences": {side: n}}``."""
    counts = _counts(state)
    if side is None and state["options"]["stalemate"] == "most_sequences":
        best = max(counts.values())
        leaders = [s for s, n in counts.items() if n == best]
        side = leaders[0] if len(leaders) == 1 else None
    result: Result = {
        "winners": list(state["teams"][side]) if side else [],
        "scores": {seat: counts[state["sides"][seat]] for seat in state["seats"]},
        "reason": reason,
        "sequence": {"winning_side": side, "sequences": counts},
    }
    return _emit(events, state, {"type": "game-ended", "seat": None, "result": result})


def closed(
    board: Grid, chips: ChipGrid, sequences: list[SequenceRecord], sides: Iterable[str]
) -> bool:
    """SQ-E1 ruling: the board is closed when no space can take a new chip of a side that
    could still build a sequence there (``can_still_build`` for no side): placements
    alone can make no new sequence; only a remover (one-eyed Jack, MINUS) can open one.
    A board with every non-corner space covered is closed."""
    return not any(can_still_build(board, chips, sequences, side) for side in sides)


def board_closed(state: SequenceState) -> bool:
    """:func:`closed` for a game's state."""
    return closed(state["board"], state["chips"], state["sequences"], state["teams"])


def stalemate_due(decks: int, barren: int, is_closed: Callable[[], bool]) -> bool:
    """SQ-E1 ruling, judged at a reshuffle after ``barren`` consecutive whole decks
    without a new sequence: ``decks`` (option ``stalemate_decks``) of them once the board
    is closed (``is_closed()``, asked only then), ``4 * decks`` while it is open (every
    game ends)."""
    return barren >= STALEMATE_HARD_LIMIT * decks or (barren >= decks and is_closed())


def is_stalemate(state: SequenceState, barren: int) -> bool:
    """:func:`stalemate_due` for a game's state."""
    decks = state["options"]["stalemate_decks"]
    return stalemate_due(decks, barren, lambda: board_closed(state))


def _reshuffle(events: list[Event], state: SequenceState) -> SequenceState:
    """SQ-T7: the deck ran out: the discard piles become the new deck, unless SQ-E1 (c)
    ends the game as a stalemate (``is_stalemate``)."""
    total = len(state["sequences"])
    barren = state["barren"] + 1 if total == state["mark"] else 0
    if is_stalemate(state, barren):
        return _finish(events, state, "stalemate")
    count = sum(len(p) for p in state["discards"].values())
    return _emit(
        events,
        state,
        {
            "type": "deck-reshuffled",
            "seat": None,
            "number": state["reshuffles"] + 1,
            "cards": count,
        },
    )


def _server_draw(events: list[Event], state: SequenceState, seat: str) -> SequenceState:
    """Server mode: the seat draws the top card (reshuffling first if needed; a
    discard pile always holds a card then: see SQ-E1 in the module docstring)."""
    if not state["deck"]:
        state = _reshuffle(events, state)
        if state["status"] != "active":
            return state
    return _emit(events, state, {"type": "drawn", "seat": seat, "card": state["deck"][0]})


def _next_seat(state: SequenceState, seat: str) -> str:
    seats = state["seats"]
    return seats[(seats.index(seat) + 1) % len(seats)]


def _start_turn(events: list[Event], state: SequenceState, seat: str) -> SequenceState:
    return _emit(events, state, {"type": "turn-started", "seat": seat})


def _lose_stale_draw(events: list[Event], state: SequenceState, seat: str) -> SequenceState:
    """SQ-T5 (table mode): a seat that plays again still owing its last draw loses it."""
    if seat in state["pending_draws"]:
        state = _emit(events, state, {"type": "draw-lost", "seat": seat})
    return state


def _end_turn(events: list[Event], state: SequenceState, seat: str) -> SequenceState:
    """After a play or removal: win check (SQ-S3/SN-S1), the draw (server mode,
    SQ-T1, SQ-T3), the next seat's turn."""
    side = state["sides"][seat]
    if _side_count(state, side) >= state["sequences_to_win"]:
        return _finish(events, state, "sequences", side)
    if state["options"]["dealing"] == "server":
        state = _server_draw(events, state, seat)
        if state["status"] != "active":
            return state
    return _start_turn(events, state, _next_seat(state, seat))


def is_dead(state: SequenceState, card: str) -> bool:
    """SQ-T4: a face card whose two spaces are both covered (Jacks/PLUS/MINUS never)."""
    return _dead_on(state["game"], state["board"], state["chips"], card)


def _dead_on(game: str, board: Grid, chips: ChipGrid, card: str) -> bool:
    """``is_dead`` judged on a board and its chips alone."""
    if card_class(game, card) != "face":
        return False
    label = label_of(game, card)
    return all(chips[r][c] is not None for r, c in _cells_of(board, label))


def _cards_to_draw(state: SequenceState) -> bool:
    """A card can still be drawn: the deck, or a discard pile to reshuffle (SQ-T7)."""
    return deck_count(state) > 0 or any(state["discards"].values())


def can_exchange(state: SequenceState, seat: str, this_turn: bool = True) -> bool:
    """SQ-T4: ``seat`` holds a dead card and a replacement can be drawn (the deck or a
    discard pile holds a card); with ``this_turn`` also: it has not exchanged one yet
    this turn (without it: at the start of its next turn)."""
    if this_turn and state["exchanged"]:
        return False
    return _cards_to_draw(state) and any(is_dead(state, card) for card in state["hands"][seat])


def _cells_of(board: Grid, label: str | int) -> Iterator[Cell]:
    for r, row in enumerate(board):
        for c, value in enumerate(row):
            if value == label:
                yield (r, c)


def _plays(state: SequenceState, seat: str) -> list[Action]:
    """Every play and removal body ``seat`` could make with its hand now."""
    game, board, chips = state["game"], state["board"], state["chips"]
    side = state["sides"][seat]
    index = None
    locked = None
    out: list[Action] = []
    for card in dict.fromkeys(state["hands"][seat]):
        kind = card_class(game, card)
        if kind == "remover":
            if locked is None:
                locked = _locked_cells(state["sequences"])
            out += [
                {"type": "remove-chip", "card": card, "cell": [r, c]}
                for r in range(SIZE)
                for c in range(SIZE)
                if chips[r][c] not in (None, side) and (r, c) not in locked
            ]
        elif kind == "wild":
            out += [
                {"type": "play", "card": card, "cell": [r, c]}
                for r in range(SIZE)
                for c in range(SIZE)
                if chips[r][c] is None and board[r][c] != FREE
            ]
        else:
            if index is None:
                index = spaces_index(board)
            out += [
                {"type": "play", "card": card, "cell": [r, c]}
                for r, c in index.get(label_of(game, card), ())
                if chips[r][c] is None
            ]
    return out
