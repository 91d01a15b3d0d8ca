"""Stateless Sequence and Sequence Numbers validation endpoints (no database).

- ``POST /v1/sequence/sequences/check``: a position (chips per side, locked
  sequences) -> every completed sequence per side (SQ-S1, SQ-S2, SQ-S4).
- ``POST /v1/sequence/moves/check``: a position + side + card + space -> legal?,
  why not (``code``), and the sequences it would complete (SQ-T1..T3, SQ-S5).
- The same two under ``/v1/sequence-numbers`` with problem cards (``6 x 7``,
  ``PLUS``, ``MINUS``) and an optional custom ``board`` (SN-C0, SN-C1, SN-C2).

A position is ``{"chips": {"green": [[row, col], ...], "blue": [...]},
"sequences": [{"side": "green", "cells": [[r, c] x 5]}]}`` with row 0 at the top;
the listed sequences are the completed (locked) ones. Malformed input (a bad cell,
card, side, board or sequence) is a 422 problem whose ``errors`` names the field,
e.g. ``{"json": {"chips.green.2": ["chips.green.2: [3, 11] is off the 10 x 10
board"]}}``; an illegal but well-formed move is a 200 with ``legal: false``.
"""

from __future__ import annotations

from typing import Any

from flask import Response
from marshmallow import Schema, ValidationError, fields, validate

from service.api.actions import DECK_CARD_PATTERN, NUMBERS_CARD_PATTERN
from service.api.base import Blueprint, OneStepList, json_reply
from service.errors import problem
from service.i18n import localize_fields
from service.games.sequence import CLASSIC, NUMBERS, SIDES, InputError, check_board, check_move

blp = Blueprint(
    "sequence", __name__, url_prefix="/v1/sequence", description="Sequence (RULES.md §2) validation"
)
numbers_blp = Blueprint(
    "sequence-numbers",
    __name__,
    url_prefix="/v1/sequence-numbers",
    description="Sequence Numbers (RULES.md §3) validation",
)

CODES = (
    "space-occupied",
    "card-not-on-space",
    "no-chip",
    "own-chip",
    "chip-locked",
    "invalid-sequence",
)


class StrictInteger(fields.Integer):
    """An integer that refuses booleans and floats (``true`` is not row 1)."""

    def __init__(self, **kwargs: Any):
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class CellField(fields.List[int]):
    """A cell, ``[row, col]``: two :class:`StrictInteger` items. A list of two
    integers (not booleans) loads in one step; anything else goes through the List's
    own item-by-item path, so its errors stay by index. The List's validators run
    either way. (A position names a dozen cells or more: item by item they were a
    third of a move check's CPU.)"""

    def _deserialize(
        self, value: Any, attr: str | None, data: Any, **kwargs: Any
    ) -> list[int | None]:
        if _is_cell(value):
            return list(value)
        return super()._deserialize(value, attr, data, **kwargs)


def _is_cell(value: Any) -> bool:
    """``[row, col]``: a list of two integers, not booleans (CellField's fast path)."""
    return (
        type(value) is list and len(value) == 2 and type(value[0]) is int and type(value[1]) is int
    )


class CellList(OneStepList):
    """A list of :class:`CellField` items, loaded in one loop when every item is a
    cell. (Item by item, a cell went through three fields: timed alone, the move
    check's body loaded in 29 us before this and in 17-19 us after.)"""

    def load_all(self, value: list[Any]) -> list[Any] | None:
        if all(_is_cell(cell) for cell in value):
            return [[row, col] for row, col in value]
        return None


def _cell_field(**kwargs: Any) -> CellField:
    return CellField(
        StrictInteger(metadata={"minimum": 0, "maximum": 9}),
        validate=validate.Length(equal=2),
        metadata={"description": "[row, col], row 0 at the top, 0..9", "example": [4, 4]},
        **kwargs,
    )


