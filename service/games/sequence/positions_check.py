"""The reachability checks of a stated position (G-P1): the turn, owed draws, penalties,
hand sizes, the SQ-E1 counters and a finished game's result. Each refusal is a 422
``invalid-position`` naming the field and the rule the position breaks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

from service.games import RuleViolation
from service.games.sequence.cards import _is_int, card_class
from service.games.sequence.state import ChipGrid, Grid, SequenceRecord, Setup
from service.games.sequence.turn import _dead_on, closed, stalemate_due
from service.messages import Message

REASONS = ("sequences", "stalemate", "no-legal-play", "idle")


class Placed(TypedDict):
    """A stated position as ``positions._read`` reads it before these checks: the
    board, the cards in their places, and the game's cards no place holds (``rest``)."""

    game: str
    board: Grid
    chips: ChipGrid
    sequences: list[SequenceRecord]
    hands: dict[str, list[str] | int]  # a count: dealt from the seed
    discards: dict[str, list[str]]
    deck: list[str] | None  # None: not stated
    rest: list[str]


class TurnRead(TypedDict):
    """What ``check_turn`` fills in."""

    turn: str | None
    phase: Literal["deal", "play"]
    turn_number: int


class FlowRead(TypedDict):
    """What ``check_flow`` fills in."""

    owed_draws: list[str]
    replacement_due: str | None
    exchanged: bool
    lost_draws: dict[str, int]
    penalty_due: list[str]


class StatedResult(TypedDict):
    """A stated result (as given; None for a running game) and the side that won it."""

    result: dict[str, Any] | None
    winning_side: str | None


class CountersRead(StatedResult):
    """What ``check_counters`` fills in."""

    reshuffles: int
    passes: int
    decks_without_sequence: int
    sequences_at_reshuffle: int


class ReadPosition(Placed, TurnRead, FlowRead, CountersRead):
    """The validated, normalised position (``positions._read``)."""


def position_error(detail: Message | str, field: str, rule: str) -> RuleViolation:
    """422 ``invalid-position`` naming ``field`` (``extra``) and the rule broken."""
    return RuleViolation("invalid-position", detail, 422, rule=rule, extra={"field": field})


def _int(
    position: Mapping[str, Any], name: str, default: int, low: int, high: int, rule: str
) -> int:
    value = position.get(name)
    if value is None:
        return default
    if not _is_int(value) or not low <= value <= high:
        raise position_error(
            Message(
                "%(field)s must be an integer from %(low)s to %(high)s",
                field=name,
                low=low,
                high=high,
            ),
            name,
            rule,
        )
    return value


def _seat_list(position: Mapping[str, Any], name: str, seats: list[str]) -> list[str]:
    value = position.get(name) or []
    if not (
        isinstance(value, list) and all(s in seats for s in value) and len(set(value)) == len(value)
    ):
        raise position_error(
            Message("%(field)s must list different seats of this game", field=name), name, "G-P1"
        )
    return value


def _held(hand: list[str] | int) -> int:
    return hand if isinstance(hand, int) else len(hand)


def _hand_rule(read: Placed) -> str:
    return "SQ-P2" if read["game"] == "sequence" else "SN-P2"


def _completed(seats: list[str], first: str, turn_number: int, seat: str) -> int:
    """Turns ``seat`` has finished before the ``turn_number``-th turn (SQ-P1: seat order
    from ``first``)."""
    n, done = len(seats), turn_number - 1
    offset = (seats.index(seat) - seats.index(first)) % n
    return done // n + (1 if offset < done % n else 0)


def _chips_fit(setup: Setup, read: Placed, turn_number: int) -> str | None:
    """The first side with more chips than its seats have had turns (SQ-T1), or None."""
    seats, first = setup["seats"], setup["options"]["first_seat"]
    for side, members in setup["teams"].items():
        chips = sum(row.count(side) for row in read["chips"])
        if chips > sum(_completed(seats, first, turn_number, s) for s in members):
            return side
    return None


