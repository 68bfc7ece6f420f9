"""The Snakemake workflow end to end on a synthetic dataset added through config only."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from ltrconv.pipeline import environment
from ltrconv.study.tables import PER_QUERY_COLUMNS
from workflow_helpers import (ALGORITHMS, EVAL, FOLDS, N_MODELS, QUARTER, RANDOM, REPO, SEEDS,
                              TIES, TRAIN, VARIANTS, base_config, conventions_config, snakemake,
                              write_dataset)



@pytest.fixture(scope="module")
def workflow_run(tmp_path_factory):
    """One full run of the DAG; returns its paths and the test splits."""
    root = tmp_path_factory.mktemp("wf")
    tests = write_dataset(root / "SYN")
    cfg = root / "config.yaml"
    cfg.write_text(yaml.safe_dump(base_config(root / "SYN")))
    work = root / "work"
    proc = snakemake(work, cfg, timeout=1800)  # ~2 min alone; far longer on a busy shared machine
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {"root": root, "work": work, "config": cfg, "results": work / "out" / "SYN",
            "tests": tests}


def test_outputs_exist(workflow_run):
    res = workflow_run["results"]
    for name in ("summary", "fold_means", "ttests", "algorithm_order", "audit", "runtime"):
        table = pd.read_csv(res / "tables" / f"{name}.tsv", sep="\t")
        assert len(table) > 0, name
    assert (res / "claims.md").read_text().startswith("#")
    runtime = pd.read_csv(res / "tables" / "runtime.tsv", sep="\t")
    assert len(runtime) == N_MODELS * len(TRAIN) * len(FOLDS)
    assert (runtime["s"] > 0).all() and (runtime["max_rss"] > 0).all()
    assert set(runtime.loc[runtime["algorithm"] == "ranknet", "seed"]) == set(SEEDS)


FRESH_FIT = """
import json
import sys
import numpy as np
from ltrconv import rankers
from ltrconv.data.letor import Dataset
cache, algorithm, params, out = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
train, vali, test = (Dataset.load(f"{cache}/{split}.npz") for split in ("train", "vali", "test"))
model = rankers.make(algorithm, metric="ndcg@10:yahoo", **params)
model.fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid,
          docid=train.docid, docid_val=vali.docid)
