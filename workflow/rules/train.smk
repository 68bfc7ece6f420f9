"""Train every algorithm under every training convention on every fold (and, when it is random,
with every seed); score the test split."""


rule train:
    input:
        train=lambda wc: cache(wc.dataset, wc.fold, "train"),
        vali=lambda wc: cache(wc.dataset, wc.fold, "vali"),
        test=lambda wc: cache(wc.dataset, wc.fold, "test"),
    output:
        model=model_stem("models") + ".pkl",
        scores=model_stem("models") + ".test_scores.npy",
    params:
        ranker=lambda wc: base_algorithm(wc.algorithm),
        metric=lambda wc: train_metric(wc.train_convention),
        hyperparams=train_hyperparams,
        **CONVENTIONS_PARAMS,
    log:
        model_stem("train", LOGS) + ".log",
    benchmark:
        model_stem("bench/train") + ".tsv"
    threads: RES["train"]["threads"]
    resources:
        **job_resources("train"),
    conda:
        CONDA_ENV
    script:
        "../scripts/train.py"
