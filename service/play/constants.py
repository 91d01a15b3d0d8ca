"""The game-playing client's settings."""

from __future__ import annotations

TWO_WAY = "two-way"
FRENZY = "solitaire-frenzy"
GAMES = ("two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy")
GRID_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # TW-D1: row, column, diagonals
MAX_ACTIONS_PER_GAME = 20_000  # a guard: a game that has not ended by then is an error
RETRIES = 4  # transport failures and 503s, retried with the same Idempotency-Key
THROTTLED = 120  # 429s in a row waited out (each for its Retry-After) before giving up
REFEREE_ONLY = {"penalty", "retire"}  # disciplinary referee actions: never chosen
# race mode: action types a seat takes only when it has nothing else to do, as a player
# would (Solitaire Frenzy: turning the hand, SF-H1)
FALLBACK_ONLY = {"turn"}
STREAM_TIMEOUT = 10.0  # seconds an acknowledged action's events may take to be streamed
RECONNECT_SECONDS = 0.2  # a stream whose connection failed is opened again after this
