"""What the contract (openapi.yaml) says about every operation, from facts about it.

:class:`ResponsesPlugin` completes each operation's responses with every error the
service can give it, so that an endpoint added later is documented alike:

* a POST: 413 ``payload-too-large`` and 415 ``unsupported-media-type`` (any body is
  checked, service.api._require_json_body), 400 ``invalid-json``
  (service.api.base.strict_loads) and 422 (the schema, or a body sent to a POST that
  takes none: service.api.base.takes_no_body);
* query parameters: 422 ``invalid-query``;
* bearer tokens (``bearerAuth``): 401 with ``WWW-Authenticate``, 404 (an unknown
  game, or a game the token is not for), 503 (the database: busy, or not at this
  release's migration);
* the API key (``apiKeyAuth``): 401 ``api-key-required``, 403 ``api-key-refused``, 503;
* an ``Idempotency-Key`` parameter: every response may be a replay, with
  ``Idempotent-Replayed: true``;
* no security: ``security: []`` (public, stated).

Every error response is ``application/problem+json`` with the ``Problem`` schema.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from apispec import BasePlugin

from service.errors import PROBLEM_MIMETYPE

RESPONSE_NAMES = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    409: "CONFLICT",
    412: "PRECONDITION_FAILED",
    413: "REQUEST_ENTITY_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "UNPROCESSABLE_ENTITY",
    428: "PRECONDITION_REQUIRED",
    429: "TOO_MANY_REQUESTS",
    503: "SERVICE_UNAVAILABLE",
}

# Python 3.13 renamed two statuses after RFC 9110 (CONTENT_TOO_LARGE, "Content Too
# Large"; UNPROCESSABLE_CONTENT, "Unprocessable Content"): the contract keeps the names
# it was published with, whichever Python generates it
_PUBLISHED = {
    413: ("REQUEST_ENTITY_TOO_LARGE", "Request Entity Too Large"),
    422: ("UNPROCESSABLE_ENTITY", "Unprocessable Entity"),
}


def status_name(status: HTTPStatus) -> tuple[str, str]:
    """The contract's name of ``status`` and its description: ``(name, phrase)``,
    the same on every Python (3.13 renamed 413 and 422)."""
    return _PUBLISHED.get(int(status), (status.name, status.phrase))


RETRY_AFTER = {
    "description": "seconds to wait before retrying",
    "schema": {"type": "integer", "minimum": 0},
}
WWW_AUTHENTICATE = {
    "description": 'the challenge: Bearer realm="card-referee" (with '
    'error="invalid_token" or "invalid_request"), or '
    'ApiKey realm="card-referee"',
    "schema": {"type": "string"},
}
IDEMPOTENT_REPLAYED = {
    "description": "true: this is the stored response of an earlier "
    "request with the same Idempotency-Key",
    "schema": {"type": "string", "enum": ["true"]},
}
# the headers of the shared error responses (components.responses)
RESPONSE_HEADERS = {
    401: {"WWW-Authenticate": WWW_AUTHENTICATE},
    409: {"Retry-After": RETRY_AFTER},
    429: {"Retry-After": RETRY_AFTER},
    503: {"Retry-After": RETRY_AFTER},
}


def _schemes(operation: dict) -> set[str]:
    return {name for requirement in operation.get("security", []) for name in requirement}


def implied_statuses(method: str, operation: dict) -> set[int]:
    """The error statuses an operation can answer, from its method, body, query and
    security (see the module docstring)."""
    statuses: set[int] = set()
    if method == "post":
        statuses |= {400, 413, 415, 422}
    if "requestBody" in operation:
        statuses |= {400, 422}
    if any(p.get("in") == "query" for p in operation.get("parameters", [])):
        statuses.add(422)
    schemes = _schemes(operation)
    if "bearerAuth" in schemes:
        statuses |= {401, 404, 503}
    if "apiKeyAuth" in schemes:
        statuses |= {401, 403, 503}
    return statuses


class ResponsesPlugin(BasePlugin):
    """Adds the implied error responses (and the replay header) to every operation."""

    def operation_helper(self, path=None, operations=None, **kwargs) -> None:
        for method, operation in (operations or {}).items():
            responses = operation.setdefault("responses", {})
            for status in sorted(implied_statuses(method, operation)):
                responses.setdefault(str(status), RESPONSE_NAMES[status])
            operation.setdefault("security", [])  # public: said, not left implicit
            if any(p.get("name") == "Idempotency-Key" for p in operation.get("parameters", [])):
                _replayable(responses)


def _replayable(responses: dict[str, Any]) -> None:
    """Every response but 401/404/429/503 (answered before the key is looked up) may
    be a replay: the header on each (error responses written out, not shared)."""
    for status, response in responses.items():
        if status in ("401", "404", "429", "503", "default"):
            continue
        if isinstance(response, str):
            response = {
                "description": status_name(HTTPStatus(int(status)))[1],
                "content": {PROBLEM_MIMETYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
            }
            responses[status] = response
        response.setdefault("headers", {})["Idempotent-Replayed"] = IDEMPOTENT_REPLAYED


def name_nullable_enums(spec) -> None:
    """Each property that is an enum or null (marshmallow ``allow_none`` with
    ``OneOf``: ``enum: [..., null]``) becomes ``nullable`` + ``allOf`` a named enum
    ``<Schema><Property>`` without null: generated clients then make one enum class
    and ``X | None`` (not three classes for one enum). A Dict field whose metadata
    lists its ``properties`` (the Sequence sides of ``chips``) allows no others."""
    schemas = spec.components.schemas
    for owner, schema in list(schemas.items()):
        if owner == "GameExport":  # a request body: null or an Imported, not any object
            _null_or_ref(schema["properties"]["imported"])
        for prop, definition in schema.get("properties", {}).items():
            if "properties" in definition and definition.get("type") == "object":
                # a Dict field whose keys are listed (metadata "properties"): closed
                definition["additionalProperties"] = False
            values = definition.get("enum")
            if not values or None not in values:
                continue
            name = owner + "".join(part.capitalize() for part in prop.split("_"))
            schemas[name] = {
                "type": definition["type"],
                "enum": [v for v in values if v is not None],
            }
            schema["properties"][prop] = {
                key: value for key, value in definition.items() if key not in ("type", "enum")
            } | {"nullable": True, "allOf": [{"$ref": f"#/components/schemas/{name}"}]}


def _null_or_ref(definition: dict) -> None:
    """``anyOf: [$ref, {type: object, nullable: true}]`` (apispec's Nested with
    ``allow_none``, whose second branch admits ANY object) as ``nullable`` + ``allOf``
    the reference: null or that object only."""
    refs = [branch for branch in definition.pop("anyOf", []) if "$ref" in branch]
    definition.update(nullable=True, allOf=refs)
