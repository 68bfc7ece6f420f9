"""RankNet as RankLib 2.x trains it: the kernels against a plain unit-by-unit transcription of
the algorithm (module docstring of ltrconv.rankers.ranknet), selection, parameters, model
files; and, where Java, the RankLib jar and MQ2008 are at hand, the seeded jar's own run."""

import functools
import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ltrconv import evaluate, rankers
from ltrconv.data.synthetic import make_letor, split
from ltrconv.jit import njit
from ltrconv.rankers import ParamError, fdlibm, load, tiles
from ltrconv.rankers import ranknet as rn_module
from ltrconv.rankers.fdlibm import fdlibm_exp
from ltrconv.rankers.java_random import JavaRandom
from ltrconv.rankers.modelfile import ModelFileError, write_model
from ltrconv.rankers.ranknet import PAPER_GRID, RankNet, init_weights
from ltrconv.rankers.ranknet_adam import RankNetAdam

SMALL = dict(architectures=((4,), (3, 3)), max_epochs=6, learning_rate=0.05)


@pytest.fixture(scope="module")
def parts():
    data = make_letor(n_queries=40, n_features=5, seed=3)
    idx = np.arange(data.n_queries)
    return split(data, idx[:20]), split(data, idx[20:30]), split(data, idx[30:])


def _fit(parts, **params):
    tr, va, _ = parts
    return RankNet(**{**SMALL, **params}).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y,
                                               qid_val=va.qid)


@pytest.fixture(scope="module")
def fitted(parts):
    return _fit(parts)


# ---- a plain transcription: one object per unit, lists, Python floats -----------------------
class Unit:
    def __init__(self):
        self.inputs = []  # [unit below, weight index] in wiring order, the bias last
        self.outs = []  # weight indices of the links to the units above, in order
        self.values = []  # output per document of the current query


def reference_net(sizes, seed):
    """Units per layer and the weight list, wired and drawn in RankLib's order: input->first
    hidden, hidden->next, then the bias to every unit, each weight
    ``(nextInt(2) == 0 ? 1 : -1) * nextFloat() / 10`` in float32."""
    rnd = JavaRandom(seed)
    layers = [[Unit() for _ in range(n)] for n in sizes]
    bias = Unit()
    weights, links = [], []

    def link(src, dst):
        sign = 1 if rnd.next_int(2) == 0 else -1
        w = np.float32(np.float32(sign) * np.float32(rnd.next_float())) / np.float32(10)
        weights.append(float(w))
        links.append((src, dst))
        dst.inputs.append((src, len(weights) - 1))
        src.outs.append(len(weights) - 1)

    for s in layers[0]:
        for t in layers[1]:
            link(s, t)
    for lo, hi in zip(layers[1:-1], layers[2:]):
        for s in lo:
            for t in hi:
                link(s, t)
    for layer in layers[1:]:
        for t in layer:
            link(bias, t)
    return layers, bias, weights, links


def sig(v):
    return 1.0 / (1.0 + fdlibm_exp(-v))


def ref_output(layers, bias, weights, x):
    vals = {id(u): float(v) for u, v in zip(layers[0], x)}
    vals[id(bias)] = 1.0
    for layer in layers[1:]:
        for t in layer:
            s = 0.0
            for src, w in t.inputs:
                s += vals[id(src)] * weights[w]
            vals[id(t)] = sig(s)
    return vals[id(layers[-1][0])]


def ref_train_query(layers, bias, weights, X, y, lr):
    n = len(y)
    for u in [u for layer in layers for u in layer] + [bias]:
        u.values = []
    for r in range(n):
        for u, v in zip(layers[0], X[r]):
            u.values.append(float(v))
        bias.values.append(1.0)
        for layer in layers[1:]:
            for t in layer:
                s = 0.0
                for src, w in t.inputs:
                    s += src.values[r] * weights[w]
                t.values.append(sig(s))
    deriv = lambda v: sig(v) * (1.0 - sig(v))  # noqa: E731  applied to the output value
    for i in range(n):
        js = [j for j in range(n) if y[j] < y[i]]
        di, dj = {}, {}
        out = layers[-1][0]
        lam = [1.0 / (1.0 + fdlibm_exp(out.values[i] - out.values[j])) for j in js]
        total = 0.0
        for v in lam:
            total += v
        di[id(out)] = total * deriv(out.values[i]) if js else 0.0
        dj[id(out)] = [v * deriv(out.values[j]) for v, j in zip(lam, js)]
        for lo, hi in zip(layers[-2:0:-1], layers[-1:1:-1]):
            for h in lo:
                targets = [(t, weights[w]) for t, w in zip(hi, h.outs)]
                s = 0.0
                for t, w in targets:
                    s += di[id(t)] * w
                di[id(h)] = s * deriv(h.values[i]) if js else 0.0
                dj[id(h)] = []
                for k, j in enumerate(js):
                    e = 0.0
                    for t, w in targets:
                        e += dj[id(t)][k] * w
                    dj[id(h)].append(e * deriv(h.values[j]))
        for layer in layers[1:]:
            for t in layer:
                for src, w in t.inputs:
                    s = 0.0
                    for k, j in enumerate(js):
                        s += dj[id(t)][k] * src.values[j]
                    weights[w] += lr * (di[id(t)] * src.values[i] - s)


def test_initial_weights_follow_the_wiring_order():
    sizes = (3, 4, 2, 1)
    layers, bias, weights, links = reference_net(sizes, 11)
    ours = init_weights(sizes, 11)
    # ours: per layer, a (fan_out, fan_in + 1) block, the bias last in each row
    pos = 0
    for lo, hi in zip(range(len(sizes) - 1), range(1, len(sizes))):
        block = ours[pos:pos + sizes[hi] * (sizes[lo] + 1)].reshape(sizes[hi], sizes[lo] + 1)
        pos += block.size
        for t, unit in enumerate(layers[hi]):
            assert [weights[w] for _, w in unit.inputs] == block[t].tolist()
    assert pos == len(ours) == len(weights)


