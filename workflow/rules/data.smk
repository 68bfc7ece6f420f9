"""Acquire, verify and cache each dataset; profile it."""


rule acquire:
    output:
        manifest=f"{RESOURCES}/{{dataset}}/manifest.tsv",
    params:
        source=lambda wc: dataset_identity(wc.dataset),
        data_dir=lambda wc: f"{RESOURCES}/{wc.dataset}/data",
        work_dir=lambda wc: f"{RESOURCES}/{wc.dataset}/work",
        settings=acquire_settings,
    log:
        f"{LOGS}/{{dataset}}/acquire.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/acquire.tsv"
    threads: 1
    resources:
        **job_resources("acquire"),
    conda:
        CONDA_ENV
    script:
        "../scripts/acquire.py"


rule prepare:
    input:
        manifest=f"{RESOURCES}/{{dataset}}/manifest.tsv",
    output:
        splits=expand(
            f"{RESOURCES}/{{{{dataset}}}}/cache/fold{{fold}}/{{split}}.npz", fold=FOLDS, split=SPLITS
        ),
        full=f"{RESOURCES}/{{dataset}}/cache/all.npz",
    wildcard_constraints:
        dataset=one_of(d for d in DATASETS if d not in DRAWN_VALI),
    params:
        data_dir=lambda wc: f"{RESOURCES}/{wc.dataset}/data",
        layout=lambda wc: dataset_identity(wc.dataset)["layout"],
        folds=FOLDS,
        labels=dataset_labels,
        n_features=dataset_n_features,
    log:
        f"{LOGS}/{{dataset}}/prepare.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/prepare.tsv"
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
        manifest=f"{RESOURCES}/{{dataset}}/manifest.tsv",
    output:
        splits=expand(
            f"{RESOURCES}/{{{{dataset}}}}/cache/fold{{fold}}/{{split}}.npz", fold=FOLDS, split=SPLITS
        ),
        full=f"{RESOURCES}/{{dataset}}/cache/all.npz",
        drawn=expand(
            f"{RESOURCES}/{{{{dataset}}}}/cache/fold{{fold}}/vali_split.tsv", fold=FOLDS
        ),
        table=f"{RESULTS}/{{dataset}}/tables/vali_split.tsv",
    wildcard_constraints:
        dataset=one_of(DRAWN_VALI),
    params:
        data_dir=lambda wc: f"{RESOURCES}/{wc.dataset}/data",
        layout=lambda wc: dataset_identity(wc.dataset)["layout"],
        folds=FOLDS,
        labels=dataset_labels,
        n_features=dataset_n_features,
        vali_split=dataset_vali_split,
    log:
        f"{LOGS}/{{dataset}}/prepare.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/prepare.tsv"
    threads: 1
    resources:
        **job_resources("prepare"),
    conda:
        CONDA_ENV
    script:
        "../scripts/prepare_drawn.py"


rule audit:
    input:
        full=f"{RESOURCES}/{{dataset}}/cache/all.npz",
    output:
        table=f"{RESULTS}/{{dataset}}/tables/audit.tsv",
    log:
        f"{LOGS}/{{dataset}}/audit.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/audit.tsv"
    threads: 1
    resources:
        **job_resources("audit"),
    conda:
        CONDA_ENV
    script:
        "../scripts/audit.py"
