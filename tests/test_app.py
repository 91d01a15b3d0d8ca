"""The app factory's Flask: ``ensure_sync`` hands plain functions and methods back as
they are, and anything else goes Flask's way; a request's ``max_content_length`` is
read from its app (service/__init__.py)."""

from __future__ import annotations

import functools

import pytest
from flask import Flask


def test_plain_functions_and_methods_come_back_as_they_are(app):
    def view():
        return "ok"

    class Hooks:
        def hook(self):
            return None

    method = Hooks().hook
    assert app.ensure_sync(view) is view
    assert app.ensure_sync(method) is method
    # every hook and view of a real request: none is wrapped
    for funcs in (*app.before_request_funcs.values(), *app.after_request_funcs.values()):
        for func in funcs:
            assert app.ensure_sync(func) is func
    for view_function in app.view_functions.values():
        assert app.ensure_sync(view_function) is view_function


def test_async_views_and_partials_go_flasks_way(app):
    async def view():
        return "ok"

    partial = functools.partial(view)
    for func in (view, partial):
        # Flask's own answer: a wrapper that runs the coroutine, or, without Flask's
        # "async" extra installed, a RuntimeError that says so
        try:
            made = Flask.ensure_sync(app, func)
        except RuntimeError as flasks:
            with pytest.raises(RuntimeError, match=str(flasks)):
                app.ensure_sync(func)
        else:
            assert made is not func
            assert app.ensure_sync(func) is not func


def test_a_request_reads_its_body_limit_from_its_own_app(app):
    from service.api.base import MAX_BODY_BYTES

    with app.test_request_context("/healthz"):
        request = app.request_class({"REQUEST_METHOD": "GET"})
        assert request.max_content_length == MAX_BODY_BYTES == 64 * 1024
        app.config["MAX_CONTENT_LENGTH"] = 10  # the app's setting, read at each request
        assert request.max_content_length == 10
        request.max_content_length = 3  # a request's own limit wins, as in Flask
        assert request.max_content_length == 3
    other = Flask("other")  # Flask's own request class agrees on the same settings
    other.config["MAX_CONTENT_LENGTH"] = 10
    with other.test_request_context("/"):
        assert other.request_class({"REQUEST_METHOD": "GET"}).max_content_length == 10