def _ranklib_mean(d, scores):
    return evaluate(d.y, scores, d.qid, conventions=["ranklib"], cutoffs=10)["ranklib"][
        "NDCG@10"].mean()


@pytest.mark.parametrize("dead", [(), (0, 3)])
@pytest.mark.parametrize("arch", [(4,), (3, 3), (2, 3, 2)])
def test_training_equals_the_transcription_bit_for_bit(parts, arch, dead):
    """Every epoch's validation score and the kept epoch's scores equal the transcription's;
    with ``dead`` features zero in every training document but not in the validation ones, whose
    scores then read those features' weights (the epochs train without them: LiveInputs)."""
    tr, va, _ = parts
    X = np.asarray(tr.X, dtype=np.float32).astype(np.float64)
    X[:, list(dead)] = 0.0
    assert np.all(np.any(np.asarray(va.X)[:, list(dead)] != 0, axis=0))
    Xv = np.asarray(va.X, dtype=np.float32).astype(np.float64)
    sizes = (X.shape[1], *arch, 1)
    layers, bias, weights, _ = reference_net(sizes, 5)
    off = np.flatnonzero(np.r_[True, tr.qid[1:] != tr.qid[:-1], True])
    per_epoch = []
    for _ in range(4):
        for a, b in zip(off[:-1], off[1:]):
            ref_train_query(layers, bias, weights, X[a:b], tr.y[a:b], 0.05)
        per_epoch.append([ref_output(layers, bias, weights, x) for x in Xv])
    model = RankNet(architectures=[arch], max_epochs=4, learning_rate=0.05,
                    random_state=5).fit(X, tr.y, tr.qid, X_val=va.X, y_val=va.y,
                                        qid_val=va.qid)
    assert model.predict(va.X).tolist() == per_epoch[model.best_epoch_ - 1]
    assert model.history_ == pytest.approx([_ranklib_mean(va, np.array(p)) for p in per_epoch],
                                           abs=1e-12)
    assert per_epoch[0] != per_epoch[-1]  # training moved the weights


def test_selection_keeps_the_first_best_epoch_and_architecture(parts, fitted):
    _, va, _ = parts
    assert [s["architecture"] for s in fitted.search_] == [(4,), (3, 3)]
    for s in fitted.search_:
        h = np.asarray(s["history"])
        assert len(h) == 6  # no early stopping by default: every epoch runs
        assert s["best_epoch"] == int(np.argmax(h)) + 1 and s["val_score"] == h.max()
    scores = [s["val_score"] for s in fitted.search_]
    assert fitted.architecture_ == fitted.search_[int(np.argmax(scores))]["architecture"]
    per_query = evaluate(va.y, fitted.predict(va.X), va.qid, conventions=["ranklib"],
                         cutoffs=10)["ranklib"]["NDCG@10"]
    assert per_query.mean() == pytest.approx(fitted.val_score_, abs=1e-12)


def test_patience_stops_early(parts):
    model = _fit(parts, architectures=((4,),), max_epochs=30, patience=2)
    h = model.history_
    assert len(h) == 30 or len(h) == model.best_epoch_ + 2


def test_same_seed_same_model_other_seed_differs_and_roundtrip(parts, fitted, tmp_path):
    _, _, te = parts
    assert np.array_equal(_fit(parts).predict(te.X), fitted.predict(te.X))
    assert not np.array_equal(_fit(parts, random_state=1).predict(te.X), fitted.predict(te.X))
    fitted.save(tmp_path / "rn.model")
    pred = load(tmp_path / "rn.model").predict(te.X)
    assert np.array_equal(pred, fitted.predict(te.X))


def test_defaults_are_ranklibs_and_the_papers_grid():
    model = rankers.make("ranknet")
    assert model.learning_rate == 5e-5 and model.max_epochs == 100 and model.patience is None
    assert model.architectures == PAPER_GRID
    assert {len(a) for a in PAPER_GRID} == {1, 2, 3}
    assert min(min(a) for a in PAPER_GRID) == 10 and max(max(a) for a in PAPER_GRID) == 500


@pytest.mark.parametrize("params, match", [
    ({"architectures": ((0,),)}, "architectures"),
    ({"architectures": ((10, 10, 10, 10),)}, "architectures"),
    ({"learning_rate": 0.0}, "learning_rate"),
    ({"max_epochs": 0}, "max_epochs"),
    ({"patience": 0}, "patience"),
    ({"random_state": -1}, "random_state"),
    ({"random_state": 2**32}, "random_state"),
])
def test_bad_parameters(parts, params, match):
    tr = parts[0]
    with pytest.raises(ParamError, match=match):
        RankNet(**params).fit(tr.X, tr.y, tr.qid)


def test_adam_options_name_the_variant():
    with pytest.raises(ParamError, match="activation.*ranknet_adam"):
        RankNet().set_params(activation="tanh")


