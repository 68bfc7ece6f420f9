"""Train every algorithm under every training convention on every fold; score the test split."""


rule train:
    input:
        train=lambda wc: cache(wc.dataset, wc.fold, "train"),
        vali=lambda wc: cache(wc.dataset, wc.fold, "vali"),
        test=lambda wc: cache(wc.dataset, wc.fold, "test"),
    output:
        model=f"{RESULTS}/{{dataset}}/models/{{algorithm}}/{{train_convention}}/fold{{fold}}.pkl",
        scores=f"{RESULTS}/{{dataset}}/models/{{algorithm}}/{{train_convention}}/fold{{fold}}.test_scores.npy",
    params:
        ranker=lambda wc: base_algorithm(wc.algorithm),
        metric=lambda wc: train_metric(wc.train_convention),
        hyperparams=lambda wc: hyperparams(wc.algorithm),
        **CONVENTIONS_PARAMS,
    log:
        f"{LOGS}/{{dataset}}/train/{{algorithm}}/{{train_convention}}/fold{{fold}}.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/train/{{algorithm}}/{{train_convention}}/fold{{fold}}.tsv"
    threads: RES["train"]["threads"]
    resources:
        **job_resources("train"),
    conda:
        CONDA_ENV
    script:
        "../scripts/train.py"
