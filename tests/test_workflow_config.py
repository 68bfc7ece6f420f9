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


def test_variant_with_unknown_parameter_names_key(tmp_path):
    cfg = base_config(tmp_path / "SYN")
    write_dataset(tmp_path / "SYN")
    cfg["variants"] = {"adarank_odd": {"of": "adarank", "params": {"weak_tie": "convention"}}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    assert "config key 'variants.adarank_odd.params'" in proc.stdout + proc.stderr


@pytest.mark.parametrize("change, key, message", [
    ({"algorithms": {"adarank": {"n_roundz": 5}}}, "algorithms.adarank",
     "adarank: unknown parameter(s) ['n_roundz']"),
    ({"algorithms": {"adarank": {"n_rounds": "ten"}}}, "algorithms.adarank.n_rounds",
     "adarank: n_rounds must be an integer >= 1, got 'ten'"),
    ({"algorithms": {"coordinate_ascent": {"step_base": True}}},
     "algorithms.coordinate_ascent.step_base",
     "step_base must be a finite number >= 0 and <= 1e+06, got True"),
    ({"algorithms": {"rankboost": {"random_state": 0}}}, "algorithms.rankboost",
     "RankBoost is deterministic"),
    ({"algorithms": {"ranksvm": {"metric": "ndcg@10:trec"}}}, "algorithms.ranksvm.metric",
     "set by train_conventions and train_cutoff"),
    ({"variants": {"adarank_odd": {"of": "adarank", "params": {"weak_ties": "stable-ish"}}}},
     "variants.adarank_odd.params.weak_ties", "weak_ties must be one of 'selection', "),
    ({"cutoffs": "ten"}, "cutoffs", "cutoffs 'ten': expected e.g. '1-10'"),
    ({"algorithms": {"ranknet": {"random_state": 3}}}, "algorithms.ranknet.random_state",
     "the seed of every random algorithm is set by config key 'seeds'"),
    ({"eval_conventions": EVAL}, "extensions.ties",
     "needs ['ranklib-tiepess', 'ranklib-tieavg', 'ranklib-tieopt'] in eval_conventions"),
    ({"seeds": [0, 0]}, "seeds", "has non-unique elements"),
])
def test_bad_hyperparameter_or_cutoffs_names_key(tmp_path, change, key, message):
    """Checked against the rankers' own constraints before any job runs (snakemake -n)."""
    cfg = base_config(tmp_path / "absent")
    for section, value in change.items():
        if section == "algorithms":
            cfg["algorithms"] = {**cfg["algorithms"], **value}
        else:
            cfg[section] = value
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"config key '{key}': " in out and message in out, out[-2000:]
    assert not (tmp_path / "w" / "out").exists()
def rename_dataset(name):
    def change(cfg, tmp_path):
        cfg["datasets"][name] = cfg["datasets"].pop("SYN")
    return change


def set_dataset(**values):
    def change(cfg, tmp_path):
        cfg["datasets"]["SYN"].update(values)
    return change


def set_layout(**values):
    def change(cfg, tmp_path):
        cfg["datasets"]["SYN"]["layout"] = values
    return change


def set_key(**values):
    def change(cfg, tmp_path):
        cfg.update(values)
    return change


def gain_map_without_label_3(cfg, tmp_path):
    conv = tmp_path / "conventions.yaml"
    conv.write_text("conventions:\n  gain012: {base: ranklib, gain: '0:0;1:1;2:3'}\n")
    cfg["conventions_file"] = str(conv)
    cfg["eval_conventions"] = [*cfg["eval_conventions"], "gain012"]
    cfg["datasets"]["SYN"]["labels"] = [0, 1, 2, 3]


@pytest.mark.parametrize("change, key, message", [
    (set_key(results_dir=""), "results_dir", "'' is empty"),
    (set_key(results_dir="/"), "results_dir", "'/' is the filesystem root"),
    (set_key(resources_dir=""), "resources_dir", "'' is empty"),
    (rename_dataset(".."), "datasets...", "'..' is not a plain name"),
    (rename_dataset("a/b"), "datasets.a/b", "'a/b' is not a plain name"),
    (rename_dataset("../x"), "datasets.../x", "'../x' is not a plain name"),
    (rename_dataset(""), "datasets.", "'' is not a plain name"),
    (set_layout(train="../../x.txt"), "datasets.SYN.layout.train",
     "'../../x.txt' must name a file or directory inside its directory"),
    (set_layout(fold_dir="/data/Fold{k}"), "datasets.SYN.layout.fold_dir",
     "'/data/Fold{k}' is an absolute path"),
    (set_layout(fold_dir="Fold{j}"), "datasets.SYN.layout.fold_dir",
     "'Fold{j}' has the unknown placeholder(s) {j} (allowed: {k})"),
    (set_dataset(search=["{datasett}"]), "datasets.SYN.search",
     "entry 0 '{datasett}' has the unknown placeholder(s) {datasett} (allowed: {dataset})"),
    (set_dataset(n_features=200000), "datasets.SYN.n_features",
     "200000 is above 100000, the most features the LETOR reader accepts"),
    (set_dataset(labels=[0, 1, 2, 5000]), "datasets.SYN.labels",
     "[5000] above 1000, the largest label the evaluation accepts"),
    (gain_map_without_label_3, "eval_conventions",
     "gain map has no value for label(s) [3], a label of datasets.SYN.labels [0, 1, 2, 3]"),
    (set_key(folds=[1.0]), "folds.0", "1.0 is not of type 'integer'"),
])
def test_config_error_stops_the_dry_run_naming_the_key(tmp_path, change, key, message):
    """Refused while the configuration is read: one line names the key, no job runs."""
    cfg = base_config(tmp_path / "absent")
    change(cfg, tmp_path)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert any(f"config key '{key}': " in line and message in line for line in out.splitlines()), \
        out[-2000:]
    assert "Traceback" not in out
    assert not [p for p in (tmp_path / "w").rglob("*") if ".snakemake" not in p.parts]


def test_unknown_algorithm_names_key(tmp_path):
    cfg = base_config(tmp_path / "SYN")
    write_dataset(tmp_path / "SYN")
    cfg["algorithms"] = {**ALGORITHMS, "listnet": {}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "config key 'algorithms.listnet': unknown algorithm; known: coordinate_ascent," in out
    cfg["algorithms"] = ALGORITHMS
    cfg["variants"] = {"listnet_fast": {"of": "listnet", "params": {"n_rounds": 1}}}
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    assert "config key 'variants.listnet_fast.of': unknown algorithm 'listnet'" in proc.stdout + proc.stderr


def test_wrong_type_names_key(tmp_path):
    cfg = base_config(tmp_path / "absent")
    cfg["folds"] = "one and two"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "config key 'folds'" in out and "is not of type 'array'" in out


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
    plain = base_config(tmp_path / "SYN")
    plain["train_conventions"] = ["yahoo-quarter"]
    cfg.write_text(yaml.safe_dump(plain))
    proc = snakemake(tmp_path / "w", cfg, "-n", timeout=120)
    assert proc.returncode != 0
    assert "config key 'train_conventions': unknown convention 'yahoo-quarter'" in proc.stdout + proc.stderr


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
                        ("seed_tables", 2), ("ties_figure", 2 * (6 + n_variants)),
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