def _discards_fit(setup: Setup, read: Placed, turn_number: int, turn: str) -> str | None:
    """The first seat whose discard pile holds more cards than its turns could lay there
    (SQ-T1, SQ-T4: a play and a dead card exchanged a turn, the turn in play's exchange;
    SQ-T6: a team's seat also its table-talk discards, a hand's worth at most), or None.
    A reshuffle (SQ-T7) only takes cards away."""
    seats, first = setup["seats"], setup["options"]["first_seat"]
    for seat in seats:
        turns = 2 * _completed(seats, first, turn_number, seat) + (seat == turn)
        talk = setup["hand_size"] if len(setup["teams"][setup["sides"][seat]]) > 1 else 0
        if len(read["discards"][seat]) > turns + talk:
            return seat
    return None


def check_turn(position: Mapping[str, Any], setup: Setup, read: Placed) -> TurnRead:
    """SQ-P1: whose turn (a seat; none only during a table deal or once the game is
    over), the turn number (consistent with ``first_seat`` and seat order), and no side
    with more chips than its seats have had turns (SQ-T1). Fills ``turn``,
    ``turn_number`` and ``phase``."""
    seats, table = setup["seats"], setup["options"]["dealing"] == "table"
    turn, finished = position.get("turn"), position.get("result") is not None
    if turn is not None and turn not in seats:
        raise position_error(
            Message("turn: %(seat)s is not a seat of this game", seat=repr(turn)), "turn", "SQ-P1"
        )
    size = setup["hand_size"]
    dealt = all(_held(h) == size for h in read["hands"].values())
    if finished:
        if turn is not None:
            raise position_error(Message("a finished game has no turn"), "turn", "SQ-E1")
        return {
            "turn": None,
            "phase": "play",
            "turn_number": _int(position, "turn_number", 0, 0, 10**6, "SQ-P1"),
        }
    if turn is None:
        busy = (
            any(row.count(None) < len(row) for row in read["chips"])
            or read["sequences"]
            or any(read["discards"].values())
        )
        if not table or busy or dealt:
            raise position_error(
                Message("the turn is held by nobody: name the seat to play"), "turn", "SQ-P1"
            )
        _int(position, "turn_number", 0, 0, 0, "SQ-P1")
        return {"turn": None, "phase": "deal", "turn_number": 0}
    return {"turn": turn, "phase": "play", "turn_number": _turn_number(position, setup, read)}


def _turn_number(position: Mapping[str, Any], setup: Setup, read: Placed) -> int:
    seats, first, turn = setup["seats"], setup["options"]["first_seat"], position["turn"]
    base = (seats.index(turn) - seats.index(first)) % len(seats) + 1
    given = position.get("turn_number")
    if given is None:  # the least that holds the chips, the discards and the passes
        number, passes = base, position.get("passes")
        passes = min(passes, len(seats)) if _is_int(passes) else 0  # checked later
        while (
            _chips_fit(setup, read, number)
            or _discards_fit(setup, read, number, turn)
            or number <= passes
        ):
            number += len(seats)
        return number
    number = _int(position, "turn_number", 1, 1, 10**6, "SQ-P1")
    if (number - base) % len(seats):
        raise position_error(
            Message(
                "turn %(number)s cannot be %(seat)s's: play goes in seat order from %(first)s",
                number=number,
                seat=turn,
                first=first,
            ),
            "turn_number",
            "SQ-P1",
        )
    side = _chips_fit(setup, read, number)
    if side:
        raise position_error(
            Message(
                "%(side)s has more chips on the board than its seats have had turns", side=side
            ),
            f"chips.{side}",
            "SQ-T1",
        )
    seat = _discards_fit(setup, read, number, turn)
    if seat:
        raise position_error(
            Message(
                "%(seat)s's discard pile holds more cards than its turns could lay there",
                seat=seat,
            ),
            f"discards.{seat}",
            "SQ-T1",
        )
    return number


