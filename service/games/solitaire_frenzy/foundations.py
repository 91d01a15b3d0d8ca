"""The shared foundations (RULES.md SF-F1, SF-F2, SF-T1): what the board takes, who
owns what on it, and the race on a pile's top."""

from __future__ import annotations

from service.games import RuleViolation
from service.games.solitaire_frenzy.cards import (
    FOUNDATION,
    NEW,
    SUITS,
    ace,
    foundation_refusal,
    next_card,
)
from service.games.solitaire_frenzy.errors import (
    malformed,
    raise_refusal,
    read_card,
    refuse,
)
from service.games.solitaire_frenzy.state import Action, Foundation, FrenzyState, Needs
from service.messages import Message


def board_counts(state: FrenzyState) -> dict[str, int]:
    """SF-E2: each seat's own cards on the board this round (by deck, i.e. owner)."""
    counts = {seat: 0 for seat in state["seats"]}
    for pile in state["foundations"]:
        for entry in pile["cards"]:
            counts[entry["seat"]] += 1
    return counts


def board_needs(state: FrenzyState) -> Needs:
    """What the board takes now: the next card of every open foundation pile, and the
    suits an Ace may open a pile in (all, or with ``one_pile_per_suit`` those without
    an open pile)."""
    wanted, open_suits = set(), set()
    for pile in state["foundations"]:
        following = next_card(pile["cards"][-1]["card"])
        if following is not None:
            wanted.add(following)
            open_suits.add(pile["suit"])
    suits = set(SUITS)
    return wanted, suits - open_suits if state["options"]["one_pile_per_suit"] else suits


def to_board(card: str, wanted: Needs) -> bool:
    """SF-F1: ``card`` goes onto some foundation pile now (or opens one)."""
    following, ace_suits = wanted
    return card in following or (ace(card) and card[-1] in ace_suits)


def foundation_targets(state: FrenzyState, card: str, wanted: Needs) -> list[dict[str, str | int]]:
    """Foundation targets of ``card``: a new pile for an Ace, else every pile it follows."""
    if ace(card):
        return [{"to": FOUNDATION, "based_on": NEW}] if card[-1] in wanted[1] else []
    return [
        {"to": FOUNDATION, "pile": p["id"], "based_on": p["cards"][-1]["card"]}
        for p in state["foundations"]
        if next_card(p["cards"][-1]["card"]) == card
    ]


def read_based_on(action: Action) -> str:
    """SF-T1: the top a foundation play aims at (a card, or ``new``)."""
    raw = action.get("based_on")
    if raw is None:
        raise malformed(
            Message(
                "a foundation play names the top card it aims at: "
                '"based_on" (or "new" for an Ace starting a pile)'
            ),
            rule="SF-T1",
        )
    if raw == NEW:
        return NEW
    try:
        return read_card(action, "based_on")
    except RuleViolation as error:  # G-R1: based_on is SF-T1's, whatever the action
        error.rule = error.rule or "SF-T1"
        raise


def check_new_pile(state: FrenzyState, card: str) -> None:
    """SF-F1: only an Ace starts a pile. With ``one_pile_per_suit`` only while no pile of
    its suit is open: an Ace aimed at ``new`` when one is open arrives second (SF-T1:
    its aim is stale), and is refused ``stale-top-card`` naming that pile's top, as a
    race on an existing pile is."""
    refusal = foundation_refusal(card, None)
    if refusal is not None:
        raise_refusal(refusal)
    if not state["options"]["one_pile_per_suit"]:
        return
    for pile in state["foundations"]:
        if pile["suit"] == card[-1] and next_card(pile["cards"][-1]["card"]) is not None:
            top = pile["cards"][-1]
            raise _stale(
                pile,
                Message(
                    "%(suit)s has pile %(pile)s already (top %(top)s, %(seat)s): one pile per "
                    "suit until it is complete; your card stays where it was",
                    pile=pile["id"],
                    suit=card[-1],
                    top=top["card"],
                    seat=top["seat"],
                ),
            )


def _stale(pile: Foundation, detail: Message) -> RuleViolation:
    """SF-T1 409 ``stale-top-card``: the play arrived second; ``top`` names the pile's
    top now (its id, card and seat), so the client can aim again."""
    return RuleViolation(
        "stale-top-card",
        detail,
        409,
        "SF-T1",
        extra={"top": {"pile": pile["id"], **pile["cards"][-1]}},
    )


def check_aim(pile: Foundation, aim: str) -> None:
    """SF-T1: the pile's top must still be the card the play aimed at."""
    top = pile["cards"][-1]
    if top["card"] == aim:
        return
    if any(entry["card"] == aim for entry in pile["cards"]):
        raise _stale(
            pile,
            Message(
                "pile %(pile)s has moved on: its top is now %(top)s (%(seat)s), not %(aim)s; "
                "your card stays where it was",
                pile=pile["id"],
                top=top["card"],
                seat=top["seat"],
                aim=aim,
            ),
        )
    raise refuse(
        "not-pile-top",
        Message(
            "pile %(pile)s never showed %(aim)s: its top is %(top)s",
            pile=pile["id"],
            aim=aim,
            top=top["card"],
        ),
        "SF-T1",
    )