def test_model_file_of_the_earlier_adam_ranknet_is_refused(parts, tmp_path):
    """A file whose header says ranknet but holds the Adam network (as ltrconv wrote before
    ranknet followed RankLib) is refused, naming the file and ranknet_adam."""
    tr, va, _ = parts
    old = RankNetAdam(architectures=((3,),), max_epochs=2).fit(
        tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
    old.__class__ = RankNet  # pickles as ltrconv.rankers.ranknet.RankNet, as the old class did
    path = tmp_path / "old.model"
    write_model(path, old)
    with pytest.raises(ModelFileError, match=r"old\.model.*ranknet_adam"):
        load(path)


# ---- the seeded RankLib jar ------------------------------------------------------------------
LAUNCHER = """
public class SeedRankNet {
  public static void main(String[] args) throws Exception {
    java.lang.reflect.Field f = Class.forName("ciir.umass.edu.learning.neuralnet.Synapse")
        .getDeclaredField("random");
    f.setAccessible(true);
    f.set(null, new java.util.Random(Long.parseLong(System.getProperty("seed"))));
    ciir.umass.edu.eval.Evaluator.main(args);
  }
}
"""


@pytest.fixture(scope="module")
def seeded_jar(tmp_path_factory):
    """A launcher that seeds RankLib's Synapse.random and runs its Evaluator, compiled here."""
    jar = os.environ.get("LTRCONV_RANKLIB_JAR")
    if not jar or not Path(jar).is_file():
        pytest.skip("LTRCONV_RANKLIB_JAR does not name RankLib 2.x's jar "
                    f"({jar or 'unset'}): no seeded RankLib run to compare with")
    if not shutil.which("java") or not shutil.which("javac"):
        pytest.skip("no java/javac on PATH: the seeded RankLib launcher cannot be built")
    where = tmp_path_factory.mktemp("seeded")
    (where / "SeedRankNet.java").write_text(LAUNCHER)
    subprocess.run(["javac", "-cp", jar, "-d", str(where), str(where / "SeedRankNet.java")],
                   check=True, capture_output=True)
    return ["java", "-XX:+UnlockDiagnosticVMOptions", "-XX:-UseLibmIntrinsic",
            "-cp", f"{jar}{os.pathsep}{where}"], where


@pytest.mark.mq2008
@pytest.mark.parametrize("layers, nodes", [(1, 10), (2, 10)])
def test_mq2008_fold1_equals_seeded_ranklib(mq2008_dir, mq2008_fold1, seeded_jar, layers, nodes):
    """Per-query test NDCG@10 and every score equal the seeded jar's at 5 epochs (RankLib run
    with fdlibm's Math.exp, -XX:-UseLibmIntrinsic)."""
    java, where = seeded_jar
    tr, va, te = mq2008_fold1
    fold = mq2008_dir / "Fold1"
    model_file, scores_file = where / f"m{layers}.txt", where / f"s{layers}.txt"
    base = [*java, "-Dseed=7", "SeedRankNet"]
    subprocess.run([*base, "-train", str(fold / "train.txt"), "-validate",
                    str(fold / "vali.txt"), "-ranker", "1", "-epoch", "5", "-layer", str(layers),
                    "-node", str(nodes), "-metric2t", "NDCG@10", "-save", str(model_file)],
                   check=True, capture_output=True)
    subprocess.run([*base, "-load", str(model_file), "-rank", str(fold / "test.txt"),
                    "-score", str(scores_file)], check=True, capture_output=True)
    theirs = np.loadtxt(scores_file, usecols=2)
    model = RankNet(architectures=[[nodes] * layers], max_epochs=5, random_state=7).fit(
        tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
    ours = model.predict(te.X)
    per_query = [evaluate(te.y, s, te.qid, conventions=["ranklib"], cutoffs=10)["ranklib"]
                 ["NDCG@10"] for s in (ours, theirs)]
    assert np.abs(per_query[0] - per_query[1]).max() <= 1e-6
    assert np.array_equal(ours, theirs)


# ---- the tiled kernels: the plain ones' bits, no fused multiply-add, fdlibm's exp in lanes ----


def _plain_and_tiled(arch, X, y, qid, epochs, seed=3, lanes=tiles.LANES, start=None):
    """The weights after each epoch of the plain and the tiled kernels (vectors of ``lanes``),
    from the same start (``start(params)`` may change the initial weights)."""
    from ltrconv.evaluation.queries import offsets_from_qid

    sizes = (X.shape[1], *arch, 1)
    off = offsets_from_qid(qid)
    queries = np.arange(len(off) - 1, dtype=np.int64)
    w_off, u_off, _ = rn_module.layout(list(sizes))
    net = (np.asarray(sizes, dtype=np.int64), w_off, u_off, X, y, off, queries, 0.05)

    def plain(params, *work):
        rn_module._train_epoch_plain(params, *net, *work)

    def tiled(params, *work):
        rn_module._train_epoch(params, *net, *work, lanes)

    return _weights_per_epoch(sizes, off, (plain, tiled), epochs, seed, start)


def _weights_per_epoch(sizes, off, epoch_fns, epochs, seed, start=None):
    """Per function of ``epoch_fns``, the weights after each of ``epochs`` calls
    ``fn(params, *work)`` from :func:`init_weights` (``start(params)`` may change them), with
    the work arrays the epochs take (out, fp, d_i, d_j, acc, pairs)."""
    _, u_off, _ = rn_module.layout(list(sizes))
    longest = int(np.diff(off).max())
    runs = []
    for epoch_fn in epoch_fns:
        params = init_weights(sizes, seed)
        if start is not None:
            start(params)
        out = np.zeros((longest, u_off[-1]))
        work = (out, np.zeros_like(out), np.zeros(u_off[-1]), np.zeros((longest, u_off[-1])),
                np.zeros((max(longest, max(sizes) + 1), max(sizes) + 1)),
                np.zeros(longest, dtype=np.int64))
        seen = []
        for _ in range(epochs):
            epoch_fn(params, *work)
            seen.append(params.copy())
        runs.append(seen)
    return runs


@pytest.mark.parametrize("lanes", [4, 8])
@pytest.mark.parametrize("arch", [(3,), (13,), (40,), (9, 17), (20, 7, 5), (33, 33)])
def test_tiled_kernels_equal_the_plain_ones_bit_for_bit(arch, lanes):
    """Widths that leave every kind of tile remainder, features half zero (some whole columns,
    some scattered), queries of 1-40 documents: every weight after every epoch has the plain
    kernels' bits, and the validation scores too, with 4- and 8-lane vectors."""
    rng = np.random.default_rng(len(arch) * 100 + arch[0])
    sizes_q = rng.integers(1, 41, 30)
    qid = np.repeat(np.arange(len(sizes_q)), sizes_q)
    X = np.asarray(rng.standard_normal((len(qid), 11)), dtype=np.float32).astype(np.float64)
    X[rng.random(X.shape) < 0.45] = 0.0
    X[:, 4] = 0.0
    X[qid % 3 == 0, 7] = -0.0
    y = rng.integers(0, 3, len(qid)).astype(np.int64)
    plain, tiled = _plain_and_tiled(arch, X, y, qid, epochs=3, lanes=lanes)
    for a, b in zip(plain, tiled):
        assert a.view(np.uint64).tolist() == b.view(np.uint64).tolist()
    assert not np.array_equal(plain[0], plain[-1])  # the weights moved
    sizes = np.asarray((X.shape[1], *arch, 1), dtype=np.int64)
    w_off, u_off, _ = rn_module.layout(sizes.tolist())
    scores = [fn(plain[-1], sizes, w_off, u_off, X, np.zeros((16, u_off[-1])))
              for fn in (rn_module._predict_plain,
                         functools.partial(rn_module._predict, lanes=lanes))]
    assert scores[0].view(np.uint64).tolist() == scores[1].view(np.uint64).tolist()


def test_dead_inputs_are_the_features_zero_in_every_trained_document():
    """Zero or -0 in every document of the queries trained on, whatever the others hold (the
    expected columns counted by hand from the matrix)."""
    X = np.array([[0.0, 0.0, -0.0, 0.0, 1.0],
                  [0.0, 0.0, 0.0, 0.0, 2.0],
                  [0.0, 5.0, -0.0, 0.0, 0.0],  # query 1: not trained on (no pairs)
                  [0.0, 0.0, 0.0, 3.0, 0.0]])
    off = np.array([0, 2, 3, 4])
    queries = np.array([0, 2], dtype=np.int64)
    assert rn_module.dead_inputs(X, off, queries).tolist() == [0, 1, 2]
    assert rn_module.dead_inputs(X, off, np.arange(3)).tolist() == [0, 2]


def _live_and_plain(arch, start=None, epochs=3, lr=0.05):
    """Weights after each epoch of LiveInputs.epoch and of the plain kernel on the whole net,
    on data whose features 0, 5 and 10 (of 11) are zero in every document; with
    ``start(params)`` changing the initial weights."""
    from ltrconv.evaluation.queries import offsets_from_qid

    rng = np.random.default_rng(sum(arch))
    sizes_q = rng.integers(2, 30, 20)
    qid = np.repeat(np.arange(len(sizes_q)), sizes_q)
    X = np.asarray(rng.standard_normal((len(qid), 11)), dtype=np.float32).astype(np.float64)
    X[rng.random(X.shape) < 0.4] = 0.0
    X[:, [0, 5, 10]] = 0.0
    X[::3, 5] = -0.0
    y = rng.integers(0, 3, len(qid)).astype(np.int64)
    off = offsets_from_qid(qid)
    queries = np.arange(len(off) - 1, dtype=np.int64)
    dead = rn_module.dead_inputs(X, off, queries)
    assert dead.tolist() == [0, 5, 10]
    sizes = (X.shape[1], *arch, 1)
    live = np.setdiff1d(np.arange(X.shape[1]), dead)
    w_off, u_off, _ = rn_module.layout(list(sizes))
    narrowed = rn_module.LiveInputs(sizes, live, np.ascontiguousarray(X[:, live]))

    def live_epoch(params, *work):
        narrowed.epoch(params, X, y, off, queries, lr, work)

    def whole_epoch(params, *work):
        rn_module._train_epoch_plain(params, np.asarray(sizes, dtype=np.int64), w_off, u_off, X,
                                     y, off, queries, lr, *work)

    return narrowed, _weights_per_epoch(sizes, off, (live_epoch, whole_epoch), epochs, 7, start)


@pytest.mark.parametrize("arch", [(3,), (20,), (9, 17), (4, 6, 5)])
def test_an_epoch_without_the_dead_inputs_leaves_the_plain_kernels_weights(arch):
    """Fewer and more units than inputs (the plain kernel's two update loops), 1-3 layers: the
    narrowed epochs give the whole net's weights bit for bit; the dead inputs' weights are
    their initial ones."""
    narrowed, (live, plain) = _live_and_plain(arch)
    first = init_weights((11, *arch, 1), 7)
    assert narrowed.applies(first)
    for a, b in zip(plain, live):
        assert a.view(np.uint64).tolist() == b.view(np.uint64).tolist()
    dead = lambda p: p[:arch[0] * 12].reshape(arch[0], 12)[:, [0, 5, 10]]  # noqa: E731
    assert dead(live[-1]).tolist() == dead(first).tolist()
    assert not np.array_equal(live[-1], first)  # the weights moved


def test_a_dead_inputs_weight_of_minus_zero_trains_the_whole_net():
    """-0 + +0 is +0: a dead input's weight of -0 does not stay as it is, so the epoch runs on
    the whole net; the weights are the plain kernel's, that weight +0."""
    def start(params):
        params[5] = -0.0  # unit 0's weight from input 5

    narrowed, (live, plain) = _live_and_plain((9, 17), start)
    first = init_weights((11, 9, 17, 1), 7)
    start(first)
    assert not narrowed.applies(first)
    assert plain[-1][5] == 0.0 and not np.signbit(plain[-1][5])
    for a, b in zip(plain, live):
        assert a.view(np.uint64).tolist() == b.view(np.uint64).tolist()


def test_deltas_that_overflow_in_a_narrowed_epoch_run_it_again_on_the_whole_net():
    """Upper weights of 1e200 make the first layer's deltas infinite mid-epoch: inf x 0 is NaN,
    so the dead inputs' weights do not stay; a first-layer bias weight that ends the epoch
    non-finite sends it to the whole net: the plain kernel's weights, NaN where they are."""
    def start(params):
        params[4 * 12:] = 1e200  # every weight above the first layer

    narrowed, (live, plain) = _live_and_plain((4, 6), start, epochs=1)
    first = init_weights((11, 4, 6, 1), 7)
    start(first)
    assert narrowed.applies(first)  # every weight finite at the start
    assert np.isnan(plain[0][:4 * 12].reshape(4, 12)[:, [0, 5, 10]]).any()
    assert np.array_equal(plain[0], live[0], equal_nan=True)
    finite = ~np.isnan(plain[0])
    assert plain[0][finite].view(np.uint64).tolist() == live[0][finite].view(np.uint64).tolist()


@pytest.mark.parametrize("bad", [None, np.inf, -np.inf, np.nan, "last"])
def test_transpose_lays_out_each_layer_by_input_and_tells_whether_every_weight_is_finite(bad):
    """Layer l's weight from input s to unit t sits at ``w_off[l] + t (a + 1) + s`` (the bias as
    input a) and goes to ``w_off[l] + s b + t``; a 13-unit layer over 6 inputs leaves rows and
    columns outside the 4 x 4 blocks. The flag is False for one infinite or NaN weight anywhere,
    also the very last (a bias of the top layer), and the largest finite double keeps it True."""
    sizes = np.array([5, 13, 3, 1], dtype=np.int64)
    w_off, _, total = rn_module.layout(sizes.tolist())
    params = np.arange(1.0, total + 1.0)
    params[7] = np.finfo(np.float64).max
    if bad == "last":
        params[-1] = np.nan
    elif bad is not None:
        params[w_off[1] + 2 * 14 + 9] = bad  # layer 1: unit 2's weight from input 9
    wt = np.full(total + tiles.PAD, -1.0)
    finite = rn_module._transpose(params, sizes, rn_module._unpadded(sizes, w_off, False), wt,
                                  rn_module._unpadded(sizes, w_off, True))
    assert finite == (bad is None)
    for layer, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = params[w_off[layer]:w_off[layer] + b * (a + 1)].reshape(b, a + 1)
        got = wt[w_off[layer]:w_off[layer] + (a + 1) * b].reshape(a + 1, b)
        np.testing.assert_array_equal(got, w.T)
    assert (wt[total:] == -1.0).all()  # the padding is not written


@pytest.mark.parametrize("sizes", [(46, 10, 1), (46, 200, 200, 1), (5, 13, 3, 1), (7, 1),
                                   (64, 63, 1)])
def test_the_training_layouts_pad_every_row_to_a_cache_line(sizes):
    """The tiled training's weights: each unit's fan_in + 1 weights in a row of a multiple of 8
    doubles, no shorter, the blocks one after the other; transposed, each input's fan_out
    weights likewise; its rows of unit values: each layer's
    start and the row's length multiples of 8, each layer's units fitting before the next one;
    an aligned array starts on a 64-byte boundary."""
    sizes = np.array(sizes, dtype=np.int64)
    offsets, strides, total = rn_module._padded_layout(sizes, False)
    at = 0
    for layer, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        assert strides[layer] % 8 == 0 and a + 1 <= strides[layer] < a + 9
        assert offsets[layer] == at
        at += b * strides[layer]
    assert total == at
    offsets, strides, total = rn_module._padded_layout(sizes, True)
    at = 0
    for layer, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        assert strides[layer] % 8 == 0 and b <= strides[layer] < b + 8
        assert offsets[layer] == at
        at += (a + 1) * strides[layer]
    assert total == at
    units = rn_module._padded_units(sizes)
    assert units[0] == 0 and (units % 8 == 0).all()
    assert all(units[k] + sizes[k] <= units[k + 1] < units[k] + sizes[k] + 8
               for k in range(len(sizes)))
    for n in (1, 9, 1000, 100_003):
        z = rn_module._aligned_zeros(n)
        assert z.size == n and z.ctypes.data % 64 == 0 and not z.any()


@pytest.mark.parametrize("gap", [0, 3])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (8, 4), (3, 5), (13, 6), (12, 9), (9, 7),
                                   (17, 3), (0, 5), (5, 0), (201, 47)])
