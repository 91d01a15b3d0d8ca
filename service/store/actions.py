"""The action path of :class:`~service.store.records.GameStore` (a base of it): an
action in ONE transaction (:meth:`Actions.act`), its idempotency record, and the events
a passed idle deadline triggers (G-T1, :meth:`Actions.catch_up`); see
:mod:`service.store.records` for the whole story.

An action locks the game row (:func:`~service.store.uow.lock_game`, which reads the
idempotency record of the request's key in the same statement), judges it on the
snapshot (``apply``, then ``fold``), and writes the events, the advanced game row and
the key's record (:meth:`service.store.statements._Statements.writes`). An accepted
action is rendered after the commit; a replayed one is rebuilt from the log."""

from __future__ import annotations

from collections.abc import Callable
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from service import jsontext
from service.games import RuleViolation, engine
from service.messages import Message
from service.store import idle
from service.store.driver import Executor
from service.store.models import DONE, utcnow
from service.store.statements import _KEY_RECORD, _Statements
from service.store.uow import LockedGame, UnitOfWork, lock_game, synced
from service.store.values import (
    UNRECORDED,
    AnyRow,
    Applied,
    GameMoved,
    GameNotFound,
    GameRecord,
    IdempotencyRequest,
    KeyInFlight,
    KeyReused,
    Outcome,
    Refused,
    Reply,
    StoredEvent,
    Unauthenticated,
    _Accepted,
    _canonical,
    _canonical_event,
    _event_params,
    _fold_all,
    token_check,
)


# after an optimistic write of a game lost, its actions take the lock from the start for
# this many seconds (a race of seats on one game; a turn-based game rarely loses one)
CONTENTION_SECONDS = 10.0
CONTENDED_GAMES = 10_000  # at most this many remembered per process


@dataclass(frozen=True)
class _Request:
    """One action as :meth:`Actions.act` was asked for it."""

    game_id: str
    actor: str
    action: dict[str, Any]
    expected_version: int | None
    render: Callable[[Outcome], Reply]
    idempotency: IdempotencyRequest | None
    now: float


@dataclass(frozen=True)
class _Plan:
    """What an action writes, worked out on the game as read at ``base_version``:
    its outcome (and new snapshot), a refusal's reply, the key to record (None: the
    request's precondition failed, its key stays free) and the record it takes over,
    the idle time-outs recorded before it (G-T1)."""

    outcome: Outcome
    snapshot: str | None
    reply: Reply | None
    idempotency: IdempotencyRequest | None
    claimed: int | None
    timed_out: tuple[Applied, str] | None
    base_version: int


