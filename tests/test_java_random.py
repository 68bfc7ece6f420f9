"""java.util.Random and fdlibm's exp and log against values printed by Java itself.

The literals below were printed by a small Java program (OpenJDK 17.0.15) that creates
``new java.util.Random(seed)`` and prints, in this order, 3 x ``nextInt()``, 5 x
``nextInt(10)``, 5 x ``nextInt(2)``, 3 x ``nextInt(1500000000)``, 3 x
``Float.floatToIntBits(nextFloat())``, 3 x ``Double.doubleToLongBits(nextDouble())``,
2 x ``nextLong()``, 4 x ``nextBoolean()``, then ``Collections.shuffle`` of the list 0..9 with
the same generator; RankLib's synapse weights ``(nextInt(2) == 0 ? 1 : -1) * nextFloat() / 10``
from ``new Random(42)``; and ``StrictMath.exp`` of chosen arguments (as
``Double.doubleToLongBits``), among them arguments drawn uniformly where it differs from glibc;
and ``StrictMath.log`` of chosen arguments.
"""

import math

import numpy as np
import pytest

from ltrconv.rankers.fdlibm import fdlibm_exp, fdlibm_exp_array, fdlibm_log
from ltrconv.rankers.java_random import JavaRandom, java_shuffle, synapse_weights

JAVA = {
    0: dict(next32=[-1155484576, -723955400, 1033096058], int10=[7, 5, 3, 1, 1],
            int2=[1, 1, 0, 0, 0], intbig=[1316484262, 49567875, 377907320],
            float=[1049413316, 1050687780, 1040448924],
            double=[4600300481877146360, 4604526868978177912, 4564037757536710656],
            long=[170168523965373507, -8062155292093192501], bool=[False, True, False, False],
            shuffle=[8, 2, 5, 9, 6, 1, 0, 7, 4, 3]),
    7: dict(next32=[-1156638823, -1552468968, -1077308326], int10=[4, 0, 4, 8, 9],
            int2=[1, 1, 0, 1, 0], intbig=[542588911, 1495889662, 178712961],
            float=[1060096708, 1064157807, 1038081312],
            double=[4603954374143482407, 4605243707706294501, 4603480169835053443],
            long=[8724841566003434993, 4693253153669096614], bool=[False, True, True, True],
            shuffle=[1, 3, 6, 9, 4, 0, 7, 8, 2, 5]),
    -3: dict(next32=[1154330329, -96093693, 1509074433], int10=[0, 0, 0, 1, 0],
             int2=[1, 1, 0, 0, 0], intbig=[349417845, 1456753449, 1183197397],
             float=[1052057246, 1062730414, 1057858136],
             double=[4600291684412519972, 4606431429227585827, 4596342335126932280],
             long=[5801341906778593778, 7811131108835639072], bool=[False, True, False, True],
             shuffle=[3, 0, 9, 2, 1, 8, 7, 5, 6, 4]),
    123456789012345: dict(
        next32=[-1421006947, -2071311287, -583755257], int10=[2, 5, 8, 0, 9],
        int2=[1, 0, 1, 1, 1], intbig=[146958768, 600863488, 1442513241],
        float=[1059889344, 1047311720, 1059841751],
        double=[4597206631994620688, 4606040097166042509, 4602005322749262734],
        long=[3182376780335873198, -2776293284537994950], bool=[False, True, False, True],
        shuffle=[6, 3, 5, 7, 2, 9, 8, 0, 4, 1]),
}
SYNAPSE_42 = [-4650419545331204096, -4651194989865336832, 4591452775925153792,
              4589764012501106688, -4646953912060870656, -4636707914852073472]
# (x, StrictMath.exp(x)) as IEEE bit patterns: the first four of chosen arguments (0, 1, -740
# in the subnormal range, 700); then arguments where fdlibm and glibc differ in the last bit.
STRICT_EXP = [
    (0x0000000000000000, 0x3ff0000000000000), (0x3ff0000000000000, 0x4005bf0a8b14576a),
    (0xc087200000000000, 0x0000000000000055), (0x4085e00000000000, 0x7f0d945df4f8ec8e),
    (0x3fe0991c29419e00, 0x3ffae0912c8bf2ba), (0x3ffd9ced877e6840, 0x401975bf9bc2adca),
    (0xc039c16fce3fec51, 0x3d9cb0cabb628442), (0xc03697822bde82cc, 0x3de5368936e6adec),
    (0xc0240e5b417bf1e8, 0x3f0724fcdd3d90f0), (0x400f5461602f64b0, 0x40491acc210a91ca),
    (0x3fe84d47a3472500, 0x400118b5bce2de94), (0xc042e00c2128efc2, 0x3c873a19c54efc62),
    (0xc04a38a3a0b34f10, 0x3b3445d75507685e), (0xc08050ea9e97e4c6, 0x10dadeaa790d6b38),
    (0xc085faa628a044b6, 0x0083cda02b3fc6dc), (0x40718d9c60836b04, 0x5942265824c6cbe6),
]


