"""MkDocs hook: serve the reference figures (``reference/**/*.png``) at the same paths in the
site, so that a page shows ``reference/MQ2008/figures/figure1.png`` without a copy of it under
``docs/``. MkDocs checks the links to them in ``--strict`` mode like any other page link."""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File


def on_files(files, config):
    root = Path(config["config_file_path"]).resolve().parent
    for png in sorted((root / "reference").rglob("*.png")):
        src_uri = png.relative_to(root).as_posix()
        if files.get_file_from_path(src_uri) is None:
            files.append(File.generated(config, src_uri, abs_src_path=str(png)))
    return files
