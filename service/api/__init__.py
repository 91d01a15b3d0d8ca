"""HTTP layer: flask-smorest Api, problem+json errors, one blueprint per module."""

from __future__ import annotations

import http
from typing import Any

import yaml
from flask import Flask, Response
from flask.json.provider import DefaultJSONProvider
from flask_smorest import Api as _Api
from apispec import BasePlugin
from flask_smorest.utils import prepare_response
from marshmallow import Schema, fields
from sqlalchemy.exc import InterfaceError, OperationalError, PendingRollbackError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError
from werkzeug.exceptions import HTTPException

from service import jsontext
from service.api.base import strict_loads
from service.api.bodies import init_bodies
from service.context import current_request
from service.api.contract import (
    RESPONSE_HEADERS,
    ResponsesPlugin,
    name_nullable_enums,
    status_name,
)
from service.errors import PROBLEM_MIMETYPE, from_http_exception, problem
from service.messages import Message
from service.store import SchemaNotCurrent, Unavailable


class ProblemSchema(Schema):
    """RFC 9457 problem details, as every error response carries them."""

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable machine code"})
    rule = fields.String(
        metadata={
            "description": "the rule ID the refusal applies (G-R1; docs/RULES.md, GET "
            "/v1/rules/{id}), e.g. SQ-T3; absent for problems about the request "
            "itself (media type, JSON, size, tokens, versions, keys, limits)"
        }
    )
    errors = fields.Dict(
        metadata={"description": "body/query validation: location -> field -> messages"}
    )
    version = fields.Integer(metadata={"description": "current game version (412)"})
    field = fields.String(
        metadata={
            "description": "invalid-position (G-P1): where in the position, a dotted path "
            "(e.g. hands.blue[2])",
            "example": "count",
        }
    )
    top = fields.Dict(
        metadata={
            "description": "stale-top-card: the current top card (Halves, "
            "HV-T3: {card, turned, halves}; Solitaire "
            "Frenzy, SF-T1: {pile, card, seat})"
        }
    )


