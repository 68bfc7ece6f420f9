# Reproduction of Busa-Fekete et al. (2012), "An apple-to-apple comparison of
# Learning-to-rank algorithms in terms of NDCG". Run: snakemake --cores N
# Another configuration is merged on top: snakemake --configfile config/quick.yaml

configfile: os.path.join(workflow.basedir, "config/config.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/scatter.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/extended.smk"
include: "workflow/rules/libraries.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/provenance.smk"
include: "workflow/rules/handlers.smk"  # after every rule: it checks their outputs


report: "workflow/report/workflow.rst"


# Snakemake takes the default target from this file only, not from an included one.
rule all:
    input:
        all_targets(),
    default_target: True
