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
from typing import Any

from service.store.records import GameStore

SIGNATURE = "signature"
EXPORT_KEY = "export-signing"  # its row in service_keys


def canonical_bytes(document: dict[str, Any]) -> bytes:
    """The bytes a signature covers (module docstring)."""
    body = {key: value for key, value in document.items() if key != SIGNATURE}
    return json.dumps(body, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8", "surrogatepass")


def sign(document: dict[str, Any], key: bytes) -> str:
    """The document's signature: HMAC-SHA256, 64 lowercase hex digits."""
    return hmac.new(key, canonical_bytes(document), hashlib.sha256).hexdigest()


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
