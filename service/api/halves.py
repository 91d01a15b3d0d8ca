"""Stateless Halves validation endpoint (no database).

- ``POST /v1/halves/plays/check``: does this card go on that top card (HV-T1)?

Card codes are two halves, each a colour letter (R G B Y) and a symbol letter (C S T X):
``RC-GS`` = red circle / green square (``service.games.halves``). Input is
case-insensitive, with ``-``, ``/`` or nothing between the halves; both codes are read
AS WRITTEN: ``top`` as the card lies, ``card`` as it is held (``turned`` swaps its
halves). A code that is not a card is a 422 problem naming the field, e.g.
``{"json": {"top": ["unknown card code 'RZ-GS': ..."]}}``; a card that does not go on
the top is a 200 with ``matches: false``.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from service.api.actions import HALVES_CARD_PATTERN
from service.api.base import Blueprint, StrictBoolean
from service.i18n import localize
from service.games.halves import MATCHES, PER_HALF, CardCodeError, card_code, check_play, parse_card

blp = Blueprint(
    "halves", __name__, url_prefix="/v1/halves", description="Halves (RULES.md §4) validation"
)


class HalvesCardField(fields.String):
    """A Halves card code, loaded in canonical notation, orientation as written."""

    def __init__(self, **kwargs: Any):
        metadata = {
            "description": "card code: two halves, each colour (R G B Y) + symbol "
            "(C S T X), read as written; case-insensitive, '-', "
            "'/' or nothing between the halves",
            "example": "RC-GS",
            "pattern": HALVES_CARD_PATTERN,
            **kwargs.pop("metadata", {}),
        }
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        try:
            return card_code(parse_card(value))
        except CardCodeError as exc:
            raise ValidationError(str(exc)) from exc


class PlayCheckSchema(Schema):
    top = HalvesCardField(
        required=True,
        metadata={
            "description": "the top card of the central pile, as it lies",
            "example": "RC-GS",
        },
    )
    card = HalvesCardField(
        required=True, metadata={"description": "the card to lay, as held", "example": "RT-BS"}
    )
    turned = StrictBoolean(
        load_default=False,
        metadata={"description": "lay the card turned round (its halves swapped)"},
    )
    match = fields.String(
        load_default=PER_HALF,
        validate=validate.OneOf(MATCHES),
        metadata={
            "description": "HV-T1 reading: per_half (each half by "
            "colour or symbol, default), whole_card "
            "(both halves by colour, or both by "
            "symbol) or any_half (each half by colour "
            "or symbol of either half of the top)"
        },
    )


_CARDS_OR_COUNT = {
    "oneOf": [
        {"type": "array", "items": {"type": "string", "pattern": HALVES_CARD_PATTERN}},
        {"type": "integer", "minimum": 0},
    ]
}


class HalvesPositionSchema(Schema):
    """A Halves position (G-P1; notation: service/games/halves/positions.py). The
    engine's own validation decides what is reachable (422 invalid-position naming the
    field and the rule)."""

    game = fields.String(
        required=True,
        validate=validate.Equal("halves"),
        metadata={"description": "the discriminator: halves"},
    )
    centre = fields.List(
        fields.String(metadata={"pattern": HALVES_CARD_PATTERN}),
        required=True,
        metadata={
            "description": "the central pile, bottom to top, each card "
            "as it lies (GS-RC = RC-GS turned round); at "
            "least the starting card (HV-P2)",
            "example": ["RC-GS", "GT-YC"],
        },
    )
    hands = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(metadata=_CARDS_OR_COUNT),
        required=True,
        metadata={
            "description": "every seat not retired: its hand cards, or how "
            "many (dealt from the seed; table dealing: "
            "counts only); at most 4 (HV-T2)",
            "example": {"p1": ["RT-BS", "GT-YC"], "p2": 3},
        },
    )
    piles = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(metadata=_CARDS_OR_COUNT),
        metadata={
            "description": "each seat's face-down pile, top first, or its size; default empty",
            "example": {"p1": 0, "p2": 10},
        },
    )
    retired = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata={
            "description": "retired seats and their cards left when "
            "they retired, at least 2 (HV-T6)"
        },
    )
    box = fields.Integer(
        metadata={
            "description": "cards out of play (the deal's leftovers, "
            "retired seats' cards); checked, derived "
            "when left out (G-P1)"
        }
    )
    pile_turns_from = fields.String(
        metadata={
            "description": "where the pile-turn rotation carries on (HV-T5); default the seat "
            "after first_seat",
            "example": "p2",
        }
    )
    in_a_row = fields.Integer(
        metadata={
            "description": "block moves in a row since the hands last changed (HV-T5); default 0"
        }
    )
    counts = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata={
            "description": "the record so far: plays, draws, top_up_draws, bottom_card_moves, "
            "pile_turns; default 0 each"
        },
    )


class HalfVerdictSchema(Schema):
    by = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(["colour", "symbol"]),
        metadata={
            "description": "what this half counts by under `match`; null when it does not count"
        },
    )
    colour = fields.Boolean(
        required=True, metadata={"description": "same colour as the top's half"}
    )
    symbol = fields.Boolean(
        required=True, metadata={"description": "same symbol as the top's half"}
    )


class PlayVerdictSchema(Schema):
    matches = fields.Boolean(
        required=True, metadata={"description": "the card, laid as asked, goes on the top"}
    )
    code = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(["no-match"]),
        metadata={
            "description": "null when it matches; no-match (as a play would be refused) otherwise"
        },
    )
    halves = fields.List(
        fields.Nested(HalfVerdictSchema),
        required=True,
        validate=validate.Length(equal=2),
        metadata={"description": "first half, second half (as laid)"},
    )
    matches_turned = fields.Boolean(
        required=True, metadata={"description": "the verdict with the card the other way round"}
    )
    top = fields.String(required=True, metadata={"description": "the top, canonical"})
    card = fields.String(required=True, metadata={"description": "the card as held, canonical"})
    turned = fields.Boolean(required=True)
    laid = fields.String(required=True, metadata={"description": "the card as it would lie"})
    match = fields.String(required=True)
    rule = fields.String(required=True, metadata={"example": "HV-T1"})
    detail = fields.String(
        required=True,
        metadata={
            "description": "the verdict in words, in the request's language (Accept-Language)"
        },
    )


@blp.post("/plays/check")
@blp.arguments(PlayCheckSchema)
@blp.response(200, PlayVerdictSchema)
@blp.doc(operationId="checkHalvesPlay")
def check_play_endpoint(body: dict) -> dict:
    """Does `card` go on `top` (RULES.md HV-T1)?

    Each half of the card, as laid (`turned` swaps its halves), is compared with the
    top's half in the same place: by colour or by symbol (`match: per_half`), or both
    halves by colour / both by symbol (`match: whole_card`); with `match: any_half`
    each half is compared with both halves of the top (turning changes nothing).
    `matches_turned` answers the same question for the card turned round. A card that
    does not match is a 200 with `matches: false` and `code` `no-match`; a bad card code
    is a 422 naming the field. `detail` follows Accept-Language (en fr de es it ro).
    """
    return localize(check_play(body["top"], body["card"], body["turned"], body["match"]))
