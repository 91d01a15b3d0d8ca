"""Who may act in a game: bearer tokens (looked up, re-issued, revoked), and the seats'
invitations, display names and rematches (:mod:`service.store.seating`). A base of
:class:`service.store.records.GameStore`: it uses the store's unit of work (``uow``) and,
for a rematch, its ``read`` and ``create``.

Tokens are ``secrets.token_urlsafe(32)``; only their SHA-256 hex digests are stored. A
re-issue bumps the game's ``credentials`` (and notifies every host on PostgreSQL), so
that the streams the old token opened end within about a second."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, select, update

from service.store import seating
from service.store.models import utcnow
from service.store.seating import Seating
from service.store.statements import _ACTOR, _GAMES, _INVITATIONS, _SEATS
from service.store.uow import UnitOfWork
from service.store.values import (
    FEED_CHANNEL,
    REFEREE,
    GameNotFound,
    GameRecord,
    Reply,
    SeatNotFound,
    Unauthenticated,
    hash_token,
)


# at most this many tokens are remembered per process (about 200 bytes each)
REMEMBERED_TOKENS = 10_000


class Credentials:
    """The token and seating methods of :class:`~service.store.records.GameStore`."""

    uow: UnitOfWork  # the store's
    # tokens that opened a game (SHA-256 hex -> game id, actor), see authenticate
    _remembered: dict[str, tuple[str, str]]

    if TYPE_CHECKING:  # GameStore's (a rematch reads the game and creates the next)

        def read(self, game_id: str) -> GameRecord: ...

        def create(
            self,
            game: str,
            options: dict[str, Any],
            seed: str | None = None,
            position: dict[str, Any] | None = None,
            seating: Seating | None = None,
        ) -> Reply: ...

    def authenticate(self, game_id: str, token: str | None, remembered: bool = False) -> str:
        """The actor (a seat name or ``"referee"``) that ``token`` opens in game
        ``game_id``. :class:`Unauthenticated` when the token opens no game at all;
        :class:`GameNotFound` when it opens another game (or ``game_id`` is unknown):
        a caller learns nothing about games that are not theirs.

        ``remembered``: the answer may come from this process's memory of tokens that
        opened a game before (no statement), for a request whose read of the game
        checks the token again in the same statement (an action's, ``act(...,
        token=...)``; a GET's, ``read(..., token=...)``): a re-issued token is refused
        there, and forgotten."""
        if not token:
            raise Unauthenticated("a bearer token is required")
        token_hash = hash_token(token)
        if remembered and (known := self._remembered.get(token_hash)) is not None:
            if known[0] == game_id:
                return known[1]
        owner = self.uow.read_by_driver(
            lambda c: c.execute(_ACTOR, {"token_hash": token_hash}).first()
        )
        if owner is None:
            raise Unauthenticated("the token opens no game")
        if owner.game_id != game_id:
            raise GameNotFound(game_id)
        actor: str = REFEREE if owner.seat is None else owner.seat
        if remembered:
            if len(self._remembered) >= REMEMBERED_TOKENS:
                self._remembered.clear()  # a bound on memory; they are looked up again
            self._remembered[token_hash] = (game_id, actor)
        return actor

    def stale_token(self, token_hash: str) -> Unauthenticated:
        """A remembered token that the game's read found no longer opening it (re-issued,
        or the game is gone): forgotten; the error to raise."""
        self._remembered.pop(token_hash, None)
        return Unauthenticated("the token no longer opens this game")

    def reissue_token(self, game_id: str, seat: str) -> str:
        """A new bearer token for ``seat`` of the game (its SHA-256 replaces the old
        one's in one UPDATE: the old token opens nothing from the commit on).
        :class:`SeatNotFound` when the game has no such seat."""
        token = secrets.token_urlsafe(32)

        def write(connection: Connection) -> int:
            changed = connection.execute(
                update(_SEATS)
                .where(_SEATS.c.game_id == game_id, _SEATS.c.seat == seat)
                .values(token_hash=hash_token(token))
            ).rowcount
            if changed == 1:
                self._revoked(connection, game_id)
            return changed

        if self.uow.run(write, core=True) != 1:
            raise SeatNotFound(seat)
        return token

    def reissue_referee_token(self, game_id: str) -> str:
        """A new referee token for the game (its SHA-256 replaces the old one's in one
        UPDATE: the old token opens nothing from the commit on, nor do the stream
        tickets it gave). :class:`GameNotFound` when there is no such game."""
        token = secrets.token_urlsafe(32)

        def write(connection: Connection) -> int:
            changed = connection.execute(
                update(_GAMES)
                .where(_GAMES.c.id == game_id)
                .values(referee_token_hash=hash_token(token))
            ).rowcount
            if changed == 1:
                self._revoked(connection, game_id)  # its open streams end too
            return changed

        if self.uow.run(write, core=True) != 1:
            raise GameNotFound(game_id)
        return token

    # ----- seating: names, invitations, rematches (service.store.seating) --------

    def join(self, game_id: str, seat: str, code: str, name: str | None) -> str:
        """Exchange a seat's invitation ``code`` for its new token (and set its display
        ``name``). :class:`~service.store.seating.InvitationInvalid` (also for a game or
        seat that does not exist), ``InvitationUsed``, ``InvitationExpired``."""

        def write(connection: Connection) -> str:
            token = seating.join(connection, game_id, seat, code, name, utcnow())
            self._revoked(connection, game_id)
            return token

        return self.uow.run(write, core=True)

    def reinvite(
        self, game_id: str, seat: str, seconds: float = seating.INVITATION_SECONDS
    ) -> dict[str, Any]:
        """A new invitation for ``seat`` (its earlier code and its token stop working):
        ``{"invitation", "expires_at"}``. :class:`SeatNotFound`."""

        def write(connection: Connection) -> dict[str, Any]:
            if (
                connection.execute(
                    select(_SEATS.c.seat).where(_SEATS.c.game_id == game_id, _SEATS.c.seat == seat)
                ).first()
                is None
            ):
                raise SeatNotFound(seat)
            issued = seating.invite(connection, game_id, seat, utcnow(), seconds)
            self._revoked(connection, game_id)
            return issued

        return self.uow.run(write, core=True)

    def rematch(self, game_id: str) -> Reply:
        """The same game again with a fresh seed: same engine, options, seats and names,
        invitations if this game used them; the two games link each other. The reply
        of :meth:`create`. :class:`~service.store.seating.RematchExists`."""
        record = self.read(game_id)
        if record.rematch is not None:
            raise seating.RematchExists(record.rematch)
        invited = (
            self.uow.read_one(
                lambda c: c.execute(
                    select(func.count())
                    .select_from(_INVITATIONS)
                    .where(_INVITATIONS.c.game_id == game_id)
                ).scalar_one()  # COUNT(*): always one row
            )
            > 0
        )
        return self.create(
            record.game,
            dict(record.options),
            None,
            seating=Seating(names=dict(record.names), invite=invited, rematch_of=game_id),
        )

    def _revoked(self, connection: Connection, game_id: str) -> None:
        """In the transaction that replaced a token: bump the game's ``credentials``
        (the feed's poll sees it) and, on PostgreSQL, notify the feeds at commit
        (payload ``"<game id>:<last_seq>:<credentials>"``), so that every stream the old
        token opened ends within about a second on every worker and host."""
        row = connection.execute(
            update(_GAMES)
            .where(_GAMES.c.id == game_id)
            .values(credentials=_GAMES.c.credentials + 1)
            .returning(_GAMES.c.last_seq, _GAMES.c.credentials)
        ).first()
        if row is not None and connection.dialect.name == "postgresql":
            connection.execute(
                select(func.pg_notify(FEED_CHANNEL, f"{game_id}:{row.last_seq}:{row.credentials}"))
            )

    def token_hash_of(self, game_id: str, actor: str) -> str | None:
        """The SHA-256 of the token that opens ``actor`` (a seat or ``"referee"``) in
        game ``game_id`` now; None when there is no such game or seat. A credential
        derived from a token (a stream ticket) checks it still holds: a re-issued
        seat token revokes what the old one gave."""
        query = (
            select(_GAMES.c.referee_token_hash).where(_GAMES.c.id == game_id)
            if actor == REFEREE
            else select(_SEATS.c.token_hash).where(
                _SEATS.c.game_id == game_id, _SEATS.c.seat == actor
            )
        )
        return self.uow.read_one(lambda c: c.execute(query).scalar())
