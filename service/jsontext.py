"""JSON text on the hot paths, written and read by orjson (several times faster than
the standard library's json, measured in bench/bench_speed.py: a 2-Way Cards action
reads and writes its game's whole state as JSON a few times).

The uses:

* :func:`canonical_text` -- the text a game's state (or an event) is stored as: every
  object's keys sorted, non-string keys written as strings (as :func:`json.dumps`
  does), compact. ``canonical_text({"b": 1, "a": [1, 2]}) == '{"a":[1,2],"b":1}'``
* :func:`plain_copy` -- a deep copy as JSON reads back (an engine's view of an event).
* :func:`loads` -- parse text the service wrote itself (a snapshot, a stored reply).
  Requests are parsed by :func:`service.api.base.strict_loads` instead, which refuses
  what orjson would take quietly (duplicate keys, an integer past 64 bits read as a
  float) and reads a body by orjson only where it gives the same value.
* :func:`reply_bytes` -- a reply body: compact UTF-8, keys in the order given.
* :func:`sorted_text` -- Flask's replies (keys sorted, as Flask's own json does).
* :func:`column_text` -- the text of a JSON column (the store's engines).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

_CANONICAL = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
# a run of 19 digits, found by mapping every digit to "0" and every other byte to " "
# (bytes.translate and a substring search: about 20x faster than a regular expression
# over a 4 KB snapshot, measured 10 us against 198 us)
_DIGITS_AS_ZERO = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
_LONG_RUN = b"0" * 19
_FLASK = _CANONICAL | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def canonical_text(value: Any) -> str:
    """``value`` as compact JSON text with every object's keys sorted."""
    return _dumps(value, _CANONICAL).decode()


def canonical_read_back(value: Any) -> tuple[str, Any]:
    """:func:`canonical_text` of ``value`` and the value as that text reads back (what a
    replay folds to), written and read once (:func:`_written`)."""
    raw, read = _written(value, _CANONICAL)
    return raw.decode(), read


def canonical(value: Any) -> Any:
    """``value`` as it reads back from its :func:`canonical_text` (tuples become
    lists, keys strings and sorted): what a replay folds to."""
    return _written(value, _CANONICAL)[1]


def plain_copy(value: Any) -> Any:
    """A deep copy of ``value`` as its JSON text reads back, keys in the order given
    (tuples become lists, keys strings): ``json.loads(json.dumps(value))`` by orjson
    (an engine's copy of an event or a part of its state; a 2-Way Cards seat's view of
    an event measured 3 to 4 times faster).
    ``plain_copy({1: (2, 3)}) == {"1": [2, 3]}``"""
    return _written(value, orjson.OPT_NON_STR_KEYS)[1]


def _written(value: Any, option: int) -> tuple[bytes, Any]:
    """``value``'s JSON text (written with ``option``, as :func:`_dumps` writes it) and
    the value it reads back. Text orjson wrote holds no integer past 64 bits, which it
    reads back exactly, so it is read without :func:`loads`' scan for long digit runs
    (about 10 us on a 4 KB snapshot)."""
    try:
        raw = orjson.dumps(value, option=option)
    except TypeError:  # the standard library's text (an integer past 64 bits)
        raw = _dumps(value, option)
        return raw, loads(raw)
    return raw, orjson.loads(raw)


def loads(text: str | bytes) -> Any:
    """The value of JSON text the service wrote itself. orjson reads an integer of
    more than 64 bits as a float: text with a run of 19 digits or more (rare: a
    client's huge number, kept in an event) is read by the standard library."""
    raw = text.encode() if isinstance(text, str) else text
    if _LONG_RUN in raw.translate(_DIGITS_AS_ZERO):
        return json.loads(raw)
    return orjson.loads(raw)


def sorted_text(value: Any, default: Callable[[Any], Any]) -> str:
    """Flask's reply text (:class:`service.api.StrictJSONProvider`): keys sorted;
    dates, times and dataclasses, and what orjson does not know, as ``default``
    makes them (Flask's own rules: an HTTP date, a dict...)."""
    return _dumps(value, _FLASK, default).decode()


def column_text(value: Any) -> str:
    """A JSON column's text (SQLAlchemy's ``json_serializer``): compact, keys in
    the order given."""
    return _dumps(value, orjson.OPT_NON_STR_KEYS).decode()


def reply_bytes(value: Any) -> bytes:
    """A reply body: compact UTF-8 JSON, keys in insertion order (non-ASCII text is
    sent as it is, never ``\\u``-escaped)."""
    return _dumps(value, orjson.OPT_NON_STR_KEYS)


def _dumps(value: Any, option: int, default: Callable[[Any], Any] | None = None) -> bytes:
    """orjson's bytes; the standard library's for what orjson refuses and JSON has
    (an integer of more than 64 bits, e.g. a version a client sent, echoed back),
    with the same keys, order and spacing."""
    try:
        return orjson.dumps(value, default=default, option=option)
    except TypeError:
        text = json.dumps(
            value,
            default=default,
            sort_keys=bool(option & orjson.OPT_SORT_KEYS),
            separators=(",", ":"),
            ensure_ascii=False,
        )
        return text.encode()
