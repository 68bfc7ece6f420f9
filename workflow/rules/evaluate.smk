"""Per-query evaluation under every convention, the study-wide table, aggregates and claims."""


# One rule per list of training conventions (PLAN.evaluate_rules): `evaluate` for the
# algorithms trained with train_conventions, evaluate_ALGORITHM for one with its own list.
for _name, _algorithms, _conventions in PLAN.evaluate_rules:

    rule:
        """Every model of one algorithm (each training convention and fold), in one job: the
        evaluation itself takes milliseconds a model, the process start-up about a second."""
        name:
            _name
        input:
            scores=algorithm_models("models", ".test_scores.npy", _conventions),
            tests=lambda wc: [cache(wc.dataset, f, "test") for f in PLAN.folds],
        output:
            algorithm_models("eval", ".parquet", _conventions),
        params:
            train_conventions=_conventions,  # the outputs: each convention, then each fold
            folds=list(PLAN.folds),
            conventions=list(PLAN.eval_conventions),
            cutoffs=PLAN.cutoffs,
            max_label=dataset_max_label,
            seed=job_seed,
            **CONVENTIONS_PARAMS,
        wildcard_constraints:
            algorithm="|".join(_algorithms),
        log:
            algorithm_stem("evaluate", PLAN.logs) + "evaluate.log",
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
        f"{PLAN.results}/{{dataset}}/per_query.parquet",
    log:
        f"{PLAN.logs}/{{dataset}}/per_query.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/per_query.tsv"
    threads: 1
    resources:
        **job_resources("per_query"),
    conda:
        CONDA_ENV
    script:
        "../scripts/per_query.py"


rule aggregate:
    input:
        f"{PLAN.results}/{{dataset}}/per_query.parquet",
    output:
        **{t: f"{PLAN.results}/{{dataset}}/tables/{t}.tsv" for t in TABLES},
    params:
        official=PLAN.official,
        cutoff=PLAN.train_cutoff,
        algorithms=PLAN.base_algorithms,
    log:
        f"{PLAN.logs}/{{dataset}}/aggregate.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/aggregate.tsv"
    threads: 1
    resources:
        **job_resources("aggregate"),
    conda:
        CONDA_ENV
    script:
        "../scripts/aggregate.py"


rule implementation:
    input:
        f"{PLAN.results}/{{dataset}}/per_query.parquet",
    output:
        f"{PLAN.results}/{{dataset}}/tables/implementation.tsv",
    params:
        variants=PLAN.variant_bases,
    log:
        f"{PLAN.logs}/{{dataset}}/implementation.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/implementation.tsv"
    threads: 1
    resources:
        **job_resources("implementation"),
    conda:
        CONDA_ENV
    script:
        "../scripts/implementation.py"


rule runtime_table:
    input:
        lambda wc: fit_records(wc.dataset),
    output:
        f"{PLAN.results}/{{dataset}}/tables/runtime.tsv",
    params:
        **({"seeded": True} if PLAN.seed_dir else {}),
    log:
        f"{PLAN.logs}/{{dataset}}/runtime_table.log",
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
        summary=f"{PLAN.results}/{{dataset}}/tables/summary.tsv",
        ttests=f"{PLAN.results}/{{dataset}}/tables/ttests.tsv",
        order=f"{PLAN.results}/{{dataset}}/tables/algorithm_order.tsv",
        audit=f"{PLAN.results}/{{dataset}}/tables/audit.tsv",
    output:
        f"{PLAN.results}/{{dataset}}/claims.md",
    log:
        f"{PLAN.logs}/{{dataset}}/claims.log",
    params:
        algorithms=PLAN.base_algorithms,
        variants=PLAN.variant_bases,
        labels=PLAN.variant_labels,
        **({"rankers": PLAN.other_rankers} if PLAN.other_rankers else {}),
        official=PLAN.official,
        cutoff=PLAN.train_cutoff,
        **({"seeds": list(PLAN.seeds)} if PLAN.multi_seed else {}),
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/claims.tsv"
    threads: 1
    resources:
        **job_resources("claims"),
    conda:
        CONDA_ENV
    script:
        "../scripts/claims.py"
