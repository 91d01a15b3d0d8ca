"""Stateless Solitaire Frenzy check (no database): what a referee at a game night asks
mid-round.

- ``POST /v1/solitaire-frenzy/plays/check``: ``{"card", "onto": card or null, "to":
  "foundation" | "column"}`` -> ``{"legal", "code", "rule", "detail"}``: may this card
  go onto that foundation top (null: start a new pile, SF-F1) or onto that column card
  (null: into an empty column, SF-R4; SF-R1)?

Card codes are read like everywhere (``10H``, ``TH``, ``th``); a joker or an unknown
code is a 422 problem naming the field, e.g. ``{"json": {"card": ["unknown card code
'ZZ'"]}}``; an illegal but well-formed play is a 200 with ``legal: false``.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from service.api.actions import DECK_CARD_PATTERN
from service.api.base import Blueprint
from service.i18n import localize
from service.cards import JOKER, CardError, parse_card
from service.games.solitaire_frenzy import COLUMN, FOUNDATION, check_play

blp = Blueprint(
    "solitaire-frenzy",
    __name__,
    url_prefix="/v1/solitaire-frenzy",
    description="Solitaire Frenzy (RULES.md §5) validation",
)

CODES = (
    "new-pile-needs-ace",
    "ace-needs-new-pile",
    "pile-complete",
    "wrong-suit",
    "wrong-rank",
    "wrong-colour",
)


class DeckCardField(fields.String):
    """A card of a 52-card deck (no joker), loaded canonical (``th`` -> ``10H``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        try:
            card = parse_card(value)
        except CardError as exc:
            raise ValidationError(str(exc)) from exc
        if card == JOKER:
            raise ValidationError("Solitaire Frenzy decks have no joker")
        return card


class FrenzyPlayCheckSchema(Schema):
    card = DeckCardField(
        required=True,
        metadata={
            "description": "the card played: rank A 2-10 (or T) J Q K + suit S H D C",
            "pattern": DECK_CARD_PATTERN,
            "example": "5H",
        },
    )
    onto = DeckCardField(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "the foundation top or the exposed column card it goes onto; "
            "null: a new foundation pile (an Ace) or an empty column",
            "pattern": DECK_CARD_PATTERN,
            "example": "4H",
        },
    )
    to = fields.String(
        required=True,
        validate=validate.OneOf((FOUNDATION, COLUMN)),
        metadata={"example": FOUNDATION},
    )


class FrenzyPlayVerdictSchema(Schema):
    legal = fields.Boolean(required=True)
    code = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(CODES),
        metadata={"description": "why not; null when legal"},
    )
    rule = fields.String(
        required=True,
        metadata={
            "description": "the rule applied: SF-F1 (foundations), SF-R1 (columns), SF-R4 "
            "(empty column)"
        },
    )
    detail = fields.String(
        required=True,
        metadata={
            "description": "the verdict in words, in the request's language (Accept-Language)"
        },
    )


@blp.post("/plays/check")
@blp.arguments(FrenzyPlayCheckSchema)
@blp.response(200, FrenzyPlayVerdictSchema)
@blp.doc(operationId="checkSolitaireFrenzyPlay")
def check_a_play(body: dict):
    """Would this card go onto that foundation top or column card?

    Foundation (SF-F1): same suit, one rank up; only an Ace starts a pile (`onto`
    null) and an Ace never goes onto a pile; nothing goes on a King. Column (SF-R1):
    one rank down in the other colour, suit aside; `onto` null is an empty column,
    which takes a 13-pile or waste top (SF-R4). Codes: `new-pile-needs-ace`,
    `ace-needs-new-pile`, `pile-complete`, `wrong-suit`, `wrong-rank`,
    `wrong-colour`. `detail` follows Accept-Language (en fr de es it ro).
    """
    return localize(check_play(body["card"], body["onto"], body["to"]))


# ----- the position notation (G-P1), for POST /v1/games {"position"} and
# GET /v1/games/{id}/position; the engine's own checks decide what is reachable ---------


