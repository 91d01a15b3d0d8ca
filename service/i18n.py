"""The six languages of the sheets: every sentence the API sends follows Accept-Language.

Languages: ``en`` (default) ``fr`` ``de`` ``es`` ``it`` ``ro``. The request's language is
the best match of its ``Accept-Language`` among them (``fr-CH`` is ``fr``; none of them,
or no header: ``en``), chosen by Flask-Babel's locale selector. The texts are the
gettext catalogs ``service/translations/<lang>/LC_MESSAGES/messages.po``, compiled to
``.mo`` by ``make install``, or at start when a plain ``pip install .`` left them out.

What is translated: a problem's ``title`` and ``detail``, and the ``detail`` of every
verdict of the stateless checks (:func:`localize` is applied to their answers), all
worded by the code as :class:`service.messages.Message`. What never changes: ``code``,
``rule``, ``type``, field names, card codes, seats and the ``errors`` of a body that
does not match its schema (marshmallow's own English messages; the sequence checks'
own input errors are translated like their detail). A response with translated text
carries ``Content-Language`` and ``Vary: Accept-Language``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from flask import Flask, Response, has_request_context

# Flask-Babel ships no type information (no py.typed, no stubs): its names are Any here
from flask_babel import Babel, get_locale, gettext

from service.context import current_g, current_request
from service.messages import Message

LANGUAGES = ("en", "fr", "de", "es", "it", "ro")
DEFAULT = "en"
TRANSLATIONS = Path(__file__).resolve().parent / "translations"


def _select() -> str:
    """The first language range of the highest quality that names one of ours, by its
    primary subtag (RFC 4647 lookup: ``fr-CH, en;q=0.9`` is ``fr``); ``*`` or none of
    ours: :data:`DEFAULT`. (Werkzeug's ``best_match`` tries every exact tag first, so
    it took ``en;q=0.9`` over ``fr-CH``.)"""
    http = current_request()
    if "Accept-Language" not in http.headers:  # no header: no parsing
        return DEFAULT
    # werkzeug lists "*" after the tags; sorted is stable, so ties keep the header's order
    for tag, quality in sorted(http.accept_languages, key=lambda item: -item[1]):
        if quality <= 0:
            continue
        primary = tag.lower().replace("_", "-").split("-")[0]
        if tag == "*" or primary in LANGUAGES:
            return primary if primary in LANGUAGES else DEFAULT
    return DEFAULT


def language() -> str:
    """The current request's language (``en`` outside a request)."""
    if not has_request_context():
        return DEFAULT
    return str(get_locale())


def _mark_localized() -> None:
    """Inside a request: its response gets ``Content-Language`` (see
    :func:`_language_headers`)."""
    if has_request_context():
        current_g().localized = True


def translate(text: Any) -> Any:
    """``text`` in the request's language when it is a :class:`Message` (its message
    parameters first), otherwise ``text`` as it is. Marks the response as localized."""
    if not isinstance(text, Message):
        return text
    _mark_localized()
    params = {name: translate(value) for name, value in text.params.items()}
    return gettext(text.msgid, **params)


def pick(texts: dict[str, str]) -> str:
    """The request's language's entry of ``texts`` (``{"en": ..., "fr": ...}``, data
    already in every language, such as the rule book's titles). Marks the response as
    localized."""
    _mark_localized()
    return texts.get(language()) or texts[DEFAULT]


def localize(value: Any) -> Any:
    """``value`` (an answer: dicts and lists of plain data) with every
    :class:`Message` inside it translated (:func:`translate`). Marks the response as
    localized even when ``value`` holds no sentence this time (another answer of the
    same endpoint would)."""
    _mark_localized()
    return _translated(value)


def localize_fields(answer: Any, *names: str) -> Any:
    """``answer`` with the entries ``names`` localized (:func:`localize`) and the rest
    kept as they are: for an answer whose sentences sit in known entries (a verdict's
    ``reasons``, a move check's ``detail``), without walking its cards and cells."""
    _mark_localized()
    for name in names:
        answer[name] = _translated(answer[name])
    return answer


def _translated(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _translated(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_translated(item) for item in value]
    return translate(value) if isinstance(value, Message) else value


def _language_headers(response: Response) -> Response:
    """``Content-Language`` and ``Vary: Accept-Language`` on a response whose text
    was translated for this request."""
    context = current_g()
    if context.get("localized"):
        response.headers["Content-Language"] = (
            str(get_locale()) if "_flask_babel" in context else _select()
        )  # no sentence translated: Flask-Babel's locale not built
        response.vary.add("Accept-Language")
    return response


def missing_catalogs(directory: Path = TRANSLATIONS) -> list[str]:
    """The languages whose compiled catalog (``messages.mo``) is missing in
    ``directory`` or older than its ``messages.po``."""
    missing = []
    for lang in LANGUAGES[1:]:
        source = TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"
        compiled = directory / lang / "LC_MESSAGES" / "messages.mo"
        if not compiled.is_file() or compiled.stat().st_mtime < source.stat().st_mtime:
            missing.append(lang)
    return missing


def compile_catalogs(directory: Path = TRANSLATIONS) -> Path:
    """Compile the ``.po`` catalogs whose ``.mo`` is missing or stale into
    ``directory`` (each written under a temporary name, then renamed: workers starting
    together never read half a file); where the package cannot be written (a
    read-only site-packages), into a temporary folder of this process instead.
    Returns the folder that holds the compiled catalogs."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    try:
        for lang in missing_catalogs(directory):
            target = directory / lang / "LC_MESSAGES" / "messages.mo"
            target.parent.mkdir(parents=True, exist_ok=True)
            with (TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as po:
                catalog = read_po(po, locale=lang)
            partial = target.with_name(f".messages.mo.{os.getpid()}")
            with partial.open("wb") as mo:
                write_mo(mo, catalog)
            partial.replace(target)
    except PermissionError:
        if directory != TRANSLATIONS:
            raise
        return compile_catalogs(Path(tempfile.mkdtemp(prefix="card-referee-i18n-")))
    return directory


def init_i18n(app: Flask) -> Babel:
    """Flask-Babel on ``app`` with the request's language selected from Accept-Language.

    Catalogs not compiled yet (a plain ``pip install .``) are compiled here, at start
    (:func:`compile_catalogs`), so that a French table never gets English."""
    directory = compile_catalogs() if missing_catalogs() else TRANSLATIONS
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT)
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(directory)
    app.after_request(_language_headers)
    return Babel(app, locale_selector=_select)
