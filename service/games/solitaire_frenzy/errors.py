"""Refusals and the reading of action fields (G-R1: every refusal names its rule)."""

from __future__ import annotations

from typing import NoReturn, TypeGuard

from service.cards import CardError, parse_card
from service.games import RuleViolation
from service.games.solitaire_frenzy.cards import COLUMNS, Refusal
from service.games.solitaire_frenzy.state import Action
from service.messages import Message


def malformed(
    detail: Message, code: str = "invalid-action", rule: str | None = None
) -> RuleViolation:
    """A 422 refusal of a malformed action (``rule`` None: the action type's rule is
    filled in by ``apply``)."""
    return RuleViolation(code, detail, 422, rule)


def refuse(code: str, detail: Message, rule: str) -> RuleViolation:
    """A 409 refusal: a well-formed action the current state does not allow."""
    return RuleViolation(code, detail, 409, rule)


def raise_refusal(refusal: Refusal) -> NoReturn:
    """Raise a card rule's :class:`Refusal` as a 409 RuleViolation."""
    raise refuse(refusal.code, refusal.detail, refusal.rule)


def over_a_deck(seat: str, board: int, pile: int) -> Message:
    """SF-M1: a seat's cards on the board and in its 13-pile, more than its 52."""
    return Message(
        "%(seat)s: %(board)s on the board and %(pile)s in the "
        "13-pile are more than a deck's 52 cards",
        seat=seat,
        board=board,
        pile=pile,
    )


def is_int(value: object) -> TypeGuard[int]:
    """An integer that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def read_card(action: Action, field: str = "card") -> str:
    """The canonical card code in ``action[field]``; 422 ``invalid-action`` when
    missing, ``invalid-card`` for an unknown code or a joker."""
    raw = action.get(field)
    if raw is None:
        raise malformed(Message("name the card: %(field)s", field=repr(field)))
    try:
        card = parse_card(raw)
    except CardError as error:
        raise malformed(
            Message("%(field)s: %(error)s", field=field, error=error.message), "invalid-card"
        ) from error
    if card == "JK":
        raise malformed(
            Message("%(field)s: Solitaire Frenzy decks have no joker", field=field), "invalid-card"
        )
    return card


def read_column(action: Action, field: str) -> int:
    """A column number 0-3 in ``action[field]``; 422 ``invalid-column`` otherwise."""
    value = action.get(field)
    if not is_int(value) or not 0 <= value < COLUMNS:
        raise malformed(
            Message(
                "%(field)s must be a column number 0 to %(last)s", field=field, last=COLUMNS - 1
            ),
            "invalid-column",
        )
    return value


# ----- a stated position's refusals (G-P1) ------------------------------------------------


def invalid(field: str, detail: Message, rule: str = "G-P1") -> RuleViolation:
    """The refusal of a position the rules cannot reach (G-P1), naming the field."""
    return RuleViolation("invalid-position", detail, 422, rule, extra={"field": field})


def shape(field: str, expected: str, rule: str = "G-P1") -> RuleViolation:
    """A field of the wrong shape; ``expected`` is language-neutral notation."""
    return invalid(
        field, Message("%(field)s must be %(expected)s", field=field, expected=expected), rule
    )


def count(raw: object, field: str, most: int, rule: str = "G-P1") -> int:
    """``raw``, a count 0 to ``most``; else :func:`shape`'s refusal."""
    if not is_int(raw) or not 0 <= raw <= most:
        raise shape(field, f"0..{most}", rule)
    return raw
