"""Stateless two-way validation endpoints (no database).

- ``POST /v1/two-way/sequences/check``: cards in line order -> verdict (TW-S1..TW-S10).
- ``POST /v1/two-way/grid/sequences``: a 7 x 7 grid of one colour's faces -> every
  declarable line (TW-D1).

Card codes are read with :func:`service.cards.parse_card` (``10H``, ``TH``, ``th``,
``JK``) and answered in canonical form. A body that does not match the schema is a 422
problem whose ``errors`` names the field and index, e.g.
``{"json": {"cards": {"1": ["unknown card code 'ZZ'"]}}}``; an invalid (but well-formed)
line is a 200 with ``valid: false`` whose ``reasons`` name their code, their rule and a
sentence in the request's language (Accept-Language, service.i18n).
"""

from __future__ import annotations

from typing import Any, cast

from flask import Response
from marshmallow import Schema, ValidationError, fields, validate

from service.api.actions import CARD_PATTERN
from service.api.base import Blueprint, OneStepList, json_reply
from service.cards import CardError, parse_card
from service.games.two_way import (
    GRID_SIZE,
    LINE_LENGTHS,
    classify_line,
    explain_reasons,
    kind_rule,
    scan_grid,
)
from service.i18n import localize_fields

blp = Blueprint("two-way", __name__, url_prefix="/v1/two-way", description="two-way validation")

KINDS = ("run", "same-rank", "suit-set")
TIERS = ("high", "low")
REASONS = ("mixed-ranks-and-suits", "not-consecutive", "identical-adjacent", "duplicate-card")


class CardField(fields.String):
    """A card code parsed with :func:`service.cards.parse_card`; loads canonical.

    Any non-string or unknown code fails with ``unknown card code '<input>'``.
    """

    def __init__(self, **kwargs: Any):
        metadata = {
            "description": "card code: rank A 2-10 (or T) J Q K + suit S H D C, "
            "or JK for a joker; case-insensitive",
            "example": "10H",
            "pattern": CARD_PATTERN,
            **kwargs.pop("metadata", {}),
        }
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        try:
            return parse_card(value)
        except CardError as exc:
            raise ValidationError(str(exc)) from exc


class CardList(OneStepList):
    """A list of :class:`CardField` items, loaded in one loop when every item is a card
    code (or None where the items allow it)."""

    def load_all(self, value: list[Any]) -> list[str | None] | None:
        allow_none = self.inner.allow_none
        try:
            return [None if item is None and allow_none else parse_card(item) for item in value]
        except CardError:
            return None


class LineCheckSchema(Schema):
    cards = CardList(
        CardField(),
        required=True,
        validate=validate.Length(min=min(LINE_LENGTHS), max=max(LINE_LENGTHS)),
        metadata={
            "description": "3 to 6 cards in their order along the grid line",
            "example": ["KS", "AS", "2S", "3S"],
        },
    )


class ReasonSchema(Schema):
    code = fields.String(
        required=True, validate=validate.OneOf(REASONS), metadata={"example": "identical-adjacent"}
    )
    rule = fields.String(
        required=True,
        metadata={
            "description": "the rule the line breaks (G-R1): mixed-ranks-and-suits TW-S4, "
            "not-consecutive TW-S1, identical-adjacent TW-S5 (3-4 cards) or TW-S6 "
            "(5-6 cards), duplicate-card TW-S4",
            "example": "TW-S5",
        },
    )
    detail = fields.String(
        required=True,
        metadata={
            "description": "the reason in words, in the request's language (Accept-Language)"
        },
    )


class LineVerdictSchema(Schema):
    valid = fields.Boolean(required=True)
    kind = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(KINDS),
        metadata={"description": "null when invalid"},
    )
    tier = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(TIERS),
        metadata={"description": "null when invalid"},
    )
    points = fields.Integer(
        required=True,
        metadata={"description": "high 5/7/10/12, low 3/4/6/8 for 3/4/5/6 cards; 0 when invalid"},
    )
    length = fields.Integer(required=True)
    cards = fields.List(
        fields.String(), required=True, metadata={"description": "the input, canonical"}
    )
    assignment = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "the cards with every joker replaced by the card it stands for "
            "in the best reading (TW-S8); the input when invalid"
        },
    )
    reasons = fields.List(
        fields.Nested(ReasonSchema),
        required=True,
        metadata={"description": "why the line is invalid (each with its rule); empty when valid"},
    )
    rule = fields.String(
        required=True,
        metadata={
            "description": "the rule the verdict applies (G-R1): the kind's when valid "
            "(TW-S1 run, TW-S2/TW-S3 high and TW-S5/TW-S6 low same-rank lines of 3-4 and "
            "5-6 cards, TW-S4 suit set); when invalid, the rule of the loosest kind "
            "that could have taken the line (its last reason's)",
            "example": "TW-S1",
        },
    )


