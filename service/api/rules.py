"""The rule book and the problem types, as the service ships them (service.rulebook).

- ``GET /v1/rules``: every rule (``?game=`` one section: ``every-game`` for the G-*
  rules, or a game), in book order.
- ``GET /v1/rules/{rule_id}``: one rule (404 ``rule-not-found`` for an unknown ID).
- ``GET /problems/{code}``: the page a problem's ``type``
  (``https://card-referee.dev/problems/<code>``) names: status, meaning, rules cited
  (404 ``problem-not-found``).

A rule's ``title`` is in the request's language (Accept-Language: en fr de es it ro;
``titles`` has all six); statements, rulings and problem summaries are in English.
"""

from __future__ import annotations

from typing import Any

from flask import Response
from marshmallow import Schema, fields, validate

from service import rulebook
from service.api.base import Blueprint
from service.errors import problem
from service.i18n import pick
from service.messages import Message

blp = Blueprint(
    "rules",
    __name__,
    url_prefix="/v1/rules",
    description="The rule book: every rule ID the service cites",
)
problems_blp = Blueprint(
    "problems",
    __name__,
    url_prefix="/problems",
    description="The problem types every error's `type` names",
)


class RulesQuerySchema(Schema):
    game = fields.String(
        validate=validate.OneOf(rulebook.SECTIONS),
        metadata={"description": "only this section: every-game (G-*) or a game name"},
    )


class RuleSchema(Schema):
    id = fields.String(required=True, metadata={"example": "SQ-T3"})
    section = fields.String(
        required=True, validate=validate.OneOf(rulebook.SECTIONS), metadata={"example": "sequence"}
    )
    title = fields.String(
        required=True, metadata={"description": "in the request's language (Accept-Language)"}
    )
    titles = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={"description": "the title in en fr de es it ro"},
    )
    statement = fields.String(required=True, metadata={"description": "the rule (English)"})
    rulings = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "what the service decided where the sheets are silent or unclear"},
    )
    options = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "game options that change the rule (see /v1/games/catalog)"},
    )


class RulesSchema(Schema):
    rules = fields.List(fields.Nested(RuleSchema), required=True)


class CitedRuleSchema(Schema):
    id = fields.String(required=True)
    title = fields.String(required=True, metadata={"description": "in the request's language"})


class ProblemTypeSchema(Schema):
    type = fields.String(required=True)
    code = fields.String(required=True)
    status = fields.List(
        fields.Integer(), required=True, metadata={"description": "the HTTP statuses it comes with"}
    )
    summary = fields.String(required=True, metadata={"description": "what it means (English)"})
    rules = fields.List(
        fields.Nested(CitedRuleSchema),
        required=True,
        metadata={
            "description": "the rules its refusals cite as `rule`; empty for problems about "
            "the request itself"
        },
    )


def _rule_out(entry: rulebook.Rule) -> dict[str, Any]:
    return {
        "id": entry["id"],
        "section": entry["section"],
        "title": pick(entry["title"]),
        "titles": entry["title"],
        "statement": entry["statement"].strip(),
        "rulings": [r.strip() for r in entry["rulings"]],
        "options": entry["options"],
    }


@blp.get("")
@blp.arguments(RulesQuerySchema, location="query")
@blp.response(200, RulesSchema)
def list_rules(query: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    """Every rule of the rule book in book order, or one section's (`game`)."""
    return {"rules": [_rule_out(r) for r in rulebook.rules(query.get("game"))]}


@blp.get("/<rule_id>")
@blp.response(200, RuleSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_rule(rule_id: str) -> dict[str, Any] | Response:
    """One rule by its ID (`SQ-T3`, as a refusal's `rule` names it); unknown: 404
    `rule-not-found`."""
    entry = rulebook.rule(rule_id)
    if entry is None:
        return problem(
            404, "rule-not-found", Message("No rule %(id)s in the rule book.", id=repr(rule_id))
        )
    return _rule_out(entry)


@problems_blp.get("/<code>")
@problems_blp.response(200, ProblemTypeSchema)
@problems_blp.alt_response(404, response="NOT_FOUND")
def get_problem_type(code: str) -> dict[str, Any] | Response:
    """What a problem `code` means (the page its `type` names): its statuses, the
    rules it cites, a summary; unknown: 404 `problem-not-found`."""
    entry = rulebook.problems().get(code)
    if entry is None:
        return problem(
            404, "problem-not-found", Message("No problem type %(code)s.", code=repr(code))
        )
    return {
        "type": rulebook.TYPE_BASE + code,
        "code": code,
        "status": entry["status"],
        "summary": entry["summary"].strip(),
        "rules": [_cited(r) for r in entry["rules"]],
    }


def _cited(rule_id: str) -> dict[str, str]:
    """A rule a problem type cites: its ID and its title in the request's language."""
    entry = rulebook.rule(rule_id)
    assert entry is not None  # rulebook.problems() refuses a problem citing an unknown rule
    return {"id": rule_id, "title": pick(entry["title"])}
