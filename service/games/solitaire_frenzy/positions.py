"""Solitaire Frenzy positions (RULES.md G-P1): start a game from a stated position and
read a game's position, in one notation.

A position (JSON)::

    {"game": "solitaire-frenzy",
     "round": 2,                                   # the round in play (1..rounds)
     "totals": {"p1": 5, "p2": -3},                # running totals before this round
     "history": [{"round": 1, "reason": "stuck", "out": null, "board": {...},
                  "pile": {...}, "scores": {...}}],  # optional: the ended rounds
     "retired": {"p3": {"round": 1, "pile": 4}},   # SF-E3: who left, when, 13-pile then
     "foundations": [{"id": 1, "cards": [{"card": "AH", "seat": "p1"}, ...]}],
     "players": {"p1": {
         "pile": ["..", "5H"],                     # the 13-pile, top LAST; or
                                                   #   "pile_top": "5H", "pile_size": 7
         "columns": [["KS", "QH"], [], ["9C"], []],  # exposed card LAST
         "hand": ["..."],                          # next to turn FIRST; or "hand_size"
         "waste": ["..", "9D"],                    # top LAST; or "waste_top", "waste_size"
         "cycle": "turning"}}}                     # the turning position, below

``cycle`` says what the table has seen of the seat's turning (SF-E1, SF-H1):
``"turning"``: the seat is in a pass through its hand with no waste card played since
its last pick-up (or the deal), so its waste is that pass's groups of three;
``"known"``: it has turned through its whole hand that way, so every card turning
reaches has been seen; ``"broken"``: a waste card was played since its last pick-up.
Default: ``"turning"`` when the waste is empty, else ``"broken"``.

Cards a position leaves out (a pile, hand or waste given by its size, below its top)
are the seat's deck minus every card placed, shuffled from the seed (label
``position-SEAT``) and laid pile, waste, hand. ``players`` may be left out in table
mode (the score sheet alone). The history, if given, must add up to the totals
(:mod:`service.games.solitaire_frenzy.sheet` reads both); a history holding the
current round means that round ended, so the game is over.

Refusals: RuleViolation ``invalid-position`` (422) naming the ``field`` (extra) and the
rule broken: G-P1 (notation, a card twice or missing, a seat unknown), SF-P1 (a 13-pile
over 13 cards, not 4 columns), SF-F1 (a foundation out of sequence, two open piles of
a suit with ``one_pile_per_suit``), SF-R1 (a column not built down in alternating
colours), SF-H1 (a waste that cannot come from turning three at a time), SF-E2 (a
round out of range, totals that do not add up), SF-E3 (a retirement that cannot be).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

from service.cards import DECK, CardError, parse_card
from service.games.solitaire_frenzy.cards import (
    COLUMNS,
    GAME,
    PILE_SIZE,
    TURN_SIZE,
    ace,
    builds_on,
    next_card,
)
from service.games.solitaire_frenzy.errors import count, invalid, is_int, shape
from service.games.solitaire_frenzy.sheet import check_round_seats, read_history, read_totals
from service.games.solitaire_frenzy.state import (
    Foundation,
    Options,
    PileEntry,
    Retirement,
)
from service.messages import Message

SourceName = Literal["pile", "hand", "waste"]
Cycle = Literal["turning", "known", "broken"]
CYCLES: tuple[Cycle, ...] = ("turning", "known", "broken")
SOURCES: tuple[SourceName, ...] = ("pile", "hand", "waste")


class Source(TypedDict, total=False):
    """A seat's pile, hand or waste as read: ``cards`` given whole, or its ``size``
    and (pile and waste) its face-up ``top``, None when empty."""

    cards: list[str]
    size: int
    top: str | None


class ReadSeat(TypedDict):
    """One seat of a position as read (:func:`read_seat`), cards canonical."""

    columns: list[list[str]]
    pile: Source
    hand: Source
    waste: Source
    cycle: Cycle


def _card(raw: Any, field: str) -> str:
    try:
        card = parse_card(raw) if isinstance(raw, str) else None
    except CardError:
        card = None
    if card is None or card == "JK":
        raise invalid(
            field,
            Message(
                "%(field)s: %(value)s is not a card of a 52-card deck", field=field, value=repr(raw)
            ),
        )
    return card


def _cards(raw: Any, field: str, most: int = 52) -> list[str]:
    if not isinstance(raw, list) or len(raw) > most:
        raise shape(field, f"[card, ...] (0..{most})")
    return [_card(c, f"{field}[{i}]") for i, c in enumerate(raw)]


# ----- reading a position ---------------------------------------------------------------


def _foundations(raw: Any, seats: list[str], one_per_suit: bool) -> list[Foundation]:
    """SF-F1: each pile an Ace then one rank up in its suit; owners are seats."""
    if not isinstance(raw, list):
        raise shape("foundations", '[{"id", "cards"}, ...]')
    piles: list[Foundation] = []
    ids: set[int] = set()
    for i, pile in enumerate(raw):
        where = f"foundations[{i}]"
        if not isinstance(pile, dict) or set(pile) - {"id", "cards", "suit", "top"}:
            raise shape(where, '{"id", "cards": [{"card", "seat"}, ...]}')
        number = pile.get("id", i + 1)
        if not is_int(number) or number < 1 or number in ids:
            raise shape(f"{where}.id", "1, 2, ... (unique)", "SF-F1")
        ids.add(number)
        entries = pile.get("cards")
        if not isinstance(entries, list) or not 1 <= len(entries) <= 13:
            raise shape(f"{where}.cards", '[{"card", "seat"}, ...] (1..13)', "SF-F1")
        cards: list[PileEntry] = []
        for j, entry in enumerate(entries):
            at = f"{where}.cards[{j}]"
            if not isinstance(entry, dict) or set(entry) != {"card", "seat"}:
                raise shape(at, '{"card", "seat"}')
            card = _card(entry["card"], f"{at}.card")
            if entry["seat"] not in seats:
                raise shape(f"{at}.seat", " | ".join(seats))
            expected = None if j == 0 else next_card(cards[-1]["card"])
            if (j == 0 and not ace(card)) or (j > 0 and card != expected):
                raise invalid(
                    at,
                    Message(
                        "%(field)s: %(card)s is out of sequence: a foundation pile starts with an "
                        "Ace and grows one rank at a time in its suit",
                        field=at,
                        card=card,
                    ),
                    "SF-F1",
                )
            cards.append({"card": card, "seat": entry["seat"]})
        piles.append({"id": number, "suit": cards[0]["card"][-1], "cards": cards})
    if one_per_suit:
        open_suits = [p["suit"] for p in piles if len(p["cards"]) < 13]
        twice = next((s for s in open_suits if open_suits.count(s) > 1), None)
        if twice is not None:
            raise invalid(
                "foundations",
                Message(
                    "two open foundation piles of %(suit)s: one_pile_per_suit allows one per "
                    "suit until it is complete",
                    suit=twice,
                ),
                "SF-F1",
            )
    return piles


def _columns(raw: Any, field: str) -> list[list[str]]:
    """SF-P1: four columns; SF-R1: each built down in alternating colours."""
    if not isinstance(raw, list) or len(raw) != COLUMNS:
        raise shape(field, "[[card, ...] x 4]", "SF-P1")
    columns = [_cards(c, f"{field}[{i}]", 13) for i, c in enumerate(raw)]
    for i, column in enumerate(columns):
        for j in range(1, len(column)):
            if not builds_on(column[j], column[j - 1]):
                at = f"{field}[{i}][{j}]"
                raise invalid(
                    at,
                    Message(
                        "%(field)s: %(card)s does not go on %(onto)s: columns build down one rank "
                        "at a time in alternating colours (red on black, black on red)",
                        field=at,
                        card=column[j],
                        onto=column[j - 1],
                    ),
                    "SF-R1",
                )
    return columns


def _source(raw: Mapping[str, Any], name: SourceName, field: str, most: int) -> Source:
    """One of pile, hand, waste: ``{"cards": [...]}`` given whole, or ``{"top", "size"}``
    (hand: ``{"size"}``) with the rest left to the seed."""
    if name in raw:
        if f"{name}_size" in raw or f"{name}_top" in raw:
            raise shape(f"{field}.{name}", f"{name} | {name}_top, {name}_size")
        cards = _cards(raw[name], f"{field}.{name}")
        if len(cards) > most:  # SF-P1: a 13-pile over its size
            raise shape(f"{field}.{name}", f"[card, ...] (0..{most})", "SF-P1")
        return {"cards": cards}
    size = count(
        raw.get(f"{name}_size"), f"{field}.{name}_size", most, "SF-P1" if name == "pile" else "G-P1"
    )
    top = raw.get(f"{name}_top")
    if name == "hand":
        if top is not None:
            raise shape(f"{field}.hand_top", "null")
        return {"size": size}
    if (top is None) != (size == 0):
        raise shape(f"{field}.{name}_top", f"card if {name}_size > 0, else null")
    return {"size": size, "top": None if top is None else _card(top, f"{field}.{name}_top")}


def read_seat(raw: Any, seat: str) -> ReadSeat:
    """One seat of a position read (SF-P1, SF-R1, SF-H1), cards canonical."""
    field = f"players.{seat}"
    known = {
        "pile",
        "pile_top",
        "pile_size",
        "columns",
        "hand",
        "hand_size",
        "waste",
        "waste_top",
        "waste_size",
        "cycle",
    }
    if not isinstance(raw, dict) or set(raw) - known:
        raise shape(
            field,
            "{pile | pile_top, pile_size; columns; hand | hand_size; "
            "waste | waste_top, waste_size; cycle}",
        )
    columns = _columns(raw.get("columns"), f"{field}.columns")
    pile = _source(raw, "pile", field, PILE_SIZE)
    hand = _source(raw, "hand", field, 52)
    waste = _source(raw, "waste", field, 52)
    dealt = 52 - PILE_SIZE - COLUMNS  # SF-P1: the hand as dealt; hand and waste only shrink
    if _size(hand) + _size(waste) > dealt:
        raise invalid(
            f"{field}.{'hand' if 'cards' in hand else 'hand_size'}",
            Message(
                "%(count)s cards in hand and waste: the hand is dealt %(dealt)s and never grows "
                "(SF-P1)",
                count=_size(hand) + _size(waste),
                dealt=dealt,
            ),
            "SF-P1",
        )
    cycle = raw.get("cycle")
    if cycle is None:
        cycle = "turning" if _size(waste) == 0 else "broken"
    if cycle not in CYCLES:
        raise shape(f"{field}.cycle", " | ".join(CYCLES), "SF-H1")
    out: ReadSeat = {
        "columns": columns,
        "pile": pile,
        "hand": hand,
        "waste": waste,
        "cycle": cycle,
    }
    _check_cycle(out, field)
    return out


def _size(source: Source) -> int:
    return len(source["cards"]) if "cards" in source else source["size"]


def _check_cycle(seat: ReadSeat, field: str) -> None:
    """SF-H1: an unbroken pass turns groups of three from an empty waste; one that
    ended is known (and once the hand is picked up again, a group lies on the waste); a
    seat with nothing to turn has no pass."""
    hand, waste, cycle = _size(seat["hand"]), _size(seat["waste"]), seat["cycle"]
    if cycle == "broken":
        return
    if hand == 0 and waste == 0:
        raise invalid(
            f"{field}.cycle",
            Message(
                "%(field)s: with an empty hand and waste there is nothing to turn, so the "
                "cycle is broken",
                field=f"{field}.cycle",
            ),
            "SF-H1",
        )
    if cycle == "turning" and hand == 0:
        raise invalid(
            f"{field}.cycle",
            Message(
                "%(field)s: the hand is turned through, so the cycle is known",
                field=f"{field}.cycle",
            ),
            "SF-H1",
        )
    if cycle == "known" and hand and not waste:
        # the pass that made it known emptied the hand; the turn after it picked the
        # waste up and turned a group straight back onto it
        raise invalid(
            f"{field}.waste",
            Message(
                "%(field)s: a known cycle with cards in hand has turned a group since its "
                "pick-up, so the waste is not empty",
                field=f"{field}.waste",
            ),
            "SF-H1",
        )
    if hand and waste % TURN_SIZE:
        raise invalid(
            f"{field}.waste",
            Message(
                "%(field)s: in an unbroken pass the waste holds whole groups of three turned "
                "cards, not %(count)s",
                field=f"{field}.waste",
                count=waste,
            ),
            "SF-H1",
        )


def _conserve(seat: str, layout: ReadSeat | None, piles: list[Foundation]) -> None:
    """G-P1: every card of the seat's deck exactly once, the sizes adding up to 52."""
    placed: dict[str, str] = {}

    def place(card: str, where: str) -> None:
        if card in placed:
            raise invalid(
                where,
                Message(
                    "%(field)s: %(seat)s's %(card)s is already at %(other)s: every card of a "
                    "deck is in one place",
                    field=where,
                    seat=seat,
                    card=card,
                    other=placed[card],
                ),
            )
        placed[card] = where

    for i, pile in enumerate(piles):
        for j, entry in enumerate(pile["cards"]):
            if entry["seat"] == seat:
                place(entry["card"], f"foundations[{i}].cards[{j}]")
    if layout is None:
        return
    field = f"players.{seat}"
    for i, column in enumerate(layout["columns"]):
        for j, card in enumerate(column):
            place(card, f"{field}.columns[{i}][{j}]")
    for name in SOURCES:
        source = layout[name]
        for j, card in enumerate(source.get("cards", [])):
            place(card, f"{field}.{name}[{j}]")
        top = source.get("top")
        if top is not None:
            place(top, f"{field}.{name}_top")
    unplaced = sum(
        source["size"] - (source.get("top") is not None)
        for source in (layout[n] for n in SOURCES)
        if "size" in source
    )
    if len(placed) + unplaced != len(DECK):
        raise invalid(
            field,
            Message(
                "%(field)s: %(count)s cards of %(seat)s's deck are placed or counted, not "
                "52: every card of a deck is in one place",
                field=field,
                count=len(placed) + unplaced,
                seat=seat,
            ),
        )


