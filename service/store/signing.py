"""Signed exports (issue 18, item 1): HMAC-SHA256 over the canonical document.

The canonical document is every member but ``signature``, as JSON with sorted keys,
compact separators (``,`` and ``:``), non-ASCII characters as they are, encoded in
UTF-8. The key is ``CARD_REFEREE_SECRET`` when the operator set it (every deployment
sharing it accepts the others' exports as its own), else the random key migration
0005 stored in the database's ``service_keys`` (every worker and host on the database
agree, and it survives restarts; a deployment whose hosts do not share one database
must set ``CARD_REFEREE_SECRET``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator
from typing import Any

from service.store.records import GameStore

SIGNATURE = "signature"
EXPORT_KEY = "export-signing"  # its row in service_keys


def canonical_bytes(document: dict[str, Any]) -> bytes:
    """The bytes a signature covers (module docstring)."""
    return b"".join(_canonical_chunks(document))


def _dumps(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )


def _canonical_chunks(document: dict[str, Any]) -> Iterator[bytes]:
    """:func:`canonical_bytes` piece by piece: a long list (the events) one member at a
    time. The same bytes as one ``json.dumps`` of the whole, without one C call of a
    second holding the interpreter (an import is signed-checked in a thread beside the
    worker's event loop)."""
    yield b"{"
    for index, key in enumerate(sorted(k for k in document if k != SIGNATURE)):
        yield (b"," if index else b"") + _dumps(key) + b":"
        value = document[key]
        if isinstance(value, list):
            yield b"["
            for position, item in enumerate(value):
                yield (b"," if position else b"") + _dumps(item)
            yield b"]"
        else:
            yield _dumps(value)
    yield b"}"


def sign(document: dict[str, Any], key: bytes) -> str:
    """The document's signature: HMAC-SHA256, 64 lowercase hex digits."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for chunk in _canonical_chunks(document):
        mac.update(chunk)
    return mac.hexdigest()


def verify(document: Any, key: bytes) -> bool:
    """True when ``document`` (as the request sent it) carries the signature ``key``
    makes of it (compared in constant time)."""
    if not isinstance(document, dict) or not isinstance(document.get(SIGNATURE), str):
        return False
    return hmac.compare_digest(sign(document, key), document[SIGNATURE])


def signing_key(store: GameStore, secret: str | None) -> bytes:
    """``secret`` (``CARD_REFEREE_SECRET``) when set, else the database's key."""
    if secret:
        return secret.encode("utf-8")
    return bytes.fromhex(store.service_key(EXPORT_KEY))