def test_transpose_equals_numpys_and_writes_nothing_else(shape, gap):
    """tiles.transpose of a block at an offset, its rows ``cols + gap`` apart, into rows
    ``rows + gap`` apart, equals numpy's ``.T`` for every count of whole 8- and 4-row strips and
    of leftover rows and columns; the elements around the destination rows and between them
    keep their values; a block past either array's end, or rows closer than their length, is
    refused (numba checks no index)."""
    rows, cols = shape
    stride = cols + gap
    src = np.arange(1.0, rows * stride + 8.0)
    d_row = rows + gap
    dst = np.full(cols * d_row + 11, -1.0)
    tiles.transpose(src, dst, shape, 3, 5, (stride, d_row))
    want = np.full((cols, d_row), -1.0)
    want[:, :rows] = src[3:3 + rows * stride].reshape(rows, stride)[:, :cols].T
    np.testing.assert_array_equal(dst[5:5 + cols * d_row], want.ravel())
    assert (dst[:5] == -1.0).all() and (dst[5 + cols * d_row:] == -1.0).all()
    if rows and cols:
        with pytest.raises(ValueError, match="does not fit"):
            tiles.transpose(src, dst, shape, 8 + gap, 5, (stride, d_row))
        with pytest.raises(ValueError, match="does not fit"):
            tiles.transpose(src, dst, shape, 3, 12 + gap, (stride, d_row))
        with pytest.raises(ValueError, match="does not fit"):
            tiles.transpose(src, dst, shape, 3, 5, (cols - 1, d_row))
        with pytest.raises(ValueError, match="does not fit"):
            tiles.transpose(src, dst, shape, 3, 5, (stride, rows - 1))


