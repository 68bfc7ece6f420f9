"""Self-contained HTML pages of the results, for Snakemake's report (which shows HTML inline in
a frame as tall as the window, and offers anything else as a download).

Three kinds: the claims (Markdown), a result table (TSV) and a figure (PNG). Every page embeds
what it shows (no external files, scripts or fonts). A figure page scales the image to fit the
frame, so the whole figure, legend included, is visible at any window size; a table page keeps
the header row in view, filters rows by words typed in a box and links the TSV itself.

A self-contained report shows each page through a ``data:`` URL, and Chromium opens no URL
longer than 2 MiB (``url::kMaxURLChars``), i.e. no page over 1.5 MiB once base64-encoded. A table
whose page would exceed ``PAGE_BUDGET`` therefore carries its TSV once, gzip-compressed, and the
browser builds the rows from it (``DecompressionStream``: Chromium 80, Firefox 113, Safari 16.4).
"""

from __future__ import annotations

import base64
import gzip
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

PAGE_BUDGET = 1_400_000  # bytes of HTML: 1.87 MB as a base64 data: URL, under Chromium's 2 MiB

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


# Builds the rows of a large table from the embedded TSV, formatted as format_cell does.
TSV_SCRIPT = """
const INT = /^-?\\d+$/, NUM = /^[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?$|^-?inf$/i;
function g4(x) {  // format(x, ".4g"); exact binary halves round up, not to even
  if (!isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const [m, e] = x.toExponential(3).split("e"), exp = Number(e);
  const trim = t => t.includes(".") ? t.replace(/0+$/, "").replace(/\\.$/, "") : t;
  const sign = exp < 0 ? "-" : "+", digits = String(Math.abs(exp)).padStart(2, "0");
  if (exp < -4 || exp >= 4) return trim(m) + "e" + sign + digits;
  return trim(x.toFixed(3 - exp));
}
async function build() {
  const el = document.getElementById("tsv");
  const bytes = Uint8Array.from(atob(el.textContent.trim()), c => c.charCodeAt(0));
  const plain = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const text = await new Response(plain).text();
  const link = document.getElementById("download");
  link.href = URL.createObjectURL(new Blob([text], {type: "text/tab-separated-values"}));
  const lines = text.split("\\n").filter(l => l.length);
  const thead = document.querySelector("thead tr"), tbody = document.querySelector("tbody");
  for (const h of lines[0].split("\\t")) {
    thead.appendChild(document.createElement("th")).textContent = h;
  }
  const frag = document.createDocumentFragment();
  for (const line of lines.slice(1)) {
    const tr = frag.appendChild(document.createElement("tr"));
    for (const v of line.split("\\t")) {
      const td = tr.appendChild(document.createElement("td"));
      if (INT.test(v)) { td.textContent = v; td.className = "num"; }
      else if (NUM.test(v)) {
        td.textContent = g4(Number(v.replace(/inf/i, "Infinity"))); td.className = "num";
      }
      else td.textContent = v;
    }
  }
  tbody.appendChild(frag);
}
build().then(() => {
""" + FILTER_SCRIPT + """
}).catch(err => { document.getElementById("shown").textContent = "0 (" + err + ")"; });
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


def table_page(frame: pd.DataFrame, title: str, tsv_name: str, tsv_bytes: bytes,
               budget: int = PAGE_BUDGET) -> str:
    """``frame`` as an HTML table (numbers to 4 significant digits; the linked TSV has them all).

    A page that would exceed ``budget`` bytes is built in the browser from ``tsv_bytes`` instead
    (see the module docstring), so every row stays visible and filterable."""
    page = _rendered_table_page(frame, title, tsv_name, tsv_bytes)
    if len(page.encode("utf-8")) <= budget:
        return page
    return _compressed_table_page(frame, title, tsv_name, tsv_bytes)


def _table_meta(n_rows: int, tsv_name: str, link_attributes: str) -> str:
    """The line above a table: the filter box, the count of rows shown, the link to the TSV."""
    return (f'<p class="meta"><input id="filter" type="search" placeholder="filter rows: words '
            f'to match" aria-label="filter rows"><span id="shown">{n_rows}</span> of '
            f'{n_rows} rows; <a {link_attributes}>{html.escape(tsv_name)}</a> has every digit</p>')


def _rendered_table_page(frame: pd.DataFrame, title: str, tsv_name: str, tsv_bytes: bytes) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for rec in frame.itertuples(index=False, name=None):
        cells = []
        for v in rec:
            text, num = format_cell(v.item() if hasattr(v, "item") else v)
            cells.append(f'<td class="num">{text}</td>' if num else f"<td>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    link = (f'download="{html.escape(tsv_name)}" '
            f'href="{_data_uri(tsv_bytes, "text/tab-separated-values")}"')
    meta = _table_meta(len(frame), tsv_name, link)
    body = (f"<h1>{html.escape(title)}</h1>{meta}<table><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")
    return _document(title, body, script=FILTER_SCRIPT)


def _compressed_table_page(frame: pd.DataFrame, title: str, tsv_name: str,
                           tsv_bytes: bytes) -> str:
    payload = base64.b64encode(gzip.compress(tsv_bytes, compresslevel=9, mtime=0)).decode("ascii")
    meta = _table_meta(len(frame), tsv_name, f'id="download" download="{html.escape(tsv_name)}" '
                                             'href="#"')
    body = (f"<h1>{html.escape(title)}</h1>{meta}<table><thead><tr></tr></thead><tbody></tbody>"
            f'</table><script id="tsv" type="application/gzip;base64">{payload}</script>')
    return _document(title, body, script=TSV_SCRIPT)


def figure_page(png: bytes, title: str) -> str:
    """The PNG scaled down to fit the frame (never up, never cropped)."""
    body = (f'<div class="figure-frame"><img src="{_data_uri(png, "image/png")}" '
            f'alt="{html.escape(title)}"></div>')
    return _document(title, body, body_class="figure")


def write(text: str, path: str | Path) -> None:
    from ..outputs import atomic_path

    with atomic_path(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
