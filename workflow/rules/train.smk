"""Train every algorithm under every training convention on every fold (and, when it is random,
with every seed); score the test split."""


rule train:
    """Every fold of one algorithm under one training convention, in one job: on MQ2008 most fits
    take less than the process start-up (about a second, scikit-learn's import more). A
    scattered dataset's models come from rule gather instead (workflow/rules/scatter.smk)."""
    wildcard_constraints:
        dataset=one_of(PLAN.grouped),
    input:
        train=lambda wc: [cache(wc.dataset, f, "train") for f in PLAN.folds],
        vali=lambda wc: [cache(wc.dataset, f, "vali") for f in PLAN.folds],
        test=lambda wc: [cache(wc.dataset, f, "test") for f in PLAN.folds],
    output:
        models=fold_models("models", ".pkl"),
        scores=fold_models("models", ".test_scores.npy"),
        fits=convention_stem("models") + "fits.tsv",
    params:
        folds=list(PLAN.folds),
        fold_column=True,
        ranker=lambda wc: PLAN.algorithms[wc.algorithm].ranker,
        metric=lambda wc: train_metric(wc.train_convention),
        hyperparams=train_hyperparams,
        **CONVENTIONS_PARAMS,
    log:
        convention_stem("train", PLAN.logs) + "train.log",
    benchmark:
        convention_stem("bench/train") + "folds.tsv"
    threads: PLAN.train_threads
    resources:
        **job_resources("train"),
    conda:
        CONDA_ENV
    script:
        "../scripts/fit.py"
