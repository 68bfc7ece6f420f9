"""A provenance record written after the fact, for a reference made before runs wrote one.

    python scripts/record_provenance.py DIR --dataset NAME --manifest MANIFEST \
        [--configfile FILE ...] --note TEXT

writes DIR/provenance.json as the pipeline's rule provenance would (ltrconv.pipeline.provenance):
this Python's packages and machine, this checkout's commit, the data digests of MANIFEST (an
acquire job's resources/NAME/manifest.tsv), the digest of config/config.yaml with each FILE
merged on top, the seeds, and NOTE, which must say how the record relates to the reference's
bytes (which run on this environment reproduced them, and what did not reproduce).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ltrconv.data.verify import read_manifest  # noqa: E402
from ltrconv.pipeline import build_plan, config as pconfig  # noqa: E402
from ltrconv.pipeline.provenance import record, run_params  # noqa: E402
from ltrconv.study import provenance  # noqa: E402


def plan_of(configfiles: list[Path]):
    """The plan of config/config.yaml with ``configfiles`` merged on top, as Snakemake merges."""
    loaded = [yaml.safe_load(p.read_text()) for p in [REPO / "config" / "config.yaml",
                                                      *configfiles]]
    return build_plan(pconfig.fill_defaults(pconfig.merge(*loaded), pconfig.load_schema(REPO)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--manifest", type=Path, required=True)
    parser.add_argument("--configfile", type=Path, action="append", default=[])
    parser.add_argument("--note", required=True)
    args = parser.parse_args(argv)
    plan = plan_of(args.configfile)
    _, manifest = read_manifest(args.manifest)
    rec = record(provenance.environment(REPO), run_params(plan), args.dataset, manifest)
    rec["note"] = " ".join(args.note.split())
    provenance.write(args.directory / provenance.FILE, rec)
    print(f"{args.directory / provenance.FILE}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