class Actions:
    """The action and G-T1 methods of :class:`~service.store.records.GameStore`."""

    # GameStore's (see its __init__)
    uow: UnitOfWork
    in_flight: timedelta
    idempotency_ttl: timedelta
    clock: Callable[[], float]
    _sql: _Statements

    # games whose optimistic writes lost lately (game id -> time.monotonic()) act with the
    # game locked from the start for this long (Actions.act)
    _contended: dict[str, float]

    def _contended_lately(self, game_id: str) -> bool:
        """An optimistic write of ``game_id`` lost within :data:`CONTENTION_SECONDS`."""
        since = self._contended.get(game_id)
        if since is None:
            return False
        if time.monotonic() - since < CONTENTION_SECONDS:
            return True
        self._contended.pop(game_id, None)
        return False

    def _note_contended(self, game_id: str) -> None:
        if len(self._contended) >= CONTENDED_GAMES:
            self._contended.clear()  # a bound on memory
        self._contended[game_id] = time.monotonic()

    if TYPE_CHECKING:  # GameStore's reads, and its tokens' memory (Credentials)

        def read(self, game_id: str) -> GameRecord: ...

        def stale_token(self, token_hash: str) -> Unauthenticated: ...

        def events(
            self, game_id: str, after: int = 0, limit: int | None = None
        ) -> tuple[GameRecord, list[StoredEvent]]: ...

    # ----- idle seats (G-T1) -------------------------------------------------------

    def catch_up(self, record: GameRecord) -> GameRecord:
        """G-T1 at this moment (``self.clock()``): ``record`` itself unless the game's
        idle deadline has passed and the engine's ``idle_events`` returns events
        (:mod:`service.store.idle`; checked in process, no statement); then, in one
        transaction under the game's row lock, the same question asked again of the
        locked row (another request may have recorded them, or acted, meanwhile), the
        events appended as an action's are (version + 1, ``updated_at`` = the moment
        used, the feed notified), and the game as it is after them."""
        now = self.now()
        if not idle.due(record.engine, record.state, record.updated, now):
            return record
        caught = self.uow.run_pipelined(lambda c: self._catch_up(c, record.id, now))
        return caught if caught is not None else self.read(record.id)

    def _catch_up(self, connection: Connection, game_id: str, now: float) -> GameRecord | None:
        row = lock_game(connection, game_id)
        if row is None:
            raise GameNotFound(game_id)
        timed_out = self._idle(game_id, row, now)
        if timed_out is None:
            return None
        applied, snapshot = timed_out
        self._sql.writes(
            connection,
            [_event_params(game_id, e.seq, e.event, idle.moment(now)) for e in applied.events],
            _advance_params(applied.game, snapshot, idle.moment(now), row.version),
            None,
            {},
        )
        return applied.game

    def now(self) -> float:
        """The moment of a request in epoch seconds, to the millisecond (``clock``;
        :data:`service.store.idle.CLOCK_STEP`)."""
        return round(self.clock(), idle.CLOCK_DIGITS)

    @staticmethod
    def _idle(game_id: str, row: LockedGame, now: float) -> tuple[Applied, str] | None:
        """The G-T1 events due on the locked ``row`` at ``now``, folded (the outcome and
        its snapshot text, as :meth:`_decide` gives them), or None."""
        since = idle.epoch(row.updated_at)
        if not idle.passed(row.options, row.status, since, now):
            return None
        module = engine(row.game)
        state = jsontext.loads(row.snapshot)  # idle_events is pure: folded from it too
        events = idle.due(module, state, since, now)
        return _applied(game_id, row, module, events, now, state) if events else None

    # ----- actions --------------------------------------------------------------

    def act(
        self,
        game_id: str,
        actor: str,
        action: dict[str, Any],
        expected_version: int | None,
        render: Callable[[Outcome], Reply],
        idempotency: IdempotencyRequest | None = None,
        token: str | None = None,
    ) -> tuple[Reply, bool]:
        """Apply one action of ``actor`` if the game is still at ``expected_version``.

        ``token``: the bearer token ``actor`` was taken from, checked again by the
        game's read (the token check folded into it): one that no longer opens the
        game as ``actor`` (re-issued, or the game is gone) raises
        :class:`Unauthenticated` and is forgotten (see ``authenticate(...,
        remembered=True)``).

        Read the game row without its lock, outside any transaction
        (:meth:`_act_unlocked`), the write guarded by the version read; if the game
        moved on, all of it again in ONE transaction with the game locked. With an
        idempotency key, look it up
        (same key and body done before and not expired: replay it, ``replayed``;
        another body: :class:`KeyReused`); check the version (stale ->
        ``Refused(412, "version-mismatch", version=current)``; None -> ``Refused(428)``
        unless the game is real-time, where the version is optional), ``apply`` on the snapshot
        (RuleViolation -> ``Refused(status, code)``, nothing written), fold the events,
        append them with consecutive ``seq`` after the row's ``last_seq``, store the
        snapshot, bump the version by 1 (if it is still the one read), record the key
        (a refusal: its reply as ``render`` gives it, rendered in the transaction; an
        accepted action: the new
        version and its events' seqs), commit. An accepted action is rendered after
        the commit; a replayed one is rebuilt from the log (the state folded up to its
        last event, the events it appended) and rendered again: the same reply.
        Returns ``(reply, replayed)``.

        The key's record is unique per (game, actor, key): of two requests with one
        key acting at once, the second one's INSERT of the record violates it, is
        rolled back and retried with the row locked, and then finds the first one's
        record and replays it. Nothing is committed before the action's own
        commit, so a request that fails (5xx, 503 after the retries) leaves no trace
        and its key stays free. Raises :class:`GameNotFound`, :class:`KeyReused`,
        :class:`KeyInFlight` (only for a claim left by an earlier release, see
        :meth:`_check_key`), :class:`Unavailable`.
        """
        now = self.now()
        checked = None if token is None else token_check(token, actor)
        request = _Request(game_id, actor, action, expected_version, render, idempotency, now)
        # a game whose optimistic writes lost lately (a race: several seats acting at
        # once) is locked from the start: a lost write costs the engine's work twice
        optimistic = not self._contended_lately(game_id)

        def locked_attempt(connection: Connection) -> tuple[Any, bool]:
            # PostgreSQL: run by psycopg in the pipeline; SQLite: by SQLAlchemy
            return self._act(self.uow.by_driver(connection), request, True, checked)

        try:
            done = None
            if optimistic:
                done = self._act_unlocked(request, checked)
                if done is None:  # the unlocked attempt lost
                    self._note_contended(game_id)
            result, replayed = done or self.uow.run_pipelined(locked_attempt)
        except (Unauthenticated, GameNotFound):
            if checked is None:
                raise
            raise self.stale_token(checked[0]) from None
        if isinstance(result, _Accepted):
            result = self._rebuild(game_id, result)
        if isinstance(result, Applied):
            result = render(result)
        return result, replayed

    def _act_unlocked(
        self, request: _Request, token: tuple[str, str | None] | None
    ) -> tuple[Reply | Applied | _Accepted, bool] | None:
        """The action worked out on the game read outside any transaction (no lock
        held while the engine works), then written guarded by the version read, by
        the driver itself (:meth:`UnitOfWork.driver`): SQLite's writes in a short
        writer transaction (``BEGIN IMMEDIATE`` under the writer lock); PostgreSQL's
        as ONE statement, atomic by itself (autocommit: two round trips, no row
        locked; the rare take-over of an abandoned key's claim is a statement more,
        left to the locked path's transaction). None when the write did not land (the
        game moved on, a key conflict, any error of the driver): then :meth:`act`
        does it all again with the game locked, and its retries judge any error."""
        try:
            with self.uow.driver() as connection:
                plan = self._plan(connection, request, False, token)
                if not isinstance(plan, _Plan):
                    return plan  # a replay: nothing to write
                if connection.autocommit:  # PostgreSQL
                    if plan.idempotency is not None and plan.claimed is not None:
                        return None  # a take-over: two statements, a transaction
                    return self._carry_out(connection, request, plan)
                with connection.transaction(self.uow.lock):  # BEGIN IMMEDIATE, the lock
                    return self._carry_out(connection, request, plan)
        except (GameMoved, DBAPIError):
            return None

    def _act(
        self,
        connection: Executor,
        request: _Request,
        lock: bool = True,
        token: tuple[str, str | None] | None = None,
    ) -> tuple[Reply | Applied | _Accepted, bool]:
        """:meth:`act` in one transaction on ``connection`` (see :meth:`_plan`)."""
        plan = self._plan(connection, request, lock, token)
        if not isinstance(plan, _Plan):
            return plan
        return self._carry_out(connection, request, plan)

    def _plan(
        self,
        connection: Executor,
        request: _Request,
        lock: bool,
        token: tuple[str, str | None] | None,
    ) -> tuple[Reply | _Accepted, bool] | _Plan:
        """Read the game (and the key's record, and whether ``token`` still opens
        it) and work the action out: a replay's reply, or what to write."""
        game_id, actor, action = request.game_id, request.actor, request.action
        idempotency, render = request.idempotency, request.render
        key = None if idempotency is None else (idempotency.actor, idempotency.key)
        # the game and the key's record, if any; the row locked unless this is an
        # optimistic first attempt (_act_unlocked: the write is guarded);
        # whether ``token`` still opens it
        locked = lock_game(connection, game_id, key, lock, token)
        if locked is None:
            raise GameNotFound(game_id)
        if not locked.token_ok:
            raise Unauthenticated("the token no longer opens this game")
        if idempotency is not None and self._check_key(locked, idempotency):
            if locked.key_response_body is not None:  # a refusal (or an earlier release's)
                return (locked.key_status_code, locked.key_response_body), True
            return _Accepted(locked.key_version, locked.key_first_seq, locked.key_last_seq), True
        # G-T1: what the idle deadline triggers is recorded first (the same transaction),
        # and the action is judged on the game after it
        timed_out = self._idle(game_id, locked, request.now)
        row: LockedGame = locked if timed_out is None else _moved(locked, *timed_out)
        outcome, snapshot = self._decide(game_id, row, actor, action, request.expected_version)
        if isinstance(outcome, Refused) and outcome.status in UNRECORDED:
            if idempotency is not None and row.key_id is None:
                # a record committed while this statement waited for the row lock is
                # not in ``row`` (see lock_game); unrecorded, no unique conflict
                # would show it: look again
                fresh = connection.execute(
                    _KEY_RECORD,
                    {"game_id": game_id, "actor": idempotency.actor, "key": idempotency.key},
                    execution_options=synced(connection),
                ).first()
                if fresh is not None and self._check_key(fresh, idempotency):
                    if fresh.key_response_body is not None:
                        return (fresh.key_status_code, fresh.key_response_body), True
                    return _Accepted(
                        fresh.key_version, fresh.key_first_seq, fresh.key_last_seq
                    ), True
            idempotency = None  # the request's precondition failed: its key stays free
        reply = render(outcome) if isinstance(outcome, Refused) else None
        return _Plan(outcome, snapshot, reply, idempotency, row.key_id, timed_out, locked.version)

    def _carry_out(
        self, connection: Executor, request: _Request, plan: _Plan
    ) -> tuple[Reply | Applied, bool]:
        """Write what :meth:`_plan` worked out; the action's result."""
        self._write(
            connection,
            request.game_id,
            plan.outcome,
            plan.snapshot,
            plan.reply,
            plan.idempotency,
            plan.claimed,
            plan.timed_out,
            (request.actor, _canonical(request.action)),
            base_version=plan.base_version,
        )
        if isinstance(plan.outcome, Applied):
            return plan.outcome, False
        assert plan.reply is not None  # rendered by _plan: the outcome is a refusal
        return plan.reply, False

    @staticmethod
    def _decide(
        game_id: str,
        row: LockedGame,
        actor: str,
        action: dict[str, Any],
        expected_version: int | None,
    ) -> tuple[Outcome, str | None]:
        """The outcome, and for an accepted action the new snapshot's JSON text;
        nothing is written yet."""
        module = engine(row.game)
        if expected_version is None and not getattr(module, "REALTIME", False):
            return Refused(
                428,
                "version-required",
                Message("Name the version the action is based on: If-Match or expected_version."),
                game=row.game,
            ), None
        if expected_version is not None and row.version != expected_version:
            return Refused(
                412,
                "version-mismatch",
                Message(
                    "the game is at version %(version)s, not %(expected)s",
                    version=row.version,
                    expected=expected_version,
                ),
                {"version": row.version},
                game=row.game,
            ), None
        # apply is pure (never mutates its input: every engine's tests check it), so the
        # fold starts from the same decoded snapshot (decoding a 2-Way Cards snapshot
        # costs about 35 us); the action is orjson's copy (JSON read from a body or the
        # log), since the events may hold parts of it
        state = jsontext.loads(row.snapshot)
        try:
            new_events = module.apply(state, actor, jsontext.plain_copy(action))
        except RuleViolation as violation:
            extra = {**violation.extra, **({"rule": violation.rule} if violation.rule else {})}
            return Refused(
                violation.status, violation.code, violation.detail, extra, game=row.game
            ), None
        moment = utcnow() if idle.restarts_clock(module, new_events) else row.updated_at
        return _applied(game_id, row, module, new_events, idle.epoch(moment), state)

    def _write(
        self,
        connection: Executor,
        game_id: str,
        outcome: Outcome,
        snapshot: str | None,
        reply: Reply | None,
        idempotency: IdempotencyRequest | None,
        claimed: int | None,
        timed_out: tuple[Applied, str] | None = None,
        acted: tuple[str, dict[str, Any]] | None = None,
        *,
        base_version: int,
    ) -> None:
        """Append the events and advance the game (an accepted action, its first event
        recording ``acted``, the actor and the action; before them the events of
        ``timed_out``, G-T1, which advance the game even when the action is refused),
        and record the key: a refusal's ``reply``, or the accepted action's version and
        event seqs (taking over the expired or abandoned record ``claimed``)."""
        now = utcnow()
        events: list[dict[str, Any]] = []
        game: dict[str, Any] | None = None
        record: dict[str, Any] = {
            "status_code": reply[0] if reply else 200,
            "response_body": reply[1] if reply else None,
            "version": None,
            "first_seq": None,
            "last_seq": None,
        }
        if timed_out is not None:
            at = idle.moment(timed_out[0].game.updated)
            events = [_event_params(game_id, e.seq, e.event, at) for e in timed_out[0].events]
            game = _advance_params(timed_out[0].game, timed_out[1], at, base_version)
        if isinstance(outcome, Applied):
            new = outcome.game
            own = [
                _event_params(game_id, e.seq, e.event, now, *(acted if i == 0 and acted else ()))
                for i, e in enumerate(outcome.events)
            ]
            events += own
            assert snapshot is not None  # _decide gives it with every accepted action
            # the game's moment is the action's unless it left the idle clock running
            # (_decide: idle.restarts_clock), as new.updated says
            game = _advance_params(new, snapshot, idle.moment(new.updated), base_version)
            record.update(
                version=new.version, first_seq=new.last_seq - len(own) + 1, last_seq=new.last_seq
            )
        key: str | None = None
        key_params: dict[str, Any] = {}
        if idempotency is not None and claimed is not None:
            key = "take-over"
            key_params = {
                "key_id": claimed,
                "new_request_hash": idempotency.request_hash,
                "new_status_code": record["status_code"],
                "new_body": record["response_body"],
                "new_version": record["version"],
                "new_first_seq": record["first_seq"],
                "new_last_seq": record["last_seq"],
                "now": now,
            }
        elif idempotency is not None:
            key = "insert"
            key_params = {
                "game_id": game_id,
                "actor": idempotency.actor,
                "key": idempotency.key,
                "request_hash": idempotency.request_hash,
                "state": DONE,
                "created_at": now,
                **record,
            }
        self._sql.writes(connection, events, game, key, key_params)

    def _rebuild(self, game_id: str, accepted: _Accepted) -> Applied:
        """The :class:`Applied` outcome of an accepted action, rebuilt from the log:
        the state folded from every event up to its ``last_seq`` (what the action
        left), its own events, its version."""
        record, upto = self.events(game_id, 0, accepted.last_seq)  # seqs run 1, 2, 3...
        state = _canonical(_fold_all(record.engine, None, [e.event for e in upto]))
        return Applied(
            replace(
                record,
                version=accepted.version,
                status=state["status"],
                state=state,
                last_seq=accepted.last_seq,
            ),
            [e for e in upto if e.seq >= accepted.first_seq],
        )

    # ----- idempotency ----------------------------------------------------------
    #
    # Ruling (one transaction per action): the key is looked up (in the statement that
    # locks the game row, see lock_game) and recorded in the action's own transaction.
    # A record is therefore only ever committed "done". The state "in-flight" comes
    # from the first release, which claimed a key in a transaction of its own before
    # acting: while such a claim is younger than ``in_flight_seconds`` its request may
    # still be running on an old worker (being stopped for the upgrade), so the key
    # answers 409; an older one is abandoned (its worker died) and the action takes it
    # over. A record older than ``idempotency_ttl`` has expired: the key is free again
    # and its record is taken over by the new request.

    def _check_key(self, row: AnyRow, request: IdempotencyRequest) -> bool:
        """True when the key's record holds this request's reply (replay it).
        :class:`KeyReused` when the record is of another request, :class:`KeyInFlight`
        when it is a live claim of an earlier release; False when there is no record,
        or it expired or was abandoned (act, and take it over)."""
        if row.key_id is None:
            return False
        created = _aware(row.key_created_at)
        if created + self.idempotency_ttl <= utcnow():
            return False
        if row.key_request_hash != request.request_hash:
            raise KeyReused(request.key)
        if row.key_state == DONE:
            return True
        if created + self.in_flight > utcnow():
            raise KeyInFlight(request.key)
        return False


