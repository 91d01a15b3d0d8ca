"""An action body is loaded by ActionSchema narrowed to the fields it names
(service/api/game_schemas.py): the result and the errors are those of the whole
schema, for any body."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError

from service.api.game_schemas import ActionSchema

SCHEMA = ActionSchema()
NAMES = sorted(SCHEMA.fields) + ["extra", "move"]
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


def _loaded(load, body):
    try:
        return "loaded", load(body)
    except ValidationError as error:
        return "refused", error.messages


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=6))
def test_narrowed_load_equals_the_whole_schemas(body):
    whole = _loaded(lambda b: Schema.load(SCHEMA, b), body)
    assert _loaded(SCHEMA.load, body) == whole


def test_the_narrowed_load_keeps_every_check():
    assert SCHEMA.load({"type": "place", "tile": 3, "cell": [1, 2], "expected_version": 4}) == {
        "type": "place",
        "tile": 3,
        "cell": [1, 2],
        "expected_version": 4,
    }
    assert _loaded(SCHEMA.load, {"tile": 3}) == (
        "refused",
        {"type": ["Missing data for required field."]},
    )
    assert _loaded(SCHEMA.load, {"type": "draw", "expected_version": -1}) == (
        "refused",
        {"expected_version": ["Must be greater than or equal to 0."]},
    )
    assert _loaded(SCHEMA.load, [1]) == ("refused", {"_schema": ["Invalid input type."]})
