"""Train every algorithm under every training convention on every fold (and, when it is random,
with every seed); score the test split."""


rule train:
    """Every fold of one algorithm under one training convention, in one job: on MQ2008 most fits
    take less than the process start-up (about a second, scikit-learn's import more). A
    scattered dataset's models come from rule gather instead (workflow/rules/scatter.smk)."""
    wildcard_constraints:
        dataset=one_of(GROUPED),
    input:
        train=lambda wc: [cache(wc.dataset, f, "train") for f in FOLDS],
        vali=lambda wc: [cache(wc.dataset, f, "vali") for f in FOLDS],
        test=lambda wc: [cache(wc.dataset, f, "test") for f in FOLDS],
    output:
        models=fold_models("models", ".pkl"),
        scores=fold_models("models", ".test_scores.npy"),
        fits=convention_stem("models") + "fits.tsv",
    params:
        folds=FOLDS,
        fold_column=True,
        ranker=lambda wc: ranker_of(wc.algorithm),
        metric=lambda wc: train_metric(wc.train_convention),
        hyperparams=train_hyperparams,
        **CONVENTIONS_PARAMS,
    log:
        convention_stem("train", LOGS) + "train.log",
    benchmark:
        convention_stem("bench/train") + "folds.tsv"
    threads: RES["train"]["threads"]
    resources:
        **job_resources("train"),
    conda:
        CONDA_ENV
    script:
        "../scripts/fit.py"
