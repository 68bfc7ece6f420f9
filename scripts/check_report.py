"""Look at a Snakemake report the way a reader does, in headless Chromium, and say whether each
result can be read in it.

    python scripts/check_report.py results/report.html [--window 1400x1000] [--screenshots DIR]

The report opens in a window of the given size; each result is selected with the report's own
view button (the handler its click runs) and then:

* it must be shown in the page, not offered as a download;
* the frame or image that shows it must lie inside the window;
* a page of text (claims, tables) must show text, its first heading inside the frame's view;
* a figure (an HTML page holding one image, or an image shown directly) must be loaded, lie
  wholly inside the window and its frame, and the screenshot of its box must match the figure
  scaled to that box, its top band (the legend) on its own as well.

One line per result; exit status 1 when any check fails, 2 when Chromium cannot be started.
Chromium is driven through the DevTools protocol over a pipe (``--remote-debugging-pipe``), so
nothing but Chromium and Pillow is needed.
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
LEGEND_BAND = 0.12  # top share of a figure that holds its legend (loc="outside upper center")
MAX_MEAN_DIFF = 0.06  # mean |screenshot - figure| per channel, 0..1, for "the figure is shown"


def find_chromium() -> str | None:
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    """Chromium could not be started or stopped answering."""


class Chromium:
    """A headless Chromium spoken to over the DevTools pipe (JSON messages ended by NUL)."""

    def __init__(self, binary: str, width: int, height: int, timeout: float = 60.0):
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="check-report-")
        cmd_r, self._cmd_w = os.pipe()
        self._res_r, res_w = os.pipe()

        def wire_pipe():  # Chromium reads commands on fd 3 and answers on fd 4
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (cmd_r, res_w)]  # clash-free
            for target, fd in zip((3, 4), high):
                os.dup2(fd, target)
                os.set_inheritable(target, True)

        args = [binary, "--headless", "--remote-debugging-pipe", "--disable-gpu",
                "--hide-scrollbars", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", f"--user-data-dir={self._profile}",
                f"--window-size={width},{height}", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root otherwise
        try:
            self.proc = subprocess.Popen(args, preexec_fn=wire_pipe, close_fds=False,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise BrowserError(f"cannot start {binary}: {exc}") from None
        finally:
            os.close(cmd_r)
            os.close(res_w)
        self._buf = b""
        self._next = 0
        self.events: list[dict] = []
        self.session = None
        page = next((t for t in self.call("Target.getTargets")["targetInfos"]
                     if t["type"] == "page"), None)
        if page is None:
            page = {"targetId": self.call("Target.createTarget", url="about:blank")["targetId"]}
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self._res_r, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed the DevTools pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, **params) -> dict:
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str) -> dict:
        deadline = time.monotonic() + self.timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def evaluate(self, expression: str, context: int | None = None):
        params = dict(expression=expression, awaitPromise=True, returnByValue=True)
        if context is not None:
            params["contextId"] = context
        res = self.call("Runtime.evaluate", **params)
        if "exceptionDetails" in res:
            details = res["exceptionDetails"]
            raise BrowserError(f"script failed: {details.get('text')} "
                               f"{details.get('exception', {}).get('description', '')}")
        return res["result"].get("value")

    def screenshot(self):
        from PIL import Image

        data = self.call("Page.captureScreenshot", format="png")["data"]
        return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")

    def close(self) -> None:
        try:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        finally:
            for fd in (self._cmd_w, self._res_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self._profile, ignore_errors=True)


# Runs in the report: select a result as its view button does, then describe what is shown.
SELECT = """
(async (path) => {
  const entry = results[path];
  const button = new ButtonViewManager(app).handleSelectedResult(path);
  if (!button.props.onClick) return {download: true, mime: entry.mime_type};
  button.props.onClick();
  for (let i = 0; i < 200; i++) {
    await new Promise(r => setTimeout(r, 50));
    const content = document.querySelector("#app > div").lastElementChild;  // beside the menu
    const img = content.querySelector("img");
    const frame = content.querySelector("iframe");
    const box = el => { const r = el.getBoundingClientRect();
                        return [r.left, r.top, r.width, r.height]; };
    const view = [innerWidth, innerHeight];
    if (frame)
      return {download: false, mime: entry.mime_type, kind: "frame", box: box(frame), view};
    if (img && img.complete && img.naturalWidth > 0)
      return {download: false, mime: entry.mime_type, kind: "image", box: box(img), view,
              natural: [img.naturalWidth, img.naturalHeight], src: img.src};
  }
  return {download: false, mime: entry.mime_type, kind: "nothing"};
})
"""

# Runs in the frame's document once it has loaded.
DESCRIBE_FRAME = """
(async () => {
  for (let i = 0; i < 200 && document.readyState !== "complete"; i++)
    await new Promise(r => setTimeout(r, 50));
  const box = el => { const r = el.getBoundingClientRect();
                      return [r.left, r.top, r.width, r.height]; };
  const imgs = Array.from(document.images);
  const heading = document.querySelector("h1, h2, h3");
  return {ready: document.readyState, view: [innerWidth, innerHeight],
          text: document.body ? document.body.innerText : "",
          heading: heading ? {text: heading.innerText, box: box(heading)} : null,
          images: imgs.map(im => ({box: box(im), complete: im.complete,
                                   natural: [im.naturalWidth, im.naturalHeight], src: im.src}))};
})()
"""


@dataclass
class Result:
    path: str
    mime: str
    kind: str = ""
    problems: list[str] = field(default_factory=list)
    text: str = ""
    figure_diff: float | None = None
    legend_diff: float | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def _inside(box, view, tol: float = 1.0) -> bool:
    x, y, w, h = box
    return x >= -tol and y >= -tol and x + w <= view[0] + tol and y + h <= view[1] + tol


def _decode_data_uri(uri: str) -> bytes:
    head, _, data = uri.partition(",")
    return base64.b64decode(data) if head.endswith(";base64") else data.encode()


def compare_figure(shot, box, png: bytes) -> tuple[float, float, list[str]]:
    """Mean |difference| (0..1) between the screenshot inside ``box`` and the figure scaled to
    it, over the whole figure and over its top band; problems found."""
    import numpy as np
    from PIL import Image

    x, y, w, h = (int(round(v)) for v in box)
    if w < 50 or h < 50:
        return 1.0, 1.0, [f"figure shown only {w}x{h} px"]
    fig = Image.open(io.BytesIO(png)).convert("RGBA")
    white = Image.new("RGBA", fig.size, (255, 255, 255, 255))
    fig = Image.alpha_composite(white, fig).convert("RGB").resize((w, h), Image.LANCZOS)
    seen = np.asarray(shot.crop((x, y, x + w, y + h)), dtype=float) / 255
    want = np.asarray(fig, dtype=float) / 255
    band = max(1, int(h * LEGEND_BAND))
    diff = float(np.abs(seen - want).mean())
    legend = float(np.abs(seen[:band] - want[:band]).mean())
    problems = []
    if diff > MAX_MEAN_DIFF:
        problems.append(f"screenshot differs from the figure (mean difference {diff:.3f})")
    ink_want = float((want[:band].min(axis=2) < 0.5).mean())
    ink_seen = float((seen[:band].min(axis=2) < 0.5).mean())
    if legend > MAX_MEAN_DIFF or (ink_want > 0 and not 0.5 <= ink_seen / ink_want <= 2):
        problems.append(f"top of the figure (legend) not shown as drawn (mean difference "
                        f"{legend:.3f}, dark pixels {ink_seen:.4f} vs {ink_want:.4f})")
    return diff, legend, problems


def check_report(report: str | Path, chromium: str, width: int = 1400, height: int = 1000,
                 screenshots: str | Path | None = None) -> list[Result]:
    """Check every result of ``report``; see the module docstring."""
    report = Path(report).resolve()
    text = report.read_text(encoding="utf-8")
    marker = "var results = {"  # the report's table of results (a JSON object)
    start = text.find(marker)
    if start < 0:
        raise ValueError(f"{report}: not a Snakemake report (no results table)")
    entries, _ = json.JSONDecoder().raw_decode(text, start + len(marker) - 1)
    out_dir = Path(screenshots) if screenshots else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    browser = Chromium(chromium, width, height)
    found = []
    try:
        browser.call("Page.navigate", url=report.as_uri())
        browser.wait_event("Page.loadEventFired")
        for i, path in enumerate(entries):
            res = Result(path, entries[path].get("mime_type", ""))
            found.append(res)
            shown = browser.evaluate(f"{SELECT}({json.dumps(path)})")
            res.kind = shown.get("kind", "download")
            if shown["download"]:
                res.problems.append(f"offered as a download ({res.mime}), not shown")
                continue
            if res.kind == "nothing":
                res.problems.append("nothing is shown")
                continue
            time.sleep(0.3)  # let the frame paint
            if not _inside(shown["box"], shown["view"]):
                res.problems.append(f"{res.kind} at {_fmt(shown['box'])} is not inside the "
                                    f"{shown['view'][0]}x{shown['view'][1]} window (cut off)")
            figure_box, png = None, None
            if res.kind == "image":
                figure_box, png = shown["box"], _decode_data_uri(shown["src"])
            else:
                inner = _describe_frame(browser)
                res.text = inner["text"]
                fx, fy = shown["box"][:2]
                if inner["images"]:
                    im = max(inner["images"], key=lambda m: m["box"][2] * m["box"][3])
                    if not (im["complete"] and im["natural"][0] > 0):
                        res.problems.append("the figure did not load")
                    elif not _inside(im["box"], inner["view"]):
                        w, h = inner["view"]
                        res.problems.append(f"figure at {_fmt(im['box'])} is not inside the "
                                            f"{w}x{h} frame (cut off)")
                    figure_box = [fx + im["box"][0], fy + im["box"][1], *im["box"][2:]]
                    png = _decode_data_uri(im["src"])
                else:
                    if len(res.text.strip()) < 20:
                        res.problems.append("the page shows no text")
                    head = inner["heading"]
                    if head is None:
                        res.problems.append("the page has no heading")
                    elif not _inside(head["box"], inner["view"]):
                        res.problems.append(f"heading {head['text']!r} is not in view")
            shot = browser.screenshot()
            if out_dir:
                shot.save(out_dir / f"{i:02d}-{Path(path).stem}.png")
            if figure_box is not None and png is not None:
                res.figure_diff, res.legend_diff, problems = compare_figure(shot, figure_box, png)
                res.problems += problems
    finally:
        browser.close()
    return found


def _describe_frame(browser: Chromium) -> dict:
    deadline = time.monotonic() + browser.timeout
    while True:  # until the frame has left its initial about:blank for the result's page
        children = browser.call("Page.getFrameTree")["frameTree"].get("childFrames", [])
        if children and not children[-1]["frame"].get("url", "").startswith("about:"):
            break
        if time.monotonic() > deadline:
            raise BrowserError("the report's frame did not load the result")
        time.sleep(0.05)
    frame_id = children[-1]["frame"]["id"]
    ctx = browser.call("Page.createIsolatedWorld", frameId=frame_id,
                       worldName="check-report")["executionContextId"]
    return browser.evaluate(DESCRIBE_FRAME, context=ctx)


def _fmt(box) -> str:
    x, y, w, h = (int(round(v)) for v in box)
    return f"({x}, {y}) size {w}x{h}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report", type=Path, help="report.html from snakemake --report")
    ap.add_argument("--window", default="1400x1000", help="window size WIDTHxHEIGHT")
    ap.add_argument("--chromium", help="Chromium binary (default: found on PATH)")
    ap.add_argument("--screenshots", type=Path, help="directory for one screenshot per result")
    args = ap.parse_args(argv)
    try:
        width, height = (int(v) for v in args.window.lower().split("x"))
    except ValueError:
        ap.error(f"--window: expected WIDTHxHEIGHT, got {args.window!r}")
    chromium = args.chromium or find_chromium()
    if chromium is None:
        print(f"check_report: no Chromium on PATH (tried {', '.join(CHROMIUM_NAMES)}); "
              "install the Debian package chromium or pass --chromium", file=sys.stderr)
        return 2
    if not args.report.is_file():
        print(f"check_report: {args.report}: no such file", file=sys.stderr)
        return 2
    try:
        results = check_report(args.report, chromium, width, height, args.screenshots)
    except (BrowserError, ValueError) as exc:
        print(f"check_report: {exc}", file=sys.stderr)
        return 2
    for r in results:
        extra = f" (figure difference {r.figure_diff:.3f})" if r.figure_diff is not None else ""
        status = "ok" if r.ok else "FAIL: " + "; ".join(r.problems)
        print(f"{r.path}: {r.kind or 'download'}, {status}{extra if r.ok else ''}")
    bad = sum(not r.ok for r in results)
    print(f"{len(results) - bad} of {len(results)} results readable at {width}x{height}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