def test_forward_with_a_non_finite_weight_equals_the_plain_kernel():
    """0 x inf is NaN: the tiles, which add a zero input's product when another document of
    the tile has a non-zero one, hand such weights to the plain kernel, which skips it."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((20, 6))
    X[:, 2] = 0.0
    X[::2, 3] = 0.0
    sizes = np.array([6, 9, 1], dtype=np.int64)
    w_off, u_off, _ = rn_module.layout(sizes.tolist())
    params = init_weights(sizes.tolist(), 1)
    params[2] = np.inf  # unit 0's weight from input 2 (always 0)
    params[3] = np.inf  # from input 3 (0 in every other document)
    got = [fn(params, sizes, w_off, u_off, X, np.zeros((8, u_off[-1])))
           for fn in (rn_module._predict_plain,
                      functools.partial(rn_module._predict, lanes=tiles.LANES))]
    assert np.isfinite(got[0]).all()  # where the input is 0 the plain kernel skipped the inf
    assert got[0].view(np.uint64).tolist() == got[1].view(np.uint64).tolist()


@pytest.mark.parametrize("lanes", [4, 8])
def test_update_with_infinite_deltas_equals_the_plain_kernel(lanes):
    """Where the plain kernel skips zero inputs (more units above than inputs below), the tiles
    add them when every delta is finite; an infinite delta (0 x inf is NaN) sends the update to
    tiles that skip each zero input: the weights equal the plain kernel's, NaN where they are
    NaN, and differ from the sums that add every term."""
    rng = np.random.default_rng(11)
    a, b, n, i = 5, 19, 12, 3  # 5 inputs, 19 units above: the plain kernel skips zeros
    sizes = [a, b, 1]
    w_off, u_off, total = rn_module.layout(sizes)
    width = u_off[-1]
    out_flat = np.zeros(n * width + tiles.PAD)
    out = out_flat[:n * width].reshape(n, width)
    out[:] = rng.standard_normal((n, width))
    out[:, :a][rng.random((n, a)) < 0.5] = 0.0
    pairs = np.array([0, 2, 5, 6, 7, 9, 11], dtype=np.int64)
    npair = len(pairs)
    d_j = np.zeros((n, width))
    d_j[:npair] = rng.standard_normal((npair, width))
    d_j[1, a + 4] = np.inf  # pair 1's delta of unit 4 above
    d_i = rng.standard_normal(width)
    lr = 0.05
    params = init_weights(sizes, 2)
    want = params.copy()
    rn_module._update_weights_plain(want, w_off, a, b, 0, 0, a, npair, pairs, out, i, d_i, d_j,
                                    lr, np.zeros((n + 1, b + 1)))
    D_flat = np.zeros((n + 1) * width + tiles.PAD)
    D = D_flat[:(n + 1) * width].reshape(n + 1, width)
    D[:npair] = d_j[:npair]
    D[npair] = d_i
    got = np.concatenate([params, np.zeros(tiles.PAD)])
    rn_module._update_weights(got, (0, a, b, 0, a, i, npair, a + 1), out, D, D_flat,
                              np.zeros(b * (a + 2)), pairs, lr, lanes)
    got = got[:total]
    assert np.array_equal(want, got, equal_nan=True)
    finite = ~np.isnan(want)
    assert want[finite].view(np.uint64).tolist() == got[finite].view(np.uint64).tolist()
    row = want[4 * (a + 1):5 * (a + 1)]  # the weights into unit 4 (its bias last)
    x = out[pairs, :a]
    with np.errstate(invalid="ignore"):
        every_term = [sum(d * v for d, v in zip(d_j[:npair, a + 4], x[:, s]))
                      for s in range(a)]
    assert any(np.isnan(t) and not np.isnan(w) for t, w in zip(every_term, row[:a]))


def test_kernels_refuse_a_buffer_too_short_for_what_they_write():
    """numba checks no index, so a work array one element too short would be written past its
    end (corrupting the heap: a later compilation crashed in LLVM): the kernels check the
    extent they write first. The same calls with one element more pass."""
    a, b, n, npair = 5, 19, 6, 3
    sizes = [a, b, 1]
    w_off, u_off, total = rn_module.layout(sizes)
    width = u_off[-1]
    out_flat = np.ones(n * width + tiles.PAD)
    out = out_flat[:n * width].reshape(n, width)
    D_flat = np.ones((n + 1) * width + tiles.PAD)
    D = D_flat[:(n + 1) * width].reshape(n + 1, width)
    pairs = np.arange(npair, dtype=np.int64)
    params = np.zeros(total + tiles.PAD)
    geo = (0, a, b, 0, a, npair, npair, a + 1)
    with pytest.raises(ValueError, match="acc"):
        rn_module._update_weights(params, geo, out, D, D_flat, np.zeros(b * (a + 2) - 1), pairs,
                                  0.05, 4)
    rn_module._update_weights(params, geo, out, D, D_flat, np.zeros(b * (a + 2)), pairs, 0.05, 4)
    K, M, N = 3, 5, 9
    A, B = np.ones(K * M + M), np.ones((K + 1) * N + tiles.PAD)
    plain = ((K, M, N), (0, M, 1), (0, N), (0, N, 1), 0)
    with pytest.raises(ValueError, match="C ends"):
        tiles.gemm(A, B, np.zeros(M * N - 1), *plain, 8)
    tiles.gemm(A, B, np.zeros(M * N), *plain, 8)
    with pytest.raises(ValueError, match="C ends"):
        tiles.gemm_rows(A, B, np.zeros(M * N - 1), (K, M, N), (0, M, 1), (0, N), (0, 1, M), 4)
    tiles.gemm_rows(A, B, np.zeros(M * N), (K, M, N), (0, M, 1), (0, N), (0, 1, M), 4)
    for lanes, padded in ((4, 12), (8, 16)):  # the update stores each row's last vector whole
        C = np.zeros((M - 1) * N + padded)
        with pytest.raises(ValueError, match="C ends"):
            tiles.gemm(A, B, C[:-1], *plain, lanes, None, None, (0.05, K, K))
        tiles.gemm(A, B, C, *plain, lanes, None, None, (0.05, K, K))


def _ordered_sums(A, B, skip_zero_a):
    """``sum_k A[k, m] B[k, n]`` one term at a time from +0 in order of k, in Python floats."""
    K, M = A.shape
    N = B.shape[1]
    want = np.zeros((M, N))
    for m in range(M):
        for n in range(N):
            total = 0.0
            for k in range(K):
                if not (skip_zero_a and A[k, m] == 0.0):
                    total += A[k, m] * B[k, n]
            want[m, n] = total
    return want


def _bits(x):
    return np.asarray(x).view(np.uint64).tolist()


@pytest.mark.parametrize("lanes", [4, 8])
@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 6, 8), (5, 13, 29), (0, 7, 9), (40, 3, 37),
                                   (9, 15, 47), (3, 9, 25), (6, 8, 17), (4, 23, 201),
                                   (2, 5, 48)])
def test_gemm_sums_each_term_in_order(shape, lanes):
    """Every sum of gemm and gemm_rows, with either vector width (the row counts cover every
    tile height, the column counts every count of whole and partial vectors), is the
    one-term-at-a-time sum from +0 in order of k (checked against Python floats), zero terms
    of A skipped or not; the rows of A or B read through an index, and the update form
    ``C += lr (A[k_dt] B[k_xi] - sum)``, give the same sums."""
    K, M, N = shape
    rng = np.random.default_rng(K * 31 + N)
    A = rng.standard_normal((K, M)) * 10.0 ** rng.integers(-8, 8, (K, M))
    A[rng.random((K, M)) < 0.4] = 0.0
    A[:, 0] = -0.0
    B = rng.standard_normal((K, N)) * 10.0 ** rng.integers(-8, 8, (K, N))
    B_pad = np.concatenate([B.ravel(), np.full(tiles.PAD, np.nan)])  # never in a stored sum
    want = _ordered_sums(A, B, True)
    assert want.view(np.uint64).tolist() == _ordered_sums(A, B, False).view(np.uint64).tolist()
    for skip in (0, 1):
        C = np.full(M * N, np.nan)
        tiles.gemm(A.ravel(), B_pad, C, (K, M, N), (0, M, 1), (0, N), (0, N, 1), skip, lanes)
        assert _bits(C) == _bits(want.ravel())
    C = np.full(M * N, np.nan)  # gemm_rows, stored transposed: C[n M + m]
    tiles.gemm_rows(A.ravel(), B_pad, C, (K, M, N), (0, M, 1), (0, N), (0, 1, M), lanes)
    assert _bits(C) == _bits(want.T.ravel())
    # rows through an index: A's row k is stored at row order[k], B's at order[k] + 1
    order = rng.permutation(K).astype(np.int64)
    A_rows = np.zeros((K, M))
    A_rows[order] = A
    B_rows = np.zeros((K + 1, N))
    B_rows[order + 1] = B
    B_rows_pad = np.concatenate([B_rows.ravel(), np.full(tiles.PAD, np.nan)])
    C = np.full(M * N, np.nan)
    tiles.gemm(A.ravel(), B_rows_pad, C, (K, M, N), (0, M, 1), (N, N), (0, N, 1), 0, lanes,
               None, order)
    assert _bits(C) == _bits(want.ravel())
    C = np.full(M * N, np.nan)
    tiles.gemm_rows(A_rows.ravel(), B_pad, C, (K, M, N), (0, M, 1), (0, N), (0, 1, M), lanes,
                    order)
    assert _bits(C) == _bits(want.T.ravel())
    # the update: A's row K is dt, B's row K (here through no index) is x
    dt = rng.standard_normal(M)
    x = rng.standard_normal(N)
    A_u = np.vstack([A, dt])
    B_u = np.concatenate([np.vstack([B, x]).ravel(), np.full(tiles.PAD, np.nan)])
    W = rng.standard_normal(M * N + tiles.PAD)
    expect = W.copy()
    for m in range(M):
        for n in range(N):
            expect[m * N + n] += 0.05 * (dt[m] * x[n] - want[m, n])
    tiles.gemm(A_u.ravel(), B_u, W, (K, M, N), (0, M, 1), (0, N), (0, N, 1), 0, lanes, None,
               None, (0.05, K, K))
    assert _bits(W) == _bits(expect)  # the padding too: a partial vector stores its lanes


def _kernel_script():
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / "check_kernels.py"
    spec = importlib.util.spec_from_file_location("check_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_ranknet_kernel_asks_for_fast_math():
    """RankLib rounds every product and every sum (Java never fuses a*b+c): numba's fastmath
    (which lets LLVM fuse, reassociate and ignore signed zeros) is off on every kernel of
    RankNet, and nothing calls a fused multiply-add by hand. LLVM fuses nothing else by default
    (it fuses only what a flag or an fmuladd call allows); scripts/check_kernels.py compiles
    every kernel afresh and reads their assembly to show it."""
    import importlib

    check = _kernel_script()
    n = 0
    for name in check.MODULES:
        module = importlib.import_module(name)
        source = Path(module.__file__).read_text()
        assert not re.search(r"\bfma\(|fmuladd", source), name
        for attr in dir(module):
            fn = getattr(module, attr)
            if hasattr(fn, "targetoptions") and getattr(fn, "__module__", "") == name:
                assert not fn.targetoptions.get("fastmath"), f"{name}.{attr}"
                n += 1
    assert n >= 10


def test_the_kernel_check_sees_a_fused_multiply_add_and_reads_its_report():
    """The script's pattern finds the instruction LLVM emits for a*b+c under fastmath (on a
    CPU that has one), and its verdict names a kernel that fuses or asks for fast math."""
    check = _kernel_script()
    if not check.cpu_has_fma():  # pragma: no cover
        pytest.skip("this CPU has no fused multiply-add")
    assert check.pattern_sees_one()
    clean = {"sigs": [{"fused": [], "flagged": None, "packed": ["vmulpd"]}], "fastmath": False}
    assert check.problems({"k": clean}) == []
    fused = {"sigs": [{"fused": ["vfmadd231pd"], "flagged": None, "packed": []}], "fastmath": False}
    assert check.problems({"k": clean, "f": fused, "m": {**clean, "fastmath": True}}) == [
        "f: fused ['vfmadd231pd'] flagged None", "m: compiled with fastmath"]


def _exp_arguments() -> np.ndarray:
    """Over 1M arguments: 20,001 consecutive doubles around each of fdlibm's thresholds (10,001
    from 0 up) and their negatives, uniform draws over every region, the special values."""
    centres = [fdlibm._O_THRESHOLD, fdlibm._U_THRESHOLD, fdlibm._HX_BIG,
               fdlibm._HX_HALF_LN2, fdlibm._HX_3HALF_LN2, fdlibm._HX_TINY, math.log(2) / 2,
               1.5 * math.log(2), math.log(2), 1.0, 2.0 ** -1022, 5e-324, 0.0,
               -708.3964185322641,  # k = -1021: the last result scaled as a normal number
               -709.0895657128241, -744.4400719213812]  # subnormal results
    parts = []
    for c in centres:
        bits = np.array([abs(c)]).view(np.int64)[0]
        around = np.arange(max(bits - 10_000, 0), bits + 10_001, dtype=np.int64).view(np.float64)
        parts += [around, -around]
    rng = np.random.default_rng(40)
    parts += [rng.uniform(-760, 760, 250_000), rng.uniform(-1.1, 1.1, 250_000),
              rng.standard_normal(50_000) * 1e-9,
              np.array([np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0, 1e308, -1e308])]
    x = np.concatenate(parts)
    return x[~np.isnan(x) | (np.arange(len(x)) >= len(x) - 8)]


def test_exp_in_lanes_equals_fdlibm_bit_for_bit():
    x = _exp_arguments()
    assert len(x) >= 1_000_000
    want = fdlibm.fdlibm_exp_array(x)
    got = np.empty_like(x)
    fdlibm.exp_lanes(x, got, len(x))
    differ = np.flatnonzero(want.view(np.uint64) != got.view(np.uint64))
    assert differ.size == 0, [(x[i], want[i], got[i]) for i in differ[:5]]
    for lanes in (4, 8):  # the same operations written on vectors
        got = np.empty_like(x)
        fdlibm.exp_vectors(x, got, len(x), lanes)
        differ = np.flatnonzero(want.view(np.uint64) != got.view(np.uint64))
        assert differ.size == 0, [(lanes, x[i], want[i], got[i]) for i in differ[:5]]
    # every region is there: overflow, underflow, subnormal results, |x| < 2^-28, k = 0, +-1
    assert np.isinf(want).any() and (want == 0).any() and ((want > 0) & (want < 2.0 ** -1022)).any()
    assert (want == 1.0).any() and np.isnan(want).any()


_UNIT_EXP_4 = fdlibm.vector_map(4, lambda b, x, _: fdlibm.emit_exp_unit(b, x))
_UNIT_EXP_8 = fdlibm.vector_map(8, lambda b, x, _: fdlibm.emit_exp_unit(b, x))


@njit
def _exp_unit_run(x, out, lanes):
    if lanes == 8:
        _UNIT_EXP_8(out, 0, x.size // 8, x, 0, x, 0)
    else:
        _UNIT_EXP_4(out, 0, x.size // 4, x, 0, x, 0)


def test_exp_on_the_unit_range_equals_fdlibm_bit_for_bit():
    """emit_exp_unit (f' of a sigmoid output o takes exp(-o)) on [-1, 0] and NaN: the
    arguments of _exp_arguments there, 20,001 consecutive doubles below each threshold in the
    range (ln2 / 2 as fdlibm tests it, 2^-28) and up from -1, and -0."""
    parts = [_exp_arguments(), np.array([-0.0, -1.0])]
    for c in (-fdlibm._HX_HALF_LN2, -fdlibm._HX_TINY, -1.0):
        bits = np.array([c]).view(np.int64)[0]
        parts.append(np.arange(bits - 10_000, bits + 10_001, dtype=np.int64).view(np.float64))
    x = np.concatenate(parts)
    x = x[((x >= fdlibm.UNIT_LOW) & (x <= 0.0)) | np.isnan(x)]
    x = np.concatenate([x, np.full(-len(x) % 8, -0.5)])
    want = fdlibm.fdlibm_exp_array(x)
    assert np.isnan(want).any() and (want == 1.0).any() and (want < 0.5).any()
    for lanes in (4, 8):
        got = np.empty_like(x)
        _exp_unit_run(x, got, lanes)
        differ = np.flatnonzero(want.view(np.uint64) != got.view(np.uint64))
        assert differ.size == 0, [(lanes, x[i], want[i], got[i]) for i in differ[:5]]


def test_sigmoid_rows_equal_the_scalar_sigmoid_and_its_derivative():
    """_sigmoid_rows' outputs and f' (its vectors and its scalar tail) are fdlibm's sigmoid
    and RankLib's f'(o) = s(o) (1 - s(o)), bit for bit, for sums that saturate the sigmoid to
    0 and 1, are infinite or NaN."""
    rng = np.random.default_rng(58)
    n, b, width = 7, 29, 40
    out = rng.normal(0, 6, (n, width))
    out[0, 3:9] = [800.0, -800.0, np.inf, -np.inf, np.nan, 0.0]
    bias = rng.normal(0, 0.5, b)
    sums = out.copy()
    fp = np.zeros_like(out)
    rn_module._sigmoid_rows(out, fp, n, 3, b, bias, True)
    for r in range(n):
        for t in range(b):
            o = rn_module._sigmoid(sums[r, 3 + t] + bias[t])
            s = rn_module._sigmoid(o)
            assert np.float64(o).view(np.uint64) == out[r, 3 + t].view(np.uint64), (r, t)
            assert np.float64(s * (1.0 - s)).view(np.uint64) == fp[r, 3 + t].view(np.uint64)
    assert {0.0, 1.0} <= set(out[0, 3:9].tolist()) and np.isnan(fp[0, 7])


@pytest.mark.parametrize("lanes", [4, 8])
def test_exp_refuses_arrays_shorter_than_n(lanes):
    x = np.linspace(-3.0, 3.0, 19)
    for short_x, short_out in ((x[:-1], np.empty(19)), (x, np.empty(18))):
        with pytest.raises(ValueError, match="fewer than n elements"):
            fdlibm.exp_vectors(short_x, short_out, 19, lanes)
        with pytest.raises(ValueError, match="fewer than n elements"):
            fdlibm.exp_lanes(short_x, short_out, 19)
    out = np.empty(19)
    fdlibm.exp_vectors(x, out, 19, lanes)  # exactly n: written whole
    assert out.view(np.uint64).tolist() == fdlibm.fdlibm_exp_array(x).view(np.uint64).tolist()
