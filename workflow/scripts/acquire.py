"""Obtain and verify a dataset (rule acquire).

What the data is comes in params; where to look and ``offline`` come from config, so that
moving the checkout or going offline does not invalidate the results.
"""

from pathlib import Path

from _job import run
from ltrconv.acquire import Layout, Source, acquire, locations, write_manifest


def main(smk, log):
    spec = dict(smk.params.source)
    spec["layout"] = Layout(**spec["layout"])
    repo = Path(smk.scriptdir).resolve().parents[1]  # scriptdir is workflow/rules/../scripts
    spec.update(locations(smk.config["datasets"][spec["name"]], spec["name"], repo))
    manifest, origin = acquire(
        Source(**spec), smk.params.data_dir, smk.params.work_dir,
        offline=smk.config["offline"], log=log.info,
    )
    unchecked = [m["file"] for m in manifest if not m["checked"]]
    if unchecked:
        log.info(f"no SHA-256 known for {len(unchecked)} file(s); counts only")
    write_manifest(manifest, smk.output.manifest, origin)


run(snakemake, main)  # noqa: F821
