"""Seats handed to players on their own devices, and playing again:

* ``POST /v1/games/{id}/seats/{seat}/join`` (no token: the invitation's code): the
  seat's token, and its display name set;
* ``POST /v1/games/{id}/seats/{seat}/invitation`` (referee): a new invitation for the
  seat (its earlier code and token stop working);
* ``POST /v1/games/{id}/rematch`` (referee): the same game again with a fresh seed.

See :mod:`service.store.seating`.
"""

from __future__ import annotations

from flask import Response, current_app, g, request
from marshmallow import Schema, fields
from marshmallow.validate import Length

from service.api import games
from service.api.base import Blueprint, takes_no_body
from service.errors import problem
from service.messages import Message
from service.store import REFEREE, SeatNotFound, StoreError, Unavailable, get_store
from service.store.seating import (
    InvitationExpired,
    InvitationInvalid,
    InvitationUsed,
    RematchExists,
)

blp = Blueprint(
    "seats", __name__, url_prefix="/v1/games", description="Invitations, seat names and rematches"
)
blp.errorhandler(StoreError)(games._store_error)  # noqa: SLF001
blp.errorhandler(Unavailable)(games._unavailable)  # noqa: SLF001


@blp.before_request
def _authenticate():
    """Joining needs no token (the code is the credential); the rest: the referee's."""
    if request.endpoint == "seats.join_seat":
        return None
    refused = games._authenticate()  # noqa: SLF001
    if refused is not None:
        return refused
    if g.actor != REFEREE:
        return problem(403, "referee-only", Message("Only the referee token may do this."))
    return None


class JoinSchema(Schema):
    code = fields.String(
        required=True,
        validate=Length(1, 200),
        metadata={"description": "the seat's invitation code"},
    )
    name = fields.String(
        validate=games.NAME,
        metadata={
            "description": "the player's display name: 1 to 40 characters, no control, "
            "direction or invisible character or line break, no leading or trailing space; "
            "at least one visible character, at most 4 combining marks in a row"
        },
    )


class JoinedSchema(Schema):
    seat = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "the seat's bearer token"})
    name = fields.String(allow_none=True)


class InvitationSchema(Schema):
    seat = fields.String(required=True)
    invitation = fields.String(required=True)
    expires_at = fields.String(required=True)
    join_url = fields.String(required=True)


def _invitation_problem(error: Exception) -> Response:
    if isinstance(error, InvitationUsed):
        return problem(
            409,
            "invitation-used",
            Message("This invitation was used already: ask the referee for a new one."),
        )
    if isinstance(error, InvitationExpired):
        return problem(
            410,
            "invitation-expired",
            Message("This invitation has expired: ask the referee for a new one."),
        )
    return problem(403, "invalid-invitation", Message("This invitation is not valid."))


@blp.post("/<game_id>/seats/<seat>/join")
@blp.arguments(JoinSchema())
@blp.response(200, JoinedSchema, headers=games._NO_STORE_DOC)  # noqa: SLF001
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(410, description="The invitation has expired")
@blp.doc(security=[], operationId="joinSeat")
def join_seat(body: dict, game_id: str, seat: str):
    """Take a seat with its invitation `code` (from the creator's reply or the join
    link), and give the seat a display `name`: the seat's bearer token, shown once.
    A code used already: 409 `invitation-used`; expired: 410 `invitation-expired`; a
    wrong code (or game, or seat): 403 `invalid-invitation`."""
    name = body.get("name")
    try:
        token = get_store(current_app).join(game_id, seat, body["code"], name)
    except (InvitationInvalid, InvitationUsed, InvitationExpired) as error:
        return _invitation_problem(error)
    response = games._reply(200, {"seat": seat, "token": token, "name": name})  # noqa: SLF001
    response.headers["Cache-Control"] = "no-store"
    return response


@blp.post("/<game_id>/seats/<seat>/invitation")
@blp.response(200, InvitationSchema, headers=games._NO_STORE_DOC)  # noqa: SLF001
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=games.SECURITY, operationId="inviteSeat")
@takes_no_body
def invite_seat(game_id: str, seat: str):
    """A new invitation for `seat` (referee only): its earlier code and its token stop
    working from this answer on (open streams of that token end). No such seat: 404.
    Takes no body."""
    try:
        issued = get_store(current_app).reinvite(game_id, seat)
    except SeatNotFound:
        return problem(
            404, "seat-not-found", Message("This game has no seat %(seat)s.", seat=repr(seat))
        )
    response = games._reply(
        200,
        {  # noqa: SLF001
            "seat": seat,
            **issued,
            "join_url": f"/referee/#invite={game_id}.{seat}.{issued['invitation']}",
        },
    )
    response.headers["Cache-Control"] = "no-store"
    return response


@blp.post("/<game_id>/rematch")
@blp.response(
    201,
    games.CreatedGameSchema,
    headers={"Location": {"schema": {"type": "string"}}, **games._NO_STORE_DOC},
)  # noqa: SLF001
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.doc(security=games.SECURITY, operationId="rematchGame")
@takes_no_body
def rematch_game(game_id: str):
    """Play again (referee only): the same game, seats, options and display names with
    a fresh seed (invitations again if this game used them); the two games name each
    other (`rematch` here, `rematch_of` there). A second rematch: 409
    `rematch-exists` naming it. Takes no body."""
    record = get_store(current_app).read(game_id)
    try:
        created = games._seated(lambda: get_store(current_app).rematch(game_id))  # noqa: SLF001
    except RematchExists as error:
        return problem(
            409,
            "rematch-exists",
            Message("This game has a rematch already: %(game)s.", game=error.args[0]),
            rematch=error.args[0],
        )
    return games.created_reply(record.game, created)
