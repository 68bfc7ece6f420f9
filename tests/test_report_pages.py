"""HTML pages of the report and the captions' templates, without Snakemake or a browser."""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from ltrconv.study import report_pages as pages

REPO = Path(__file__).resolve().parents[1]
CAPTIONS = REPO / "workflow" / "report"


def test_table_page_formats_escapes_and_links_the_tsv():
    frame = pd.DataFrame({"algorithm": ["<b>x</b>", "y"], "k": [1, 10],
                          "mean": [0.123456789, float("nan")], "p": [1.5e-12, 1.0],
                          "significant": [True, False]})
    tsv = frame.to_csv(sep="\t", index=False).encode()
    html = pages.table_page(frame, "Table t", "t.tsv", tsv)
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", html)
    assert cells == ["&lt;b&gt;x&lt;/b&gt;", "1", "0.1235", "1.5e-12", "True",
                     "y", "10", "", "1", "False"]
    assert re.search(r'<td class="num">0.1235</td>', html)
    link = re.search(r'download="t.tsv" href="data:text/tab-separated-values;base64,([^"]+)"', html)
    assert link and base64.b64decode(link.group(1)) == tsv
    assert "<thead><tr><th>algorithm</th><th>k</th>" in html
    assert '<span id="shown">2</span> of 2 rows' in html


def _big_frame(n: int = 40_000) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"algorithm": rng.choice(["AdaRank", "<RankNet>"], n), "k": np.arange(n),
                         "mean": rng.random(n), "p": rng.random(n) ** 40})


def test_a_table_over_the_budget_embeds_its_tsv_once_compressed():
    frame = _big_frame()
    tsv = frame.to_csv(sep="\t", index=False).encode()
    html = pages.table_page(frame, "Table big", "big.tsv", tsv)
    assert len(html.encode()) <= pages.PAGE_BUDGET < len(tsv)
    assert "<tbody></tbody>" in html and "<td" not in html  # rows are built in the browser
    payload = re.search(r'<script id="tsv" type="application/gzip;base64">([^<]+)</script>', html)
    assert payload and gzip.decompress(base64.b64decode(payload.group(1))) == tsv
    assert f'<span id="shown">{len(frame)}</span> of {len(frame)} rows' in html
    assert 'id="download" download="big.tsv"' in html
    small = pages.table_page(frame.head(50), "Table small", "s.tsv",
                             frame.head(50).to_csv(sep="\t", index=False).encode())
    assert small.count("<tr>") == 51 and 'id="tsv"' not in small


def test_the_budget_decides_which_page():
    frame = _big_frame(200)
    tsv = frame.to_csv(sep="\t", index=False).encode()
    full = pages.table_page(frame, "t", "t.tsv", tsv)
    assert pages.table_page(frame, "t", "t.tsv", tsv, budget=len(full.encode())) == full
    assert 'id="tsv"' in pages.table_page(frame, "t", "t.tsv", tsv, budget=len(full.encode()) - 1)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to run the page's script")
def test_the_browser_formats_cells_as_format_cell_does(tmp_path):
    values = [0.123456789, 1.5e-12, 1.0, 10.0, 0.0, -0.0, 12345.678, 9999.5, 0.00012345,
              0.0001, 2.5e-5, 1e22, -3.14159, 0.99995, 123.4567, float("inf"), float("-inf")]
    values += list(np.random.default_rng(1).lognormal(0, 8, 300) * np.random.default_rng(2).
                   choice([-1, 1], 300))
    texts = [repr(float(v)) if np.isfinite(v) else ("inf" if v > 0 else "-inf") for v in values]
    g4 = re.search(r"function g4\(x\) \{.*?\n\}", pages.TSV_SCRIPT, re.S).group(0)
    script = tmp_path / "g4.js"
    script.write_text(g4 + "\nconst vs = " + json.dumps(texts) + ";\n"
                      "console.log(JSON.stringify(vs.map(v => g4(Number(v.replace(/inf/i, "
                      "'Infinity'))))));\n")
    out = json.loads(subprocess.run(["node", str(script)], capture_output=True, text=True,
                                    check=True).stdout)
    assert out == [pages.format_cell(float(v))[0] for v in values]