np.save(out, model.predict(test.X))
"""


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_a_job_fits_each_fold_as_a_fresh_process_would(workflow_run, algorithm, tmp_path):
    """A train job fits every fold in one process; its last fold's model (fitted after the
    others) gives the scores of a model fitted in a process of its own, with the jobs' OpenBLAS
    kernels, from the same data and parameters."""
    from ltrconv import rankers

    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    environment.pin(env)
    seed = SEEDS[-1] if algorithm in RANDOM else SEEDS[0]
    params = dict(ALGORITHMS[algorithm], **({"random_state": seed} if algorithm in RANDOM else {}))
    params.update({n: 1 for n in ("num_threads", "n_jobs") if n in rankers.param_names(algorithm)})
    cache = workflow_run["work"] / "resources" / "SYN" / "cache" / f"fold{FOLDS[-1]}"
    args = [str(cache), algorithm, json.dumps(params), str(tmp_path / "scores.npy")]
    proc = subprocess.run([sys.executable, "-c", FRESH_FIT, *args], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    job = np.load(workflow_run["results"] / "models" / algorithm / "yahoo" / f"seed{seed}"
                  / f"fold{FOLDS[-1]}.test_scores.npy")
    np.testing.assert_array_equal(job, np.load(tmp_path / "scores.npy"))


def test_per_query_table_complete(workflow_run):
    pq = pd.read_parquet(workflow_run["results"] / "per_query.parquet")
    assert list(pq.columns) == PER_QUERY_COLUMNS
    assert pq["value"].dtype == np.float64 and pd.api.types.is_string_dtype(pq["qid"])
    combos = pq.groupby(["fold", "seed", "algorithm", "train_convention", "eval_convention"]).size()
    assert len(combos) == len(FOLDS) * N_MODELS * len(TRAIN) * len(EVAL + TIES)
    metrics = set(zip(pq["metric"], pq["k"]))
    assert metrics == {("NDCG", k) for k in range(1, 11)} | {("P", k) for k in range(1, 11)} | {("MAP", 0)}
    for fold in FOLDS:
        want = set(map(str, workflow_run["tests"][fold].query_ids))
        got = pq[pq["fold"] == fold].groupby(["seed", "algorithm", "train_convention",
                                              "eval_convention", "metric", "k"])["qid"].agg(set)
        assert all(g == want for g in got), f"fold {fold}: not every test query evaluated"
    assert pq.duplicated(["fold", "seed", "algorithm", "train_convention", "eval_convention",
                          "metric", "k", "qid"]).sum() == 0


def test_summary_values_and_yahoo_gap(workflow_run):
    summary = pd.read_csv(workflow_run["results"] / "tables" / "summary.tsv", sep="\t")
    assert summary["mean"].between(0, 1).all()
    shares = [np.mean([workflow_run["tests"][f].y[a:b].max() == 0
                       for a, b in zip(workflow_run["tests"][f].offsets[:-1],
                                       workflow_run["tests"][f].offsets[1:])]) for f in FOLDS]
    expected = float(np.mean(shares))
    assert expected > 0
    ndcg = summary[summary["metric"] == "NDCG"].set_index(
        ["algorithm", "train_convention", "k", "eval_convention"])["mean"].unstack()
    gap = ndcg["yahoo"] - ndcg["ranklib"]
    assert len(gap) == (len(ALGORITHMS) + len(VARIANTS)) * len(TRAIN) * 10
    np.testing.assert_allclose(gap.to_numpy(), expected, atol=1e-9)


def test_figures_are_png(workflow_run):
    import matplotlib.image as mpimg

    res = workflow_run["results"]
    pngs = [res / "figures" / f"{name}.png" for name in ("figure1", "figure2", "runtime")]
    pngs += [res / "figures" / "ties" / f"{a}.png" for a in [*ALGORITHMS, *VARIANTS]]
    pngs.append(res.parent / "study" / "figures" / "winning.png")
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert mpimg.imread(png).shape[0] > 100
        assert (png.with_suffix(".pdf")).read_bytes()[:4] == b"%PDF"


def test_rerun_has_nothing_to_do(workflow_run):
    proc = snakemake(workflow_run["work"], workflow_run["config"], "-n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Nothing to be done" in proc.stdout + proc.stderr


@pytest.fixture
def run_copy(workflow_run, tmp_path):
    """A copy of the finished run to damage: outputs, their records, Snakemake's metadata."""
    work = tmp_path / "work"
    shutil.copytree(workflow_run["work"], work, symlinks=True)
    return work


def truncate(path: Path, size: int) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(size)


def cut_mid_row(path: Path) -> None:
    """Cut a text table inside a row, as a write interrupted there leaves it."""
    text = path.read_bytes()
    end = text.rindex(b"\n", 0, len(text) - 1) + 3  # two bytes into the last row
    path.write_bytes(text[:end])


def test_a_truncated_model_is_made_again(run_copy, workflow_run):
    """Each job records its outputs' bytes; a model changed since is found when the workflow
    starts (a dry run says so and changes nothing), removed by a run and made again by its
    train job, though nothing reads the model."""
    model = "out/SYN/models/adarank/yahoo/seed0/fold1.pkl"
    written = (run_copy / model).read_bytes()
    truncate(run_copy / model, 50)
    proc = snakemake(run_copy, workflow_run["config"], "-n")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-2000:]
    assert (f"{model}: 50 bytes where its job wrote {len(written)}; a run removes it and rule "
            "train makes it again") in out
    assert (run_copy / model).stat().st_size == 50
    proc = snakemake(run_copy, workflow_run["config"], model)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-2000:]
    assert f"{model}: 50 bytes where its job wrote {len(written)}; removed: rule train" in out
    assert (run_copy / model).read_bytes() == written  # AdaRank is deterministic
    proc = snakemake(run_copy, workflow_run["config"], model, "-n")
    out = proc.stdout + proc.stderr
    assert "Nothing to be done" in out and "makes it again" not in out