class AcceptLanguagePlugin(BasePlugin):
    """Documents the Accept-Language header on every operation (service.i18n)."""

    PARAMETER = {
        "in": "header",
        "name": "Accept-Language",
        "required": False,
        "schema": {"type": "string", "example": "fr"},
        "description": "The language of title, detail and verdict texts: en (default), fr, "
        "de, es, it or ro (best match; fr-CH is fr). Answers with such "
        "texts carry Content-Language and Vary: Accept-Language; code, rule "
        "and type never change.",
    }

    def operation_helper(
        self,
        path: str | None = None,
        operations: dict[str, dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        for operation in (operations or {}).values():
            operation.setdefault("parameters", []).append(dict(self.PARAMETER))


class Api(_Api):
    """flask-smorest Api whose every HTTP error is RFC 9457 problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def handle_http_exception(self, error: HTTPException) -> Response:  # noqa: D102 - see service.errors
        return from_http_exception(error)

    def _register_responses(self) -> None:
        """Document every error response as application/problem+json."""
        for status in http.HTTPStatus:
            name, phrase = status_name(status)
            response: dict[str, Any] = {"description": phrase}
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
            if status in RESPONSE_HEADERS:
                response["headers"] = RESPONSE_HEADERS[status]
            prepare_response(response, self.spec, PROBLEM_MIMETYPE)
            self.spec.components.response(name, response, lazy=True)
        response = {"description": "Problem details (RFC 9457)", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_MIMETYPE)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)


class StrictJSONProvider(DefaultJSONProvider):
    """``request.get_json()`` refuses NaN, duplicate keys and deep nesting (400); replies
    are plain UTF-8 (``"Trimiteți"``, never ``"Trimite\\u021bi"``)."""

    ensure_ascii = False

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return strict_loads(s)

    def dumps(self, obj, **kwargs):
        """orjson's text (keys sorted, as Flask sorts them; dates, dataclasses and the
        like through Flask's own ``default``); Flask's json for a pretty-printed
        reply (``indent``, debug mode)."""
        if kwargs.get("indent") is not None:
            return super().dumps(obj, **kwargs)
        return jsontext.sorted_text(obj, self.default)


def _require_json_body() -> Response | None:
    """A body must be plain UTF-8 JSON: another content type, a charset other than
    UTF-8 or any Content-Encoding (gzip...) is 415, not a 422 or 400 guess.

    Ruling: the media type is ``application/json`` exactly (parameters aside). No
    ``+json`` type is taken: this API defines none (``application/problem+json`` is
    what it answers errors with, not a request format), and a client that sends
    ``application/merge-patch+json`` or a vendor type means something this API does
    not do. Chunked bodies are checked alike (:mod:`service.api.bodies` gives them a
    Content-Length first)."""
    http = current_request()
    if http.method not in ("POST", "PUT", "PATCH") or not http.content_length:
        return None
    if http.mimetype != "application/json":
        return problem(415, detail=Message("Send the body as application/json."))
    for charset in _charsets(http.headers.get("Content-Type", "")):
        if charset.lower() not in ("utf-8", "utf8"):
            return problem(
                415,
                detail=Message("Send the body as UTF-8, not %(charset)s.", charset=repr(charset)),
            )
    if http.headers.get("Content-Encoding", "identity").lower() != "identity":
        return problem(415, detail=Message("Send the body without Content-Encoding."))
    return None


def _charsets(content_type: str) -> list[str]:
    """Every ``charset`` parameter's value in a raw Content-Type header, as sent (quotes
    around a whole value removed). Werkzeug's parsed parameters keep the last of a
    repeated one and drop one it cannot read (``charset=``, ``charset=ütf-8``): each
    counts here, so none can hide another.

    >>> _charsets('application/json; charset="UTF-8"; Charset=latin1; charset=')
    ['UTF-8', 'latin1', '']
    """
    values = []
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() in ("charset", "charset*"):
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            values.append(value)
    return values


def _schema_not_current(error: SchemaNotCurrent) -> Response:
    """The database is not at this release's migration: 503, never a 500."""
    return problem(503, "schema-not-current", error.args[0], headers={"Retry-After": "30"})


def _database_outage(error: Exception) -> Response:
    """An outage the store did not wrap (e.g. reaching the database for the first
    time): the same 503 as :class:`~service.store.Unavailable` with ``outage``."""
    from service.api import games

    return games._unavailable(Unavailable(str(error), outage=True))  # noqa: SLF001


def init_api(app: Flask) -> Api:
    """Register the blueprints and error handling on ``app``; returns the Api."""
    from service import referee
    from service.api import (
        actions,
        games,
        halves,
        meta,
        operations,
        pictures,
        positions,
        rules,
        seats,
        sequence,
        solitaire_frenzy,
        stream,
        two_way,
    )

    app.json = StrictJSONProvider(app)
    init_bodies(app)  # bodies read ahead, up to the route's limit, by the deadline
    app.url_map.merge_slashes = False  # "//" is a 404 problem, not an HTML 308 redirect
    api = Api(app, spec_kwargs={"extra_plugins": [AcceptLanguagePlugin(), ResponsesPlugin()]})
    actions.register(api.spec)
    positions.register(api.spec)
    app.before_request(_require_json_body)
    app.register_error_handler(SchemaNotCurrent, _schema_not_current)
    # a database outage anywhere (the store's first use, a stream, a check of the
    # schema) is a 503 with Retry-After like the store's own, never a 500
    app.register_error_handler(Unavailable, games._unavailable)
    for outage in (OperationalError, InterfaceError, PendingRollbackError, SQLAlchemyTimeoutError):
        app.register_error_handler(outage, _database_outage)
    for module in (
        meta,
        games,
        stream,
        positions,
        operations,
        seats,
        two_way,
        sequence,
        halves,
        solitaire_frenzy,
    ):
        api.register_blueprint(module.blp)
    api.register_blueprint(sequence.numbers_blp)
    api.register_blueprint(rules.blp)
    api.register_blueprint(rules.problems_blp)
    api.register_blueprint(pictures.blp)
    app.register_blueprint(referee.bp)  # the page, outside the API and its contract
    app.register_blueprint(referee.root)  # "/" and "/referee" lead a browser to it
    name_nullable_enums(api.spec)

    @app.get("/openapi.yaml")
    def openapi_yaml() -> Response:
        """The OpenAPI contract, generated from the code (same as openapi.yaml)."""
        return Response(yaml.dump(api.spec.to_dict()), mimetype="application/yaml")

    return api
