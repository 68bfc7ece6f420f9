"""README.md stays a short entry point and the documentation site under docs/ builds cleanly.

The site build (``mkdocs build --strict``, the ``docs`` extra) fails on a broken link or anchor,
a figure that is not there and a page left out of mkdocs.yml's nav."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _line_after_fence(text: str, marker: str) -> str:
    """The line after the fence that follows ``marker``: what .ci/run executes for the tests."""
    lines = text.splitlines()
    i = lines.index(marker)
    assert lines[i + 1].startswith("```"), f"{marker} must be followed by a fence"
    return lines[i + 2]


def _slug(heading: str) -> str:
    from markdown.extensions.toc import slugify
    return slugify(heading, "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {_slug(m.group(1).strip()) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def test_readme_is_short_and_keeps_both_commands():
    text = README.read_text()
    assert len(text.splitlines()) <= 300
    assert _line_after_fence(text, "<!-- main-command -->") == (
        "pip install -c requirements/lock.txt -e . && snakemake --cores 2")
    test = _line_after_fence(text, "<!-- test-command -->")
    # the kernels compiled once, before the test processes start (each would compile its own)
    assert test.startswith('pip install -c requirements/lock.txt -e ".[test,docs]" && '
                           'python -m ltrconv.warmup -j 2 && python -m pytest')
    assert "ltrconv check-reference" in text


def test_the_tests_page_shows_the_readme_test_command():
    page = (ROOT / "docs" / "tests.md").read_text()
    assert _line_after_fence(page, "<!-- test-command -->") == _line_after_fence(
        README.read_text(), "<!-- test-command -->")


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    awk = re.search(r"awk '([^']+)' README.md", ci).group(1)
    out = subprocess.run(["awk", awk, str(README)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == _line_after_fence(README.read_text(), "<!-- test-command -->")


def test_readme_links_reach_files_and_headings():
    for target in LINK.findall(README.read_text()):
        if "://" in target:
            continue
        path, _, anchor = target.partition("#")
        assert (ROOT / path).is_file(), f"README links to {path}, which is missing"
        if anchor:
            assert anchor in _anchors(ROOT / path), f"README links to {target}: no such heading"


def test_every_page_is_in_the_nav_and_every_figure_says_what_its_error_bars_are():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text().replace("!!python", "#"))
    nav = {next(iter(item.values())) for item in config["nav"]}
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages == nav
    shown = 0
    for page in pages:
        lines = (ROOT / "docs" / page).read_text().splitlines()
        for i, line in enumerate(lines):
            m = re.match(r"!\[[^\]]*\]\((reference/[^)]+\.png)\)", line)
            if m:
                shown += 1
                assert (ROOT / m.group(1)).is_file(), f"{page}: {m.group(1)} is missing"
                below = " ".join(lines[i + 1:i + 12]).lower()
                assert "error bars" in below, f"{page}: say what the error bars of {m.group(1)} are"
    assert shown >= 4


def test_site_builds_without_a_warning(tmp_path):
    pytest.importorskip("mkdocs", reason='mkdocs is not installed: pip install -e ".[docs]"')
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                          str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "WARNING" not in out.stderr + out.stdout
    site = tmp_path / "site"
    assert (site / "reference" / "MQ2008" / "figures" / "figure1.png").read_bytes() == \
        (ROOT / "reference" / "MQ2008" / "figures" / "figure1.png").read_bytes()
    for page in ("conventions", "libraries", "cli", "python", "pipeline", "cluster", "fidelity",
                 "beyond", "scale", "data", "layout"):
        assert (site / page / "index.html").is_file()
    assert not list(site.rglob("*.py"))  # the hook is not published