class GridField(OneStepList):
    """A grid: a list of :class:`CardList` rows, loaded in one loop when every row is a
    list of 7 card codes or nulls (errors stay by row and column otherwise)."""

    def load_all(self, value: list[Any]) -> list[Any] | None:
        inner = cast(CardList, self.inner)
        rows = []
        for row in value:
            loaded = inner.load_all(row) if type(row) is list and len(row) == GRID_SIZE else None
            if loaded is None:
                return None
            rows.append(loaded)
        return rows


class GridSchema(Schema):
    grid = GridField(
        CardList(CardField(allow_none=True), validate=validate.Length(equal=GRID_SIZE)),
        required=True,
        validate=validate.Length(equal=GRID_SIZE),
        metadata={
            "description": "7 rows of 7 cells, row 0 at blue's side; a cell is the "
            "card code of one colour's face, or null when empty"
        },
    )


class GridLineSchema(Schema):
    cells = fields.List(
        fields.List(fields.Integer()),
        required=True,
        metadata={
            "description": "[row, col] of each card, in reading order (top-left end first)",
            "example": [[0, 0], [0, 1], [0, 2]],
        },
    )
    cards = fields.List(fields.String(), required=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    tier = fields.String(required=True, validate=validate.OneOf(TIERS))
    points = fields.Integer(required=True)
    assignment = fields.List(fields.String(), required=True)


class GridSequencesSchema(Schema):
    sequences = fields.List(fields.Nested(GridLineSchema), required=True)


@blp.post("/sequences/check")
@blp.arguments(LineCheckSchema())  # instances: not built again per request
@blp.response(200, LineVerdictSchema)
@blp.doc(operationId="checkTwoWaySequence")
def check_sequence(body: dict[str, list[str]]) -> Response:
    """Judge a line of 3 to 6 cards (RULES.md TW-S1..TW-S10).

    The cards are given in their order along the grid line. Runs are one suit,
    consecutive, ascending or descending (aces low, high or joining K-A-2); same-rank
    lines are high when every suit differs (3/4 cards) or every suit is present (5/6
    cards) and never have identical cards next to each other; suit sets are low.
    Jokers are wild and the best reading is scored and reported as ``assignment``.
    An invalid line is still a 200: ``valid`` false, ``points`` 0, ``reasons``
    ``[{"code", "rule", "detail"}]`` with codes from ``mixed-ranks-and-suits``,
    ``not-consecutive``, ``identical-adjacent``, ``duplicate-card`` (G-R1). ``detail``
    follows Accept-Language (en fr de es it ro).
    """
    verdict = classify_line(body["cards"])
    verdict["reasons"] = explain_reasons(verdict["reasons"], verdict["length"])
    # invalid: the rule of the loosest kind that could have taken the line, which its
    # reasons list last (a one-suit line that is no run fails as a suit set, TW-S4)
    verdict["rule"] = kind_rule(verdict) or verdict["reasons"][-1]["rule"]
    return json_reply(localize_fields(verdict, "reasons"))


@blp.post("/grid/sequences")
@blp.arguments(GridSchema())
@blp.response(200, GridSequencesSchema)
@blp.doc(operationId="findTwoWayGridSequences")
def grid_sequences(body: dict[str, list[list[str | None]]]) -> Response:
    """Every declarable line of a 7 x 7 grid, in one colour (RULES.md TW-D1, TW-S).

    Lines of 3 to 6 occupied spaces, horizontal, vertical or diagonal, each listed
    once (every sub-segment of a longer line too) with its cells in reading order,
    ordered by first cell, then direction (horizontal, vertical, down-right,
    down-left), then length.
    """
    return json_reply({"sequences": scan_grid(body["grid"])})


# ----- positions (G-P1) ---------------------------------------------------------------

TILE_DESCRIPTION = (
    'a tile: its manifest id 0..107, or its faces "AS/KH" (blue face / '
    "green face; the first tile of the manifest with those faces not yet "
    "named). A server game without a stated manifest takes faces only."
)
TILE_SCHEMA = {
    "oneOf": [
        {"type": "integer", "minimum": 0, "maximum": 107},
        {"type": "string", "pattern": r"^[^/]+/[^/]+$", "example": "AS/KH"},
    ]
}


class TileField(fields.Raw):
    """A tile as :data:`TILE_DESCRIPTION` says; the engine resolves and checks it
    (``service.games.two_way.positions``)."""

    def __init__(self, **kwargs: Any):
        super().__init__(
            metadata={"description": TILE_DESCRIPTION, **TILE_SCHEMA, **kwargs.pop("metadata", {})},
            **kwargs,
        )


class TwoWayBaseEntrySchema(Schema):
    cells = fields.List(
        fields.List(fields.Integer()),
        required=True,
        metadata={
            "description": "[row, col] of each tile, in line order (TW-D1)",
            "example": [[0, 0], [0, 1], [0, 2]],
        },
    )
    tiles = fields.List(
        TileField(),
        required=True,
        metadata={
            "description": "the removed tiles in line order; a correct sequence on the "
            "owner's faces (TW-D4)"
        },
    )


def _by_seat(inner: fields.Field[Any], description: str) -> fields.Dict:
    return fields.Dict(
        keys=fields.String(validate=validate.OneOf(("blue", "green"))),
        values=inner,
        metadata={"description": description},
    )


class TwoWayPositionSchema(Schema):
    """A 2-Way Cards position (RULES.md G-P1; README "Positions"). What it leaves out
    is dealt from the seed: an omitted hand takes the tiles the phase implies, an
    omitted bag is the rest. The engine refuses an unreachable position (422
    invalid-position with ``field`` and ``rule``)."""

    game = fields.String(
        required=True,
        validate=validate.Equal("two-way"),
        metadata={"description": "the discriminator"},
    )
    grid = fields.List(
        fields.List(TileField(allow_none=True)),
        required=True,
        metadata={"description": "7 rows of 7 cells, row 0 at blue's side (TW-C1): a tile or null"},
    )
    hands = _by_seat(
        fields.List(TileField()),
        "each seat's tiles in draw order (5 off "
        "turn; 5 - placed while placing or drawing; 7 before the discard)",
    )
    bag = fields.List(
        TileField(),
        allow_none=True,
        metadata={"description": "the bag (order irrelevant); omitted: every tile not stated"},
    )
    bag_count = fields.Integer(
        metadata={"description": "read only: the bag's size, where the bag may not be read"}
    )
    bases = _by_seat(
        fields.List(fields.Nested(TwoWayBaseEntrySchema)),
        "each seat's removed sequences (TW-D4), at most the slots (TW-D3)",
    )
    scores = _by_seat(fields.Integer(), "optional: the sum of the removed sequences' points")
    turn = fields.String(
        validate=validate.OneOf(("blue", "green")),
        metadata={"description": "the seat to play (default: option first_seat)"},
    )
    phase = fields.String(
        validate=validate.OneOf(("deal", "place", "draw", "discard", "over")),
        metadata={
            "description": "the point of the turn (TW-T2); default place; over: a finished game"
        },
    )
    placed = fields.Integer(
        metadata={"description": "placements made this turn (default 0; 2 in draw and discard)"}
    )
    turn_number = fields.Integer(
        metadata={
            "description": "the first seat plays the odd turns, and a turn places 2 tiles "
            "at most (TW-T2); default the seat's first turn that can have placed the tiles "
            "on the grid and in the bases (0 while dealing)"
        }
    )
    pending_skips = _by_seat(
        fields.Integer(validate=validate.OneOf((0, 1))),
        "a missed turn owed (TW-D5, TW-T5); default none",
    )
    dealt = fields.List(
        fields.String(),
        metadata={
            "description": "phase deal: the seats already dealt (table dealing reports the "
            "rest; server dealing deals them from the seed)"
        },
    )
    manifest = fields.List(
        TileField(),
        allow_none=True,
        metadata={
            "description": '108 tiles "AS/KH" (tile id = index), checked as option '
            "tile_manifest (TW-C2); default: the game's own"
        },
    )
    custom_manifest = fields.Boolean(
        metadata={"description": "whether the manifest copies a physical set"}
    )
