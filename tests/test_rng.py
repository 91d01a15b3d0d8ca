"""The documented shuffle: fixed output for a fixed seed (replays forever)."""

import hashlib
import re
from collections import Counter

from service.games.rng import Stream, commitment, new_seed, shuffle

SEED = "00" * 32


def test_shuffle_is_fixed_for_a_seed_and_label():
    assert shuffle(["a", "b", "c", "d"], SEED, "deal") == ["b", "d", "a", "c"]
    assert shuffle(list(range(10)), SEED, "deal") == shuffle(list(range(10)), SEED, "deal")
    assert shuffle(list(range(10)), SEED, "deal") != shuffle(list(range(10)), SEED, "other")


def test_stream_follows_the_documented_construction():
    block = hashlib.sha256(SEED.encode() + b"\0draw\0" + (0).to_bytes(8, "big")).digest()
    first = int.from_bytes(block[:8], "big")
    assert Stream(SEED, "draw").randbelow(1 << 32) == first % (1 << 32)


def test_shuffle_is_roughly_uniform():
    firsts = Counter(shuffle("abc", f"{i:064x}", "deal")[0] for i in range(3000))
    assert all(900 < firsts[x] < 1100 for x in "abc")


def test_seed_is_256_bits_and_commitment_is_sha256():
    seed = new_seed()
    assert re.fullmatch(r"[0-9a-f]{64}", seed)  # 256 bits as lowercase hex
    assert new_seed() != seed
    assert commitment(seed) == hashlib.sha256(seed.encode()).hexdigest()
