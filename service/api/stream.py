"""The live event feed: ``GET /v1/games/{id}/stream`` (Server-Sent Events) and
``POST /v1/games/{id}/stream-tickets``.

The stream is generic over the engine contract: every log entry goes through the same
viewer filter as ``GET /events`` (``_events_out``: the engine's ``view_event``), the
opening ``view`` event is the body of ``GET /v1/games/{id}`` (the engine's ``view``).

Wire format (https://html.spec.whatwg.org/multipage/server-sent-events.html)::

    retry: 1000                      first: reconnect after 1 s (STREAM_RETRY_MS)
    id: 7                            without a resume point: the caller's view,
    event: view                      id = the log's last seq now
    data: {"id": ..., "version": 3, "view": {...}, ...}

    id: 8                            then one event per log entry the caller may see:
    event: placed                    id = seq, event = its type,
    data: {"seq": 8, "type": "placed", "seat": "blue", ...}     data = as /events shows it

    : keep-alive                     a comment when nothing was sent for 15 s

Resume: ``Last-Event-ID`` (sent by EventSource when it reconnects) or ``?after=N``
(the header wins: a reconnecting browser repeats the URL it opened): every visible
entry with seq > N, nothing missed or repeated. A resume point past the log's end
(a database restored from a backup...) is answered like no resume point: the current
view first. The stream ends cleanly after ``STREAM_SECONDS`` (300 s, +-10% so that
clients do not reconnect all at once), when the worker stops, and once a finished game
has sent its last entry; a client that resumes a finished game with nothing more to
see gets 204 (EventSource then stops reconnecting).

Auth: ``Authorization: Bearer <token>`` as everywhere, or, for EventSource (which
cannot send headers), ``?ticket=`` from ``POST /stream-tickets``: signed and
timestamped with the app's ``SECRET_KEY`` (itsdangerous), naming one game and one
viewer, valid ``STREAM_TICKET_SECONDS`` (60 s). Expired, garbled, or another game's:
401. A ticket is checked when the stream opens; the bearer token never goes into a URL.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import time
from collections.abc import Iterator, Mapping
from typing import Any

from flask import Response, current_app, g, request
from flask.blueprints import BlueprintSetupState
from itsdangerous import BadData, SignatureExpired, URLSafeTimedSerializer
from marshmallow import Schema, fields
from marshmallow.validate import Range
from webargs.flaskparser import abort  # flask_smorest.abort itself, typed NoReturn

from service.api import games
from service.api.base import Blueprint, DigitsInteger, takes_no_body
from service.errors import problem
from service.messages import Message
from service.store import (
    EventPage,
    Feed,
    GameRecord,
    GameStore,
    StoreError,
    Unavailable,
    get_feed,
    get_store,
    hash_token,
)
from service.store import idle

blp = Blueprint(
    "stream",
    __name__,
    url_prefix="/v1/games",
    description="The live event feed of a game (Server-Sent Events)",
)
blp.errorhandler(StoreError)(games._store_error)
blp.errorhandler(Unavailable)(games._unavailable)


@blp.record_once
def _register_security_scheme(state: BlueprintSetupState) -> None:
    """Document the ticket (components.securitySchemes.streamTicket)."""
    for entry in state.app.extensions.get("flask-smorest", {}).get("apis", {}).values():
        entry["ext_obj"].spec.components.security_scheme(
            "streamTicket",
            {
                "type": "apiKey",
                "in": "query",
                "name": "ticket",
                "description": "A stream ticket from POST /v1/games/{id}/stream-tickets: "
                "opens that game's stream as the viewer it was issued to, "
                "for 60 s (EventSource cannot send Authorization).",
            },
        )


log = logging.getLogger(__name__)
TICKET_SALT = "card-referee.stream-ticket"
PAGE = 500  # events read per statement while catching up
DEFAULTS = {
    "STREAM_SECONDS": 300.0,
    "STREAM_HEARTBEAT_SECONDS": 15.0,
    "STREAM_RETRY_MS": 1000,
    "STREAM_TICKET_SECONDS": 60,
}
_DIGITS = frozenset("0123456789")


def _setting(name: str) -> Any:
    return current_app.config.get(name, DEFAULTS[name])


class StreamQuerySchema(Schema):
    after = DigitsInteger(
        validate=Range(min=0, max=games.MAX_INTEGER),
        metadata={
            "description": "resume after this seq (as Last-Event-ID, which wins when both "
            "are sent); absent: the stream opens with the current view"
        },
    )
    # ?ticket= is read before the arguments (_authenticate) and documented as the
    # streamTicket security scheme, the alternative to bearerAuth (not as a parameter:
    # a client sends one of them, never both: 400 conflicting-credentials)


class StreamHeadersSchema(Schema):
    last_event_id = fields.String(
        data_key="Last-Event-ID",
        metadata={
            "pattern": r"^\s*([0-9]{1,18})?\s*$",
            "description": "resume after this seq (EventSource sends the id: of the last "
            "event it received when it reconnects); not a seq: 400",
        },
    )


class TicketSchema(Schema):
    ticket = fields.String(
        required=True, metadata={"description": "pass it as ?ticket= on GET .../stream"}
    )
    expires_in = fields.Integer(
        required=True, metadata={"description": "seconds the ticket may still open a stream"}
    )


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=TICKET_SALT)


def _ticket_unauthorized(detail: Message) -> Response:
    return problem(401, "invalid-ticket", detail, headers={"WWW-Authenticate": games.BEARER_REALM})


@blp.before_request
def _authenticate() -> Response | None:
    """The bearer token (as every game route), or on the stream a ticket in its place."""
    ticket = request.args.get("ticket") if request.endpoint == "stream.get_stream" else None
    if ticket is None:
        return games._authenticate()
    if "Authorization" in request.headers:
        return problem(
            400,
            "conflicting-credentials",
            Message("Send either ?ticket= or the Authorization header, not both."),
        )
    assert request.view_args is not None  # the stream's route matched (its endpoint)
    game_id = request.view_args["game_id"]
    try:
        claims = _serializer().loads(ticket, max_age=_setting("STREAM_TICKET_SECONDS"))
    except SignatureExpired:
        return _ticket_unauthorized(Message("The ticket has expired: ask for a new one."))
    except BadData:
        return _ticket_unauthorized(Message("The ticket is not valid."))
    if not isinstance(claims, dict) or claims.get("game") != game_id:
        return _ticket_unauthorized(Message("The ticket is for another game."))
    token_hash = get_store(current_app).token_hash_of(game_id, claims["viewer"])
    if token_hash is None or claims.get("token") != _fingerprint(token_hash):
        # the token it was asked with has been re-issued since (or the game is gone)
        return _ticket_unauthorized(Message("The ticket is not valid."))
    g.actor = claims["viewer"]
    g.token_hash = token_hash
    return None


def _fingerprint(token_hash: str) -> str:
    """What a ticket says of the token it was asked with: enough to tell that the
    token was re-issued since, nothing that opens anything (a hash of its hash)."""
    return hashlib.sha256(f"{TICKET_SALT}:{token_hash}".encode()).hexdigest()[:32]


@blp.post("/<game_id>/stream-tickets")
@blp.response(200, TicketSchema, headers=games._NO_STORE_DOC)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=games.SECURITY)
@blp.doc(operationId="createStreamTicket")
@takes_no_body
def post_stream_ticket(game_id: str) -> Response:
    """A short-lived ticket that opens this game's stream as the caller (`?ticket=`),
    for browsers' EventSource, which cannot send the Authorization header.

    The ticket names this game and the caller's seat (or the referee), is signed by
    the service and opens streams for `expires_in` seconds (60); it is checked when a
    stream opens, so an open stream outlives it. Expired, garbled, another game's, or
    asked with a seat token re-issued since: 401. Never put the bearer token itself in a URL.
    Takes no body.
    """
    token = request.headers["Authorization"].partition(" ")[2].strip()
    ticket = _serializer().dumps(
        {"game": game_id, "viewer": g.actor, "token": _fingerprint(hash_token(token))}
    )
    response = games._reply(
        200, {"ticket": ticket, "expires_in": _setting("STREAM_TICKET_SECONDS")}
    )
    response.headers["Cache-Control"] = "no-store"
    return response


def _resume_point(query: Mapping[str, int], headers: Mapping[str, str]) -> int | None:
    """``Last-Event-ID`` (a seq; it wins: EventSource sends it when reconnecting to
    the URL it opened), else ``?after=``, else None. A header that is not a seq: 400."""
    header = headers.get("last_event_id")
    if header is None or header.strip() == "":
        return query.get("after")
    value = header.strip()
    if not set(value) <= _DIGITS or len(value) > 19 or int(value) > games.MAX_INTEGER:
        abort(
            400,
            code="invalid-last-event-id",
            detail=Message("Last-Event-ID is the id: (a seq) of an event of this stream."),
        )
    return int(value)


_EVENT_STREAM_DOC = {
    "description": "Server-Sent Events: `retry:`, then (without a resume point) one "
    "`view` event (data: the GET /v1/games/{id} body; id: the log's "
    "last seq), then one event per log entry you may see (id: seq, "
    "event: its type, data: the entry as /events shows it), `: "
    "keep-alive` comments at least every 15 s. Ends after about 5 "
    "minutes (reconnect with Last-Event-ID) and after a finished "
    "game's last entry.",
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
    "headers": {
        "Cache-Control": {"schema": {"type": "string", "example": "no-store"}},
        "X-Accel-Buffering": {
            "schema": {"type": "string", "example": "no"},
            "description": "no: proxies must not buffer",
        },
    },
}


@blp.get("/<game_id>/stream")
@blp.arguments(StreamQuerySchema(), location="query")
@blp.arguments(StreamHeadersSchema(), location="headers")
@blp.doc(
    security=[*games.SECURITY, {"streamTicket": []}],
    responses={
        "200": _EVENT_STREAM_DOC,
        "204": {"description": "the game is finished and you have seen all of it"},
    },
)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def get_stream(query: dict[str, int], headers: dict[str, str], game_id: str) -> Response:
    """Follow the game live: Server-Sent Events, one per log entry you may see
    (the same viewer filter as `/events`), resumable exactly with `Last-Event-ID`
    or `?after=`. Auth: the bearer token, or `?ticket=` (see stream-tickets).

    Without a resume point the stream opens with a `view` event (your view now, id:
    the log's last seq). Heartbeat comments at least every 15 s. The stream ends after
    about 5 minutes and once a finished game has sent its last entry: reconnect with
    `Last-Event-ID` (EventSource does, after the `retry:` delay); resuming a finished
    game you have seen all of: 204.
    """
    store, viewer = get_store(current_app), g.actor
    resume = _resume_point(query, headers)
    if resume is not None:
        page = store.page(game_id, resume, PAGE, catch_up=True)
        if resume > page.game.last_seq:
            resume = None  # past the log's end: start over with the view
        elif (
            page.game.finished
            and len(page.events) < PAGE
            and not (games._events_out(page.game, page.events, viewer))
        ):
            finished = Response(status=204, headers={"Cache-Control": "no-store"})
            del finished.headers["Content-Type"]  # no body: no type (not text/html)
            return finished
    seconds = _setting("STREAM_SECONDS") * random.uniform(0.9, 1.1)
    token_hash = g.get("token_hash") or hash_token(
        request.headers["Authorization"].partition(" ")[2].strip()
    )
    body = _stream(
        get_feed(current_app),
        game_id,
        viewer,
        token_hash,
        resume,
        deadline=time.monotonic() + seconds,
        heartbeat=_setting("STREAM_HEARTBEAT_SECONDS"),
        retry_ms=_setting("STREAM_RETRY_MS"),
    )
    return Response(
        body,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def _sse(seq: int, kind: str, data: Mapping[str, Any]) -> str:
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"id: {seq}\nevent: {kind}\ndata: {text}\n\n"


def _opening(record: GameRecord, viewer: str) -> tuple[int, bool, str]:
    """(last seq, finished?, the ``view`` event) of the game as it is now."""
    return (
        record.last_seq,
        record.finished,
        _sse(record.last_seq, "view", games._game_body(record, viewer)),
    )


def _entries(page: EventPage, viewer: str) -> str:
    """The page's entries that ``viewer`` may see, as SSE text (one write)."""
    return "".join(
        _sse(event["seq"], event["type"], event)
        for event in games._events_out(page.game, page.events, viewer)
    )


def _idle_at(store: GameStore, record: GameRecord) -> float | None:
    """The game's G-T1 deadline on this process's monotonic clock (None: none), one
    :data:`idle.CLOCK_STEP` late: the store's clock (``GameStore.now``) is rounded to the
    millisecond while the deadline may fall between two, and a wake-up before the
    rounded clock reached it would record nothing and wait for the next heartbeat."""
    due = idle.deadline(record.state, record.updated)
    return None if due is None else time.monotonic() + (due - store.now()) + idle.CLOCK_STEP


def _revoked(feed: Feed, game_id: str, viewer: str, token_hash: str) -> bool:
    """The token the stream was opened with (or its ticket asked with) no longer opens
    ``viewer``: it was re-issued (or the game is gone)."""
    return feed.store.token_hash_of(game_id, viewer) != token_hash


def _stream(
    feed: Feed,
    game_id: str,
    viewer: str,
    token_hash: str,
    resume: int | None,
    deadline: float,
    heartbeat: float,
    retry_ms: int,
) -> Iterator[str]:
    """The SSE text of one stream (it runs after the view returned: no request
    context). It registers on the feed BEFORE its first read, so that no commit falls
    between a read and the wait, reads the log only when the feed says it grew, and
    keeps no game state while it waits but the last record read (an open stream costs
    little memory).

    G-T1: a game with an idle deadline is read again (:meth:`Watch.catch_up`, which
    records what the deadline triggers) when the deadline passes, and at each
    heartbeat after it; the events recorded then are sent as any others.

    It ends as soon as the feed learns that a token of the game was re-issued and its
    own (``token_hash``: the token it was opened with, or its ticket was asked with)
    no longer opens ``viewer`` (within about a second, every worker and host), and
    checks that again at each heartbeat; and at once if it was re-issued before the
    stream began to watch the game."""
    yield f"retry: {retry_ms}\n\n"
    sent = time.monotonic()
    with feed.watch(game_id) as watch:
        revocations = watch.revocations
        # a token re-issued between the request's check and this watch (the feed may
        # have learnt it before it counted for this stream) ends the stream at once
        if _revoked(feed, game_id, viewer, token_hash):
            return
        try:
            page: EventPage | None = None
            checked: float | None = None  # the `updated` checked
            if resume is None:
                known = watch.catch_up()
                after, finished, opening = _opening(known, viewer)
                yield opening
                sent = time.monotonic()
                if finished:
                    return
            else:
                after, page = resume, watch.page(resume, PAGE)
                known = page.game  # (the loop starts with this page)
            while True:
                target = after  # wait for news past it
                if page is not None:
                    known = page.game
                    text = _entries(page, viewer)
                    if text:
                        yield text
                        sent = time.monotonic()
                    after = target = page.last_seq
                    full, finished, empty = (
                        len(page.events) == PAGE,
                        page.game.finished,
                        not page.events,
                    )
                    page = None
                    if full:  # more to catch up with
                        page = watch.page(after, PAGE)
                        continue
                    if finished:
                        return  # its last entry is sent
                    if empty:  # the feed knew of more than the log holds (a stray
                        target = max(after, watch.known)  # NOTIFY): no busy loop
                now = time.monotonic()
                if now >= deadline or feed.closed:
                    return
                idle_at = _idle_at(feed.store, known)
                wake = min(deadline, sent + heartbeat)
                if idle_at is not None and checked != known.updated:
                    wake = min(wake, idle_at)
                if watch.wait(target, max(0.0, wake - now), revocations):
                    if watch.revocations != revocations:
                        revocations = watch.revocations
                        if _revoked(feed, game_id, viewer, token_hash):
                            return
                    page = watch.page(after, PAGE)
                    continue
                now = time.monotonic()
                beat = now >= sent + heartbeat
                if idle_at is not None and now >= idle_at and (beat or checked != known.updated):
                    checked = known.updated
                    # (shared with the game's other streams here, but read after idle_at)
                    caught = watch.catch_up(not_before=idle_at)
                    if caught.last_seq > after:
                        page = watch.page(after, PAGE)
                        continue
                    if caught.last_seq >= known.last_seq:
                        known = caught
                if beat and not feed.closed:
                    if _revoked(feed, game_id, viewer, token_hash):
                        return
                    yield ": keep-alive\n\n"
                    sent = time.monotonic()
                    if target > after:  # look again now and then
                        page = watch.page(after, PAGE)
        except Unavailable:
            log.warning("stream of game %s ended: the database is unavailable", game_id)
