"""Train every algorithm under every training convention on every fold (and, when it is random,
with every seed); score the test split. An algorithm whose training the convention does not
steer (PLAN.shared_training) is trained once for all its conventions."""


rule train:
    """Every fold of one algorithm under one training convention, in one job: on MQ2008 most fits
    take less than the process start-up (about a second, scikit-learn's import more). A
    scattered dataset's models come from rule gather instead (workflow/rules/scatter.smk)."""
    wildcard_constraints:
        dataset=one_of(PLAN.grouped),
        algorithm=one_of(PLAN.apart_algorithms),
    input:
        train=lambda wc: [cache(wc.dataset, f, "train") for f in PLAN.folds],
        vali=lambda wc: [cache(wc.dataset, f, "vali") for f in PLAN.folds],
        test=lambda wc: [cache(wc.dataset, f, "test") for f in PLAN.folds],
    output:
        models=fold_models("models", ".pkl"),
        scores=fold_models("models", ".test_scores.npy"),
        fits=[convention_stem("models") + "fits.tsv"],
    params:
        folds=list(PLAN.folds),
        fold_column=True,
        ranker=lambda wc: PLAN.algorithms[wc.algorithm].ranker,
        metrics=lambda wc: [train_metric(wc.train_convention)],
        hyperparams=train_hyperparams,
        **CONVENTIONS_PARAMS,
    log:
        convention_stem("train", PLAN.logs) + "train.log",
    benchmark:
        convention_stem("bench/train") + "folds.tsv"
    threads: lambda wc: PLAN.fit_threads(wc.algorithm)
    priority: job_priority("train")
    resources:
        **job_resources("train"),
    conda:
        CONDA_ENV
    script:
        "../scripts/fit.py"


# One rule per list of training conventions (PLAN.shared_train_rules): train_shared for the
# algorithms trained with train_conventions, train_shared_ALGORITHM for one with its own list.
for _suffix, _algorithms, _conventions in PLAN.shared_train_rules:

    rule:
        """Every fold of one algorithm under each of its training conventions, trained once
        (the convention only selects: ltrconv.rankers.base.Ranker.fit_many); the same models,
        test scores and fit records as one train job per convention."""
        name:
            f"train_shared{_suffix}"
        wildcard_constraints:
            dataset=one_of(PLAN.grouped),
            algorithm=one_of(_algorithms),
        input:
            train=lambda wc: [cache(wc.dataset, f, "train") for f in PLAN.folds],
            vali=lambda wc: [cache(wc.dataset, f, "vali") for f in PLAN.folds],
            test=lambda wc: [cache(wc.dataset, f, "test") for f in PLAN.folds],
        output:
            # each convention, then each fold
            models=algorithm_models("models", ".pkl", _conventions),
            scores=algorithm_models("models", ".test_scores.npy", _conventions),
            fits=convention_files("models", "fits.tsv", _conventions),
        params:
            folds=list(PLAN.folds),
            fold_column=True,
            ranker=lambda wc: PLAN.algorithms[wc.algorithm].ranker,
            metrics=[train_metric(c) for c in _conventions],
            hyperparams=train_hyperparams,
            **CONVENTIONS_PARAMS,
        log:
            algorithm_stem("train", PLAN.logs) + "train.log",
        benchmark:
            algorithm_stem("bench/train_shared") + "folds.tsv"
        threads: lambda wc: PLAN.fit_threads(wc.algorithm)
        priority: job_priority("train_shared")
        resources:
            **job_resources("train_shared"),
        conda:
            CONDA_ENV
        script:
            "../scripts/fit.py"
