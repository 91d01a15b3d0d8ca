"""The Sequence Numbers problem-card parser (RULES.md SN-C1): four operations, never eval.

A problem card shows ``a <op> b`` with integer operands. Accepted spellings::

    addition        a + b
    subtraction     a - b   a − b (U+2212)
    multiplication  a x b   a X b   a × b   a * b
    division        a / b   a ÷ b   a : b   (the Romanian sheet's notation)

Spaces are optional; an operand is an optional sign and 1 to 9 digits. Division must
be exact (``7 / 2`` and ``1 / 0`` are refused). The canonical text, which the service
answers with and keeps in hands, is ``"<a> <op> <b>"`` with ``op`` one of ``+ - x /``.

>>> parse_problem("6×7")
(6, 'x', 7)
>>> canonical_problem(" 84 ÷ 2 "), answer("84 : 2")
('84 / 2', 42)
"""

from __future__ import annotations

import re

from service.messages import Message

_SIGNS = re.escape("+-\u2212")
_OPERATORS = {
    "+": "+",
    "-": "-",
    "\u2212": "-",
    "x": "x",
    "X": "x",
    "\u00d7": "x",
    "*": "x",
    "/": "/",
    "\u00f7": "/",
    ":": "/",
}
_OPERAND = rf"[{_SIGNS}]?\d{{1,9}}"
_OPS = re.escape("".join(_OPERATORS))
_PATTERN = re.compile(rf"\s*({_OPERAND})\s*([{_OPS}])\s*({_OPERAND})\s*", re.ASCII)


class ProblemError(ValueError):
    """Text that is not a problem card (SN-C1); ``message`` says why."""

    def __init__(self, message: Message):
        super().__init__(message)
        self.message = message


def _operand(text: str) -> int:
    return int(text.replace("\u2212", "-"))


def parse_problem(text: object) -> tuple[int, str, int]:
    """``(a, op, b)`` of a problem card, ``op`` in ``+ - x /``.

    Raises :class:`ProblemError` for anything else, a division by zero, or an inexact
    division (SN-C1: every card's answer is an integer).
    """
    if not isinstance(text, str):
        raise ProblemError(
            Message("a problem card is text like '6 x 7', not %(text)s", text=repr(text))
        )
    match = _PATTERN.fullmatch(text)
    if match is None:
        raise ProblemError(
            Message(
                "%(text)s is not a problem 'a + b', 'a - b', 'a x b' or 'a / b'", text=repr(text)
            )
        )
    a, op, b = _operand(match[1]), _OPERATORS[match[2]], _operand(match[3])
    if op == "/":
        if b == 0:
            raise ProblemError(Message("%(text)s divides by zero", text=repr(text)))
        if a % b:
            raise ProblemError(Message("%(text)s is not an exact division", text=repr(text)))
    return a, op, b


def evaluate(a: int, op: str, b: int) -> int:
    """The integer value of ``a op b``, ``op`` canonical (raises ProblemError for an
    inexact division or a division by zero)."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "x":
        return a * b
    if b == 0 or a % b:
        raise ProblemError(
            Message("%(text)s is not an exact division", text=" / ".join(map(str, (a, b))))
        )
    return a // b


def canonical_problem(text: object) -> str:
    """The canonical spelling ``"a op b"`` of a problem card (raises ProblemError)."""
    a, op, b = parse_problem(text)
    return f"{a} {op} {b}"


def answer(text: object) -> int:
    """The answer of a problem card (raises ProblemError)."""
    return evaluate(*parse_problem(text))