class _CardField(fields.String):
    """A card code in the position notation (``10H``, ``TH``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(metadata={"pattern": DECK_CARD_PATTERN, "example": "5H"}, **kwargs)


class FrenzyFoundationCardSchema(Schema):
    card = _CardField(required=True)
    seat = fields.String(
        required=True, metadata={"description": "the deck it came from", "example": "p1"}
    )


class FrenzyFoundationSchema(Schema):
    id = fields.Integer(
        validate=validate.Range(min=1),
        metadata={"description": "the pile's number (default: its place in the list, from 1)"},
    )
    cards = fields.List(
        fields.Nested(FrenzyFoundationCardSchema),
        required=True,
        validate=validate.Length(min=1, max=13),
        metadata={
            "description": "from the Ace up, one rank at a time in its "
            "suit (SF-F1), each with its owner"
        },
    )


class FrenzySeatPositionSchema(Schema):
    pile = fields.List(
        _CardField(),
        validate=validate.Length(max=13),
        metadata={"description": "the 13-pile, top LAST (or pile_top and pile_size)"},
    )
    pile_top = _CardField(allow_none=True)
    pile_size = fields.Integer(validate=validate.Range(min=0, max=13))
    columns = fields.List(
        fields.List(_CardField()),
        required=True,
        validate=validate.Length(equal=4),
        metadata={
            "description": "the four columns, exposed card LAST, each "
            "built down in alternating colours (SF-R1)"
        },
    )
    hand = fields.List(
        _CardField(), metadata={"description": "face down, next to turn FIRST (or hand_size)"}
    )
    hand_size = fields.Integer(validate=validate.Range(min=0, max=52))
    waste = fields.List(
        _CardField(),
        metadata={"description": "turned cards, top LAST (or waste_top and waste_size)"},
    )
    waste_top = _CardField(allow_none=True)
    waste_size = fields.Integer(validate=validate.Range(min=0, max=52))
    cycle = fields.String(
        validate=validate.OneOf(("turning", "known", "broken")),
        metadata={
            "description": "the turning position (SF-H1, SF-E1): turning = a pass through "
            "the hand with no waste play since the last pick-up; known = "
            "the hand was turned through that way; broken = a waste card "
            "was played since the last pick-up"
        },
    )


class FrenzyRetiredSchema(Schema):
    round = fields.Integer(required=True, validate=validate.Range(min=1))
    pile = fields.Integer(
        allow_none=True,
        validate=validate.Range(min=0, max=13),
        metadata={"description": "its 13-pile size when it left (null in table mode)"},
    )


class FrenzyRoundRecordSchema(Schema):
    round = fields.Integer(required=True)
    reason = fields.String(required=True, validate=validate.OneOf(("out", "stuck", "last-seat")))
    out = fields.String(required=True, allow_none=True)
    board = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    pile = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    scores = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)


class SolitaireFrenzyPositionSchema(Schema):
    """A Solitaire Frenzy position (G-P1): the round in play, totals, the board, each
    seat's tableau; cards left out (given by a size) are dealt from the seed."""

    game = fields.String(required=True, validate=validate.Equal("solitaire-frenzy"))
    round = fields.Integer(
        validate=validate.Range(min=1), metadata={"description": "the round in play (default 1)"}
    )
    totals = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata={"description": "running totals before this round (SF-E2)"},
    )
    history = fields.List(
        fields.Nested(FrenzyRoundRecordSchema),
        metadata={
            "description": "the ended rounds; holding the round in play means the game is over"
        },
    )
    retired = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(FrenzyRetiredSchema),
        metadata={"description": "seats that left the table (SF-E3)"},
    )
    foundations = fields.List(
        fields.Nested(FrenzyFoundationSchema),
        metadata={"description": "the shared foundation piles"},
    )
    players = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(FrenzySeatPositionSchema),
        metadata={
            "description": "each seat still playing: its 13-pile, "
            "columns, hand and waste (may be left out "
            "in table mode)"
        },
    )