def _render_seat(seat: ReadSeat) -> dict[str, Any]:
    """A read seat back in the notation (lists as given, or top and size)."""
    out: dict[str, Any] = {}
    _render_source(out, "pile", seat["pile"])
    out["columns"] = [list(c) for c in seat["columns"]]
    _render_source(out, "hand", seat["hand"])
    _render_source(out, "waste", seat["waste"])
    out["cycle"] = seat["cycle"]
    return out


def _render_source(out: dict[str, Any], name: SourceName, source: Source) -> None:
    if "cards" in source:
        out[name] = list(source["cards"])
    else:
        if name != "hand":
            out[f"{name}_top"] = source["top"]
        out[f"{name}_size"] = source["size"]


def _retired(raw: Any, seats: list[str], number: int, server: bool) -> dict[str, Retirement]:
    """SF-E3: ``{seat: {"round", "pile"}}``: left in a round so far, with its 13-pile
    size then (table mode: null)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict) or set(raw) - set(seats):
        raise shape("retired", '{seat: {"round", "pile"}}', "SF-E3")
    out: dict[str, Retirement] = {}
    for seat in seats:
        if seat not in raw:
            continue
        entry, where = raw[seat], f"retired.{seat}"
        if not isinstance(entry, dict) or set(entry) - {"round", "pile"}:
            raise shape(where, '{"round", "pile"}', "SF-E3")
        left = entry.get("round", number)
        if not is_int(left) or not 1 <= left <= number:
            raise shape(f"{where}.round", f"1..{number}", "SF-E3")
        pile = entry.get("pile")
        if pile is not None or server:
            pile = count(pile, f"{where}.pile", PILE_SIZE, "SF-E3")
        if pile == 0:  # its 13-pile emptied: it went out, and the round ended (SF-E1)
            raise invalid(
                f"{where}.pile",
                Message(
                    "%(seat)s's 13-pile was empty: it went out and the round ended then, so "
                    "it cannot have left the round",
                    seat=seat,
                ),
                "SF-E1",
            )
        out[seat] = {"round": left, "pile": pile}
    return out


def read_position(raw: Any, options: Options, seats: list[str]) -> dict[str, Any]:
    """The position normalised (canonical cards, defaults filled in), or RuleViolation
    ``invalid-position`` naming the field and the rule (see the module docstring)."""
    known = {"game", "round", "totals", "history", "retired", "foundations", "players"}
    if not isinstance(raw, dict) or set(raw) - known:
        raise shape("position", "{game, round, totals, history?, retired?, foundations, players}")
    if raw.get("game") != GAME:
        raise shape("game", GAME)
    number, penalty = raw.get("round", 1), options["pile_penalty"]
    if not is_int(number) or not 1 <= number <= options["rounds"]:
        raise shape("round", f"1..{options['rounds']}", "SF-E2")
    server = options["dealing"] == "server"
    retired = _retired(raw.get("retired"), seats, number, server)
    active = [s for s in seats if s not in retired]
    history = (
        None if raw.get("history") is None else read_history(raw["history"], seats, number, penalty)
    )
    over = history is not None and len(history) == number
    # a table game the last seat was left in ends with its round unscored (the players
    # keep their piles): fewer than two seats then is a finished game (SF-E3, SF-M1)
    if len(active) < 2 and not over and server:
        raise invalid(
            "retired",
            Message("fewer than two seats still play: the game would be over (SF-E3)"),
            "SF-E3",
        )
    if over and len(active) >= 2 and number < options["rounds"]:
        raise shape("history", f"[round 1, ..., round {number - 1}]", "SF-E2")
    if history is not None:
        check_round_seats(history, seats, retired, over and len(active) < 2)
    totals = read_totals(raw.get("totals"), seats, history, number, penalty)
    round_seats = [s for s in seats if s in active or retired[s]["round"] == number]
    piles = _foundations(raw.get("foundations", []), round_seats, options["one_pile_per_suit"])
    players = raw.get("players")
    layouts: dict[str, ReadSeat]
    if players is None and not server:
        layouts = {}
    elif not isinstance(players, dict) or set(players) != set(active):
        raise shape("players", " ".join(active) + " (every seat still playing)")
    else:
        layouts = {seat: read_seat(players[seat], seat) for seat in active}
    for seat in round_seats:
        _conserve(seat, layouts.get(seat), piles)
    emptied = [s for s in layouts if _size(layouts[s]["pile"]) == 0]
    if len(emptied) > 1:  # at a table as well: SF-M1's record refuses several out
        raise invalid(
            f"players.{emptied[1]}.pile",
            Message(
                "%(seats)s cannot all have gone out: the round ends when the first player plays "
                "their last 13-pile card (SF-E1)",
                seats=", ".join(emptied),
            ),
            "SF-E1",
        )
    out: dict[str, Any] = {
        "game": GAME,
        "round": number,
        "totals": totals,
        "retired": retired,
        "foundations": piles,
    }
    if history is not None:
        out["history"] = history
    if layouts:
        out["players"] = {seat: _render_seat(layouts[seat]) for seat in active}
    return out