def check_flow(
    position: Mapping[str, Any], setup: Setup, read: Placed, turn_number: int
) -> FlowRead:
    """Owed draws (SQ-T5), a dead card's replacement and the exchange (SQ-T4), penalties
    (SQ-T6), lost draws, and every hand within its size (SQ-P2 / SN-P2) less the draws
    it owes or lost. Server dealing owes and loses no draw (G-M1)."""
    seats, table = setup["seats"], setup["options"]["dealing"] == "table"
    owed = _seat_list(position, "owed_draws", seats)
    replacement = position.get("replacement_due")
    lost = position.get("lost_draws") or {}
    if not isinstance(lost, dict) or any(
        s not in seats or not _is_int(n) or n < 0 for s, n in lost.items()
    ):
        raise position_error(Message("lost_draws: {seat: count}"), "lost_draws", "SQ-T5")
    first = setup["options"]["first_seat"]
    for seat, n in lost.items():  # a draw lost is a play's (a finished game: turn 0)
        played = _completed(seats, first, turn_number, seat) if turn_number else n
        if n > played:
            raise position_error(
                Message(
                    "%(seat)s lost %(count)s draws, more than the %(turns)s turns it has had",
                    seat=seat,
                    count=n,
                    turns=played,
                ),
                f"lost_draws.{seat}",
                "SQ-T5",
            )
    if replacement is not None and replacement not in seats:
        raise position_error(
            Message(
                "%(field)s: %(seat)s is not a seat of this game",
                field="replacement_due",
                seat=repr(replacement),
            ),
            "replacement_due",
            "SQ-P1",
        )
    if not table and (owed or replacement is not None or any(lost.values())):
        field = "owed_draws" if owed else ("replacement_due" if replacement else "lost_draws")
        raise position_error(
            Message("in server dealing the draw is part of the turn: no draw is owed or lost"),
            field,
            "G-M1",
        )
    for seat in owed:
        if not read["discards"][seat]:
            raise position_error(
                Message("%(seat)s owes a draw but has not played", seat=seat), "owed_draws", "SQ-T5"
            )
    exchanged = _exchanged(position, read)
    if replacement is not None and (replacement != position.get("turn") or not exchanged):
        raise position_error(
            Message("only the seat on turn that exchanged a dead card owes its replacement"),
            "replacement_due",
            "SQ-T4",
        )
    penalty = _penalties(position, setup, read)
    for seat, hand in read["hands"].items():
        room = setup["hand_size"] - (seat in owed) - (seat == replacement) - lost.get(seat, 0)
        if _held(hand) > room:
            raise position_error(
                Message(
                    "%(seat)s holds %(count)s cards, more than the %(most)s it can hold",
                    seat=seat,
                    count=_held(hand),
                    most=max(room, 0),
                ),
                f"hands.{seat}",
                _hand_rule(read),
            )
    return {
        "owed_draws": owed,
        "replacement_due": replacement,
        "exchanged": exchanged,
        "lost_draws": {s: lost.get(s, 0) for s in seats},
        "penalty_due": penalty,
    }


def _exchanged(position: Mapping[str, Any], read: Placed) -> bool:
    """SQ-T4: a dead card exchanged this turn lies on the seat's discard pile: on top,
    or under the table-talk discards made since (SQ-T6); the board has not changed
    since, so it is dead still."""
    value = position.get("exchanged", False)
    if not isinstance(value, bool):
        raise position_error(Message("exchanged must be true or false"), "exchanged", "SQ-T4")
    if not value or position.get("result") is not None:
        return value  # a finished game keeps its last turn's flag
    turn = position.get("turn")
    pile = read["discards"].get(turn) if turn else None
    if not pile or not any(
        _dead_on(read["game"], read["board"], read["chips"], card) for card in pile
    ):
        raise position_error(
            Message("no dead card lies on the discard pile of the seat on turn"),
            "exchanged",
            "SQ-T4",
        )
    return True


def _penalties(position: Mapping[str, Any], setup: Setup, read: Placed) -> list[str]:
    """SQ-T6: a penalty falls on a team of two or more, on members holding a card."""
    due = _seat_list(position, "penalty_due", setup["seats"])
    for seat in due:
        side = setup["sides"][seat]
        if len(setup["teams"][side]) < 2 or not _held(read["hands"][seat]):
            raise position_error(
                Message(
                    "%(seat)s cannot owe a table-talk discard: a side of "
                    "one player, or an empty hand",
                    seat=seat,
                ),
                "penalty_due",
                "SQ-T6",
            )
    return due


