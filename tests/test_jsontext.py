"""service/jsontext.py: orjson's text and values are what the standard library's json
gave before (the store's canonical form, replies), huge integers included."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from hypothesis import given
from hypothesis import strategies as st

from service import jsontext

# JSON values as the service meets them: integers of any size, finite floats, text
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(values)
def test_canonical_is_the_standard_librarys_round_trip(value):
    assert jsontext.canonical(value) == json.loads(json.dumps(value, sort_keys=True))
    assert jsontext.loads(jsontext.canonical_text(value)) == jsontext.canonical(value)
    assert json.loads(jsontext.reply_bytes(value)) == json.loads(json.dumps(value))


@given(values)
def test_canonical_read_back_is_the_text_and_what_it_reads_back(value):
    text, read = jsontext.canonical_read_back(value)
    assert text == jsontext.canonical_text(value)
    assert read == jsontext.loads(text) == json.loads(json.dumps(value, sort_keys=True))


def test_canonical_read_back_keeps_integers_past_64_bits_and_at_its_edges():
    for number in (2**63 - 1, 2**64 - 1, -(2**63), 2**64, -(2**63) - 1, 10**30):
        text, read = jsontext.canonical_read_back({"n": number, "t": (1, 2)})
        assert read == {"n": number, "t": [1, 2]} and type(read["n"]) is int, number


@given(values)
def test_plain_copy_is_the_standard_librarys_round_trip_in_the_same_order(value):
    copied = jsontext.plain_copy(value)
    assert copied == json.loads(json.dumps(value))
    assert json.dumps(copied) == json.dumps(json.loads(json.dumps(value)))  # key order too


def test_plain_copy_is_deep_and_reads_as_json():
    event = {"type": "declared", "cells": [(3, 4), (3, 5)], 2: {"seat": "blue"}}
    copied = jsontext.plain_copy(event)
    assert copied == {"type": "declared", "cells": [[3, 4], [3, 5]], "2": {"seat": "blue"}}
    copied["cells"][0][0] = 9
    copied["2"]["seat"] = "green"
    assert event["cells"][0] == (3, 4) and event[2] == {"seat": "blue"}
    assert jsontext.plain_copy({"version": 2**64}) == {"version": 2**64}


def test_integers_of_more_than_64_bits_stay_integers():
    huge = {"version": 2**64, "seed": -(10**40)}
    assert (
        jsontext.reply_bytes(huge)
        == b'{"version":18446744073709551616,"seed":' + str(-(10**40)).encode() + b"}"
    )
    assert jsontext.canonical(huge) == {"seed": -(10**40), "version": 2**64}
    assert jsontext.loads(jsontext.column_text([2**70])) == [2**70]


def test_keys_sorted_non_string_keys_as_strings_text_unescaped():
    assert (
        jsontext.canonical_text({"b": (1, 2), 3: "é", "a": None}) == '{"3":"é","a":null,"b":[1,2]}'
    )
    assert jsontext.reply_bytes({"b": 1, "a": "Trimiteți"}) == '{"b":1,"a":"Trimiteți"}'.encode()


def test_flask_replies_keep_flasks_dates():
    from flask.json.provider import _default

    moment = datetime(2026, 12, 5, 7, 30, tzinfo=timezone.utc)
    assert jsontext.sorted_text({"z": 1, "at": moment}, _default) == (
        '{"at":"Sat, 05 Dec 2026 07:30:00 GMT","z":1}'
    )
