"""The figures of each dataset: one rule per figure declared with its drawing function in
ltrconv.pipeline.figures.FIGURES (Figures 1 and 2 of the paper, the training time, the
implementation variants, each algorithm's tie orders, today's libraries)."""


for _figure in FIGURES:
    rule:
        name:
            _figure.rule
        input:
            **{t: f"{PLAN.results}/{{dataset}}/tables/{t}.tsv" for t in _figure.tables},
        output:
            **figure_output(_figure.name),
        params:
            **_figure.rule_params(PLAN),
        log:
            figure_log(_figure),
        threads: 1
        resources:
            **job_resources(_figure.rule),
        conda:
            CONDA_ENV
        script:
            "../scripts/figure.py"
