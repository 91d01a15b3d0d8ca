"""Who sits where: display names, invitations and rematches.

* **Names**: a seat may carry a display name (1-40 printable characters, see
  :func:`valid_name`), kept as ``games.names`` ``{seat: name}`` and read with the game
  row; views show them, every output escapes them (JSON, SVG, the page's text nodes).
* **Invitations**: creating a game with invitations gives each seat a single-use code
  (32 random bytes, stored as SHA-256 like a token) instead of its token; ``join``
  exchanges the code (and a name) for the seat's token. Used once: 409; past
  ``expires_at``: 410; a wrong code: 403. The referee may invite a seat again: its old
  code and token stop working (a stream of the old token ends, see
  :mod:`service.store.feed`).
* **Rematch**: the referee creates the same game (seats, options, names; invitations if
  the first game used them) with a fresh seed; the two games name each other
  (``rematch_of`` / ``rematch``), and a game has one rematch at most.
"""

from __future__ import annotations

import hmac
import re
import secrets
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from service.store.statements import _GAMES, _INVITATIONS, _SEATS

INVITATION_SECONDS = 7 * 24 * 3600  # how long an invitation may be used (a week)
NAME_LENGTH = (1, 40)


# 1 to 40 characters; none a control character (C0, DEL, C1), a line or paragraph
# separator, a direction control (marks, embeddings, overrides, isolates: text shown
# after a name could run backwards) or an invisible one (zero-width space, word joiner,
# BOM); no leading or trailing white space, and no zero-width (non-)joiner at either
# end (inside a name they join emoji and some scripts' letters). The contract states
# the same pattern.
_NEVER = (
    "\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029"  # controls, separators
    "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069"  # direction controls
    "\\u200b\\u2060\\ufeff"  # invisible
)
_EDGE = f"\\s{_NEVER}\\u200c\\u200d"  # nor at either end
NAME_PATTERN = f"^[^{_EDGE}]([^{_NEVER}]{{0,38}}[^{_EDGE}])?$"


# characters that are letters to Unicode (Lo, So) yet are drawn as nothing: the Hangul
# fillers and the blank Braille pattern
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_UNSEEN = frozenset({"Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp"})  # categories drawn as nothing
MAX_MARKS_IN_A_ROW = 4  # combining marks on one character; more: text that spills over


def shows_something(name: str) -> bool:
    """Whether ``name`` would be seen: at least one character that is drawn (not a
    control, format character, combining mark, space, separator or blank letter), and
    no more than :data:`MAX_MARKS_IN_A_ROW` combining marks in a row (a letter under
    dozens of accents spills over the text around it). :data:`NAME_PATTERN` cannot say
    either.

    >>> shows_something("Zoë"), shows_something("\\u3164"), shows_something("A" + "\\u0301" * 5)
    (True, False, False)
    """
    if all(c in _BLANK_LETTERS or unicodedata.category(c) in _UNSEEN for c in name):
        return False
    marks = 0
    for c in name:
        marks = marks + 1 if unicodedata.category(c).startswith("M") else 0
        if marks > MAX_MARKS_IN_A_ROW:
            return False
    return True


def valid_name(name: str) -> bool:
    """A display name: 1 to 40 characters, none a control, direction or invisible
    character or a line break, no leading or trailing space (:data:`NAME_PATTERN`),
    something to see (:func:`shows_something`).

    >>> valid_name("Ana"), valid_name("\\u202eAna"), valid_name("\\u200b")
    (True, False, False)
    """
    return re.fullmatch(NAME_PATTERN, name) is not None and shows_something(name)


def _hash(code: str) -> str:
    import hashlib

    return hashlib.sha256(code.encode()).hexdigest()


class InvitationInvalid(Exception):
    """No invitation of that seat has this code (403)."""


class InvitationUsed(Exception):
    """The invitation was used already (409)."""


class InvitationExpired(Exception):
    """The invitation is past its ``expires_at`` (410)."""


class UnknownSeat(Exception):
    """``names`` names a seat the game does not have (422); the seat is the argument."""


class RematchExists(Exception):
    """The game has a rematch already (409); its id is the argument."""