def test_claims_page_renders_markdown():
    md = "# Claims\n\nIntro.\n\n| # | claim | verdict |\n|---|---|---|\n| 1 | a < b | holds |\n\n" \
         "## 1. a\n\n- item one\n- item two\n\nVerdict: **holds**\n"
    html = pages.claims_page(md, "Claims")
    assert "<h1>Claims</h1>" in html and "<h2>1. a</h2>" in html
    assert "<table>" in html and "<td>a &lt; b</td>" in html and "|---|" not in html
    assert "<li>item one</li>" in html and "<strong>holds</strong>" in html


def test_figure_page_embeds_the_png_scaled_to_fit():
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (30, 60), "red").save(buf, format="PNG")
    html = pages.figure_page(buf.getvalue(), "Figure 1 (SYN)")
    src = re.search(r'<img src="data:image/png;base64,([^"]+)" alt="Figure 1 \(SYN\)">', html)
    assert src and base64.b64decode(src.group(1)) == buf.getvalue()
    assert "max-height: 100%" in html and "height: 100vh" in html


def test_write_is_atomic(tmp_path):
    out = tmp_path / "report" / "p.html"
    pages.write("<p>é</p>", out)
    assert out.read_text(encoding="utf-8") == "<p>é</p>"
    assert [p.name for p in out.parent.iterdir()] == ["p.html"]


def render_caption(name: str, facts: dict, config: dict | None = None) -> str:
    """A caption as Snakemake's report renders it: Jinja, then reStructuredText to HTML."""
    jinja2 = pytest.importorskip("jinja2")
    import html
    import warnings

    from docutils.core import publish_parts

    smk = SimpleNamespace(params=SimpleNamespace(facts=facts), config=config or {})
    template = jinja2.Environment().from_string((CAPTIONS / f"{name}.rst").read_text())
    rst = template.render(snakemake=smk)
    with warnings.catch_warnings():  # the call Snakemake's report makes
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        body = publish_parts(rst, writer_name="html")["body"]
    return html.unescape(re.sub(r"<[^>]+>", "", body))


FACTS = dict(cutoffs="1,5", train_cutoff=5, train_conventions=["ranklib", "my-conv"],
             official="my-conv", figure1_algorithms=["RankNet"], figure1_eval_conventions=["trec"],
             figure2_algorithms=["RankNet", "RankSVM"], figure2_eval_conventions=["trec", "letor"],
             variants=[r"ranknet\_wide (RankNet: 50 units, largest \|r\|)"])


def test_captions_follow_the_configuration():
    fig1 = " ".join(render_caption("figure1", FACTS).split())
    assert "NDCG@k (cutoffs 1,5) of RankNet (rows) evaluated with the trec conventions" in fig1
    assert "(ranklib, my-conv;" in fig1 and "AdaRank" not in fig1
    fig2 = " ".join(render_caption("figure2", FACTS).split())
    assert "NDCG@k of RankNet, RankSVM trained with the official (my-conv) NDCG" in fig2
    assert "(trec, letor)" in fig2
    order = " ".join(render_caption("algorithm_order", FACTS).split())
    assert "mean NDCG@5 of the models trained with the official convention (my-conv)" in order
    impl = " ".join(render_caption("implementation", FACTS).split())
    assert "Variants: ranknet_wide (RankNet: 50 units, largest |r|)." in impl
    assert "then whether they survive" in render_caption("claims", FACTS)
    assert "then whether" not in render_caption("claims", {**FACTS, "variants": []})
    config = {"datasets": {"A": {"enabled": True}, "B": {"enabled": False}}, "folds": [1, 2],
              "algorithms": {"adarank": {}, "ranknet": None}, "train_conventions": ["yahoo"],
              "eval_conventions": ["ranklib", "letor"]}
    flow = " ".join(render_caption("workflow", {}, config).split())
    assert "This run: datasets A; folds 1, 2; algorithms adarank; training conventions yahoo" in flow