def check_counters(
    position: Mapping[str, Any], setup: Setup, read: Placed, turn_number: int
) -> CountersRead:
    """SQ-T7 / SQ-E1 counters (reshuffles, counted passes below a full round, whole decks
    without a new sequence below the stalemate limit) and the result: a running game
    where a side has reached its sequences, or a stated result the position does not
    bear out, is refused (SQ-S3 / SN-S1, SQ-E1). Before any reshuffle the empty
    discard piles must fit the passes (``_silent_seats``); in server dealing no hand may
    be shorter than its draws allow (``_short_hands``)."""
    options, sequences = setup["options"], read["sequences"]
    finished = position.get("result") is not None
    reshuffles = _int(position, "reshuffles", 0, 0, 10**6, "SQ-T7")
    most = len(setup["seats"]) if finished else len(setup["seats"]) - 1
    passes = _int(position, "passes", 0, 0, most, "SQ-E1")
    barren = _int(
        position,
        "decks_without_sequence",
        0,
        0,
        min(reshuffles, 4 * options["stalemate_decks"] - (not finished)),
        "SQ-E1",
    )
    mark = _int(
        position,
        "sequences_at_reshuffle",
        len(sequences) if reshuffles else 0,
        0,
        len(sequences) if reshuffles else 0,
        "SQ-E1",
    )
    if not reshuffles:
        _chips_played(setup, read)
        if not finished and turn_number:
            _silent_seats(setup, read, turn_number, passes)
    if not finished and setup["options"]["dealing"] == "server":
        _short_hands(setup, read, reshuffles)
    return {
        "reshuffles": reshuffles,
        "passes": passes,
        "decks_without_sequence": barren,
        "sequences_at_reshuffle": mark,
        **_result(position, setup, read, passes, _stalemated(setup, read, barren, mark)),
    }


def _chips_played(setup: Setup, read: Placed) -> None:
    """SQ-T1/SQ-T2: before any reshuffle every chip on the board was placed by a card
    still on its side's discard piles (a face card or a wild)."""
    for side, members in setup["teams"].items():
        chips = sum(row.count(side) for row in read["chips"])
        placing = sum(
            1
            for seat in members
            for card in read["discards"][seat]
            if card_class(read["game"], card) != "remover"
        )
        if chips > placing:
            raise position_error(
                Message(
                    "%(side)s has %(chips)s chips on the board but its "
                    "discard piles hold only %(cards)s cards that place "
                    "a chip",
                    side=side,
                    chips=chips,
                    cards=placing,
                ),
                f"chips.{side}",
                "SQ-T1",
            )


def _silent_seats(setup: Setup, read: Placed, turn_number: int, passes: int) -> None:
    """SQ-E1 before any reshuffle: a seat whose discard pile is empty passed every turn
    it had (a play, a removal, an exchange and a table-talk discard each lay a card
    there), so the latest turns, back to the last one of a seat that laid a card, are
    among the counted passes in a row; when no seat has laid a card, every turn was a
    pass and a whole round of them would have ended the game. (Only the latter in
    table dealing, where a late draw starts the count again, and in team play, where a
    table-talk discard does.)"""
    seats, first = setup["seats"], setup["options"]["first_seat"]
    done = turn_number - 1
    if passes > done:
        raise position_error(
            Message(
                "passes counts %(passes)s passes, more than the %(turns)s turns played",
                passes=passes,
                turns=done,
            ),
            "passes",
            "SQ-E1",
        )
    silent = {seat for seat in seats if not read["discards"][seat]}
    plain = setup["options"]["dealing"] == "server" and all(
        len(members) == 1 for members in setup["teams"].values()
    )
    if len(silent) < len(seats) and not plain:
        return
    latest = [seats[(seats.index(first) + done - k - 1) % len(seats)] for k in range(len(seats))]
    forced = 0  # the latest turns (a round at most), each a seat's that laid no card
    while forced < min(done, len(seats)) and latest[forced] in silent:
        forced += 1
    if passes < forced:
        raise position_error(
            Message(
                "passes must be at least %(least)s: no card lies on the discard piles of the "
                "seats that played the latest turns (%(seats)s)",
                least=forced,
                seats=", ".join(reversed(latest[:forced])),
            )
            if forced < len(seats)
            else Message(
                "no seat has laid a card in %(turns)s turns: a whole round of passes would "
                "have ended the game",
                turns=done,
            ),
            "passes" if forced < len(seats) else "turn_number",
            "SQ-E1",
        )


