"""Obtain and verify a dataset (rule acquire).

What the data is comes in ``params.source``; where to look, the download settings and
``offline`` in ``params.settings``, untracked, so that moving the checkout, changing mirrors or
going offline does not invalidate the results.
"""

from ltrconv.pipeline.job import run
from ltrconv.data.acquire import Source, acquire
from ltrconv.data.verify import write_manifest


def main(smk, log):
    settings = smk.params.settings.value
    spec = {**smk.params.source, **settings["locations"]}
    net = settings["download"]
    manifest, origin = acquire(
        Source.from_dict(spec), smk.params.data_dir, smk.params.work_dir,
        offline=settings["offline"], log=log.info,
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