class SequenceSchema(Schema):
    side = fields.String(required=True, validate=validate.OneOf(SIDES))
    cells = CellList(_cell_field(), required=True, validate=validate.Length(equal=5))


def _chips_field() -> fields.Dict:
    return fields.Dict(
        keys=fields.String(validate=validate.OneOf(SIDES)),
        values=CellList(_cell_field()),
        required=True,
        metadata={
            "description": "each side's chips (green, blue, red)",
            "additionalProperties": False,
            "properties": {
                side: {
                    "type": "array",
                    "items": {
                        "type": "array",
                        "minItems": 2,
                        "maxItems": 2,
                        "items": {"type": "integer", "minimum": 0, "maximum": 9},
                    },
                }
                for side in SIDES
            },
            "example": {"green": [[0, 1], [0, 2]], "blue": [[5, 5]]},
        },
    )


class PositionSchema(Schema):
    chips = _chips_field()
    sequences = fields.List(
        fields.Nested(SequenceSchema),
        load_default=list,
        metadata={
            "description": "the completed (locked) sequences; chips outside them are unlocked"
        },
    )


class NumbersBoardField(fields.List):
    """A custom Sequence Numbers board: 10 rows of 10 (integers, FREE/null corners)."""

    def __init__(self, **kwargs: Any):
        super().__init__(
            fields.List(fields.Raw(allow_none=True)),
            allow_none=True,
            metadata={
                "description": "custom board (SN-C0): 10 rows of 10, "
                "integers, the 4 corners FREE or null; "
                "omitted: the default board"
            },
            **kwargs,
        )


class NumbersPositionSchema(PositionSchema):
    board = NumbersBoardField(load_default=None)


def _side_field() -> fields.String:
    return fields.String(
        required=True,
        validate=validate.OneOf(SIDES),
        metadata={"description": "the side making the move"},
    )


def _named_field() -> CellList:
    return CellList(
        _cell_field(),
        validate=validate.Length(equal=5),
        load_default=None,
        metadata={
            "description": "SQ-S5: which 5 spaces form the sequence when the line is longer than 5"
        },
    )


class MoveSchema(PositionSchema):
    side = _side_field()
    cell = _cell_field(required=True)
    sequence = _named_field()
    card = fields.String(
        required=True,
        metadata={
            "description": "card code (10H or TH...); JD/JC wild, JS/JH remove a chip",
            "pattern": DECK_CARD_PATTERN,
            "example": "7H",
        },
    )


class NumbersMoveSchema(NumbersPositionSchema):
    side = _side_field()
    cell = _cell_field(required=True)
    sequence = _named_field()
    card = fields.String(
        required=True,
        metadata={
            "description": "a problem card 'a + b', 'a - b', 'a x b', 'a / b' (also × ÷ : − *), "
            "or PLUS (wild) / MINUS (remove a chip); a division is exact and "
            "the answer on the board (422 otherwise)",
            "example": "6 x 7",
            "pattern": NUMBERS_CARD_PATTERN,
        },
    )


class HandField(fields.Raw):
    """A hand: a list of cards, or a count (G-P1: that many cards dealt from the seed;
    what a seat reads of another seat's hand)."""

    def __init__(self, **kwargs: Any):
        super().__init__(
            metadata={
                "oneOf": [
                    {"type": "array", "items": {"type": "string"}},
                    {"type": "integer", "minimum": 0},
                ],
                "example": ["7H", "JD", "2S"],
            },
            **kwargs,
        )

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        valid = (isinstance(value, int) and not isinstance(value, bool) and value >= 0) or (
            isinstance(value, list) and all(isinstance(card, str) for card in value)
        )
        if not valid:
            raise ValidationError("a list of cards or a count")
        return value


def _seats(values: fields.Field, description: str, **kwargs: Any) -> fields.Dict:
    return fields.Dict(
        keys=fields.String(validate=validate.Regexp(r"^p([1-9]|1[0-2])$")),
        values=values,
        metadata={"description": description},
        **kwargs,
    )


