"""Pictures of games (SVG, ``image/svg+xml``): a game as the caller may see it, and
stateless pictures of positions for referees without a game.

- ``GET /v1/games/{id}/picture.svg``: drawn from the engine's ``view`` for the bearer
  (the same viewer filter as ``GET /v1/games/{id}``: a seat never sees another's
  hidden cards), with an ETag (game version, viewer, language) and If-None-Match.
- ``POST /v1/two-way/grid/picture.svg``: a 2-Way grid of one colour's faces and its
  declarable lines (TW-D1).
- ``POST /v1/sequence/picture.svg``, ``POST /v1/sequence-numbers/picture.svg``: a
  board position, its chips and its sequences (SQ-S1, SQ-S2).
- ``POST /v1/halves/picture.svg``: a top card and a hand, each card that goes on the
  top framed (HV-T1).
- ``POST /v1/solitaire-frenzy/foundations/picture.svg``: a foundation set by suit
  (SF-F1).

The positions are the check endpoints' own schemas; bad input is a 422 problem as
there. The few words in a picture follow Accept-Language.
"""

from __future__ import annotations

import hashlib

from flask import Response, current_app, g, request
from marshmallow import Schema, fields, validate

from service.api import games
from service.api.base import Blueprint
from service.api.halves import HalvesCardField
from service.api.sequence import NumbersPositionSchema, PositionSchema, _input_problem
from service.api.actions import DECK_CARD_PATTERN
from service.api.solitaire_frenzy import DeckCardField
from service.api.two_way import GridSchema
from service.games.halves import MATCHES, PER_HALF
from service.games.sequence import CLASSIC, NUMBERS, InputError
from service.games.solitaire_frenzy import foundation_refusal
from service.errors import problem
from service.i18n import language
from service.pictures import MIMETYPE, draw
from service.pictures import halves as halves_picture
from service.pictures import sequence as sequence_picture
from service.pictures import solitaire_frenzy as frenzy_picture
from service.pictures import two_way as two_way_picture
from service.store import StoreError, Unavailable, get_store

blp = Blueprint(
    "pictures", __name__, url_prefix="/v1", description="Pictures (SVG) of games and positions"
)
blp.errorhandler(StoreError)(games._store_error)
blp.errorhandler(Unavailable)(games._unavailable)
blp.before_request(games._authenticate)  # only routes with a game_id need a token

# An SVG is a document that may carry script: a picture opened by itself (not as an
# <img>) must not run any, nor be sniffed as something else (issue 18, item 7). The
# pictures draw with inline style attributes only: nothing else is allowed.
SVG_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
}
_SVG_DOC = {
    "description": "the picture (SVG 1.1, scalable: viewBox, width 100%)",
    "content": {MIMETYPE: {"schema": {"type": "string"}}},
    "headers": {
        name: {"schema": {"type": "string", "example": value}, "description": value}
        for name, value in SVG_HEADERS.items()
    },
}


def _svg(body: bytes, status: int = 200) -> Response:
    """An SVG reply, with :data:`SVG_HEADERS`."""
    return current_app.response_class(body, status=status, mimetype=MIMETYPE, headers=SVG_HEADERS)


class TwoWayGridPictureSchema(GridSchema):
    colour = fields.String(
        load_default="blue",
        validate=validate.OneOf(("blue", "green")),
        metadata={"description": "whose faces the grid holds"},
    )


class HalvesPictureSchema(Schema):
    top = HalvesCardField(required=True, metadata={"description": "the top card as it lies"})
    hand = fields.List(
        HalvesCardField(),
        load_default=list,
        validate=validate.Length(max=20),
        metadata={"description": "cards as held", "example": ["RT-BS"]},
    )
    match = fields.String(
        load_default=PER_HALF,
        validate=validate.OneOf(MATCHES),
        metadata={
            "description": "the HV-T1 reading (per_half, whole_card, "
            "any_half): which cards are framed"
        },
    )


class FoundationsPictureSchema(Schema):
    piles = fields.List(
        fields.List(
            DeckCardField(metadata={"pattern": DECK_CARD_PATTERN}),
            validate=validate.Length(min=1, max=13),
        ),
        required=True,
        validate=validate.Length(max=32),
        metadata={
            "description": "foundation piles, each its cards from the Ace up (SF-F1)",
            "example": [["AH", "2H", "3H"], ["AS"]],
        },
    )


def _foundation_problem(piles: list[list[str]]) -> Response | None:
    """The first card of ``piles`` that SF-F1 does not build (not from the Ace, another
    suit, a skipped rank): 422 ``invalid-foundation`` naming it; None when all are built."""
    for i, pile in enumerate(piles):
        for j, card in enumerate(pile):
            refusal = foundation_refusal(card, pile[j - 1] if j else None)
            if refusal is not None:
                return problem(
                    422,
                    "invalid-foundation",
                    refusal.detail,
                    rule="SF-F1",
                    errors={"json": {"piles": {i: {j: [refusal.detail]}}}},
                )
    return None


