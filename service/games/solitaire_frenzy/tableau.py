"""A seat's tableau in play (RULES.md SF-P2, SF-R1..R4, SF-F1/F2, SF-O1): where a named
card is, and the plays, column moves and refills of its 13-pile, columns and waste."""

from __future__ import annotations

from service.games.solitaire_frenzy.cards import (
    COLUMN,
    COLUMNS,
    FOUNDATION,
    NEW,
    Refusal,
    ace,
    builds_on,
    column_refusal,
    foundation_refusal,
)
from service.games.solitaire_frenzy.errors import (
    is_int,
    malformed,
    raise_refusal,
    read_card,
    read_column,
    refuse,
)
from service.games.solitaire_frenzy.foundations import (
    board_needs,
    check_aim,
    check_new_pile,
    read_based_on,
    to_board,
)
from service.games.solitaire_frenzy.state import Action, Event, FrenzyState, seat_layout
from service.messages import Message


def locate(state: FrenzyState, seat: str, card: str) -> tuple[str, int | None]:
    """Where the seat's ``card`` can be played from: ``("pile", None)``, ``("waste",
    None)`` or ``("column", i)`` for a column's exposed card. Refused otherwise, with a
    detail that never depends on hidden places."""
    layout = seat_layout(state, seat)
    if layout["pile"] and layout["pile"][-1] == card:
        return "pile", None
    if layout["waste"] and layout["waste"][-1] == card:
        return "waste", None
    for i, column in enumerate(layout["columns"]):
        if column and column[-1] == card:
            return COLUMN, i
        if card in column:
            above = column[column.index(card) + 1]
            raise refuse(
                "card-not-on-top",
                Message(
                    "%(card)s is covered by %(above)s in your column %(column)s: only a "
                    "column's exposed card plays (SF-R3)",
                    card=card,
                    above=above,
                    column=i,
                ),
                "SF-R3",
            )
    for pile in state["foundations"]:
        if any(e["card"] == card and e["seat"] == seat for e in pile["cards"]):
            raise refuse(
                "card-on-board",
                Message(
                    "your %(card)s is on foundation pile "
                    "%(pile)s: cards on the board never move "
                    "again",
                    card=card,
                    pile=pile["id"],
                ),
                "SF-F1",
            )
    raise refuse(
        "card-not-on-top",
        Message(
            "%(card)s is not face up on top of your 13-pile or your waste or exposed in a "
            "column: only those cards play (SF-P2, SF-H1, SF-R3)",
            card=card,
        ),
        "SF-H1",
    )


def order_first(state: FrenzyState, seat: str) -> list[str]:
    """SF-O1 strict: the cards the seat must play before its waste: its 13-pile top if
    it plays anywhere, and each column's exposed card that goes to the board (a
    possible whole-column move does not count); [] when the waste may be played."""
    layout, needs = seat_layout(state, seat), board_needs(state)
    exposed = [c[-1] for c in layout["columns"] if c]
    first = []
    if layout["pile"]:
        top = layout["pile"][-1]
        if (
            len(exposed) < COLUMNS
            or to_board(top, needs)
            or any(builds_on(top, e) for e in exposed)
        ):
            first.append(top)
    return first + [card for card in exposed if to_board(card, needs)]


def check_order(state: FrenzyState, seat: str, source: str) -> None:
    """SF-O1 strict: a waste play is refused while the 13-pile top or a column card
    could be played; the refusal names them."""
    if source != "waste" or state["options"]["play_order"] != "strict":
        return
    first = order_first(state, seat)
    if first:
        raise refuse(
            "play-order",
            Message(
                "play order is strict: play %(cards)s (your 13-pile top or a column card) "
                "before your waste (SF-O1)",
                cards=", ".join(first),
            ),
            "SF-O1",
        )


def exposed_after(state: FrenzyState, seat: str, source: str) -> str | None:
    """The card a play from ``source`` turns face up: the next 13-pile card (SF-P2) or
    the waste card below (SF-H1); None when none is left."""
    layout = seat_layout(state, seat)
    if source == "pile":
        cards = layout["pile"]
    elif source == "waste":
        cards = layout["waste"]
    else:
        return None
    return cards[-2] if len(cards) > 1 else None


# ----- play (SF-P2, SF-F1, SF-F2, SF-R1..R4, SF-T1, SF-O1) ------------------------