def _short_hands(setup: Setup, read: Placed, reshuffles: int) -> None:
    """SQ-P2 / SN-P2, server dealing, a running game: the draw is part of every turn
    (G-M1), so a hand is short only by table-talk discards (SQ-T6), which fall on teams
    and lie on the seat's discard pile (until a reshuffle takes them): a seat that is a
    side of its own always holds a whole hand, and before any reshuffle a team's seat
    holds at least its hand size less its discard pile."""
    size = setup["hand_size"]
    for seat, hand in read["hands"].items():
        alone = len(setup["teams"][setup["sides"][seat]]) == 1
        pile = len(read["discards"][seat])
        if alone and _held(hand) != size:
            detail = Message(
                "%(seat)s holds %(count)s cards: in server dealing a seat that is a side of "
                "its own always holds %(size)s",
                seat=seat,
                count=_held(hand),
                size=size,
            )
        elif not alone and not reshuffles and _held(hand) < size - pile:
            detail = Message(
                "%(seat)s holds %(count)s cards: every draw was made, and only its "
                "%(discards)s discarded cards can be table-talk discards",
                seat=seat,
                count=_held(hand),
                discards=pile,
            )
        else:
            continue
        raise position_error(detail, f"hands.{seat}", _hand_rule(read))


def _stalemated(setup: Setup, read: Placed, barren: int, mark: int) -> bool:
    """SQ-E1: a stalemate is judged when the deck runs out again (``turn.is_stalemate``),
    so the deck that just ran out counts too, unless it brought a new sequence."""
    decks = barren + 1 if len(read["sequences"]) == mark else 0
    return stalemate_due(
        setup["options"]["stalemate_decks"],
        decks,
        lambda: closed(read["board"], read["chips"], read["sequences"], setup["teams"]),
    )


def _result(
    position: Mapping[str, Any], setup: Setup, read: Placed, passes: int, stalemated: bool
) -> StatedResult:
    """The stated result, if any: a side that reached its sequences ends the game
    (SQ-S3 / SN-S1); else the reason must be one the counters bear out (SQ-E1): a whole
    round of counted passes for ``no-legal-play`` and ``idle`` (``idle`` only with
    option ``idle_seconds``, G-T1), at least ``stalemate_decks`` whole decks without a
    new sequence for ``stalemate``, counted as the stalemate ruling counts them
    (``_stalemated``)."""
    win_rule = "SQ-S3" if read["game"] == "sequence" else "SN-S1"
    counts = {side: 0 for side in setup["teams"]}
    for entry in read["sequences"]:
        counts[entry["side"]] += 1
    reached = [side for side, n in counts.items() if n >= setup["sequences_to_win"]]
    result = position.get("result")
    if result is None:
        if reached:
            raise position_error(
                Message(
                    "%(side)s has reached its sequences: the game would be over", side=reached[0]
                ),
                "sequences",
                win_rule,
            )
        return {"result": None, "winning_side": None}
    if not isinstance(result, dict) or result.get("reason") not in REASONS:
        raise position_error(
            Message("result.reason must be one of %(reasons)s", reasons=", ".join(REASONS)),
            "result.reason",
            "SQ-E1",
        )
    reason = result["reason"]
    if (reason == "sequences") != bool(reached) or len(reached) > 1:
        raise position_error(
            Message("the result does not match the sequences on the board"),
            "result.reason",
            win_rule if reason == "sequences" else "SQ-E1",
        )
    options, round_of_passes = setup["options"], passes == len(setup["seats"])
    borne_out = {
        "sequences": True,
        "no-legal-play": round_of_passes,
        "idle": round_of_passes and options.get("idle_seconds") is not None,
        "stalemate": not round_of_passes and stalemated,
    }[reason]
    if not borne_out:
        raise position_error(
            Message("result.%(key)s does not match the position", key="reason"),
            "result.reason",
            "G-T1" if reason == "idle" else "SQ-E1",
        )
    return {"result": result, "winning_side": reached[0] if reached else None}


def check_result(stated: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    """A stated result's members must be those the position gives (SQ-E1, SQ-S3)."""
    for key, value in stated.items():
        if result.get(key) != value:
            raise position_error(
                Message("result.%(key)s does not match the position", key=key),
                f"result.{key}",
                "SQ-E1",
            )
