"""Per-query evaluation under every convention, the study-wide table, aggregates and claims."""


# One rule per list of training conventions (common.smk's EVALUATE_RULES): `evaluate` for the
# algorithms trained with train_conventions, evaluate_ALGORITHM for one with its own list.
for _name, _algorithms, _conventions in EVALUATE_RULES:

    rule:
        """Every model of one algorithm (each training convention and fold), in one job: the
        evaluation itself takes milliseconds a model, the process start-up about a second."""
        name:
            _name
        input:
            scores=algorithm_models("models", ".test_scores.npy", _conventions),
            tests=lambda wc: [cache(wc.dataset, f, "test") for f in FOLDS],
        output:
            algorithm_models("eval", ".parquet", _conventions),
        params:
            train_conventions=_conventions,  # the outputs: each convention, then each fold
            folds=FOLDS,
            conventions=EVAL_CONVENTIONS,
            cutoffs=CUTOFFS,
            max_label=dataset_max_label,
            seed=job_seed,
            **CONVENTIONS_PARAMS,
        wildcard_constraints:
            algorithm="|".join(_algorithms),
        log:
            algorithm_stem("evaluate", LOGS) + "evaluate.log",
        benchmark:
            algorithm_stem("bench/evaluate") + "models.tsv"
        threads: 1
        resources:
            **job_resources("evaluate"),
        conda:
            CONDA_ENV
        script:
            "../scripts/evaluate.py"


rule per_query:
    input:
        lambda wc: eval_pieces(wc.dataset),
    output:
        f"{RESULTS}/{{dataset}}/per_query.parquet",
    log:
        f"{LOGS}/{{dataset}}/per_query.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/per_query.tsv"
    threads: 1
    resources:
        **job_resources("per_query"),
    conda:
        CONDA_ENV
    script:
        "../scripts/per_query.py"


rule aggregate:
    input:
        f"{RESULTS}/{{dataset}}/per_query.parquet",
    output:
        **{t: f"{RESULTS}/{{dataset}}/tables/{t}.tsv" for t in TABLES},
    params:
        official=OFFICIAL,
        cutoff=TRAIN_CUTOFF,
        algorithms=BASE_ALGORITHMS,
    log:
        f"{LOGS}/{{dataset}}/aggregate.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/aggregate.tsv"
    threads: 1
    resources:
        **job_resources("aggregate"),
    conda:
        CONDA_ENV
    script:
        "../scripts/aggregate.py"


rule runtime_table:
    input:
        lambda wc: fit_records(wc.dataset),
    output:
        f"{RESULTS}/{{dataset}}/tables/runtime.tsv",
    params:
        **({"seeded": True} if SEED_DIR else {}),
    log:
        f"{LOGS}/{{dataset}}/runtime_table.log",
    threads: 1
    resources:
        **job_resources("runtime_table"),
    conda:
        CONDA_ENV
    script:
        "../scripts/runtime_table.py"


rule claims:
    input:
        unpack(lambda wc: claims_extra_inputs(wc.dataset)),
        summary=f"{RESULTS}/{{dataset}}/tables/summary.tsv",
        ttests=f"{RESULTS}/{{dataset}}/tables/ttests.tsv",
        order=f"{RESULTS}/{{dataset}}/tables/algorithm_order.tsv",
        audit=f"{RESULTS}/{{dataset}}/tables/audit.tsv",
    output:
        f"{RESULTS}/{{dataset}}/claims.md",
    log:
        f"{LOGS}/{{dataset}}/claims.log",
    params:
        algorithms=BASE_ALGORITHMS,
        variants=VARIANT_BASES,
        labels=VARIANT_LABELS,
        **({"rankers": OTHER_RANKERS} if OTHER_RANKERS else {}),
        official=OFFICIAL,
        cutoff=TRAIN_CUTOFF,
        **({"seeds": SEEDS} if MULTI_SEED else {}),
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/claims.tsv"
    threads: 1
    resources:
        **job_resources("claims"),
    conda:
        CONDA_ENV
    script:
        "../scripts/claims.py"