def do_play(events: list[Event], state: FrenzyState, seat: str, action: Action) -> None:
    card = read_card(action)
    target = action.get("to")
    if target not in (FOUNDATION, COLUMN):
        raise malformed(Message('"to" is "foundation" or "column"'))
    if target == FOUNDATION:
        if "column" in action:
            raise malformed(Message('a foundation play names "pile" and "based_on", not a column'))
        _play_to_foundation(events, state, seat, card, action)
        return
    if "pile" in action or "based_on" in action:
        raise malformed(Message('a column play names "column", not a pile or based_on'))
    column = read_column(action, "column")
    layout = seat_layout(state, seat)
    for i, cards in enumerate(layout["columns"]):
        if card in cards:  # a column card goes to another column only as the whole column
            if len(cards) > 1:
                raise refuse(
                    "not-whole-column",
                    Message(
                        "%(card)s is in your column %(column)s of %(count)s cards: a column "
                        "moves only as a whole (move), never a card by itself (SF-R2)",
                        card=card,
                        column=i,
                        count=len(cards),
                    ),
                    "SF-R2",
                )
            do_move(events, state, seat, {"from_column": i, "to_column": column})
            return
    if not layout["columns"][column]:
        do_refill(events, state, seat, {"card": card, "column": column})
        return
    source, _ = locate(state, seat, card)
    refusal = column_refusal(card, layout["columns"][column][-1])
    if refusal is not None:
        raise_refusal(refusal)
    check_order(state, seat, source)
    events.append(
        {
            "type": "played",
            "seat": seat,
            "card": card,
            "from": source,
            "to": COLUMN,
            "column": column,
            "exposed": exposed_after(state, seat, source),
        }
    )


def _play_to_foundation(
    events: list[Event], state: FrenzyState, seat: str, card: str, action: Action
) -> None:
    """SF-F1/F2/T1: one card onto the named pile whose top is ``based_on``, or an Ace
    onto a new pile (``based_on: "new"``; never redirected)."""
    aim, number = read_based_on(action), action.get("pile")
    if aim == NEW and number is not None:
        raise malformed(
            Message('a new pile has no id yet: leave "pile" out with "based_on": "new"'),
            rule="SF-F1",
        )
    if aim != NEW and not is_int(number):
        raise malformed(Message('name the foundation pile: "pile" (its id)'), rule="SF-F1")
    source, column = locate(state, seat, card)
    if aim == NEW:
        check_new_pile(state, card)
        number = max((p["id"] for p in state["foundations"]), default=0) + 1
    else:
        refusal = foundation_refusal(card, aim)
        if refusal is not None and ace(card):  # an Ace is refused whatever the pile
            raise_refusal(refusal)
        pile = next((p for p in state["foundations"] if p["id"] == number), None)
        if pile is None:
            raise refuse(
                "unknown-pile",
                Message("there is no foundation pile %(pile)s in this round", pile=number),
                "SF-F1",
            )
        check_aim(pile, aim)
        if refusal is not None:
            raise_refusal(refusal)
    check_order(state, seat, source)
    event: Event = {"type": "played", "seat": seat, "card": card, "from": source}
    if source == COLUMN:
        event["from_column"] = column
    event.update(
        {
            "to": FOUNDATION,
            "pile": number,
            "based_on": aim,
            "exposed": exposed_after(state, seat, source),
        }
    )
    events.append(event)


# ----- move, refill (SF-R2, SF-R4) ----------------------------------------------------


def do_move(events: list[Event], state: FrenzyState, seat: str, action: Action) -> None:
    """SF-R2: a whole column onto another column's exposed card, continuing the build;
    never into an empty column."""
    source, target = read_column(action, "from_column"), read_column(action, "to_column")
    if source == target:
        raise malformed(
            Message("from_column and to_column are the same column"), "same-column", "SF-R2"
        )
    columns = seat_layout(state, seat)["columns"]
    if not columns[source]:
        raise refuse(
            "column-empty",
            Message("your column %(column)s is empty: nothing to move", column=source),
            "SF-R2",
        )
    if not columns[target]:
        raise refuse(
            "move-to-empty",
            Message(
                "your column %(column)s is empty: a column never moves into an empty spot; "
                "refill it from your 13-pile or waste (SF-R2, SF-R4)",
                column=target,
            ),
            "SF-R2",
        )
    refusal = column_refusal(columns[source][0], columns[target][-1])
    if refusal is not None:
        why = Message(
            "column %(column)s starts with %(card)s: %(why)s",
            column=source,
            card=columns[source][0],
            why=refusal.detail,
        )
        raise_refusal(Refusal(refusal.code, why, "SF-R2"))
    events.append(
        {
            "type": "column-moved",
            "seat": seat,
            "from_column": source,
            "to_column": target,
            "cards": list(columns[source]),
        }
    )


def do_refill(events: list[Event], state: FrenzyState, seat: str, action: Action) -> None:
    """SF-R4: an empty column takes the 13-pile top or the waste top."""
    card, column = read_card(action), read_column(action, "column")
    layout = seat_layout(state, seat)
    if layout["columns"][column]:
        raise refuse(
            "column-not-empty",
            Message(
                "your column %(column)s is not empty (%(card)s is exposed)",
                column=column,
                card=layout["columns"][column][-1],
            ),
            "SF-R4",
        )
    source, _ = locate(state, seat, card)
    if source == COLUMN:
        raise refuse(
            "move-to-empty",
            Message(
                "%(card)s is a column card: a column never moves into an empty spot; refill "
                "from your 13-pile or waste (SF-R4)",
                card=card,
            ),
            "SF-R2",
        )
    check_order(state, seat, source)
    events.append(
        {
            "type": "refilled",
            "seat": seat,
            "card": card,
            "from": source,
            "column": column,
            "exposed": exposed_after(state, seat, source),
        }
    )
