"""The orjson reading of a request body (service.api.base._plain_loads) gives exactly
what the standard path gives, or leaves the body to it: same value (key order and
types included) or the same refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.api.base import (
    _SLOW,
    MAX_DEPTH,
    InvalidJSON,
    _plain_loads,
    _standard_loads,
    strict_loads,
)

# keys and strings from a small alphabet (so that keys repeat), with colons, quotes,
# backslashes and lone surrogates among them
TEXT = st.text(alphabet=st.sampled_from(list('ab:"\\é\ud800 ')), max_size=4)
KEYS = st.sampled_from(["a", "b", "é"]) | TEXT  # mostly plain, so that keys repeat
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
# arrays, and objects written from lists of (key, value) pairs, so keys may repeat
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.lists(st.tuples(KEYS, inner), max_size=4),
    max_leaves=20,
)


def _text(value: Any) -> str:
    """JSON text of ``value``, a list of pairs written as an object (repeats kept)."""
    if isinstance(value, list) and value and all(isinstance(p, tuple) for p in value):
        return "{" + ",".join(f"{json.dumps(k)}:{_text(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_text(item) for item in value) + "]"
    return json.dumps(value)


def _standard(data: bytes) -> Any:
    """What the standard path alone answers: ('value', text of the value) or ('refused',
    reason)."""
    try:
        value = _standard_loads(data, scan=True)
    except InvalidJSON as exc:
        return ("refused", str(exc.reason))
    return ("value", repr(value))


@settings(max_examples=600, deadline=None)
@given(VALUES, st.sampled_from(["", " ", "\n", "\t"]))
def test_plain_loads_reads_what_the_standard_path_reads(value, space):
    data = (space + _text(value) + space).encode("utf-8", "surrogatepass")
    plain = _plain_loads(data)
    if plain is not _SLOW:
        assert ("value", repr(plain)) == _standard(data)
        assert strict_loads(data) == plain


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1, "a": 2}',  # a duplicate key
        b'{"a": {"b": 1, "b": 1}}',  # one level down
        b"[1e999]",  # an overflowing float
        b"[123456789012345678901234567890]",  # an integer past 64 bits
        b'"\\ud800"',  # a lone surrogate
        b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
        b"NaN",
    ],
)
def test_plain_loads_leaves_what_it_cannot_judge_to_the_standard_path(data):
    assert _plain_loads(data) is _SLOW


def test_plain_loads_reads_a_plain_body_itself():
    assert _plain_loads(b'{"cards": ["KS", "JK", "2S"], "n": [1, -2], "x": null}') == {
        "cards": ["KS", "JK", "2S"],
        "n": [1, -2],
        "x": None,
    }
    deepest = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert _plain_loads(deepest) is not _SLOW
