"""java.util.Random and Collections.shuffle, draw for draw. The expected values were printed by
OpenJDK 17's java.util.Random with the same seeds (the sequence is fixed by its Javadoc)."""

import pytest

from ltrconv.rankers.java_random import JavaRandom, java_shuffle

# Random(seed): nextInt(), nextInt(46), nextInt(1 << 20), nextInt(1000000007), nextLong(),
# nextDouble(), then Collections.shuffle of [0..45] with the same generator.
JAVA = {
    0: (-1155484576, 32, 252220, 302116440, -6688467811848818630, 0.5504370051176339,
        [33, 18, 25, 34, 7, 0, 6, 39, 27, 41, 28, 19, 3, 14, 23, 15, 1, 24, 22, 2, 45, 21, 12, 5,
         35, 17, 9, 36, 43, 40, 44, 11, 37, 30, 8, 20, 26, 29, 31, 4, 10, 16, 42, 13, 32, 38]),
    7: (-1156638823, 20, 785561, 20678044, 6425179856112732765, 0.8972771427421047,
        [6, 1, 33, 38, 2, 39, 40, 44, 7, 18, 13, 26, 35, 28, 5, 10, 11, 41, 29, 12, 15, 19, 36, 9,
         31, 21, 3, 43, 42, 37, 20, 23, 0, 16, 32, 27, 34, 14, 24, 22, 4, 25, 17, 8, 45, 30]),
}


@pytest.mark.parametrize("seed", sorted(JAVA))
def test_draws_and_shuffle_match_java(seed):
    *draws, perm = JAVA[seed]
    r = JavaRandom(seed)
    got = [r.next_int(), r.next_int(46), r.next_int(1 << 20), r.next_int(1000000007),
           r.next_long(), r.next_double()]
    assert got == draws
    r.next_float()
    items = list(range(46))
    java_shuffle(items, r)
    assert items == perm


def test_float_and_range():
    r = JavaRandom(-1)
    vals = [r.next_float() for _ in range(1000)]
    assert all(0.0 <= v < 1.0 and v * 2 ** 24 == int(v * 2 ** 24) for v in vals)
    assert all(0 <= r.next_int(7) < 7 for _ in range(1000))


@pytest.mark.parametrize("seed", [2 ** 63, -(2 ** 63) - 1, 1.5, True])
def test_seed_must_be_a_java_long(seed):
    with pytest.raises(ValueError, match="64-bit long"):
        JavaRandom(seed)