def _bits32(f: float) -> int:
    return int(np.array([f], dtype=np.float32).view(np.int32)[0])


def _bits64(d: float) -> int:
    return int(np.array([d], dtype=np.float64).view(np.int64)[0])


def _double(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint64).view(np.float64)[0])


@pytest.mark.parametrize("seed", sorted(JAVA))
def test_sequences_equal_java(seed):
    want = JAVA[seed]
    r = JavaRandom(seed)
    assert [r.next_int() for _ in range(3)] == want["next32"]
    assert [r.next_int(10) for _ in range(5)] == want["int10"]
    assert [r.next_int(2) for _ in range(5)] == want["int2"]
    assert [r.next_int(1500000000) for _ in range(3)] == want["intbig"]
    assert [_bits32(r.next_float()) for _ in range(3)] == want["float"]
    assert [_bits64(r.next_double()) for _ in range(3)] == want["double"]
    assert [r.next_long() for _ in range(2)] == want["long"]
    assert [r.next_boolean() for _ in range(4)] == want["bool"]
    items = list(range(10))
    java_shuffle(items, r)
    assert items == want["shuffle"]


def test_next_bits_and_bounds():
    r = JavaRandom(0)
    assert JavaRandom(0).next(32) == JAVA[0]["next32"][0]
    assert all(0 <= r.next(31) < 2**31 for _ in range(100))
    assert all(0 <= r.next_int(7) < 7 for _ in range(100))
    with pytest.raises(ValueError, match="bound"):
        r.next_int(0)


def test_synapse_weights_equal_java():
    r = JavaRandom(42)
    w = synapse_weights(r, 6)
    assert [_bits64(v) for v in w] == SYNAPSE_42
    assert np.all(np.abs(w) < 0.1)
    # the generator advanced by two draws per weight, as a scalar loop would have
    s = JavaRandom(42)
    for _ in range(12):
        s.next(1)
    assert r.seed == s.seed and r.next_int() == s.next_int()


@pytest.mark.parametrize("x_bits, want", STRICT_EXP)
def test_fdlibm_exp_equals_strictmath(x_bits, want):
    assert _bits64(fdlibm_exp(_double(x_bits))) == want


def test_differs_from_glibc_where_java_does():
    """The arguments after the fourth are ones where Java's StrictMath.exp and glibc's exp
    differ: fdlibm_exp must follow Java, by one ulp."""
    for x_bits, want in STRICT_EXP[4:]:
        x = _double(x_bits)
        assert _bits64(math.exp(x)) != want
        assert abs(_bits64(math.exp(x)) - want) == 1


def test_fdlibm_exp_within_one_ulp_of_math_exp():
    x = np.random.default_rng(0).uniform(-745.0, 709.7, 200_000)
    x = np.concatenate([x, np.random.default_rng(1).uniform(-2.0, 2.0, 200_000),
                        [0.0, -0.0, 1e-300, -1e-300, 2.0**-29, -(2.0**-29)]])
    ours = fdlibm_exp_array(x)
    ref = np.array([math.exp(v) for v in x])
    ulps = np.abs(ours.view(np.int64) - ref.view(np.int64))
    assert ulps.max() <= 1
    # they do differ somewhere (otherwise fdlibm_exp could be glibc's exp)
    assert 0 < np.count_nonzero(ulps) < len(x) // 4