def _seat(description: str) -> fields.String:
    return fields.String(
        allow_none=True, load_default=None, metadata={"description": description, "example": "p1"}
    )


class SequencePositionSchema(Schema):
    """G-P1: a Sequence or Sequence Numbers position (README, Positions). The engine's
    own validation decides what is reachable (422 ``invalid-position``)."""

    game = fields.String(required=True, validate=validate.OneOf((CLASSIC, NUMBERS)))
    chips = _chips_field()
    sequences = fields.List(
        fields.Nested(SequenceSchema),
        load_default=list,
        metadata={
            "description": "the completed (locked) sequences; every completed line must be "
            "one (SQ-S5)"
        },
    )
    hands = _seats(HandField(), "each seat's hand (a count: dealt from the seed)", required=True)
    discards = _seats(
        fields.List(fields.String()),
        "each seat's discard pile, bottom first (public)",
        load_default=dict,
    )
    deck = fields.List(
        fields.String(),
        allow_none=True,
        load_default=None,
        metadata={
            "description": "the draw deck, top first; left out: every card no place holds, "
            "shuffled from the seed (server dealing)"
        },
    )
    turn = _seat("the seat to play; null only during a table deal or once finished")
    turn_number = StrictInteger(
        allow_none=True,
        load_default=None,
        metadata={
            "description": "the current turn is the n-th (default: the least the chips allow)"
        },
    )
    exchanged = fields.Boolean(
        load_default=False,
        metadata={"description": "the seat on turn exchanged a dead card this turn (SQ-T4)"},
    )
    owed_draws = fields.List(
        fields.String(),
        load_default=list,
        metadata={
            "description": "table dealing: seats owing their draw, oldest play first (SQ-T5)"
        },
    )
    replacement_due = _seat("table dealing: the seat owing a dead card's replacement")
    penalty_due = fields.List(
        fields.String(),
        load_default=list,
        metadata={"description": "seats owing a table-talk discard (SQ-T6)"},
    )
    lost_draws = _seats(
        StrictInteger(), "table dealing: draws lost per seat (SQ-T5)", load_default=dict
    )
    reshuffles = StrictInteger(load_default=0, metadata={"description": "SQ-T7"})
    passes = StrictInteger(
        load_default=0, metadata={"description": "counted passes in a row (SQ-E1)"}
    )
    decks_without_sequence = StrictInteger(
        load_default=0,
        metadata={"description": "whole decks in a row without a new sequence (SQ-E1)"},
    )
    sequences_at_reshuffle = StrictInteger(
        allow_none=True,
        load_default=None,
        metadata={"description": "sequences completed at the last reshuffle (SQ-E1)"},
    )
    result = fields.Dict(
        allow_none=True,
        load_default=None,
        metadata={"description": "a finished game's RESULT (its reason at least)"},
    )


class FoundSequenceSchema(Schema):
    cells = fields.List(
        fields.List(fields.Integer()),
        required=True,
        metadata={"description": "5 cells in reading order"},
    )
    locked = fields.Boolean(
        required=True,
        metadata={"description": "true: given as completed; false: found on the board"},
    )


class SequencesResultSchema(Schema):
    sequences = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.Nested(FoundSequenceSchema)),
        required=True,
        metadata={"description": "per side named in chips: its completed sequences"},
    )
    counts = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)


class SideSequenceSchema(Schema):
    side = fields.String(required=True)
    cells = fields.List(fields.List(fields.Integer()), required=True)


