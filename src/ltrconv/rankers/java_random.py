"""``java.util.Random``: the 48-bit linear congruential generator of the Java platform.

The algorithm is the one the Java SE API documentation of ``java.util.Random`` specifies:
the seed is scrambled as ``(seed ^ 0x5DEECE66D) mod 2^48``; each ``next(bits)`` sets
``seed = (seed * 0x5DEECE66D + 0xB) mod 2^48`` and returns the top ``bits`` of the 48 as a
signed 32-bit int. ``nextInt(bound)``, ``nextLong``, ``nextFloat`` and ``nextDouble`` build on
``next`` as documented there, and ``Collections.shuffle`` of a random-access list swaps
element ``i`` with element ``nextInt(i + 1)`` for ``i`` from ``size - 1`` down to 1. RankLib 2.x
draws its RankNet weights and its Coordinate Ascent feature orders from such generators, so
the same seed gives the same draws here.
"""

from __future__ import annotations

import numpy as np

from ..jit import njit

MULTIPLIER = 0x5DEECE66D
ADDEND = 0xB
MASK = (1 << 48) - 1
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
"""The range of a Java ``long``, the type of a ``java.util.Random`` seed."""


def _int32(v: int) -> int:
    """``v`` as Java's ``(int)`` cast sees it: the low 32 bits, two's complement."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


class JavaRandom:
    """A ``java.util.Random(seed)``: the same sequence of draws for the same ``seed``."""

    def __init__(self, seed: int):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
                or not LONG_MIN <= int(seed) <= LONG_MAX:
            raise ValueError(f"java.util.Random takes a 64-bit long seed "
                             f"({LONG_MIN}..{LONG_MAX}), got {seed!r}")
        self.seed = (int(seed) ^ MULTIPLIER) & MASK

    def next(self, bits: int) -> int:
        """``next(bits)``: the top ``bits`` bits of the new 48-bit state, as a signed int."""
        self.seed = (self.seed * MULTIPLIER + ADDEND) & MASK
        return _int32(self.seed >> (48 - bits))

    def next_int(self, bound: int | None = None) -> int:
        """``nextInt()`` (any int) or ``nextInt(bound)``: uniform on ``0..bound-1``, rejecting the
        draws of ``next(31)`` that would bias the remainder."""
        if bound is None:
            return self.next(32)
        bound = int(bound)
        if bound <= 0:
            raise ValueError(f"bound must be positive, got {bound}")
        if bound & -bound == bound:  # a power of two: the top bits
            return (bound * self.next(31)) >> 31
        while True:
            bits = self.next(31)
            val = bits % bound
            if _int32(bits - val + (bound - 1)) >= 0:
                return val

    def next_long(self) -> int:
        """``nextLong()``: ``(next(32) << 32) + next(32)`` as a signed 64-bit value."""
        v = (self.next(32) << 32) + self.next(32)
        v &= (1 << 64) - 1
        return v - (1 << 64) if v >= 1 << 63 else v

    def next_float(self) -> float:
        """``nextFloat()``: ``next(24) / 2^24``, a float32 value in [0, 1)."""
        return float(np.float32(self.next(24)) / np.float32(1 << 24))

    def next_double(self) -> float:
        """``nextDouble()``: ``((next(26) << 27) + next(27)) * 2^-53``."""
        return ((self.next(26) << 27) + self.next(27)) * 2.0 ** -53

    def next_boolean(self) -> bool:
        """``nextBoolean()``: ``next(1) != 0``."""
        return self.next(1) != 0


def java_shuffle(seq: list, rnd: JavaRandom) -> None:
    """``Collections.shuffle(seq, rnd)`` of a random-access list, in place: for ``i`` from
    ``len(seq) - 1`` down to 1, swap ``seq[i]`` and ``seq[rnd.next_int(i + 1)]``."""
    for i in range(len(seq) - 1, 0, -1):
        j = rnd.next_int(i + 1)
        seq[i], seq[j] = seq[j], seq[i]


@njit(cache=True)
def _synapse_weights(state, n):
    out = np.empty(n)
    mult = np.int64(MULTIPLIER)
    mask = np.int64(MASK)
    ten = np.float32(10.0)
    scale = np.float32(1 << 24)
    for i in range(n):
        # nextInt(2): the top bit of next(31), i.e. bit 47 of the state
        state = (state * mult + np.int64(ADDEND)) & mask
        negative = (state >> np.int64(47)) & np.int64(1)
        # nextFloat(): next(24) / 2^24
        state = (state * mult + np.int64(ADDEND)) & mask
        f = np.float32(np.float32(state >> np.int64(24)) / scale)
        w = f / ten
        out[i] = -np.float64(w) if negative else np.float64(w)
    return out, state


def synapse_weights(rnd: JavaRandom, n: int) -> np.ndarray:
    """``n`` initial weights as RankLib 2.x's ``Synapse`` draws each one:
    ``(nextInt(2) == 0 ? 1 : -1) * nextFloat() / 10``, computed in float32 (so in
    ``(-0.1, 0.1)``); ``rnd`` advances by ``2 n`` draws."""
    # the state times the multiplier overflows int64, but its low 48 bits (all that is kept)
    # are exact under two's-complement wrapping
    out, state = _synapse_weights(np.int64(rnd.seed), int(n))
    rnd.seed = int(state)
    return out
