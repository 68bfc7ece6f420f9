"""Model files: checked header and digest; damaged files refused before anything is unpickled."""

import hashlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ltrconv
from ltrconv.cli import main
from ltrconv.errors import LtrconvError
from ltrconv.rankers.modelfile import ModelFileError, read_model, write_model
from ltrconv.rankers.registry import KNOWN
from ltrconv.rankers import load, make
from ltrconv.data.synthetic import make_letor, split, write_letor

ENV = {**os.environ, "PYTHONPATH": str(Path(ltrconv.__file__).parents[1])}  # this checkout
FAST = {
    "adarank": dict(n_rounds=5),
    "coordinate_ascent": dict(n_restarts=1, n_steps=10, max_sweeps=2),
    "lambdamart": dict(n_estimators=8, early_stopping_rounds=4, min_data_in_leaf=5),
    "lambdamart_lightgbm": dict(n_estimators=8, early_stopping_rounds=4, min_data_in_leaf=5),
    "ranknet": dict(architectures=((4,),), max_epochs=2, patience=1),
    "ranknet_adam": dict(architectures=((4,),), max_epochs=2, patience=1),
    "rankboost": dict(n_rounds=3),
    "ranksvm": dict(C_grid=(1.0,)),
}
FLIPS = 60  # damaged copies per model, spread evenly over the file


@pytest.fixture(scope="module")
def data():
    d = make_letor(n_queries=30, n_features=5, empty_share=0.1, seed=11)
    idx = np.arange(d.n_queries)
    return split(d, idx[:20]), split(d, idx[20:])


@pytest.fixture(scope="module")
def models(data, tmp_path_factory):
    """{algorithm: (fitted model, its file)} for every ranker a model file can hold."""
    tr, va = data
    d = tmp_path_factory.mktemp("models")
    out = {}
    for name in sorted(KNOWN):
        model = make(name, **FAST[name]).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y,
                                            qid_val=va.qid)
        model.save(d / f"{name}.model")
        out[name] = (model, d / f"{name}.model")
    return out


def refused(path: Path, message: str = "") -> str:
    with pytest.raises(ModelFileError) as info:
        load(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}: ") and "\n" not in msg and message in msg, msg
    return msg


