"""``java.util.Random`` and ``java.util.Collections.shuffle``, draw for draw.

The generator is the 48-bit linear congruential generator documented in the Java SE API
(``java.util.Random``): ``seed <- (seed * 0x5DEECE66D + 0xB) mod 2^48``, seeded with
``(seed XOR 0x5DEECE66D) mod 2^48``; ``next(bits)`` returns the top ``bits`` of the new seed as
a signed 32-bit int. The derived draws follow the same documentation:

* ``nextInt()`` = ``next(32)``; ``nextInt(bound)``: ``(bound * next(31)) >> 31`` for a power of
  two, else ``next(31) mod bound``, redrawn while the draw falls in the last incomplete block;
* ``nextLong()`` = ``(next(32) << 32) + next(32)`` in 64-bit two's complement;
* ``nextDouble()`` = ``((next(26) << 27) + next(27)) * 2^-53``;
* ``nextFloat()`` = ``next(24) / 2^24``.

``Collections.shuffle(list, rnd)`` swaps ``list[i]`` with ``list[rnd.nextInt(i + 1)]`` for ``i``
from ``size - 1`` down to 1 (Java SE API, ``java.util.Collections``).
"""

from __future__ import annotations

_MULT = 0x5DEECE66D
_ADD = 0xB
_MASK48 = (1 << 48) - 1
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1


def _int32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def _int64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v & (1 << 63) else v


class JavaRandom:
    """``java.util.Random(seed)``; ``seed`` is a Java ``long`` (``-2^63 <= seed < 2^63``)."""

    def __init__(self, seed: int):
        if isinstance(seed, bool) or not isinstance(seed, int) or not LONG_MIN <= seed <= LONG_MAX:
            raise ValueError(f"java.util.Random takes a 64-bit long seed "
                             f"({LONG_MIN}..{LONG_MAX}), got {seed!r}")
        self._seed = (seed ^ _MULT) & _MASK48

    def next(self, bits: int) -> int:
        """The top ``bits`` (1..32) of the next LCG state, as a signed 32-bit int."""
        self._seed = (self._seed * _MULT + _ADD) & _MASK48
        return _int32(self._seed >> (48 - bits))

    def next_int(self, bound: int | None = None) -> int:
        """``nextInt()`` (any 32-bit int) or ``nextInt(bound)`` (``0 <= r < bound``)."""
        if bound is None:
            return self.next(32)
        if bound <= 0 or bound > 0x7FFFFFFF:
            raise ValueError(f"bound must be a positive 32-bit int, got {bound!r}")
        r = self.next(31)
        m = bound - 1
        if bound & m == 0:
            return (bound * r) >> 31
        u = r
        r = u % bound
        while _int32(u - r + m) < 0:
            u = self.next(31)
            r = u % bound
        return r

    def next_long(self) -> int:
        return _int64((self.next(32) << 32) + self.next(32))

    def next_double(self) -> float:
        return ((self.next(26) << 27) + self.next(27)) * 2.0 ** -53

    def next_float(self) -> float:
        return self.next(24) / float(1 << 24)


def java_shuffle(seq: list, rnd: JavaRandom) -> None:
    """Shuffle ``seq`` in place as ``Collections.shuffle(seq, rnd)`` does a random-access list."""
    for i in range(len(seq) - 1, 0, -1):
        j = rnd.next_int(i + 1)
        seq[i], seq[j] = seq[j], seq[i]
