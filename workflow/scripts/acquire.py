"""Obtain and verify a dataset (rule acquire)."""

from _job import run
from ltrconv.acquire import Layout, Source, acquire, write_manifest


def main(smk, log):
    spec = dict(smk.params.source)
    spec["layout"] = Layout(**spec["layout"])
    manifest, origin = acquire(
        Source(**spec), smk.params.data_dir, smk.params.work_dir,
        offline=smk.params.offline, log=log.info,
    )
    unchecked = [m["file"] for m in manifest if not m["checked"]]
    if unchecked:
        log.info(f"no SHA-256 known for {len(unchecked)} file(s); counts only")
    write_manifest(manifest, smk.output.manifest, origin)


run(snakemake, main)  # noqa: F821
