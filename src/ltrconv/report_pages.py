"""Self-contained HTML pages of the results, for Snakemake's report (which shows HTML inline in
a frame as tall as the window, and offers anything else as a download).

Three kinds: the claims (Markdown), a result table (TSV) and a figure (PNG). Every page embeds
what it shows (no external files, scripts or fonts). A figure page scales the image to fit the
frame, so the whole figure, legend included, is visible at any window size; a table page keeps
the header row in view, filters rows by words typed in a box and links the TSV itself.
"""

from __future__ import annotations

import base64
import html
import math
from pathlib import Path

import pandas as pd

STYLE = """
html { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
       sans-serif; color: #1f2937; }
body { margin: 0; padding: 12px 18px; }
h1 { font-size: 1.3em; margin: .2em 0 .6em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 3px 9px; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
thead th { position: sticky; top: 0; background: #f3f4f6; }
code { background: #f3f4f6; padding: 0 3px; border-radius: 3px; }
.meta { color: #6b7280; margin: 0 0 .6em; }
.meta input { font: inherit; padding: 2px 6px; width: 22em; margin-right: 1em; }
body.figure { padding: 0; }
.figure-frame { box-sizing: border-box; height: 100vh; padding: 6px; display: flex;
                justify-content: center; align-items: flex-start; }
.figure-frame img { max-width: 100%; max-height: 100%; object-fit: contain; }
"""

FILTER_SCRIPT = """
const box = document.getElementById("filter"), count = document.getElementById("shown");
const rows = Array.from(document.querySelectorAll("tbody tr"));
box.addEventListener("input", () => {
  const words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
  let n = 0;
  for (const r of rows) {
    const text = r.textContent.toLowerCase();
    const show = words.every(w => text.includes(w));
    r.hidden = !show; n += show;
  }
  count.textContent = n;
});
"""


def _document(title: str, body: str, body_class: str = "", script: str = "") -> str:
    cls = f' class="{body_class}"' if body_class else ""
    js = f"<script>{script}</script>" if script else ""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
            f"<body{cls}>{body}{js}</body></html>\n")


def _data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def claims_page(markdown_text: str, title: str) -> str:
    """The claims Markdown (headings, lists, pipe tables, emphasis) as an HTML page."""
    import markdown

    body = markdown.markdown(markdown_text, extensions=["tables"], output_format="html")
    return _document(title, body)


def format_cell(value) -> tuple[str, bool]:
    """Cell text and whether it is a number: floats to 4 significant digits, NaN empty."""
    if isinstance(value, bool) or value is None or value is pd.NA:
        return ("" if value is None or value is pd.NA else str(value)), False
    if isinstance(value, int):
        return str(value), True
    if isinstance(value, float):
        return ("" if math.isnan(value) else f"{value:.4g}"), True
    return str(value), False


def table_page(frame: pd.DataFrame, title: str, tsv_name: str, tsv_bytes: bytes) -> str:
    """``frame`` as an HTML table (numbers to 4 significant digits; the linked TSV has them all)."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for rec in frame.itertuples(index=False, name=None):
        cells = []
        for v in rec:
            text, num = format_cell(v.item() if hasattr(v, "item") else v)
            cells.append(f'<td class="num">{text}</td>' if num else f"<td>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    meta = (f'<p class="meta"><input id="filter" type="search" placeholder="filter rows: words '
            f'to match" aria-label="filter rows"><span id="shown">{len(frame)}</span> of '
            f'{len(frame)} rows; <a download="{html.escape(tsv_name)}" '
            f'href="{_data_uri(tsv_bytes, "text/tab-separated-values")}">{html.escape(tsv_name)}'
            f"</a> has every digit</p>")
    body = (f"<h1>{html.escape(title)}</h1>{meta}<table><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")
    return _document(title, body, script=FILTER_SCRIPT)


def figure_page(png: bytes, title: str) -> str:
    """The PNG scaled down to fit the frame (never up, never cropped)."""
    body = (f'<div class="figure-frame"><img src="{_data_uri(png, "image/png")}" '
            f'alt="{html.escape(title)}"></div>')
    return _document(title, body, body_class="figure")


def write(text: str, path: str | Path) -> None:
    from .data import atomic_path

    with atomic_path(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
