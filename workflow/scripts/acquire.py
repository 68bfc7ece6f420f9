"""Obtain and verify a dataset (rule acquire).

What the data is comes in params; where to look, the download settings and ``offline`` come
from config, so that moving the checkout, changing mirrors or going offline does not
invalidate the results.
"""

from pathlib import Path

from _job import run
from ltrconv.data.acquire import Source, acquire, locations
from ltrconv.data.verify import write_manifest


def main(smk, log):
    spec = dict(smk.params.source)
    repo = Path(smk.scriptdir).resolve().parents[1]  # scriptdir is workflow/rules/../scripts
    spec.update(locations(smk.config["datasets"][spec["name"]], spec["name"], repo))
    net = smk.config["download"]
    manifest, origin = acquire(
        Source.from_dict(spec), smk.params.data_dir, smk.params.work_dir,
        offline=smk.config["offline"], log=log.info,
        timeout=float(net["timeout"]), retries=int(net["retries"]), backoff=float(net["backoff"]),
    )
    by = {}
    for m in manifest:
        by.setdefault(m["verified_by"], []).append(m["file"])
    for how, files in sorted(by.items()):
        what = {"sha256": "byte SHA-256", "content": "content digest",
                "none": "nothing (no digest known; counts only)"}[how]
        log.info(f"{len(files)} file(s) verified by {what}")
    write_manifest(manifest, smk.output.manifest, origin)


run(snakemake, main)  # noqa: F821
