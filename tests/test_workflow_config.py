"""Configurations the workflow refuses before any job runs, each naming the config key, and
the dry runs of the shipped configurations."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
import yaml

from workflow_helpers import (ALGORITHMS, EVAL, REPO, SNAKEMAKE, VARIANTS, base_config,
                              conventions_config, local_copies, snakemake, write_dataset)


# Each refusal's wording is checked without Snakemake, case by case (tests/test_plan.py); the
# dry runs here check that the refusals reach the user as the workflow starts: every one at
# once, one line each naming its key, no traceback, nothing written.
PLANTED = [  # (key, what the line says), one per kind of check, all in one configuration
    ("results_dir", "'/' is the filesystem root"),
    ("resources_dir", "'' is empty"),
    ("datasets...", "'..' is not a plain name"),
    ("datasets.SYN.layout.fold_dir", "'/data/Fold{k}' is an absolute path"),
    ("algorithms.listnet", "unknown algorithm; known: coordinate_ascent,"),
    ("algorithms.adarank.n_rounds", "adarank: n_rounds must be an integer >= 1, got 'ten'"),
    ("algorithms.coordinate_ascent.step_base",
     "step_base must be a finite number >= 0 and <= 1e+06, got True"),
    ("algorithms.rankboost", "RankBoost is deterministic"),
    ("algorithms.ranknet.random_state",
     "the seed of every random algorithm is set by config key 'seeds'"),
    ("algorithms.ranksvm.metric", "set by train_conventions and train_cutoff"),
    ("variants.listnet_fast.of", "unknown algorithm 'listnet'"),
    ("variants.adarank_odd.params", "unknown parameter(s) ['weak_tie']"),
    ("cutoffs", "cutoffs 'ten': expected e.g. '1-10'"),
    ("extensions.ties", "needs ['ranklib-tiepess', 'ranklib-tieavg', 'ranklib-tieopt'] in "
                        "eval_conventions"),
]


def _refused(proc, tmp_path) -> list[str]:
    """The lines naming a config key; checks the dry run stopped as a refusal should."""
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-2000:]
    assert "Traceback" not in out, out[-4000:]
    assert not [p for p in (tmp_path / "w").rglob("*") if ".snakemake" not in p.parts]
    return [line.strip() for line in out.splitlines() if line.strip().startswith("config key '")]


def test_every_refusal_stops_one_dry_run_naming_each_key(tmp_path):
    cfg = base_config(tmp_path / "absent")
    cfg.update(results_dir="/", resources_dir="", cutoffs="ten", eval_conventions=EVAL)
    cfg["datasets"][".."] = dict(cfg["datasets"]["SYN"])
    cfg["datasets"]["SYN"]["layout"] = {"fold_dir": "/data/Fold{k}"}
    cfg["algorithms"] = {**ALGORITHMS, "listnet": {}, "adarank": {"n_rounds": "ten"},
                         "coordinate_ascent": {"step_base": True},
                         "rankboost": {"random_state": 0}, "ranknet": {"random_state": 3},
                         "ranksvm": {"metric": "ndcg@10:trec"}}
    cfg["variants"] = {"listnet_fast": {"of": "listnet", "params": {"n_rounds": 1}},
                       "adarank_odd": {"of": "adarank", "params": {"weak_tie": "convention"}}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    lines = _refused(snakemake(tmp_path / "w", path, "-n", timeout=120), tmp_path)
    for key, message in PLANTED:
        assert sum(line.startswith(f"config key '{key}': ") and message in line
                   for line in lines) == 1, (key, lines)
    assert len(lines) == len(PLANTED), lines


def test_schema_refusals_stop_the_dry_run_naming_each_key(tmp_path):
    cfg = base_config(tmp_path / "absent")
    cfg.update(folds=[1.0], seeds=[0, 0], cutoffs=10)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    lines = _refused(snakemake(tmp_path / "w", path, "-n", timeout=120), tmp_path)
    for key, message in (("folds.0", "1.0 is not of type 'integer'"),
                         ("seeds", "has non-unique elements"),
                         ("cutoffs", "10 is not of type 'string'")):
        assert any(line.startswith(f"config key '{key}': ") and message in line
                   for line in lines), (key, lines)


def test_config_key_given_twice_stops_the_dry_run_naming_file_and_lines(tmp_path):
    cfg = base_config(tmp_path / "SYN")
    write_dataset(tmp_path / "SYN")
    path = tmp_path / "twice.yaml"
    path.write_text(yaml.safe_dump(cfg) + "folds: [1]\n")  # folds is in the dump already
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert re.search(rf"{re.escape(str(path))}:\d+: config key 'folds' is given twice "
                     r"\(first on line \d+\)", out), out[-2000:]


def test_missing_dataset_offline_names_key(tmp_path):
    cfg = base_config(tmp_path / "absent")
    cfg["datasets"]["SYN"] = {"urls": ["http://127.0.0.1:9/SYN.zip"],
                              "search": [str(tmp_path / "nowhere")]}
    cfg["offline"] = True
    path = tmp_path / "missing.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    assert "Set config key datasets.SYN.local" in proc.stdout + proc.stderr


def test_another_checkouts_ltrconv_is_refused_naming_both(tmp_path):
    """Another ltrconv ahead on the path (an install of another checkout) is not what this
    workflow runs: it stops before any job, on one line naming where each one is."""
    stale = tmp_path / "stale" / "ltrconv"
    stale.mkdir(parents=True)
    (stale / "__init__.py").write_text("")
    write_dataset(tmp_path / "SYN")
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(base_config(tmp_path / "SYN")))
    env = dict(os.environ, PYTHONPATH=str(stale.parent))
    proc = snakemake(tmp_path / "w", cfg, "resources/SYN/cache/all.npz", timeout=300, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert any(f"ltrconv is imported from {stale}, not from this workflow's checkout "
               f"{REPO / 'src'}" in line for line in out.splitlines()), out[-2000:]
    assert "Traceback" not in out and not (tmp_path / "w" / "resources").exists()


def test_data_edited_after_acquire_is_refused_by_prepare(tmp_path):
    write_dataset(tmp_path / "SYN")
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(base_config(tmp_path / "SYN")))
    work = tmp_path / "w"
    proc = snakemake(work, cfg, "resources/SYN/manifest.tsv", timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    edited = tmp_path / "SYN" / "Fold2" / "vali.txt"
    first, rest = edited.read_text().split(" ", 1)
    edited.write_text(("1" if first != "1" else "2") + " " + rest)  # one label changed
    proc = snakemake(work, cfg, "resources/SYN/cache/all.npz", timeout=300)
    assert proc.returncode != 0
    log = (work / "logs" / "SYN" / "prepare.log").read_text()
    assert (f"Fold2/vali.txt (a link to {edited}): changed since it was verified" in log
            and "the manifest resources/SYN/manifest.tsv records" in log), log[-2000:]
    assert not list((work / "resources" / "SYN").glob("cache/**/*.npz"))


def test_full_config_dry_run(mq2008_dir, tmp_path):
    overlay = local_copies(tmp_path, MQ2008=mq2008_dir)
    proc = subprocess.run([*SNAKEMAKE, "-s", str(REPO / "Snakefile"), "--directory",
                           str(tmp_path), "-n", "--quiet", "rules", "--configfile", str(overlay)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout + proc.stderr
    n_algorithms = 6 + len(VARIANTS)
    # the pairwise rankers (RankBoost, RankSVM, RankNet: their loss is pairwise, the NDCG only
    # selects) and their variants are trained once for the three training conventions; the
    # others once per convention. One evaluate job per algorithm.
    rankers = ["rankboost", "ranksvm", "ranknet"] + [v.get("ranker", v["of"])
                                                      for v in VARIANTS.values()]
    shared = sum(r in ("rankboost", "ranksvm", "ranknet", "ranknet_adam") for r in rankers)
    assert shared == 5
    assert re.search(rf"^train\s+{(n_algorithms - shared) * 3}$", out, re.M), out[-2000:]
    assert re.search(rf"^train_shared\s+{shared}$", out, re.M), out[-2000:]
    assert re.search(rf"^evaluate\s+{n_algorithms}$", out, re.M), out[-2000:]


def test_lint_is_clean(tmp_path):
    write_dataset(tmp_path / "SYN")
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(base_config(tmp_path / "SYN")))
    proc = snakemake(tmp_path / "w", cfg, "--lint", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Lints for" not in out, out[-4000:]


def test_conventions_file_errors_name_the_key(tmp_path):
    write_dataset(tmp_path / "SYN")
    conv = tmp_path / "conventions.yaml"
    conv.write_text("conventions:\n  yahoo-quarter: {base: yahoo, empty: lots}\n")
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(conventions_config(tmp_path / "SYN", conv)))
    proc = snakemake(tmp_path / "w", cfg, "-n", timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"config key 'conventions_file': {conv}: conventions.yahoo-quarter" in out, out[-2000:]


@pytest.mark.parametrize("step, change, message", [
    ("acquire", {"expect": {"queries": 51}}, "fold 1 has 50 queries in total, expect.queries is 51"),
    ("prepare", {"labels": [0, 1]}, "labels [2] are outside the configured label scale [0, 1]"),
])
def test_failed_data_step_leaves_only_its_log(tmp_path, step, change, message):
    write_dataset(tmp_path / "SYN")
    cfg = base_config(tmp_path / "SYN")
    cfg["datasets"]["SYN"].update(change)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    work = tmp_path / "w"
    proc = snakemake(work, path, "resources/SYN/cache/all.npz", timeout=300)
    assert proc.returncode != 0
    assert f"error in rule {step} {{'dataset': 'SYN'}}" in proc.stderr and message in proc.stderr
    assert proc.stderr.count(message) == 1  # the job's log, printed once by Snakemake
    left = {str(p.relative_to(work)) for p in work.rglob("*")
            if ".snakemake" not in p.parts and "data" not in p.relative_to(work).parts}
    kept = {"logs", "logs/SYN", f"logs/SYN/{step}.log"}
    if step == "prepare":  # what the successful acquire made stays
        kept |= {"logs/SYN/acquire.log", "logs/SYN/acquire.outputs.json", "resources",
                 "resources/SYN", "resources/SYN/manifest.tsv",
                 "out", "out/SYN", "out/SYN/bench", "out/SYN/bench/acquire.tsv"}
    assert left == kept
    assert message in (work / "logs" / "SYN" / f"{step}.log").read_text()


def test_extended_config_dry_run(mq2008_dir, tmp_path):
    ohsumed = mq2008_dir.parent / "OHSUMED"  # kept beside MQ2008
    if not (ohsumed / "Fold1" / "train.txt").exists():
        pytest.skip(f"OHSUMED not found at {ohsumed}, beside MQ2008")
    overlay = local_copies(tmp_path, MQ2008=mq2008_dir, OHSUMED=ohsumed)
    proc = subprocess.run([*SNAKEMAKE, "-s", str(REPO / "Snakefile"), "--directory",
                           str(tmp_path), "-n", "--quiet", "rules", "--configfile",
                           str(REPO / "config" / "extended.yaml"), str(overlay)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout + proc.stderr
    cfg = yaml.safe_load((REPO / "config" / "extended.yaml").read_text())
    n_variants = len({**VARIANTS, **cfg["variants"]}) - list(cfg["variants"].values()).count(None)
    models = 2 * (6 + n_variants + 2 * (len(cfg["seeds"]) - 1))  # datasets x (algorithm, seed)
    seeds = lambda a: len(cfg["seeds"]) if a in ("coordinate_ascent", "ranknet") else 1  # noqa: E731
    own = cfg["train_conventions_by_algorithm"]  # more conventions: an evaluate rule each
    more = 2 * sum((len(c) - 3) * seeds(a) for a, c in own.items())
    variants = {**VARIANTS, **cfg["variants"]}
    selecting = ("rankboost", "ranksvm", "ranknet", "ranknet_adam")
    pairwise = ["rankboost", "ranksvm", "ranknet"] + [
        v for v, spec in variants.items()
        if spec is not None and spec.get("ranker", spec["of"]) in selecting]
    assert pairwise == ["rankboost", "ranksvm", "ranknet"]  # their variants are off here
    shared = 2 * sum(seeds(a) for a in pairwise)  # trained once for all three conventions
    for rule, count in (("train", 3 * (models - shared) + more), ("train_shared", shared),
                        ("evaluate", models - 2 * sum(seeds(a) for a in own)),
                        *((f"evaluate_{a}", 2 * seeds(a)) for a in own), ("winning", 1),
                        ("seed_tables", 2), ("ties_figure", 2),  # one job draws each algorithm's
                        ("library_tables", 2), ("library_figure", 2), ("library_order", 1)):
        assert re.search(rf"^{rule}\s+{count}$", out, re.M), (rule, out[-2000:])




def test_a_made_up_figure_gets_its_rule_target_and_report_page(tmp_path):
    """One entry added to ltrconv.pipeline.figures.FIGURES (here before Snakemake starts, by a
    sitecustomize module) gives the workflow a rule drawing it, a job per dataset and its page
    in the report."""
    from test_plan import MADE_UP

    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(
        "from ltrconv.pipeline import figures\n"
        f"figures.FIGURES += (figures.Figure(**{MADE_UP!r}),)\n")
    write_dataset(tmp_path / "SYN")
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(base_config(tmp_path / "SYN")))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tmp_path / "site"), str(REPO / "src"), os.environ.get("PYTHONPATH", "")]))
    proc = snakemake(tmp_path / "w", cfg, "-n", timeout=300, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert re.search(r"^made_up_figure\s+1$", out, re.M), out[-3000:]
    assert "output: out/SYN/figures/made_up.png, out/SYN/figures/made_up.pdf" in out
    assert "out/SYN/report/figure_made_up.html" in out