@dataclass(frozen=True)
class Seating:
    """What :meth:`GameStore.create` does besides the game: ``names`` {seat: name},
    ``invite`` (codes instead of tokens, valid ``invite_seconds``), ``rematch_of`` (the
    game this one is the rematch of)."""

    names: dict[str, str] = field(default_factory=dict)
    invite: bool = False
    invite_seconds: float = INVITATION_SECONDS
    rematch_of: str | None = None

    def seat(
        self, connection: Connection, game_id: str, seats: dict[str, dict[str, Any]], now: datetime
    ) -> dict[str, dict[str, Any]]:
        """In the creating transaction: link the rematch and issue the invitations;
        the reply's ``seats``. :class:`RematchExists`, :class:`UnknownSeat` (the whole
        creation rolls back)."""
        for seat in self.names:
            if seat not in seats:
                raise UnknownSeat(seat)
        if self.rematch_of is not None:
            linked = connection.execute(
                update(_GAMES)
                .where(_GAMES.c.id == self.rematch_of, _GAMES.c.rematch.is_(None))
                .values(rematch=game_id)
            ).rowcount
            if linked != 1:
                raise RematchExists(self.rematch_of)
        if not self.invite:
            return seats
        return {seat: invite(connection, game_id, seat, now, self.invite_seconds) for seat in seats}


def invite(
    connection: Connection,
    game_id: str,
    seat: str,
    now: datetime,
    seconds: float = INVITATION_SECONDS,
) -> dict[str, Any]:
    """Give ``seat`` a new invitation (replacing any earlier one) and a token nobody
    knows (the one it had stops working): ``{"invitation": code, "expires_at": ISO}``."""
    code = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=seconds)
    connection.execute(
        delete(_INVITATIONS).where(_INVITATIONS.c.game_id == game_id, _INVITATIONS.c.seat == seat)
    )
    connection.execute(
        insert(_INVITATIONS).values(
            game_id=game_id, seat=seat, code_hash=_hash(code), expires_at=expires
        )
    )
    connection.execute(
        update(_SEATS)
        .where(_SEATS.c.game_id == game_id, _SEATS.c.seat == seat)
        .values(token_hash=_hash(secrets.token_urlsafe(32)))
    )
    return {"invitation": code, "expires_at": expires.isoformat()}


def join(
    connection: Connection, game_id: str, seat: str, code: str, name: str | None, now: datetime
) -> str:
    """Exchange ``code`` for ``seat``'s new token (and set its display ``name``), in the
    caller's transaction. :class:`InvitationInvalid`, :class:`InvitationUsed`,
    :class:`InvitationExpired`."""
    row = connection.execute(
        select(_INVITATIONS)
        .where(_INVITATIONS.c.game_id == game_id, _INVITATIONS.c.seat == seat)
        .with_for_update()
    ).first()
    if row is None or not hmac.compare_digest(row.code_hash, _hash(code)):
        raise InvitationInvalid(seat)
    if row.used_at is not None:
        raise InvitationUsed(seat)
    expires = row.expires_at if row.expires_at.tzinfo else row.expires_at.replace(tzinfo=now.tzinfo)
    if expires <= now:
        raise InvitationExpired(seat)
    used = connection.execute(
        update(_INVITATIONS)
        .where(
            _INVITATIONS.c.game_id == game_id,
            _INVITATIONS.c.seat == seat,
            _INVITATIONS.c.used_at.is_(None),
        )
        .values(used_at=now)
    ).rowcount
    if used != 1:  # another join won meanwhile
        raise InvitationUsed(seat)
    token = secrets.token_urlsafe(32)
    connection.execute(
        update(_SEATS)
        .where(_SEATS.c.game_id == game_id, _SEATS.c.seat == seat)
        .values(token_hash=_hash(token))
    )
    if name is not None:
        set_name(connection, game_id, seat, name)
    return token


def set_name(connection: Connection, game_id: str, seat: str, name: str | None) -> None:
    """Set (``None``: clear) ``seat``'s display name, in the caller's transaction."""
    names = (
        connection.execute(
            select(_GAMES.c.names).where(_GAMES.c.id == game_id).with_for_update()
        ).scalar()
        or {}
    )
    names = (
        {**names, seat: name} if name is not None else {k: v for k, v in names.items() if k != seat}
    )
    connection.execute(update(_GAMES).where(_GAMES.c.id == game_id).values(names=names or None))