@pytest.mark.parametrize("damaged, damage, target", [
    ("out/SYN/eval/adarank/yahoo/seed0/fold1.parquet", lambda p: truncate(p, 100),
     "out/SYN/per_query.parquet"),
    ("out/SYN/models/adarank/yahoo/seed0/fold1.test_scores.npy", lambda p: truncate(p, 100),
     "out/SYN/eval/adarank/yahoo/seed0/fold1.parquet"),
    ("out/SYN/tables/summary.tsv", cut_mid_row, "out/SYN/figures/figure1.png"),
    ("out/SYN/models/adarank/yahoo/seed0/fits.tsv", cut_mid_row, "out/SYN/tables/runtime.tsv"),
])
def test_a_job_refuses_a_damaged_input_naming_it(run_copy, workflow_run, damaged, damage, target):
    """Without records of what the jobs wrote, the job reading a damaged file fails on one line
    naming it, instead of a traceback or a table with holes."""
    for record in run_copy.rglob("*.outputs.json"):
        record.unlink()
    damage(run_copy / damaged)
    proc = snakemake(run_copy, workflow_run["config"], target)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert any(f"{damaged}: " in line and "remove it and run the workflow again" in line
               for line in out.splitlines()), out[-3000:]
    assert "Traceback" not in out