def test_fast_parameters_cover_the_registry():
    assert set(FAST) == set(KNOWN)


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_round_trip_gives_identical_predictions(models, data, name, tmp_path):
    model, path = models[name]
    _, va = data
    write_model(tmp_path / "again.model", model)
    assert (tmp_path / "again.model").read_bytes() == path.read_bytes()  # deterministic bytes
    again = read_model(path)
    assert type(again) is type(model) and again.get_params() == model.get_params()
    np.testing.assert_array_equal(again.predict(va.X), model.predict(va.X))
    head = path.read_bytes().split(b"\n\n", 1)[0].decode().splitlines()
    assert head[:4] == ["ltrconv-model", "format: 1", f"ltrconv: {ltrconv.__version__}",
                        f"algorithm: {name}"]


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_every_flipped_byte_is_refused(models, name, tmp_path):
    _, path = models[name]
    blob = path.read_bytes()
    step = max(1, len(blob) // FLIPS)
    for i in range(0, len(blob), step):
        for mask in (0x01, 0x80):  # the lowest and the highest bit
            bad = bytearray(blob)
            bad[i] ^= mask
            damaged = tmp_path / f"{i}-{mask}.model"
            damaged.write_bytes(bytes(bad))
            refused(damaged)


@pytest.mark.parametrize("name", ["lambdamart", "ranknet"])
def test_truncated_files_are_refused(models, name, tmp_path):
    _, path = models[name]
    blob = path.read_bytes()
    payload_at = blob.index(b"\n\n") + 2
    for n in (0, 5, 30, payload_at - 1, payload_at, payload_at + 100, len(blob) - 1):
        cut = tmp_path / f"{n}.model"
        cut.write_bytes(blob[:n])
        msg = refused(cut)
        if n > payload_at:
            assert f"truncated model file: {n - payload_at} of {len(blob) - payload_at} payload bytes" in msg
    longer = tmp_path / "longer.model"
    longer.write_bytes(blob + b"\n")
    refused(longer, "bytes after the")


def assemble(body: bytes, **fields) -> bytes:
    """A model file around the payload ``body``, digest included, written from the format's
    description (``fields`` override header values)."""
    values = {"format": 1, "ltrconv": ltrconv.__version__, "algorithm": "ranksvm",
              "payload": "pickle", "length": len(body), **fields}
    head = b"ltrconv-model\n" + "".join(f"{k}: {values[k]}\n" for k in (
        "format", "ltrconv", "algorithm", "payload", "length")).encode()
    digest = hashlib.sha256(head + body).hexdigest()
    return head + f"sha256: {digest}\n\n".encode() + body


def test_newer_format_wrong_magic_and_wrong_algorithm(models, tmp_path):
    _, path = models["ranksvm"]
    blob = path.read_bytes()
    payload = blob.split(b"\n\n", 1)[1]
    assert assemble(payload) == blob  # the file is exactly what the format says
    cases = [
        (assemble(payload, format=2), "model file format 2 is newer than this ltrconv"),
        (assemble(payload, algorithm="adarank"), "the payload is not a fitted adarank model"),
        (assemble(payload, algorithm="xgboost"), "unknown algorithm 'xgboost'"),
        (assemble(payload, payload="json"), "payload kind 'json' is not one this ltrconv reads"),
        (b"0.5\n0.7\n", "not an ltrconv model file"),
    ]
    for i, (content, message) in enumerate(cases):
        (tmp_path / f"{i}.model").write_bytes(content)
        refused(tmp_path / f"{i}.model", message)


class _Planted:
    """Unpickling this creates ``marker``: proof that a pickle ran code."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_nothing_is_unpickled_from_an_unchecked_or_crafted_file(tmp_path):
    marker = tmp_path / "ran"
    bare = tmp_path / "bare.model"  # a bare pickle, as earlier versions wrote
    bare.write_bytes(pickle.dumps({"magic": "ltrconv-model-v1", "model": _Planted(marker)}))
    refused(bare, "an unchecked pickle), which is not loaded; retrain the model")
    # well-formed, with a matching digest, but the payload asks for another callable
    crafted = tmp_path / "crafted.model"
    crafted.write_bytes(assemble(pickle.dumps(_Planted(marker), protocol=5)))
    refused(crafted, "refers to io.open, which no ranker holds")
    assert not marker.exists()


def test_unfitted_model_is_not_written(tmp_path):
    with pytest.raises(LtrconvError, match="save called before fit"):
        make("ranksvm").save(tmp_path / "m.model")
    assert list(tmp_path.iterdir()) == []


def test_damaged_lightgbm_model_is_one_line_not_an_abort(models, tmp_path):
    """A flipped byte inside LightGBM's text model used to abort the process (exit 134)."""
    _, path = models["lambdamart_lightgbm"]
    blob = bytearray(path.read_bytes())
    at = blob.index(b"Tree=0") + 30
    blob[at] ^= 0x01
    (tmp_path / "m.model").write_bytes(bytes(blob))
    write_letor(make_letor(n_queries=3, n_features=5, seed=1), tmp_path / "d.txt")
    proc = subprocess.run([sys.executable, "-m", "ltrconv.cli", "predict", "m.model", "d.txt"],
                          cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("ltrconv: error: m.model: damaged model file: its SHA-256")
    assert len(proc.stderr.splitlines()) == 1


def test_predict_prints_only_scores(models, data, tmp_path):
    model, path = models["lambdamart"]
    _, va = data
    write_letor(va, tmp_path / "va.txt")
    proc = subprocess.run([sys.executable, "-m", "ltrconv.cli", "predict", str(path), "va.txt"],
                          cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    scores = [float(line) for line in proc.stdout.splitlines()]
    np.testing.assert_array_equal(scores, model.predict(va.X))


def test_library_output_goes_to_stderr(models, data, tmp_path, capfd, monkeypatch):
    """LightGBM prints through Python and, from worker threads, to file descriptor 1."""
    model, path = models["lambdamart_lightgbm"]
    _, va = data
    write_letor(va, tmp_path / "va.txt")
    cls = type(model)
    original = cls.predict

    def noisy_predict(self, X):
        print("[LightGBM] [Info] printed by Python")
        os.write(1, b"[LightGBM] [Warning] written to fd 1 by native code\n")
        return original(self, X)

    monkeypatch.setattr(cls, "predict", noisy_predict)
    capfd.readouterr()
    assert main(["predict", str(path), str(tmp_path / "va.txt")]) == 0
    out, err = capfd.readouterr()
    np.testing.assert_array_equal([float(x) for x in out.splitlines()], model.predict(va.X))
    assert "printed by Python" in err and "written to fd 1 by native code" in err


def test_a_model_trained_under_a_files_convention_holds_it(data, tmp_path, capsys):
    """``ltrconv train --conventions-file`` with a file's convention: the model reports it by
    name and holds its definition, so it loads, predicts and reports the metric in a process
    that never read the file; a built-in metric stays a plain string in the model."""
    tr, va = data
    write_letor(tr, tmp_path / "train.txt")
    write_letor(va, tmp_path / "vali.txt")
    (tmp_path / "c.yaml").write_text("conventions:\n  house: {base: yahoo, empty: 0.25}\n")
    out = tmp_path / "house.model"
    assert main(["train", "--algorithm", "adarank", "--train", str(tmp_path / "train.txt"),
                 "--vali", str(tmp_path / "vali.txt"), "--conventions-file",
                 str(tmp_path / "c.yaml"), "--metric", "ndcg@10:house", "--param", "n_rounds=5",
                 "--out", str(out)]) == 0
    assert "ndcg@10:house = " in capsys.readouterr().err
    code = ("import sys\nfrom ltrconv import rankers\nm = rankers.load(sys.argv[1])\n"
            "c = m.metric_spec.convention\nprint(m.metric_spec, c.empty, c.canonical)\n"
            "print(repr(m))")
    proc = subprocess.run([sys.executable, "-c", code, str(out)], env=ENV, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()
    assert first == "ndcg@10:house 0.25 ndcg(gain=exp,disc=log2,empty=0.25,short=truncate," \
                    "ties=input-order,rel=1,pk=min)"
    assert second == "AdaRank(metric=MetricSpec('ndcg@10:house'), n_rounds=5)"
    model = load(out)
    np.testing.assert_array_equal(model.predict(va.X), read_model(out).predict(va.X))
    model.save(tmp_path / "again.model")  # saved again, the same bytes
    assert (tmp_path / "again.model").read_bytes() == out.read_bytes()
    builtin = make("adarank", n_rounds=5).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y,
                                              qid_val=va.qid)
    assert builtin.metric == "ndcg@10:ranklib"
    assert b"MetricSpec" not in pickle.dumps(builtin) and b"MetricSpec" in out.read_bytes()


def test_a_fifo_or_a_device_is_refused_without_waiting(tmp_path):
    # open() on a FIFO waits for a writer: predict hung until it was killed
    fifo = tmp_path / "model.pkl"
    os.mkfifo(fifo)
    with pytest.raises(ModelFileError, match=r"model.pkl: is a FIFO \(named pipe\)"):
        read_model(fifo)
    with pytest.raises(ModelFileError, match=r"/dev/zero: is a device"):
        read_model("/dev/zero")