# (x, StrictMath.log(x)) as IEEE bit patterns: 1, 2, 0.5, 10, 1e300, a subnormal (1e-310),
# 1 + 2^-30 (the short series), 0.7, 1.2345678e-5; then 1.4 and the integers 3, 48, 74, 185,
# 196, 299, where glibc's log differs in the last bit (3 is the discount of rank 2).
STRICT_LOG = [
    (0x3FF0000000000000, 0x0000000000000000), (0x4000000000000000, 0x3FE62E42FEFA39EF),
    (0x3FE0000000000000, 0xBFE62E42FEFA39EF), (0x4024000000000000, 0x40026BB1BBB55516),
    (0x7E37E43C8800759C, 0x4085963447F87FB5), (0x000012688B70E62B, 0xC0864E69394D9508),
    (0x3FF0000000400000, 0x3E0FFFFFFFC00000), (0x3FE6666666666666, 0xBFD6D3C324E13F50),
    (0x3EE9E4091070DF4C, 0xC0269ABA8CDEE140),
    (0x3FF6666666666666, 0x3FD588C2D913348E), (0x4008000000000000, 0x3FF193EA7AAD030A),
    (0x4048000000000000, 0x400EF8383C50BB74), (0x4052800000000000, 0x4011375CD6FCAB1C),
    (0x4067200000000000, 0x4014E1A4F518C72C), (0x4068800000000000, 0x40151CCA16D7BBA8),
    (0x4072B00000000000, 0x4016CD411481A020),
]


@pytest.mark.parametrize("x_bits, want", STRICT_LOG)
def test_fdlibm_log_equals_strictmath(x_bits, want):
    assert _bits64(fdlibm_log(_double(x_bits))) % 2**64 == want  # as unsigned: logs < 0


def test_log_differs_from_glibc_where_java_does():
    for x_bits, want in STRICT_LOG[9:]:
        got = _bits64(math.log(_double(x_bits)))
        assert got != want and abs(got - want) == 1


def test_fdlibm_log_within_one_ulp_of_math_log():
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(0.0, 10.0, 20_000), np.exp(rng.uniform(-700, 700, 20_000)),
                        1.0 + rng.uniform(-1e-6, 1e-6, 5_000), np.arange(1.0, 3000.0)])
    ours = np.array([fdlibm_log(v) for v in x])
    ref = np.log(x)
    ulps = np.abs(ours.view(np.int64) - ref.view(np.int64))
    assert ulps.max() <= 1
    assert 0 < np.count_nonzero(ulps) < len(x) // 4


def test_fdlibm_log_special_values():
    assert fdlibm_log(0.0) == -math.inf and fdlibm_log(-0.0) == -math.inf
    assert math.isnan(fdlibm_log(-1.0)) and math.isnan(fdlibm_log(math.nan))
    assert math.isnan(fdlibm_log(-math.inf))
    assert fdlibm_log(math.inf) == math.inf
    assert fdlibm_log(5e-324) == math.log(5e-324)


def test_fdlibm_exp_special_values():
    assert fdlibm_exp(math.inf) == math.inf
    assert fdlibm_exp(-math.inf) == 0.0
    assert math.isnan(fdlibm_exp(math.nan))
    assert fdlibm_exp(710.0) == math.inf
    assert fdlibm_exp(-746.0) == 0.0
    assert fdlibm_exp(0.0) == 1.0


# Random(seed): nextInt(), nextInt(46), nextInt(1 << 20), nextInt(1000000007), nextLong(),
# nextDouble(), then Collections.shuffle of [0..45] with the same generator.
JAVA_SHUFFLE = {
    0: (-1155484576, 32, 252220, 302116440, -6688467811848818630, 0.5504370051176339,
        [33, 18, 25, 34, 7, 0, 6, 39, 27, 41, 28, 19, 3, 14, 23, 15, 1, 24, 22, 2, 45, 21, 12, 5,
         35, 17, 9, 36, 43, 40, 44, 11, 37, 30, 8, 20, 26, 29, 31, 4, 10, 16, 42, 13, 32, 38]),
    7: (-1156638823, 20, 785561, 20678044, 6425179856112732765, 0.8972771427421047,
        [6, 1, 33, 38, 2, 39, 40, 44, 7, 18, 13, 26, 35, 28, 5, 10, 11, 41, 29, 12, 15, 19, 36, 9,
         31, 21, 3, 43, 42, 37, 20, 23, 0, 16, 32, 27, 34, 14, 24, 22, 4, 25, 17, 8, 45, 30]),
}


@pytest.mark.parametrize("seed", sorted(JAVA_SHUFFLE))
def test_draws_and_shuffle_match_java(seed):
    *draws, perm = JAVA_SHUFFLE[seed]
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
