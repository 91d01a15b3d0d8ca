"""Halves cards: the notation and the matching (HV-C1, HV-T1).

A half is a colour letter then a symbol letter (``RC`` = red circle); a card is two
halves joined by ``-`` (``RC-GS``), read as written; ``turned`` swaps them.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from service.data import data_dir
from typing import Any, Literal, TypedDict

from service.messages import Message

PER_HALF, WHOLE_CARD, ANY_HALF = "per_half", "whole_card", "any_half"
MATCHES = (PER_HALF, WHOLE_CARD, ANY_HALF)  # HV-T1's three readings
SEEDS = data_dir("seeds")

_DATA = json.loads((SEEDS / "halves-deck.json").read_text(encoding="utf-8"))
COLOURS: dict[str, str] = _DATA["colours"]
SYMBOLS: dict[str, str] = _DATA["symbols"]
DEFAULT_DECK: tuple[str, ...] = tuple(_DATA["cards"])
MAX_DECK = len(COLOURS) * len(SYMBOLS) * (len(COLOURS) * len(SYMBOLS) - 1) // 2

# ===== cards: notation and matching (HV-C1, HV-T1) =====


class HalfFacts(TypedDict):
    """What a half shares with the top's half it is judged against (HV-T1)."""

    colour: bool
    symbol: bool


class HalfVerdict(HalfFacts):
    """One half in :func:`judge`: what it shares, and what it counts by (None: not)."""

    by: Literal["colour", "symbol"] | None


class Verdict(TypedDict):
    """:func:`judge`'s answer."""

    matches: bool
    halves: list[HalfVerdict]


class PlayCheck(TypedDict):
    """:func:`check_play`'s answer (``POST /v1/halves/plays/check``)."""

    matches: bool
    code: str | None
    halves: list[HalfVerdict]
    matches_turned: bool
    top: str
    card: str
    turned: bool
    laid: str
    match: str
    rule: str
    detail: Message


class CardCodeError(ValueError):
    """Not a card code of the notation (see the module docstring); ``message`` says
    why."""

    def __init__(self, message: Message):
        super().__init__(message)
        self.message = message


def _unknown_code(raw: str) -> CardCodeError:
    return CardCodeError(
        Message(
            "unknown card code %(code)s: a card is two halves, each a "
            "colour (R G B Y) and a symbol (C S T X), e.g. RC-GS",
            code=repr(raw),
        )
    )


_CODE = re.compile(r"([A-Za-z]{2})[-/]?([A-Za-z]{2})")


def _half(text: str, raw: str) -> str:
    a, b = text[0], text[1]
    if a in COLOURS and b in SYMBOLS:
        return a + b
    if b in COLOURS and a in SYMBOLS:
        return b + a
    raise _unknown_code(raw)


def parse_card(raw: Any) -> tuple[str, str]:
    """The halves of a card code AS WRITTEN (first, second): ``"cr/sg"`` ->
    ``("RC", "GS")``. Raises :class:`CardCodeError`."""
    if not isinstance(raw, str):
        raise CardCodeError(
            Message(
                "a card code is a string such as 'RC-GS', not %(type)s", type=type(raw).__name__
            )
        )
    match = _CODE.fullmatch(raw)
    if match is None:
        raise _unknown_code(raw)
    return _half(match.group(1).upper(), raw), _half(match.group(2).upper(), raw)


def card_code(halves: tuple[str, str] | list[str]) -> str:
    """``("RC", "GS")`` -> ``"RC-GS"``."""
    return f"{halves[0]}-{halves[1]}"


def halves_of(code: str) -> tuple[str, str]:
    """The halves of a canonical code: ``"RC-GS"`` -> ``("RC", "GS")``."""
    return code[:2], code[3:]


def laid(card: str, turned: bool) -> tuple[str, str]:
    """The halves of upright ``card`` as it lies: swapped when ``turned``."""
    first, second = halves_of(card)
    return (second, first) if turned else (first, second)


