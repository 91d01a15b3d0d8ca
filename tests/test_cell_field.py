"""A Sequence cell is loaded by CellField (service/api/sequence.py), whose one-step path
for two integers must give what marshmallow's List of StrictInteger gives, result and
errors, for any value; and a move check's position still refuses what it refused."""

from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError, fields, validate

from service.api.sequence import CellField, MoveSchema, StrictInteger


def _schema(kind):
    cell = kind(StrictInteger(), validate=validate.Length(equal=2))
    return Schema.from_dict({"cell": cell, "cells": fields.List(kind(StrictInteger()))})()


FAST, PLAIN = _schema(CellField), _schema(fields.List)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.floats(-1, 11) | st.text(max_size=2),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner),
    max_leaves=6,
)


def _loaded(schema, body):
    try:
        return "loaded", schema.load(body)
    except ValidationError as error:
        return "refused", error.messages


@settings(deadline=None)
@given(VALUES, st.lists(VALUES, max_size=3))
def test_a_cell_loads_as_the_list_of_strict_integers_does(cell, cells):
    body = {"cell": cell, "cells": cells}
    assert _loaded(FAST, body) == _loaded(PLAIN, body)


def test_a_move_check_refuses_a_boolean_a_float_and_a_short_cell():
    schema = MoveSchema()
    base = {"chips": {"green": [[0, 1]]}, "side": "green", "card": "5S"}
    assert schema.load({**base, "cell": [0, 4]})["cell"] == [0, 4]
    assert _loaded(schema, {**base, "cell": [True, 4]}) == (
        "refused",
        {"cell": {0: ["Not a valid integer."]}},
    )
    assert _loaded(schema, {**base, "cell": [0, 4.5]}) == (
        "refused",
        {"cell": {1: ["Not a valid integer."]}},
    )
    assert _loaded(schema, {**base, "cell": [0]}) == ("refused", {"cell": ["Length must be 2."]})
    assert _loaded(schema, {**base, "chips": {"green": [[0, "1"]]}, "cell": [0, 4]}) == (
        "refused",
        {"chips": {"green": {"value": {0: {1: ["Not a valid integer."]}}}}},
    )