class MoveResultSchema(Schema):
    legal = fields.Boolean(required=True)
    code = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(CODES),
        metadata={"description": "null when legal"},
    )
    detail = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "why not, in the request's language (Accept-Language); null when legal"
        },
    )
    rule = fields.String(
        required=True,
        metadata={
            "description": "the rule ID the verdict applies (G-R1): the refusal's, or when "
            "legal the card's kind's (SQ-T1 a card on a space showing it, SQ-T2 a two-eyed "
            "Jack, SQ-T3 a one-eyed Jack; SN-C1 a problem card, SN-C2 PLUS and MINUS)",
            "example": "SQ-T1",
        },
    )
    action = fields.String(required=True, validate=validate.OneOf(("play", "remove-chip")))
    card = fields.String(required=True, metadata={"description": "the card, canonical"})
    sequences = fields.List(
        fields.Nested(SideSequenceSchema),
        required=True,
        metadata={"description": "what the placement would complete (SQ-S1, SQ-S4, SQ-S5)"},
    )


def _input_problem(error: InputError) -> Response:
    return problem(
        422,
        error.code,
        error.detail,
        rule=error.rule,
        errors={"json": {error.field: [error.detail]}},
    )


def _sequences(game: str, body: dict) -> Response:
    try:
        return json_reply(check_board(game, body["chips"], body["sequences"], body.get("board")))
    except InputError as error:
        return _input_problem(error)


def _move(game: str, body: dict) -> Response:
    try:
        return json_reply(
            localize_fields(
                check_move(
                    game,
                    body["chips"],
                    body["sequences"],
                    body["side"],
                    body["card"],
                    body["cell"],
                    body.get("board"),
                    body["sequence"],
                ),
                "detail",
            )
        )
    except InputError as error:
        return _input_problem(error)


@blp.post("/sequences/check")
@blp.arguments(PositionSchema())
@blp.response(200, SequencesResultSchema)
@blp.doc(operationId="checkSequenceSequences")
def sequence_sequences(body: dict):
    """Completed sequences per side of a Sequence board position (SQ-S1, S2, S4).

    Five spaces in a row, column or diagonal holding the side's chips or free corners
    (shared by every side) are a sequence; two sequences of a side share at most one
    space (9 in a row is two, 6 to 8 is one). The given sequences are kept (locked);
    every further one is found line by line, first window in reading order first.
    """
    return _sequences(CLASSIC, body)


@blp.post("/moves/check")
@blp.arguments(MoveSchema())
@blp.response(200, MoveResultSchema)
@blp.doc(operationId="checkSequenceMove")
def sequence_move(body: dict):
    """Would this card on this space be legal for the side, and what would it complete?

    A card goes on an open space showing it (SQ-T1), a two-eyed Jack (JD, JC) on any
    open space (SQ-T2); a one-eyed Jack (JS, JH) removes an opponent's chip that is
    not in a completed sequence (SQ-T3, SQ-S2). Codes: ``space-occupied``,
    ``card-not-on-space``, ``no-chip``, ``own-chip``, ``chip-locked``,
    ``invalid-sequence`` (a named SQ-S5 sequence that is not one).
    """
    return _move(CLASSIC, body)


@numbers_blp.post("/sequences/check")
@numbers_blp.arguments(NumbersPositionSchema())
@numbers_blp.response(200, SequencesResultSchema)
@numbers_blp.doc(operationId="checkSequenceNumbersSequences")
def numbers_sequences(body: dict):
    """Completed sequences per side of a Sequence Numbers position (SQ-S1/S4, SN-S2),
    on the default board or the given custom ``board`` (SN-C0)."""
    return _sequences(NUMBERS, body)


@numbers_blp.post("/moves/check")
@numbers_blp.arguments(NumbersMoveSchema())
@numbers_blp.response(200, MoveResultSchema)
@numbers_blp.doc(operationId="checkSequenceNumbersMove")
def numbers_move(body: dict):
    """Would this problem card on this space be legal, and what would it complete?

    The chip goes on a space showing the problem's answer (SN-C1: ``6 x 7`` -> 42,
    evaluated by a parser of the four operations, never ``eval``); PLUS is wild and
    MINUS removes an opponent's unlocked chip (SN-C2). An unparseable problem, an
    inexact division or an answer not on the board is a 422 naming ``card``.
    """
    return _move(NUMBERS, body)