def judge(
    top: tuple[str, str] | list[str], card: tuple[str, str] | list[str], match: str = PER_HALF
) -> Verdict:
    """HV-T1: does ``card`` (its halves as laid) go on ``top`` (its halves as laid)?

    Each half is compared with the top's half in the same place (``any_half``: with
    both halves of the top). Returns ``{"matches": bool, "halves": [{"by", "colour",
    "symbol"} x 2]}``: ``colour`` / ``symbol`` say what the half shares with the top's
    half in its place (``any_half``: with either half of the top); ``by`` is what the
    half counts by under ``match`` (``"colour"``, ``"symbol"``, or None when it does
    not count): ``per_half``: each half by colour, else by symbol; ``whole_card``:
    both halves by colour, else both by symbol, else neither counts; ``any_half``
    (the third literal reading: the card corresponds with the top, not with its
    halves in place): each half by colour, else by symbol, against either half.
    """
    facts: list[HalfFacts]
    if match == ANY_HALF:
        facts = [
            {"colour": h[0] in (top[0][0], top[1][0]), "symbol": h[1] in (top[0][1], top[1][1])}
            for h in card
        ]
    else:
        facts = [{"colour": t[0] == h[0], "symbol": t[1] == h[1]} for t, h in zip(top, card)]
    by: list[Literal["colour", "symbol"] | None]
    if match in (PER_HALF, ANY_HALF):
        by = ["colour" if f["colour"] else "symbol" if f["symbol"] else None for f in facts]
        ok = all(by)
    else:
        common: Literal["colour", "symbol"] | None = (
            "colour"
            if all(f["colour"] for f in facts)
            else "symbol"
            if all(f["symbol"] for f in facts)
            else None
        )
        by, ok = [common, common], common is not None
    return {"matches": ok, "halves": [{"by": b, **f} for b, f in zip(by, facts)]}


def matches(
    top: tuple[str, str] | list[str], card: tuple[str, str] | list[str], match: str = PER_HALF
) -> bool:
    """HV-T1 verdict only (the hot path of the block detection)."""
    tc1, ts1, tc2, ts2 = top[0][0], top[0][1], top[1][0], top[1][1]
    c1, s1, c2, s2 = card[0][0], card[0][1], card[1][0], card[1][1]
    if match == PER_HALF:
        return (tc1 == c1 or ts1 == s1) and (tc2 == c2 or ts2 == s2)
    if match == ANY_HALF:  # turning the card changes nothing here
        return all(c in (tc1, tc2) or s in (ts1, ts2) for c, s in ((c1, s1), (c2, s2)))
    return (tc1 == c1 and tc2 == c2) or (ts1 == s1 and ts2 == s2)


def check_play(top: Any, card: Any, turned: bool = False, match: str = PER_HALF) -> PlayCheck:
    """The stateless check (``POST /v1/halves/plays/check``, HV-T1).

    ``top`` and ``card`` are codes as written (the top as it lies, the card as held);
    ``turned`` swaps the card's halves. Returns ``{"matches", "code", "halves",
    "matches_turned", "top", "card", "laid", "turned", "match", "rule": "HV-T1",
    "detail"}``: ``code`` null when it matches, else ``no-match`` (as a play), ``laid``
    the card's halves as it would lie, ``matches_turned`` the verdict the other way
    round. Raises :class:`CardCodeError`.
    """
    top_halves, held = parse_card(top), parse_card(card)
    way = held[::-1] if turned else held
    verdict = judge(top_halves, way, match)
    other = matches(top_halves, way[::-1], match)
    if verdict["matches"]:
        detail = Message("%(card)s goes on %(top)s", card=card_code(way), top=card_code(top_halves))
    elif other:
        detail = Message(
            "%(card)s does not go on %(top)s, but %(turned)s (the card turned round) does",
            card=card_code(way),
            top=card_code(top_halves),
            turned=card_code(way[::-1]),
        )
    else:
        detail = Message(
            "%(card)s does not go on %(top)s either way round",
            card=card_code(held),
            top=card_code(top_halves),
        )
    return {
        "matches": verdict["matches"],
        "code": None if verdict["matches"] else "no-match",
        "halves": verdict["halves"],
        "matches_turned": other,
        "top": card_code(top_halves),
        "card": card_code(held),
        "turned": bool(turned),
        "laid": card_code(way),
        "match": match,
        "rule": "HV-T1",
        "detail": detail,
    }


def identity(halves: tuple[str, str] | list[str]) -> tuple[str, str]:
    """A card's identity: its halves in sorted order (orientation left out)."""
    first, second = sorted(halves)
    return first, second


@lru_cache(maxsize=64)
def deck_index(deck: tuple[str, ...]) -> dict[tuple[str, str], str]:
    """identity -> upright code, for a deck."""
    return {identity(halves_of(card)): card for card in deck}
