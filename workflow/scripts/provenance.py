"""What a dataset's results were made with (rule provenance): this job's environment, the
checkout's commit, the data files' digests, the configuration's digest and the seeds."""

from ltrconv.data.verify import read_manifest
from ltrconv.pipeline.job import run
from ltrconv.pipeline.provenance import record
from ltrconv.study import provenance


def main(smk, log):
    _, manifest = read_manifest(smk.input.manifest)
    env = provenance.environment(smk.params.repo.value)
    rec = record(env, dict(smk.params.run), smk.wildcards.dataset, manifest)
    provenance.write(smk.output[0], rec)
    git = rec["ltrconv"]
    log.info(f"{len(rec['packages'])} packages; ltrconv {git['version']} at "
             f"{git['commit'] or 'no git commit'}{' (modified)' if git['dirty'] else ''}; "
             f"{rec['cpu']['model']}; numpy SIMD {', '.join(rec['numpy_simd']['dispatched'])}")


run(snakemake, main)  # noqa: F821
