"""Training of a scattered dataset (config key scatter): one job per fold, training convention
(and seed) and algorithm, or per restart of Coordinate Ascent and architecture of RankNet as
well; a gather job per algorithm and training convention then writes what rule train writes
for the other datasets, the same models and test scores."""


rule fit_fold:
    """One fold of an algorithm fitted whole: its model, test scores and fit record (temporary,
    until the gather job has copied them)."""
    wildcard_constraints:
        dataset=one_of(PLAN.scattered),
        algorithm=one_of([a for a in PLAN.whole_algorithms if a in PLAN.apart_algorithms]),
    input:
        train=lambda wc: [cache(wc.dataset, wc.fold, "train")],
        vali=lambda wc: [cache(wc.dataset, wc.fold, "vali")],
        test=lambda wc: [cache(wc.dataset, wc.fold, "test")],
    output:
        models=[temp(part_stem("parts") + "whole.pkl")],
        scores=[temp(part_stem("parts") + "whole.test_scores.npy")],
        fits=[temp(part_stem("parts") + "whole.tsv")],
    params:
        folds=lambda wc: [int(wc.fold)],
        ranker=lambda wc: PLAN.algorithms[wc.algorithm].ranker,
        metrics=lambda wc: [train_metric(wc.train_convention)],
        hyperparams=train_hyperparams,
        **CONVENTIONS_PARAMS,
    log:
        part_stem("fit", PLAN.logs) + "whole.log",
    benchmark:
        part_stem("bench/fit_fold") + "whole.tsv"
    threads: lambda wc: PLAN.fit_threads(wc.algorithm)
    priority: job_priority("fit_fold")
    resources:
        **job_resources("fit_fold"),
    conda:
        CONDA_ENV
    script:
        "../scripts/fit.py"


rule fit_unit:
    """One restart of Coordinate Ascent or architecture of RankNet on one fold: a partial model
    and its fit record (temporary, until the gather job has read them), on one thread."""
    wildcard_constraints:
        dataset=one_of(PLAN.scattered),
        algorithm=one_of([a for a in PLAN.unit_algorithms if a in PLAN.apart_algorithms]),
        unit=r"\d+",
    input:
        train=lambda wc: [cache(wc.dataset, wc.fold, "train")],
        vali=lambda wc: [cache(wc.dataset, wc.fold, "vali")],
    output:
        models=[temp(part_stem("parts") + "unit{unit}.pkl")],
        fits=[temp(part_stem("parts") + "unit{unit}.tsv")],
    params:
        folds=lambda wc: [int(wc.fold)],
        unit=lambda wc: int(wc.unit),
        ranker=lambda wc: PLAN.algorithms[wc.algorithm].ranker,
        metrics=lambda wc: [train_metric(wc.train_convention)],
        hyperparams=train_hyperparams,
        **CONVENTIONS_PARAMS,
    log:
        part_stem("fit", PLAN.logs) + "unit{unit}.log",
    benchmark:
        part_stem("bench/fit_unit") + "unit{unit}.tsv"
    threads: 1
    priority: job_priority("fit_unit")
    resources:
        **job_resources("fit_unit"),
    conda:
        CONDA_ENV
    script:
        "../scripts/fit.py"


# Shared training (PLAN.shared_train_rules): one job per fold, or per fold and unit, writes the
# parts of every training convention; a gather job per convention then reads its own.
for _suffix, _algorithms, _conventions in PLAN.shared_train_rules:

    rule:
        """One fold of an algorithm fitted whole, once for every training convention (the
        convention only selects): each convention's model, test scores and fit record."""
        name:
            f"fit_fold_shared{_suffix}"
        wildcard_constraints:
            dataset=one_of(PLAN.scattered),
            algorithm=one_of([a for a in _algorithms if a in PLAN.whole_algorithms]),
        input:
            train=lambda wc: [cache(wc.dataset, wc.fold, "train")],
            vali=lambda wc: [cache(wc.dataset, wc.fold, "vali")],
            test=lambda wc: [cache(wc.dataset, wc.fold, "test")],
        output:
            models=[temp(p) for p in shared_parts("whole.pkl", _conventions)],
            scores=[temp(p) for p in shared_parts("whole.test_scores.npy", _conventions)],
            fits=[temp(p) for p in shared_parts("whole.tsv", _conventions)],
        params:
            folds=lambda wc: [int(wc.fold)],
            ranker=lambda wc: PLAN.algorithms[wc.algorithm].ranker,
            metrics=[train_metric(c) for c in _conventions],
            hyperparams=train_hyperparams,
            **CONVENTIONS_PARAMS,
        log:
            algorithm_stem("fit", PLAN.logs) + "fold{fold}/whole.log",
        benchmark:
            algorithm_stem("bench/fit_fold_shared") + "fold{fold}/whole.tsv"
        threads: lambda wc: PLAN.fit_threads(wc.algorithm)
        resources:
            **job_resources("fit_fold_shared"),
        conda:
            CONDA_ENV
        script:
            "../scripts/fit.py"

    rule:
        """One unit on one fold, trained once for every training convention: each
        convention's partial model and fit record."""
        name:
            f"fit_unit_shared{_suffix}"
        wildcard_constraints:
            dataset=one_of(PLAN.scattered),
            algorithm=one_of([a for a in _algorithms if a in PLAN.unit_algorithms]),
            unit=r"\d+",
        input:
            train=lambda wc: [cache(wc.dataset, wc.fold, "train")],
            vali=lambda wc: [cache(wc.dataset, wc.fold, "vali")],
        output:
            models=[temp(p) for p in shared_parts("unit{unit}.pkl", _conventions)],
            fits=[temp(p) for p in shared_parts("unit{unit}.tsv", _conventions)],
        params:
            folds=lambda wc: [int(wc.fold)],
            unit=lambda wc: int(wc.unit),
            ranker=lambda wc: PLAN.algorithms[wc.algorithm].ranker,
            metrics=[train_metric(c) for c in _conventions],
            hyperparams=train_hyperparams,
                **CONVENTIONS_PARAMS,
        log:
            algorithm_stem("fit", PLAN.logs) + "fold{fold}/unit{unit}.log",
        benchmark:
            algorithm_stem("bench/fit_unit_shared") + "fold{fold}/unit{unit}.tsv"
        threads: 1
        resources:
            **job_resources("fit_unit_shared"),
        conda:
            CONDA_ENV
        script:
            "../scripts/fit.py"


rule gather:
    """Every fold of one algorithm under one training convention from its parts: the outputs of
    rule train."""
    wildcard_constraints:
        dataset=one_of(PLAN.scattered),
    input:
        unpack(gather_inputs),
    output:
        models=fold_models("models", ".pkl"),
        scores=fold_models("models", ".test_scores.npy"),
        fits=convention_stem("models") + "fits.tsv",
    params:
        folds=list(PLAN.folds),
        ranker=lambda wc: PLAN.algorithms[wc.algorithm].ranker,
        units=lambda wc: PLAN.algorithms[wc.algorithm].units,
        **CONVENTIONS_PARAMS,
    log:
        convention_stem("gather", PLAN.logs) + "gather.log",
    benchmark:
        convention_stem("bench/gather") + "folds.tsv"
    threads: 1
    resources:
        **job_resources("gather"),
    conda:
        CONDA_ENV
    script:
        "../scripts/gather.py"