def _applied(
    game_id: str,
    row: LockedGame,
    module: ModuleType,
    new_events: list[dict[str, Any]],
    updated: float,
    before: dict[str, Any],
) -> tuple[Applied, str]:
    """``new_events`` appended to the game of ``row`` (a locked row): the outcome (the
    game after them at version + 1, the events with their seqs) and the new snapshot's
    JSON text. The events as the log will give them back, folded as a replay folds
    them, from ``before`` (the row's snapshot, decoded once by the caller)."""
    stored = [
        StoredEvent(row.last_seq + i, _canonical_event(e)) for i, e in enumerate(new_events, 1)
    ]
    # the state exactly as a replay rebuilds it: as its snapshot text reads back
    snapshot, state = jsontext.canonical_read_back(
        _fold_all(module, before, [e.event for e in stored])
    )
    record = GameRecord(
        id=game_id,
        game=row.game,
        options=row.options,
        status=state["status"],
        version=row.version + 1,
        state=state,
        seed=row.seed,
        last_seq=stored[-1].seq if stored else row.last_seq,
        updated=updated,
    )
    return Applied(record, stored), snapshot


def _moved(row: AnyRow, applied: Applied, snapshot: str) -> LockedGame:
    """The locked ``row`` as it reads after ``applied`` (its snapshot text, version,
    status, last seq and update time; the idempotency columns as they were)."""
    new = applied.game
    return SimpleNamespace(
        **{
            **row._asdict(),
            "snapshot": snapshot,
            "status": new.status,
            "version": new.version,
            "last_seq": new.last_seq,
            "updated_at": idle.moment(new.updated),
        }
    )


def _advance_params(
    new: GameRecord, snapshot: str, at: datetime, base_version: int
) -> dict[str, Any]:
    """The parameters of the statement that advances the game row to ``new`` from
    ``base_version``, the version read (the statement's guard)."""
    return {
        "target_game": new.id,
        "base_version": base_version,
        "snapshot_text": snapshot,
        "new_status": new.status,
        "new_version": new.version,
        "new_last_seq": new.last_seq,
        "now": at,
    }


def _aware(moment: datetime) -> datetime:
    """SQLite returns naive datetimes for timezone-aware columns: read them as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
