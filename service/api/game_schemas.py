"""The game store's HTTP conventions (token realm, version and key patterns, the headers'
documentation, security requirements) and its request and reply schemas: what
:mod:`service.api.games` and the other blueprints take and answer."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, overload

from marshmallow import INCLUDE, Schema, ValidationError, fields
from marshmallow.validate import Length, Range, Regexp

from service.api.base import DigitsInteger, StrictBoolean
from service.messages import Message
from service.store.seating import MAX_MARKS_IN_A_ROW, NAME_PATTERN, shows_something

BEARER_REALM = 'Bearer realm="card-referee"'
_INVALID_TOKEN = Message("The token is not valid.")
# Integers in queries stay within 64 bits (SQLite's INTEGER; beyond: 422, never a 500
# from the driver); the store clamps further to its columns (32-bit seq on PostgreSQL).
MAX_INTEGER = 2**63 - 1
# all three are used with fullmatch() (a "$" would also match before a final newline)
_KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,255}")
# Ruling: If-Match is one entity-tag as this service issues them: a decimal version in
# quotes, no leading zeros (at most 100 digits: longer is no version, 400). W/ is parsed
# so that a weak tag gets its 412 (strong comparison, RFC 9110 13.1.1), not a 400.
_IF_MATCH = re.compile(r'(W/)?"(0|[1-9][0-9]{0,99})"')
_SEED = re.compile(r"^[0-9a-fA-F]{64}$")  # documented as is: ECMA-262 "$" is end of input
_HEADER_DOCS = {
    "If-Match": {
        "in": "header",
        "name": "If-Match",
        "schema": {
            "type": "string",
            "pattern": r'^(\*|(W/)?"(0|[1-9][0-9]{0,99})")$',
            "example": '"7"',
        },
        "description": 'The version the action is based on, as the ETag ("7"); '
        "or send expected_version in the body. Stale: 412; "
        'neither, or "*": 428 (optional in the real-time games); '
        'a weak ETag (W/"7") never matches '
        "(strong comparison): 412; not a quoted version: 400.",
    },
    "Idempotency-Key": {
        "in": "header",
        "name": "Idempotency-Key",
        "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]{1,255}$"},
        "description": "Same key and body again: the first response "
        "again, no second effect. Scoped per game and "
        "caller. Another body: 422. Sent again while the "
        "first is still running: waits for it, then gets "
        "its response. 409 only for a key claimed by the "
        "previous release and still running there. 1 to "
        "255 visible ASCII characters (else 400 "
        "invalid-idempotency-key).",
    },
    "If-None-Match": {
        "in": "header",
        "name": "If-None-Match",
        "schema": {"type": "string"},
        "description": "The ETag you hold: 304 while the game is unchanged.",
    },
}
# OpenAPI security requirements: scheme name -> scopes (none here)
SECURITY: list[dict[str, list[str]]] = [{"bearerAuth": []}]


def _ref(name: str) -> dict[str, str]:
    """A reference to a schema of service.api.actions (components.schemas)."""
    return {"$ref": f"#/components/schemas/{name}"}


# open unless the operator sets API_KEYS (service.limits)
API_KEY_SECURITY: list[dict[str, list[str]]] = [{}, {"apiKeyAuth": []}]


class FullMatch(Regexp):
    """:class:`Regexp` that must match the whole string (``re.fullmatch``); the spec
    shows the pattern as it is."""

    @overload
    def __call__(self, value: str) -> str: ...

    @overload
    def __call__(self, value: bytes) -> bytes: ...

    def __call__(self, value: Any) -> Any:  # as Regexp's, with fullmatch
        if self.regex.fullmatch(value) is None:
            raise ValidationError(self._format_error(value))
        return value


class TileField(fields.Field[str | int]):
    """A tile: a face in card notation (``"7H"``) or a tile id (an integer)."""

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> str | int:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ValidationError("A tile is a face (string) or a tile id (integer).")
        return value


def _cell() -> fields.List[int]:
    return fields.List(
        fields.Integer(strict=True, validate=Range(min=0)),
        validate=Length(equal=2),
        metadata={"description": "[row, col]"},
    )


def _shows_something(name: str) -> None:
    """A name with nothing to see, or a character under a pile of accents: refused
    (:func:`~service.store.seating.shows_something`; no pattern can say it)."""
    if name and not shows_something(name):  # empty: Length says it
        raise ValidationError(
            Message(
                "at least one visible character, and at most %(marks)s combining marks in a row",
                marks=MAX_MARKS_IN_A_ROW,
            )
        )


# a seat's display name (service/store/seating.py): the contract states the same pattern
NAME: list[Callable[[Any], Any]] = [
    Length(1, 40),
    Regexp(
        NAME_PATTERN,
        error="1 to 40 characters, no control, direction or invisible character "
        "or line break, no leading or trailing space",
    ),
    _shows_something,
]


class CreateGameSchema(Schema):
    game = fields.String(required=True, metadata={"example": "two-way"})
    options = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "game options (see the catalog)"},
    )
    seed = fields.String(
        validate=FullMatch(_SEED),
        metadata={
            "description": "Exactly 64 hex digits, nothing around them; upper case is "
            "accepted and lowercased (the game keeps and reveals the "
            "lowercase text). Drawn from a CSPRNG when absent. "
            "seed_commitment, shown from the start, is the SHA-256 (hex) of "
            "the seed's lowercase hex text as ASCII; the seed itself is shown "
            "once the game is finished. May also be given as options.seed."
        },
    )
    position = fields.Dict(
        keys=fields.String(),
        metadata={
            "description": "G-P1: start from this stated position (the game's notation, "
            "Position; its `game` is the game's) instead of a fresh deal"
        },
    )
    names = fields.Dict(keys=fields.String(), values=fields.String(validate=NAME))
    invitations = StrictBoolean(load_default=False)


class SeatTokenSchema(Schema):
    token = fields.String(metadata={"description": "the seat's bearer token"})
    invitation = fields.String(
        metadata={"description": "with invitations: the seat's single-use code (POST .../join)"}
    )
    expires_at = fields.String(metadata={"description": "when the invitation expires"})
    join_url = fields.String(
        metadata={
            "description": "the referee page's link that joins the seat (the code in the "
            "fragment, which browsers never send)"
        }
    )


class CreatedGameSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    seats = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(SeatTokenSchema),
        required=True,
        metadata={"description": "seat -> its bearer token (with invitations: its invitation)"},
    )
    referee_token = fields.String(required=True)
    seed_commitment = fields.String(required=True)


class ResultSchema(Schema):
    """How a finished game ended: the same shape for every game (the engine contract,
    service/games/__init__.py), in the view, here and in the ``game-ended`` event."""

    winners = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "every seat of the winning side; [] for a draw; several for a "
            "team or a shared win",
            "example": ["p1", "p3"],
        },
    )
    scores = fields.Dict(
        keys=fields.String(),
        values=fields.Float(),
        required=True,
        metadata={
            "description": "every seat's score (a team's figure repeated for each member)",
            "example": {"p1": 2, "p2": 1, "p3": 2, "p4": 1},
        },
    )
    reason = fields.String(
        required=True,
        metadata={
            "description": "why it ended: set-complete, grid-full (2-Way Cards); sequences, "
            "stalemate, no-legal-play (Sequence)...",
            "example": "sequences",
        },
    )
    two_way = fields.Dict(metadata={"description": "2-Way Cards: {completer}"})
    sequence = fields.Dict(
        metadata={"description": "Sequence games: {winning_side, sequences: {side: n}}"}
    )
    halves = fields.Dict(
        metadata={
            "description": "Halves: {hands: {seat: n}, piles: "
            "{seat: n}, retired: [seat], "
            "central_pile: n}"
        }
    )
    solitaire_frenzy = fields.Dict(
        metadata={
            "description": "Solitaire Frenzy (reason rounds-played or last-seat; scores are "
            "the totals): {rounds: [{round, reason, out, board, pile, scores}], "
            "retired: [seat]}"
        }
    )


def _result_field() -> fields.Nested:
    return fields.Nested(
        ResultSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "null while the game runs; then how it ended (also view.result "
            "and the game-ended event's result)"
        },
    )


def _view_field() -> fields.Raw:
    """The engine's view, as the contract types it per game (service.api.actions)."""
    return fields.Raw(
        required=True,
        metadata={
            "description": "the engine's view for you (View: one per game, by `game`)",
            "allOf": [{"$ref": "#/components/schemas/View"}],
        },
    )


