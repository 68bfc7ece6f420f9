"""Training of a scattered dataset (config key scatter): one job per fold, training convention
(and seed) and algorithm, or per restart of Coordinate Ascent and architecture of RankNet as
well; a gather job per algorithm and training convention then writes what rule train writes
for the other datasets, the same models and test scores."""


rule fit_fold:
    """One fold of an algorithm fitted whole: its model, test scores and fit record (temporary,
    until the gather job has copied them)."""
    wildcard_constraints:
        dataset=one_of(PLAN.scattered),
        algorithm=one_of(PLAN.whole_algorithms),
    input:
        train=lambda wc: [cache(wc.dataset, wc.fold, "train")],
        vali=lambda wc: [cache(wc.dataset, wc.fold, "vali")],
        test=lambda wc: [cache(wc.dataset, wc.fold, "test")],
    output:
        models=[temp(part_stem("parts") + "whole.pkl")],
        scores=[temp(part_stem("parts") + "whole.test_scores.npy")],
        fits=temp(part_stem("parts") + "whole.tsv"),
    params:
        folds=lambda wc: [int(wc.fold)],
        ranker=lambda wc: PLAN.algorithms[wc.algorithm].ranker,
        metric=lambda wc: train_metric(wc.train_convention),
        hyperparams=train_hyperparams,
        **CONVENTIONS_PARAMS,
    log:
        part_stem("fit", PLAN.logs) + "whole.log",
    benchmark:
        part_stem("bench/fit_fold") + "whole.tsv"
    threads: PLAN.train_threads
    resources:
        **job_resources("fit_fold"),
    conda:
        CONDA_ENV
    script:
        "../scripts/fit.py"


rule fit_unit:
    """One restart of Coordinate Ascent or architecture of RankNet on one fold: a partial model
    and its fit record (temporary, until the gather job has read them). The ranker's thread
    parameter is that of a train job, so that the gathered model equals its model; one unit
    runs on one thread whatever it says."""
    wildcard_constraints:
        dataset=one_of(PLAN.scattered),
        algorithm=one_of(PLAN.unit_algorithms),
        unit=r"\d+",
    input:
        train=lambda wc: [cache(wc.dataset, wc.fold, "train")],
        vali=lambda wc: [cache(wc.dataset, wc.fold, "vali")],
    output:
        models=[temp(part_stem("parts") + "unit{unit}.pkl")],
        fits=temp(part_stem("parts") + "unit{unit}.tsv"),
    params:
        folds=lambda wc: [int(wc.fold)],
        unit=lambda wc: int(wc.unit),
        ranker=lambda wc: PLAN.algorithms[wc.algorithm].ranker,
        metric=lambda wc: train_metric(wc.train_convention),
        hyperparams=train_hyperparams,
        model_threads=PLAN.train_threads,
        **CONVENTIONS_PARAMS,
    log:
        part_stem("fit", PLAN.logs) + "unit{unit}.log",
    benchmark:
        part_stem("bench/fit_unit") + "unit{unit}.tsv"
    threads: 1
    resources:
        **job_resources("fit_unit"),
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