@blp.get("/games/<game_id>/picture.svg")
@blp.doc(
    security=games.SECURITY,
    responses={"200": _SVG_DOC, "304": {"description": "Not modified (If-None-Match)"}},
    parameters=[games._HEADER_DOCS["If-None-Match"]],
)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
def game_picture(game_id: str) -> Response:
    """The game as the caller may see it, as an SVG picture (G-M1: the engine's view
    for the bearer's seat, the referee or nobody; never another seat's hidden cards).

    2-Way Cards: the grid in the viewer's colour (the referee: both faces), declared
    lines, hands; Sequence games: board, chips by side, free corners, locked sequences,
    the viewer's hand; Halves: the top card by colour and symbol, the viewer's hand;
    Solitaire Frenzy: foundations by suit, each seat's layout. The ETag names the
    version, the viewer and the language (If-None-Match: 304). `Cache-Control:
    no-store`, `Vary: Authorization, Accept-Language`.
    """
    record = get_store(current_app).current(game_id)
    tag = '"{}"'.format(
        hashlib.sha256(
            f"{game_id}\n{record.version}\n{g.actor}\n{language()}".encode()
        ).hexdigest()[:24]
    )
    held = games._etags(request.headers.get("If-None-Match", ""))
    if tag in held or "*" in held:  # "*": the picture exists (RFC 9110), as for the view
        response = current_app.response_class(status=304)
    else:
        response = _svg(draw(record.game, record.engine.view(record.state, g.actor)))
    response.headers["ETag"] = tag
    response.headers["Cache-Control"] = "no-store"
    response.vary.update(("Authorization", "Accept-Language"))
    return response


@blp.post("/two-way/grid/picture.svg")
@blp.arguments(TwoWayGridPictureSchema)
@blp.doc(responses={"200": _SVG_DOC})
def two_way_grid_picture(body: dict) -> Response:
    """A 7 x 7 grid of one colour's faces (the grid check's body, plus `colour`) with
    every declarable line dashed over it (TW-D1). Bad cards: 422 naming the cell."""
    return _svg(two_way_picture.draw_grid(body["grid"], body["colour"]).tobytes())


def _position_picture(game: str, body: dict) -> Response:
    try:
        return _svg(sequence_picture.draw_position(game, body).tobytes())
    except InputError as error:
        return _input_problem(error)


@blp.post("/sequence/picture.svg")
@blp.arguments(PositionSchema)
@blp.doc(responses={"200": _SVG_DOC}, operationId="sequencePicture")
def sequence_picture_endpoint(body: dict) -> Response:
    """A Sequence position (the sequences check's body): chips by side, free corners,
    the given (locked) sequences solid and every further completed one dashed (SQ-S1,
    SQ-S2, SQ-S4). Bad input: 422 naming the field, as the check."""
    return _position_picture(CLASSIC, body)


@blp.post("/sequence-numbers/picture.svg")
@blp.arguments(NumbersPositionSchema)
@blp.doc(responses={"200": _SVG_DOC}, operationId="sequenceNumbersPicture")
def numbers_picture_endpoint(body: dict) -> Response:
    """A Sequence Numbers position on the default or a custom `board` (SN-C0), drawn
    as the Sequence picture (SQ-S1, SN-S2)."""
    return _position_picture(NUMBERS, body)


@blp.post("/halves/picture.svg")
@blp.arguments(HalvesPictureSchema)
@blp.doc(responses={"200": _SVG_DOC}, operationId="halvesPicture")
def halves_picture_endpoint(body: dict) -> Response:
    """A Halves top card (as it lies) and a hand (as held): each card that goes on the
    top is framed green, one that goes turned round orange (HV-T1 under `match`)."""
    return _svg(halves_picture.draw_play(body["top"], body["hand"], body["match"]).tobytes())


@blp.post("/solitaire-frenzy/foundations/picture.svg")
@blp.arguments(FoundationsPictureSchema)
@blp.doc(responses={"200": _SVG_DOC}, operationId="solitaireFrenzyFoundationsPicture")
def foundations_picture(body: dict) -> Response:
    """A Solitaire Frenzy foundation set by suit, each pile as its top card and size.
    A pile not built by SF-F1 (not from the Ace, another suit, a skipped rank): 422
    naming the card: ``invalid-foundation``, e.g. ``{"json": {"piles": {"0": {"1":
    ["..."]}}}}``."""
    refused = _foundation_problem(body["piles"])
    if refused is not None:
        return refused
    return _svg(frenzy_picture.draw_foundations(body["piles"]).tobytes())
