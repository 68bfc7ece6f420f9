"""What each library's NDCG reports for the models trained with the official convention, its
spread across libraries, and models trained with a library's NDCG against the official ones
(rule library_tables)."""

from ltrconv.pipeline.job import read_tsv, run, write_tsv
from ltrconv.study import libraries, per_query_store


def main(smk, log):
    p = smk.params
    summary = read_tsv(smk.input.summary)
    summary = summary[summary["algorithm"].isin(p.algorithms)]
    table = libraries.library_table(summary, p.reference, train_convention=p.official,
                                    conventions=p.libraries)
    write_tsv(table, smk.output.libraries)
    write_tsv(libraries.library_spread(table, p.reference), smk.output.library_spread)
    tests = per_query_store.training_ttests(smk.input.per_query, p.algorithms, p.trained,
                                            reference=p.official)
    write_tsv(tests, smk.output.library_ttests)
    log.info(f"{len(table)} library rows, {len(tests)} tests of models trained with "
             f"{', '.join(p.trained) or 'no library convention'}")


run(snakemake, main)  # noqa: F821