def test_going_offline_or_moving_the_copy_invalidates_nothing(workflow_run, tmp_path):
    moved = tmp_path / "elsewhere" / "SYN"
    shutil.copytree(workflow_run["root"] / "SYN", moved)
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump({"offline": True, "datasets": {"SYN": {"local": str(moved)}}}))
    proc = snakemake(workflow_run["work"], workflow_run["config"], "-n", "--configfile",
                     str(workflow_run["config"]), str(overlay))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_implementation_variants(workflow_run):
    res = workflow_run["results"]
    table = pd.read_csv(res / "tables" / "implementation.tsv", sep="\t")
    assert set(table["variant"]) == set(VARIANTS)
    assert dict(zip(table["variant"], table["algorithm"])) == {v: s["of"] for v, s in VARIANTS.items()}
    per_query = pd.read_parquet(res / "per_query.parquet")
    v, base = next(iter(VARIANTS)), VARIANTS[next(iter(VARIANTS))]["of"]
    sel = dict(train_convention="ranklib", eval_convention="ranklib", metric="NDCG", k=10)
    q = per_query[per_query["algorithm"].isin([v, base])]  # deterministic: one seed each
    for col, val in sel.items():
        q = q[q[col] == val]
    wide = q.pivot(index=["fold", "qid"], columns="algorithm", values="value")
    row = table[(table["variant"] == v) & (table["train_convention"] == "ranklib")
                & (table["eval_convention"] == "ranklib") & (table["metric"] == "NDCG") & (table["k"] == 10)]
    assert row["diff"].iloc[0] == pytest.approx((wide[v] - wide[base]).mean(), abs=1e-9)
    assert (res / "figures" / "implementation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    claims = (res / "claims.md").read_text()
    assert "## Implementation sensitivity" in claims
    order = pd.read_csv(res / "tables" / "algorithm_order.tsv", sep="\t")
    assert not set(order["algorithm"]) & set(VARIANTS)


def test_seeds_train_random_algorithms_per_seed(workflow_run):
    res, work = workflow_run["results"], workflow_run["work"]
    pq = pd.read_parquet(res / "per_query.parquet")
    seeds = pq.groupby("algorithm")["seed"].agg(lambda s: sorted(set(s)))
    assert {a: s for a, s in seeds.items() if s == SEEDS} .keys() == RANDOM
    assert all(s == [0] for a, s in seeds.items() if a not in RANDOM)  # trained once
    for a in [*ALGORITHMS, *VARIANTS]:
        dirs = sorted(p.name for p in (res / "models" / a / "ranklib").iterdir())
        assert dirs == ([f"seed{s}" for s in SEEDS] if a in RANDOM else ["seed0"]), a
    # the pairwise rankers train once for both conventions (one log per algorithm and seed),
    # the others once per convention
    log = (work / "logs/SYN/train/ranknet/seed1/train.log").read_text()
    assert "random_state=1" in log and "under ndcg@10:yahoo, ndcg@10:ranklib" in log, log
    assert "random_state" not in (work / "logs/SYN/train/rankboost/seed0/train.log").read_text()
    assert "random_state=1" in (work / "logs/SYN/train/coordinate_ascent/yahoo/seed1/"
                                "train.log").read_text()
    # the two seeds' models differ, and the study's tables average them query by query
    sel = pq[(pq["algorithm"] == "ranknet") & (pq["eval_convention"] == "ranklib")
             & (pq["metric"] == "NDCG") & (pq["k"] == 10) & (pq["train_convention"] == "ranklib")]
    by_seed = sel.pivot(index=["fold", "qid"], columns="seed", values="value")
    assert not np.allclose(by_seed[0], by_seed[1])
    folds = pd.read_csv(res / "tables" / "fold_means.tsv", sep="\t")
    fm = folds[(folds["algorithm"] == "ranknet") & (folds["eval_convention"] == "ranklib")
               & (folds["metric"] == "NDCG") & (folds["k"] == 10)
               & (folds["train_convention"] == "ranklib")].set_index("fold")["mean"]
    expected = by_seed.mean(axis=1).groupby(level="fold").mean()
    np.testing.assert_allclose(fm.sort_index(), expected.sort_index(), atol=1e-12)
    seed_means = pd.read_csv(res / "tables" / "seed_fold_means.tsv", sep="\t")
    got = seed_means[(seed_means["algorithm"] == "ranknet") & (seed_means["eval_convention"] == "ranklib")
                     & (seed_means["metric"] == "NDCG") & (seed_means["k"] == 10)
                     & (seed_means["train_convention"] == "ranklib")]
    assert len(got) == len(FOLDS) * len(SEEDS)
    np.testing.assert_allclose(got.set_index(["fold", "seed"])["mean"].sort_index(),
                               by_seed.stack().groupby(level=["fold", "seed"]).mean().sort_index())
    st = pd.read_csv(res / "tables" / "seed_ttests.tsv", sep="\t")
    assert set(st.loc[st["algorithm"] == "coordinate_ascent", "seed"]) == set(SEEDS)
    assert set(st.loc[st["algorithm"] == "adarank", "seed"]) == {0}
    claims = (res / "claims.md").read_text()
    assert "## Seed variance" in claims and "### Claim 3: training with letor" in claims
    assert "seed-to-seed sd" in claims and "Holm's correction runs over the tests of one claim" in claims


def test_ties_table(workflow_run):
    res = workflow_run["results"]
    ties = pd.read_csv(res / "tables" / "ties.tsv", sep="\t")
    assert len(ties) == N_MODELS * len(TRAIN) * len(FOLDS) and set(ties["k"]) == {10}
    assert (ties["tiepess"] <= ties["tieavg"] + 1e-12).all()
    assert (ties["tieavg"] <= ties["tieopt"] + 1e-12).all()
    assert ((ties["ranklib"] >= ties["tiepess"] - 1e-12) & (ties["ranklib"] <= ties["tieopt"] + 1e-12)).all()
    np.testing.assert_allclose(ties["width"], ties["tieopt"] - ties["tiepess"])
    assert ties["tied_share"].between(0, 1).all()
    pq = pd.read_parquet(res / "per_query.parquet")
    one = ties.iloc[0]
    q = pq[(pq["algorithm"] == one["algorithm"]) & (pq["train_convention"] == one["train_convention"])
           & (pq["fold"] == one["fold"]) & (pq["seed"] == one["seed"]) & (pq["metric"] == "NDCG")
           & (pq["k"] == 10)]
    wide = q.pivot(index="qid", columns="eval_convention", values="value")
    assert one["tieopt"] == pytest.approx(wide["ranklib-tieopt"].mean())
    assert one["tied_share"] == pytest.approx(((wide["ranklib-tieopt"] - wide["ranklib-tiepess"]) > 1e-12).mean())
    # RankBoost's stumps tie documents: its reported score moves with the tie order
    assert ties.loc[ties["algorithm"] == "rankboost", "width"].max() > 0


def test_winning_table_and_claims(workflow_run):
    from ltrconv.study.winning import winning_numbers

    res = workflow_run["results"]
    table = pd.read_csv(res.parent / "study" / "tables" / "winning.tsv", sep="\t")
    folds = pd.read_csv(res / "tables" / "fold_means.tsv", sep="\t")
    folds = folds[folds["algorithm"].isin(ALGORITHMS)]
    again = winning_numbers(folds, by=["train_convention", "eval_convention", "metric", "k"])
    key = ["train_convention", "eval_convention", "metric", "k", "algorithm"]
    pd.testing.assert_frame_equal(table.sort_values(key, ignore_index=True),
                                  again.sort_values(key, ignore_index=True), check_dtype=False)
    assert set(table["algorithm"]) == set(ALGORITHMS) and (table["n_units"] == len(FOLDS)).all()
    assert (table["IWN"] == (len(ALGORITHMS) - 1) * len(FOLDS)).all()
    claims = (res / "claims.md").read_text()
    assert "## Winning numbers" in claims and "- letor: " in claims
    audit = pd.read_csv(res / "tables" / "audit.tsv", sep="\t")
    empty = float(audit.loc[audit["key"] == "empty_share", "value"].iloc[0])
    assert "## Audit predictions" in claims
    assert f"| yahoo − ranklib NDCG@k, any k | {empty:+.4f} |" in claims
    assert "| share of queries letor scores 0 at k = 10 | ≥ " in claims


def test_notebook_redraws_the_pipeline_figures(workflow_run, tmp_path, run_notebook):
    out = tmp_path / "nb"
    nb = run_notebook(workflow_run["results"], out)
    for stem in ("figure1", "figure2", "runtime", "winning", "ties_rankboost", "ties_ranknet"):
        assert (out / f"{stem}.png").stat().st_size > 1000
    shown = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(shown) >= 3


def test_jobs_cap_threads_at_the_rules_threads(workflow_run):
    """Each train job keeps numba to its rule's threads: resources.train.threads (1), or
    resources.train_threads of its algorithm or base (RankNet's, 1 here, and ranknet_adam's
    own, 1; RankNet's 2 in tests/test_workflow_scatter.py); numba would otherwise use every
    core."""
    from ltrconv.pipeline import build_plan, config as pconfig

    root = workflow_run["work"] / "logs" / "SYN" / "train"
    logs = sorted(root.rglob("*.log"))
    assert logs
    plan = build_plan(pconfig.fill_defaults(pconfig.merge(
        yaml.safe_load((REPO / "config" / "config.yaml").read_text()),
        yaml.safe_load(workflow_run["config"].read_text())), pconfig.load_schema(REPO)))
    assert plan.fit_threads("ranknet_adam") == plan.fit_threads("ranknet") == 1
    kernels = environment.pin(dict(os.environ))
    policy = os.environ.get("OMP_WAIT_POLICY", "PASSIVE")  # the workflow's unless set
    for log in logs:
        text = log.read_text()
        threads = plan.fit_threads(log.relative_to(root).parts[0])
        pools = re.findall(r"(?:^threads: |, )(\w+) (\d+)", text.split(";")[0])
        assert pools[0][0] == "numba" and {int(n) for _, n in pools} == {threads}, (log, text)
        assert f"OMP_WAIT_POLICY {policy}" in text, log
        if kernels:  # RankSVM's models depend on OpenBLAS's kernels (ltrconv.pipeline.environment)
            assert f"openblas {threads} ({kernels})".lower() in text.lower(), text[:300]


def test_conventions_file_trains_evaluates_and_reruns_when_edited(workflow_run, tmp_path):
    conv = tmp_path / "conventions.yaml"
    conv.write_text(QUARTER)
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(conventions_config(workflow_run["root"] / "SYN", conv)))
    work = tmp_path / "w"
    target = "out/SYN/eval/adarank/yahoo-quarter/fold1.parquet"
    proc = snakemake(work, cfg, target, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    ev = pd.read_parquet(work / target)
    assert set(ev["eval_convention"]) == {"ranklib", "yahoo-quarter"}
    ndcg = ev[(ev["metric"] == "NDCG") & (ev["k"] == 10)].pivot(
        index="qid", columns="eval_convention", values="value")
    test = workflow_run["tests"][1]
    empty = {str(q) for q, a, b in zip(test.query_ids, test.offsets[:-1], test.offsets[1:])
             if test.y[a:b].max() == 0}
    assert empty and set(ndcg.index) > empty
    gap = ndcg["yahoo-quarter"] - ndcg["ranklib"]
    np.testing.assert_allclose(gap[sorted(empty)], 0.25)
    np.testing.assert_allclose(gap.drop(sorted(empty)), 0.0)
    log = (work / "logs/SYN/train/adarank/yahoo-quarter/train.log").read_text()
    assert "ndcg@10:yahoo-quarter" in log

    conv.write_text(QUARTER.replace("0.25", "0.5"))
    proc = snakemake(work, cfg, target, "-n", timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-2000:]
    assert re.search(r"params have changed since last execution:\s+train", out), out[-2000:]
    assert re.search(r"^train\s+1$", out, re.M) and re.search(r"^evaluate\s+1$", out, re.M)
    assert not re.search(r"^(acquire|prepare)\s+\d+$", out, re.M)


def test_no_shell_command_lines(workflow_run):
    logs = [p.read_text() for p in (workflow_run["work"] / ".snakemake" / "log").glob("*.log")]
    assert any("rule train:" in text for text in logs)
    assert not any("Shell command" in text for text in logs)


@pytest.fixture(scope="module")
def report(workflow_run):
    """snakemake --report on the synthetic run: the report's path and its results table."""
    path = workflow_run["root"] / "report.html"
    proc = snakemake(workflow_run["work"], workflow_run["config"], "--report", str(path))
    assert proc.returncode == 0, proc.stderr[-4000:]
    text = path.read_text(encoding="utf-8")
    marker = "var results = {"
    results, _ = json.JSONDecoder().raw_decode(text, text.index(marker) + len(marker) - 1)
    return path, results


def test_report_shows_pages_with_captions_from_config(report):
    _, results = report
    pages = {Path(p).stem: r for p, r in results.items()}
    tables = {"summary", "fold_means", "ttests", "algorithm_order", "audit", "runtime",
              "implementation", "seed_fold_means", "seed_ttests", "ties", "winning"}
    figures = {"figure1", "figure2", "runtime", "implementation", "winning"}
    figures |= {f"ties_{a}" for a in [*ALGORITHMS, *VARIANTS]}
    assert set(pages) == {"claims"} | {f"table_{t}" for t in tables} | {f"figure_{f}" for f in figures}
    assert {r["mime_type"] for r in results.values()} == {"text/html"}  # shown, not downloaded
    caption = {k: html.unescape(" ".join(re.sub(r"<[^>]+>", "", r["caption"]).split()))
               for k, r in pages.items()}
    assert "AdaRank, LambdaMART, RankNet, Coordinate Ascent (rows)" in caption["figure_figure1"]
    assert "one curve per training convention (yahoo, ranklib;" in caption["figure_figure1"]
    assert ("AdaRank, Coordinate Ascent, LambdaMART, RankBoost, RankNet, RankSVM trained with the "
            "official (ranklib)") in caption["figure_figure2"]
    assert "(ranklib, trec, yahoo, letor)" in caption["figure_figure2"]
    assert "largest |r|" in caption["figure_implementation"]
    assert "RankBoost, AdaRank: sums of threshold stumps" in caption["table_ties"]
    assert "expect it for RankBoost and AdaRank" in caption["figure_ties_rankboost"]
    assert "trained once per seed (Coordinate Ascent, RankNet)" in caption["table_seed_fold_means"]
    assert "(datasets SYN; folds 1, 2)" in caption["table_winning"]
    assert not any("mailto:" in r["caption"] for r in results.values())


def test_report_is_readable_in_a_browser(report, tmp_path):
    sys.path.insert(0, str(REPO / "scripts"))
    import check_report

    chromium = check_report.find_chromium()
    if chromium is None:
        pytest.skip("no headless Chromium on PATH (Debian package chromium): the report's "
                    "layout cannot be looked at")
    path, _ = report
    found = {Path(r.path).stem: r for r in check_report.check_report(path, chromium, 1400, 1000)}
    assert all(r.ok for r in found.values()), {k: r.problems for k, r in found.items() if not r.ok}
    for name in ("figure1", "figure2", "runtime", "implementation"):
        r = found[f"figure_{name}"]  # whole figure on screen, legend band as drawn
        assert r.legend_diff < check_report.MAX_MEAN_DIFF and r.figure_diff < check_report.MAX_MEAN_DIFF
    claims = found["claims"].text
    assert "Claims of Busa-Fekete et al. (2012) checked on SYN" in claims
    assert "Verdict:" in claims and "|---|" not in claims  # rendered, not Markdown source
    assert "train_convention\teval_convention" in found["table_summary"].text  # header cells


def test_report_checker_sees_a_cut_off_figure_and_a_download(report, tmp_path):
    """The checker itself: a tall figure shown as a bare image and a TSV are both refused."""
    sys.path.insert(0, str(REPO / "scripts"))
    import check_report

    chromium = check_report.find_chromium()
    if chromium is None:
        pytest.skip("no headless Chromium on PATH (Debian package chromium)")
    path, results = report
    png = (path.parent / "work" / "out" / "SYN" / "figures" / "figure1.png").read_bytes()
    tsv = (path.parent / "work" / "out" / "SYN" / "tables" / "audit.tsv").read_bytes()
    keep = dict(list(results.items())[:1])
    key = next(iter(keep))
    bad = {
        "tall.png": {**keep[key], "mime_type": "image/png",
                     "data_uri": "data:image/png;base64," + base64.b64encode(png).decode()},
        "audit.tsv": {**keep[key], "mime_type": "text/tab-separated-values",
                      "data_uri": "data:text/tab-separated-values;base64," + base64.b64encode(tsv).decode()},
    }
    text = path.read_text(encoding="utf-8")
    marker = "var results = {"
    start = text.index(marker) + len(marker) - 1
    _, end = json.JSONDecoder().raw_decode(text, start)
    mutated = tmp_path / "mutated.html"
    mutated.write_text(text[:start] + json.dumps(bad) + text[end:], encoding="utf-8")
    found = {r.path: r for r in check_report.check_report(mutated, chromium, 1400, 1000)}
    assert any("cut off" in p for p in found["tall.png"].problems), found["tall.png"].problems
    assert found["audit.tsv"].problems == ["offered as a download (text/tab-separated-values), not shown"]


