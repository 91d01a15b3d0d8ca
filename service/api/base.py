"""Shared API plumbing: the strict JSON parser and the Blueprint every module uses.

Request bodies are parsed by :func:`strict_loads`, which refuses what Python's
``json`` would accept or crash on: ``NaN``/``Infinity`` (also as an overflowing
literal such as ``1e999``), duplicate object keys and nesting deeper than
:data:`MAX_DEPTH`. Each is a 400 problem, never a 500.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import update_wrapper, wraps
from itertools import accumulate
from types import FunctionType
from typing import Any, TypeVar, cast

import flask_smorest
import orjson
from flask import Request, Response
from marshmallow import fields
from webargs import core
from webargs.flaskparser import FlaskParser, abort, is_json_request

from service.context import current_flask, current_request
from service.errors import problem
from service.messages import Message

MAX_DEPTH = 32  # arrays/objects nested deeper than this are refused (400)
MAX_BODY_BYTES = 64 * 1024  # larger bodies are refused with 413

_View = TypeVar("_View", bound=Callable[..., Any])


class InvalidJSON(ValueError):
    """The body is not strict JSON (see module docstring); ``reason`` says why (a
    :class:`Message`, or the JSON parser's own English words)."""

    def __init__(self, reason: Message | str):
        super().__init__(reason)
        self.reason = reason


def _reject_constant(name: str) -> Any:
    raise InvalidJSON(Message("%(value)s is not a JSON number", value=name))


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise InvalidJSON(
            Message("%(value)s is out of the range of a JSON number we accept", value=text)
        )
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 64:
        raise InvalidJSON(Message("a number has more than 64 digits"))
    return int(text)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise InvalidJSON(Message("duplicate key %(key)s", key=repr(key)))
        result[key] = value
    return result


_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _depth(text: str) -> int:
    """Deepest nesting of [ and { outside strings, without a Python loop over every
    character (a 4 MiB import is scanned several times faster): escapes removed
    (``\\\\`` then ``\\"``), the text split at its quotes (every other piece is
    outside a string), everything but brackets removed, then the running sum of the
    brackets' steps. The same as a character-by-character scan on any JSON text (a
    backslash outside a string, which no JSON text has, may count differently)."""
    unescaped = text.replace("\\\\", "").replace('\\"', "")
    outside = "".join(unescaped.split('"')[0::2])
    steps = map(_STEP.__getitem__, _NOT_BRACKET.sub("", outside))
    return max(0, max(accumulate(steps), default=0))


_SLOW = object()  # _plain_loads: this text needs the standard parser's checks


def _plain_loads(data: bytes | str) -> Any:
    """The value of ``data`` by orjson, when that is exactly what :func:`strict_loads`'
    standard path gives; :data:`_SLOW` when that path must judge it: orjson refuses it
    (its reason would be worded differently; it also refuses a lone surrogate that the
    standard path takes), it holds a float (orjson reads an integer past 64 bits as
    one; ``1e999`` must be refused), it nests deeper than :data:`MAX_DEPTH`, or its
    colons outnumber its objects' keys (a duplicate key, or only a colon inside a
    string: every key has its colon, so equal counts mean no key was repeated).

    A request body is usually a few plain objects: a fifth to a third of the standard
    path's CPU (7.7-21 us -> 1.4-7 us, timed alone on bench_speed.py's check bodies)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _SLOW
    if type(value) is float:
        return _SLOW
    if type(value) is not dict and type(value) is not list:
        return value  # a string, an integer, true, false or null
    keys, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return _SLOW
        if type(item) is dict:
            keys += len(item)
            children: Any = item.values()
        else:
            children = item
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                stack.append((child, depth + 1))
            elif kind is float:
                return _SLOW
    colons = data.count(b":") if isinstance(data, bytes) else data.count(":")
    return value if colons == keys else _SLOW


def strict_loads(data: bytes | str, scan: bool = True) -> Any:
    """Parse strict JSON. Raises :class:`InvalidJSON` with a reason on any defect.

    ``scan``: the nesting depth is checked on the text before parsing (:func:`_depth`);
    False (a big import, parsed in a thread beside the event loop): on the parsed value
    instead (:func:`_value_depth`, Python steps that let the loop in, where the text
    scan is a few long C calls holding the interpreter); the parser's own recursion
    limit stops a deeper text first, with the same refusal.

    A body that orjson reads to the same value is read by it (:func:`_plain_loads`)."""
    if scan:
        plain = _plain_loads(data)
        if plain is not _SLOW:
            return plain
    return _standard_loads(data, scan)


def _standard_loads(data: bytes | str, scan: bool) -> Any:
    """:func:`strict_loads` by the standard library's parser, whose hooks refuse
    what it must refuse."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        raise InvalidJSON(Message("body is not UTF-8")) from exc
    too_deep = Message("nested deeper than %(depth)s levels", depth=MAX_DEPTH)
    if scan and _depth(text) > MAX_DEPTH:
        raise InvalidJSON(too_deep)
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
            object_pairs_hook=_no_duplicates,
        )
    except InvalidJSON:
        raise
    except RecursionError as exc:
        if not scan:
            raise InvalidJSON(too_deep) from exc
        raise InvalidJSON(str(exc)) from exc
    except ValueError as exc:
        raise InvalidJSON(str(exc)) from exc
    if not scan and _value_depth(value) > MAX_DEPTH:
        raise InvalidJSON(too_deep)
    if ("\\ud" in text or "\\uD" in text) and _has_lone_surrogate(value):
        raise InvalidJSON(
            "a string holds an unpaired surrogate (an escape \\ud800 to \\udfff), "
            "which is not Unicode text"
        )
    return value


