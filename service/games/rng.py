"""Deterministic randomness from a stored seed, so a game replays identically forever.

The algorithm is ours and fixed (it never changes with the Python version, unlike
``random.shuffle``):

* a *stream* for a label is the concatenation of ``SHA-256(seed || 0x00 || label ||
  0x00 || counter)`` for counter = 0, 1, 2, ... (counter as 8 big-endian bytes), read
  as successive unsigned 64-bit big-endian integers;
* ``randbelow(n)`` takes the next integer ``x`` of the stream and rejects it while
  ``x >= 2**64 - (2**64 % n)`` (no modulo bias), answering ``x % n``;
* ``shuffle`` is Fisher-Yates: for i = n-1 down to 1, swap item i with item
  ``randbelow(i + 1)``, all from the one stream of its label.

Seeds are 64 hex digits (256 bits) drawn with :mod:`secrets` by :func:`new_seed`.

>>> shuffle(["a", "b", "c", "d"], "00" * 32, "deal")
['b', 'd', 'a', 'c']
>>> commitment("00" * 32)[:16]
'60e05bd1b195af2f'
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
_SPAN = 1 << 64


def new_seed() -> str:
    """A fresh 256-bit seed as 64 lowercase hex digits (CSPRNG)."""
    return secrets.token_hex(32)


def commitment(seed: str) -> str:
    """SHA-256 hex digest of the seed's UTF-8 text: published before the seed is."""
    return hashlib.sha256(seed.encode()).hexdigest()


def _integers(seed: str, label: str) -> Iterator[int]:
    prefix = seed.encode() + b"\0" + label.encode() + b"\0"
    counter = 0
    while True:
        block = hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i : i + 8], "big")
        counter += 1


class Stream:
    """Successive uniform choices from one (seed, label) stream."""

    def __init__(self, seed: str, label: str):
        self._ints = _integers(seed, label)

    def randbelow(self, n: int) -> int:
        """Uniform integer in ``[0, n)``; ``n >= 1``."""
        if n < 1:
            raise ValueError("n must be >= 1")
        limit = _SPAN - (_SPAN % n)
        while True:
            x = next(self._ints)
            if x < limit:
                return x % n


def randbelow(seed: str, label: str, n: int) -> int:
    """The first uniform choice in ``[0, n)`` of the (seed, label) stream."""
    return Stream(seed, label).randbelow(n)


def shuffle(items: Sequence[T], seed: str, label: str) -> list[T]:
    """A new list: ``items`` in Fisher-Yates order drawn from the (seed, label) stream."""
    out = list(items)
    stream = Stream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.randbelow(i + 1)
        out[i], out[j] = out[j], out[i]
    return out
