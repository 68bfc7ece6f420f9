"""Acquire, verify and cache each dataset; profile it."""


rule acquire:
    output:
        manifest=f"{PLAN.resources}/{{dataset}}/manifest.tsv",
    params:
        source=lambda wc: dataset_identity(wc.dataset),
        data_dir=lambda wc: f"{PLAN.resources}/{wc.dataset}/data",
        work_dir=lambda wc: f"{PLAN.resources}/{wc.dataset}/work",
        settings=acquire_settings,
    log:
        f"{PLAN.logs}/{{dataset}}/acquire.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/acquire.tsv"
    threads: 1
    resources:
        **job_resources("acquire"),
    conda:
        CONDA_ENV
    script:
        "../scripts/acquire.py"


rule prepare:
    input:
        manifest=f"{PLAN.resources}/{{dataset}}/manifest.tsv",
    output:
        splits=expand(
            f"{PLAN.resources}/{{{{dataset}}}}/cache/fold{{fold}}/{{split}}.npz", fold=PLAN.folds, split=SPLITS
        ),
        full=f"{PLAN.resources}/{{dataset}}/cache/all.npz",
    wildcard_constraints:
        dataset=one_of(d for d in PLAN.datasets if d not in DRAWN_VALI),
    params:
        data_dir=lambda wc: f"{PLAN.resources}/{wc.dataset}/data",
        layout=lambda wc: dataset_identity(wc.dataset)["layout"],
        folds=list(PLAN.folds),
        labels=dataset_labels,
        n_features=dataset_n_features,
    log:
        f"{PLAN.logs}/{{dataset}}/prepare.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/prepare.tsv"
    threads: 1
    resources:
        **job_resources("prepare"),
    conda:
        CONDA_ENV
    script:
        "../scripts/prepare.py"


rule prepare_drawn:
    """Rule prepare for a dataset without validation files: each fold's validation queries
    are drawn from its training file, and the drawn qids written beside the caches and to the
    dataset's tables."""
    input:
        manifest=f"{PLAN.resources}/{{dataset}}/manifest.tsv",
    output:
        splits=expand(
            f"{PLAN.resources}/{{{{dataset}}}}/cache/fold{{fold}}/{{split}}.npz", fold=PLAN.folds, split=SPLITS
        ),
        full=f"{PLAN.resources}/{{dataset}}/cache/all.npz",
        drawn=expand(
            f"{PLAN.resources}/{{{{dataset}}}}/cache/fold{{fold}}/vali_split.tsv", fold=PLAN.folds
        ),
        table=f"{PLAN.results}/{{dataset}}/tables/vali_split.tsv",
    wildcard_constraints:
        dataset=one_of(DRAWN_VALI),
    params:
        data_dir=lambda wc: f"{PLAN.resources}/{wc.dataset}/data",
        layout=lambda wc: dataset_identity(wc.dataset)["layout"],
        folds=list(PLAN.folds),
        labels=dataset_labels,
        n_features=dataset_n_features,
        vali_split=dataset_vali_split,
    log:
        f"{PLAN.logs}/{{dataset}}/prepare.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/prepare.tsv"
    threads: 1
    resources:
        **job_resources("prepare"),
    conda:
        CONDA_ENV
    script:
        "../scripts/prepare_drawn.py"


rule audit:
    input:
        full=f"{PLAN.resources}/{{dataset}}/cache/all.npz",
    output:
        table=f"{PLAN.results}/{{dataset}}/tables/audit.tsv",
    log:
        f"{PLAN.logs}/{{dataset}}/audit.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/audit.tsv"
    threads: 1
    resources:
        **job_resources("audit"),
    conda:
        CONDA_ENV
    script:
        "../scripts/audit.py"
