"""Sentences for people, kept translatable: :class:`Message`.

The rule engines are pure and know nothing of requests or languages, yet every
refusal and verdict they word must reach the player in the player's language. So an
engine words it as a ``Message``: an English gettext message id with ``%(name)s``
placeholders and the values that fill them::

    Message("%(card)s is not in %(seat)s's hand", card="7H", seat="p2")

A ``Message`` IS the English sentence (a ``str``: tests, logs and JSON see
"7H is not in p2's hand"), and it keeps ``msgid`` and ``params`` so that the API
(:mod:`service.i18n`) can look the id up in the gettext catalogs
(``service/translations/<lang>/LC_MESSAGES/messages.po``) and fill in the same values.
A parameter may itself be a ``Message`` (it is translated first). Values are data that
no language changes: card codes, seat names, numbers, field names, codes.

``pybabel extract`` finds every ``Message("...")`` (babel.cfg: keyword ``Message``), so
the first argument is always a string literal, never an f-string. The placeholders are
Python's named ``%(name)s``: Babel flags such ids ``python-format`` and its checkers
compare the placeholders of every translation with the English ones.
"""

from __future__ import annotations

from typing import Any


class Message(str):
    """An English sentence that also carries its gettext ``msgid`` and ``params``."""

    msgid: str
    params: dict[str, Any]

    def __new__(cls, msgid: str, /, **params: Any) -> Message:
        text = msgid % params if params else msgid
        self = super().__new__(cls, text)
        self.msgid = msgid
        self.params = params
        return self

    def __reduce__(self):  # copy/pickle keep the id and the values
        return _rebuild, (self.msgid, self.params)

    def to_json(self) -> dict[str, Any]:
        """``{"msgid", "params"}``, nested messages as the same shape (for storage)."""
        return {
            "msgid": self.msgid,
            "params": {
                k: v.to_json() if isinstance(v, Message) else v for k, v in self.params.items()
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Message:
        """The message :meth:`to_json` described."""
        return cls(
            data["msgid"],
            **{k: cls.from_json(v) if _is_message(v) else v for k, v in data["params"].items()},
        )


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"msgid", "params"}


def _rebuild(msgid: str, params: dict[str, Any]) -> Message:
    return Message(msgid, **params)