def _has_lone_surrogate(value: Any) -> bool:
    """Whether a key or a string of ``value`` holds a lone surrogate: an escape such as
    ``\\ud800`` that the parser takes and no UTF-8 can write, so it could be neither
    stored, hashed nor echoed (I-JSON, RFC 7493, forbids it; a pair is one character
    and passes)."""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return True
    return False


def _value_depth(value: Any) -> int:
    """Deepest nesting of lists and objects in a parsed value (as :func:`_depth`
    counts brackets), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend(
                (child, depth + 1) for child in children if isinstance(child, (dict, list))
            )
    return deepest


class StrictParser(FlaskParser):
    """webargs parser that reads JSON bodies with :func:`strict_loads`."""

    def get_default_request(self) -> Request:
        """The request itself, not Flask's proxy (see :mod:`service.context`): the
        parser reads several of its attributes."""
        return current_request()

    def _raw_load_json(self, req: Request) -> Any:
        if not is_json_request(req):
            return core.missing
        return load_body(req)


def load_body(req: Request) -> Any:
    """The body of ``req`` parsed by :func:`strict_loads`; ``core.missing`` when it is
    empty. Not strict JSON: aborts 400 ``invalid-json`` naming the defect."""
    data = req.get_data(cache=True)
    if not data:
        return core.missing
    try:
        return strict_loads(data)
    except InvalidJSON as exc:
        detail = Message("Invalid JSON body: %(reason)s", reason=exc.reason)
        abort(400, messages={"json": [detail]}, code="invalid-json", detail=detail)


def takes_no_body(view: _View) -> _View:
    """Decorates a view that takes no body (a POST that only acts: a token re-issued, a
    rematch...): a body, when one is sent, is checked before the view runs. None or
    ``{}``: the view runs; not strict JSON: 400 ``invalid-json`` as on every endpoint
    (:func:`load_body`); any other JSON: 422 ``invalid-body``. Its media type, charset
    and encoding were checked already (``_require_json_body`` in :mod:`service.api`)."""

    @wraps(view)
    def checked(*args: Any, **kwargs: Any) -> Any:
        body = load_body(current_request())
        if body is not core.missing and body != {}:
            detail = Message("This request takes no body: send none, or {}.")
            return problem(422, "invalid-body", detail, errors={"json": {"_schema": [detail]}})
        return view(*args, **kwargs)

    return cast(_View, checked)


def operation_id(endpoint: str) -> str:
    """The default operationId of a view: its endpoint (function) name in camelCase
    (``get_legal_actions`` -> ``getLegalActions``)."""
    head, *rest = endpoint.split("_")
    return head + "".join(word.capitalize() for word in rest)


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest Blueprint using :class:`StrictParser` for arguments; every
    operation gets an ``operationId`` (for generated clients): the one given with
    ``@blp.doc(operationId=...)``, else :func:`operation_id` of the view's name.
    tests/test_openapi.py checks they are unique across the API."""

    ARGUMENTS_PARSER = StrictParser()

    def _store_endpoint_docs(
        self,
        endpoint: str,
        obj: Callable[..., Any],
        parameters: list[Any] | None,
        tags: list[str] | None,
        **options: Any,
    ) -> None:
        super()._store_endpoint_docs(endpoint, obj, parameters, tags, **options)
        for method, doc in self._docs[endpoint].items():
            if method != "parameters":
                manual = doc.setdefault("manual_doc", {})
                manual.setdefault("operationId", operation_id(endpoint))

    # flask-smorest's two decorators that only document (``doc`` and ``alt_response``)
    # each wrap the view in a layer that calls it through ``current_app.ensure_sync``
    # on every request (an action's view had 9 such layers: about 2% of its CPU under a
    # profiler); here each gives the view itself back, carrying the documentation

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """flask-smorest's ``doc`` without its runtime layer (:func:`_docs_only`)."""
        return _docs_only(flask_smorest.Blueprint.doc(**kwargs))

    def alt_response(
        self, *args: Any, **kwargs: Any
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """flask-smorest's ``alt_response`` without its runtime layer
        (:func:`_docs_only`)."""
        return _docs_only(super().alt_response(*args, **kwargs))


def _docs_only(
    decorate: Callable[[Callable[..., Any]], Callable[..., Any]],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A documenting decorator of flask-smorest that returns a copy of the view
    function itself (same code, closure and attributes) carrying the wrapper's
    ``_apidoc``, instead of the wrapper (which only called the view). A view that is
    not a plain function keeps the wrapper."""

    def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
        wrapper = decorate(view)
        if not isinstance(view, FunctionType):
            return wrapper
        same = FunctionType(
            view.__code__, view.__globals__, view.__name__, view.__defaults__, view.__closure__
        )
        same.__kwdefaults__ = view.__kwdefaults__
        update_wrapper(same, view)
        same._apidoc = wrapper._apidoc  # type: ignore[attr-defined]
        return same

    return decorator


def json_reply(body: Any) -> Response:
    """``body`` as the 200 JSON response, encoded as Flask encodes it, without the
    response schema's dump: for endpoints whose body is built to the documented shape
    already (``@blp.response`` still documents it; flask-smorest passes a Response
    through). The dump copied every field again for nothing: it validates nothing."""
    # the provider's reply is the app's response_class, flask's Response: Flask types
    # JSONProvider.response with werkzeug's sansio base class
    return cast(Response, current_flask().json.response(body))


class OneStepList(fields.List[Any]):
    """A List whose items usually load in one loop (:meth:`load_all`) instead of a
    field each (a grid's 49 cards or a position's cells went through a field apiece:
    issue 23). When ``load_all`` answers None (an item it does not take), the List's
    own item-by-item path loads the value, so its errors stay by index; the List's
    validators run either way."""

    def load_all(self, value: list[Any]) -> list[Any] | None:
        """Every item of ``value`` loaded, or None to go item by item."""
        raise NotImplementedError

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list[Any]:
        if type(value) is list:
            loaded = self.load_all(value)
            if loaded is not None:
                return loaded
        return super()._deserialize(value, attr, data, **kwargs)


class DigitsInteger(fields.Integer):
    """An integer written in ASCII digits only, as query parameters take them
    (``int()`` alone would also read ``１``, ``٣``, ``+1``, `` 1`` and ``1_000``)."""

    _DIGITS = re.compile(r"[0-9]+")

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> int:
        if isinstance(value, str) and not self._DIGITS.fullmatch(value):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class StrictBoolean(fields.Boolean):
    """true or false only (marshmallow's Boolean also takes "yes", "on", 1, "true"...):
    a body says what it means in JSON's own words."""

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value