class ImportedSchema(Schema):
    at = fields.String(required=True, metadata={"description": "ISO 8601: when imported"})
    verified = fields.Boolean(
        required=True,
        metadata={
            "description": "true: the document was this service's own signed export (of a "
            "game that was not an unverified copy); false for ever otherwise"
        },
    )


def _imported_field() -> fields.Nested:
    return fields.Nested(
        ImportedSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "null: a game refereed here; {at, verified}: a copy made by POST "
            "/v1/games/import (verified: from this service's own signed "
            "export)"
        },
    )


class GameViewSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "also the ETag"})
    status = fields.String(required=True, metadata={"example": "active"})
    viewer = fields.String(required=True, metadata={"description": "a seat or referee"})
    seed_commitment = fields.String(required=True)
    seed = fields.String(metadata={"description": "only once the game is finished"})
    names = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={"description": "seat -> display name, for the seats that have one"},
    )
    rematch_of = fields.String(metadata={"description": "the game this one is a rematch of"})
    rematch = fields.String(metadata={"description": "this game's rematch, once made"})

    imported = _imported_field()
    result = _result_field()
    view = _view_field()


class ActionSchema(Schema):
    """One action: ``type`` plus its fields; the engine validates the rest. Fields of
    other names are passed to the engine as they are."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True, metadata={"example": "place"})
    tile = TileField(metadata={"oneOf": [{"type": "string"}, {"type": "integer"}]})
    tiles = fields.List(TileField(metadata={"oneOf": [{"type": "string"}, {"type": "integer"}]}))
    cell = _cell()
    cells = fields.List(_cell())
    seat = fields.String(metadata={"description": "the seat acted for or on"})
    card = fields.String()
    cards = fields.List(fields.String())
    side = fields.String()
    kind = fields.String()
    based_on = fields.Raw(
        metadata={
            "type": "string",
            "description": "real-time games: the "
            "shared card the action aims at (Halves: the top card; "
            'Solitaire Frenzy: the foundation pile\'s top, or "new" '
            "for an Ace); refused as stale when it has changed",
        }
    )
    turned = fields.Raw(
        metadata={
            "type": "boolean",
            "description": "Halves: lay the card turned round (halves swapped)",
        }
    )
    # Solitaire Frenzy (documented here; the engine validates them)
    round = fields.Raw(
        metadata={
            "type": "integer",
            "description": "Solitaire Frenzy: the "
            "round the action is meant for (an ended one: round-over)",
        }
    )
    to = fields.Raw(
        metadata={"type": "string", "description": "Solitaire Frenzy play: foundation or column"}
    )
    pile = fields.Raw(
        metadata={"type": "integer", "description": "Solitaire Frenzy: the foundation pile's id"}
    )
    column = fields.Raw(
        metadata={"type": "integer", "description": "Solitaire Frenzy: a column, 0 to 3"}
    )
    from_column = fields.Raw(
        metadata={"type": "integer", "description": "Solitaire Frenzy move: the whole column moved"}
    )
    to_column = fields.Raw(
        metadata={
            "type": "integer",
            "description": "Solitaire Frenzy move: the column it goes onto",
        }
    )
    results = fields.Raw(
        metadata={
            "type": "object",
            "description": "Solitaire Frenzy record-round (table mode): {seat: {board, pile, out}}",
        }
    )
    expected_version = fields.Integer(
        strict=True,
        validate=Range(min=0),
        metadata={"description": "the version the action is based on (or the If-Match header)"},
    )

    def load(self, data: Any, **kwargs: Any) -> Any:
        """Loaded by a copy of this schema narrowed to ``type`` and the fields the
        body names (:func:`_narrowed`, cached): the same result and errors, without a
        step for each of the ~20 fields an action does not send (marshmallow visits
        every declared field: 24-35 us a load, 10-20 us narrowed, timed alone)."""
        if self.only is not None or not isinstance(data, Mapping):
            return super().load(data, **kwargs)
        return _narrowed(frozenset(self.fields.keys() & data.keys()) | {"type"}).load(
            data, **kwargs
        )


@lru_cache(maxsize=256)
def _narrowed(names: frozenset[str]) -> ActionSchema:
    """:class:`ActionSchema` with only the fields ``names`` (one per set of fields
    sent, built once)."""
    return ActionSchema(only=names)


class EventSchema(Schema):
    """One entry of a game's log as the caller may see it: ``seq``, ``type``, ``seat``
    and the engine's fields for that type (service/games/__init__.py: one vocabulary
    across games; ``game-ended`` carries ``result``)."""

    class Meta:
        unknown = INCLUDE  # the engine's fields, per game and type

    seq = fields.Integer(required=True, validate=Range(min=1))
    type = fields.String(
        required=True,
        metadata={
            "description": "past tense, the same name for the same idea in every game: "
            "game-created, dealt, drawn, placed, played, discarded, "
            "turn-started, turn-skipped, seat-retired, round-ended, "
            "game-ended...",
            "example": "placed",
        },
    )
    seat = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "the seat it concerns; null for the game's own events"},
    )
    result = fields.Nested(ResultSchema, metadata={"description": "game-ended only"})


_ACTION_SCHEMA = ActionSchema()  # the body's first check; the engine checks the rest,
# as the contract's per-game union (service.api.actions) states it


class ActionResultSchema(Schema):
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    events = fields.List(
        fields.Nested(EventSchema),
        required=True,
        metadata={"description": "the events appended, as you may see them"},
    )
    result = _result_field()
    view = _view_field()
    seed = fields.String(metadata={"description": "once the game is finished"})


class EventsQuerySchema(Schema):
    after = DigitsInteger(
        load_default=0,
        validate=Range(min=0, max=MAX_INTEGER),
        metadata={"description": "return events with seq > after (0 to 2**63-1, ASCII digits)"},
    )
    limit = DigitsInteger(load_default=1000, validate=Range(min=1, max=1000))


class EventsSchema(Schema):
    version = fields.Integer(required=True)
    events = fields.List(
        fields.Nested(EventSchema),
        required=True,
        metadata={
            "description": '{"seq", "type", "seat", ...}: the log as you may see it (events '
            "hidden from you entirely are left out); a finished game's last "
            'event is game-ended {"result"}'
        },
    )
    last_seq = fields.Integer(
        required=True,
        metadata={
            "description": "pass it as `after` for the next page: the seq of the last event "
            "the page examined (events hidden from you included), or, when "
            "nothing follows `after`, the log's last seq (never more than the "
            "log holds, so paging by it neither skips nor repeats an event)"
        },
    )
    imported = _imported_field()
