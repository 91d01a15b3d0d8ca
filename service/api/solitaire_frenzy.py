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

blp = Blueprint("solitaire-frenzy", __name__, url_prefix="/v1/solitaire-frenzy",
                description="Solitaire Frenzy (RULES.md §5) validation")

CODES = ("new-pile-needs-ace", "ace-needs-new-pile", "pile-complete", "wrong-suit",
         "wrong-rank", "wrong-colour")


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
    card = DeckCardField(required=True, metadata={
        "description": "the card played: rank A 2-10 (or T) J Q K + suit S H D C",
        "pattern": DECK_CARD_PATTERN,
        "example": "5H"})
    onto = DeckCardField(load_default=None, allow_none=True, metadata={
        "description": "the foundation top or the exposed column card it goes onto; "
                       "null: a new foundation pile (an Ace) or an empty column",
        "pattern": DECK_CARD_PATTERN,
        "example": "4H"})
    to = fields.String(required=True, validate=validate.OneOf((FOUNDATION, COLUMN)),
                       metadata={"example": FOUNDATION})


class FrenzyPlayVerdictSchema(Schema):
    legal = fields.Boolean(required=True)
    code = fields.String(required=True, allow_none=True, validate=validate.OneOf(CODES),
                         metadata={"description": "why not; null when legal"})
    rule = fields.String(required=True, metadata={
        "description": "the rule applied: SF-F1 (foundations), SF-R1 (columns), SF-R4 "
                       "(empty column)"})
    detail = fields.String(required=True, metadata={
        "description": "the verdict in words, in the request's language (Accept-Language)"})


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
