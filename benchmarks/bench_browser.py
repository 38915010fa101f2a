"""Measure the pages in a real browser: `python benchmarks/bench_browser.py`.

Builds the default site (or takes `--site`), serves it on localhost and drives Debian's Chromium
(headless, as tests/browser/ does) with Playwright. Prints, as medians over `--runs` fresh loads:

- page load of a comparison page (navigation start → `load`; → the table wired; → the
  interactivity chart drawn; → every chart drawn: the chart library loads after `load`) next to a
  plain MkDocs-like page holding the same text with one stylesheet and no script, and the ratios;
- a target edit → next paint (the headline figure): from the `change` event on a target field
  until the frame after it has been painted (a requestAnimationFrame callback followed by a task),
  as medians over `--edits` edits `--settle-ms` apart; split into the handler, the wait for the
  frame (handler → the frame's callback) and the frame's own style, layout and paint (callback →
  task); and the time until the chart's diamonds are painted at the new target;
- the same in the explorer with 8 sides on DeepSeek-R1 1k/1k (the issue's target: ≤ 16 ms), whose
  edit paints its table first and moves the chart's diamonds in a later frame.
  `--explorer-only` measures that alone.

`--cpu-throttle 4` slows the CPU fourfold (Chrome DevTools' "mid-tier mobile"). Asserts nothing:
performance is measured here, not in timed tests.
"""

from __future__ import annotations

import argparse
import functools
import html
import http.server
import importlib.util
import re
import statistics
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

from site_builder.cli import main as build_site

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
PAGE = "b200-fp4-vs-fp8-dsr1"  # a default-site comparison page with three targets and accuracy
# The explorer with 8 sides of the default site (GPU × precision, each measured on 1k/1k)
EXPLORER = "explore/index.html?model=dsr1&seq=1k/1k&" + "&".join(
    f"side=hardware:{gpu},precision:{precision}"
    for gpu, precision in (
        ("b200", "fp4"),
        ("b200", "fp8"),
        ("h200", "fp8"),
        ("mi355x", "fp4"),
        ("mi355x", "fp8"),
        ("gb200", "fp4"),
        ("b300", "fp4"),
        ("gb300", "fp4"),
    )
)

# One edit, timed inside the page: the change handler runs synchronously in dispatchEvent; the next
# paint has happened once a requestAnimationFrame callback has run and a task after it has started
# (the callback runs before the frame's style, layout and paint, the task after them). Then the
# chart's diamonds: painted once the chart's data-marks name the new target and a frame has
# passed since. Times in ms from the event: [handler, frame's callback, next paint, diamonds painted].
# Without `event` the value is only written (the measurement's floor: a frame that paints the field).
EDIT = """async ([selector, value, event]) => {
  const input = document.querySelector(selector), chart = document.getElementById('chart');
  const nextPaint = () => new Promise(done => requestAnimationFrame(() => {
    const at = performance.now();
    setTimeout(() => done(at), 0);
  }));
  const moved = () => chart && (chart.getAttribute('data-marks') || '').split(',')[0] === String(value);
  const start = performance.now();
  input.value = String(value);
  if (event) { input.dispatchEvent(new Event('change', {bubbles: true})); }
  const handled = performance.now();
  const frame = await nextPaint();
  const painted = performance.now();
  let diamonds = NaN;
  if (chart && event) {
    while (!moved() && performance.now() - start < 5000) { await nextPaint(); }
    await nextPaint();
    diamonds = performance.now();
  }
  return [handled - start, frame - start, painted - start, diamonds - start];
}"""

# Between edits the page settles: its idle callback has run (the previous edit's diamonds and
# history entry are done) and `settle` ms have passed, as between a reader's edits. Without it
# (--settle-ms 0) an edit starts a few ms after the previous one's paint and its frame also carries
# the previous edit's diamonds.
SETTLE = """(ms) => new Promise(done => setTimeout(() =>
  (window.requestIdleCallback || setTimeout)(() => done(), {timeout: 1000}), ms))"""


PAGE_TARGET = ".sequence-panel:not([hidden]) input.target-input"  # a comparison page's target field
EXPLORER_TARGET = "#explore-target-0"


# Records when the page script has wired the table ("ready"), drawn the interactivity chart
# ("chart") and every chart ("charts"). Pages built before the chart library loaded after the page
# draw every chart before they are ready: all three marks at once.
MARKS = """new MutationObserver(() => {
  const root = document.documentElement, chart = document.getElementById('chart');
  const seen = name => performance.getEntriesByName(name).length > 0;
  if (root && root.getAttribute('data-ready') === 'true' && !seen('ready')) {
    performance.mark('ready');
    if (!document.querySelector('script[data-plotly]')) {  // a page that draws before it is ready
      performance.mark('chart');
      performance.mark('charts');
      root.setAttribute('data-charts', 'drawn');
    }
  }
  if (chart && chart.getAttribute('data-drawn') && !seen('chart')) performance.mark('chart');
  if (root && root.getAttribute('data-charts') === 'drawn' && !seen('charts')) performance.mark('charts');
}).observe(document, {attributes: true, subtree: true,
             attributeFilter: ['data-ready', 'data-drawn', 'data-charts']});"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def page_text(comparison_html: str) -> str:
    """The comparison page's text as HTML paragraphs (no tables, forms or scripts)."""
    main = re.search(r"<main[^>]*>(.*)</main>", comparison_html, re.S)
    body = re.sub(r"<script.*?</script>", "", main.group(1) if main else "", flags=re.S)
    text = re.sub(r"<[^>]+>", " ", body)
    paragraphs = [p.strip() for p in re.split(r"\s{2,}", html.unescape(text)) if p.strip()]
    return "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)


def mkdocs_page(comparison_html: str, folder: Path) -> Path | None:
    """A real MkDocs page of the same text (MkDocs' default theme with its own scripts and styles,
    none from outside), built under `folder`; None where MkDocs is not installed."""
    if importlib.util.find_spec("mkdocs") is None:
        return None
    docs = folder / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text("# Plain page\n\n" + page_text(comparison_html) + "\n", encoding="utf-8")
    # the default theme, without its one outside resource (highlight.js from a CDN): all local
    (folder / "mkdocs.yml").write_text(
        "site_name: Plain page\ntheme:\n  name: mkdocs\n  highlightjs: false\n", encoding="utf-8"
    )
    command = [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(folder / "mkdocs.yml"), "-d", "site"]
    subprocess.run(command, check=True, cwd=folder)
    return folder / "site" / "index.html"


def plain_page(comparison_html: str) -> str:
    """A MkDocs-like page of the same text: headings and paragraphs, one stylesheet, no script."""
    content = page_text(comparison_html)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Plain page</title>'
        '<link rel="stylesheet" href="../assets/site.css"></head><body><main>'
        f"<h1>Plain page</h1>{content}</main></body></html>"
    )


def load_times(browser: Browser, url: str, runs: int, throttle: float, charts: bool) -> dict[str, float]:
    """Medians (ms from navigation start) over fresh contexts (empty cache): `load`, and with
    `charts` the page script's marks (table ready, interactivity chart drawn, every chart drawn)."""
    names = ["load", "ready", "chart", "charts"] if charts else ["load"]
    seen: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        if throttle > 1:
            page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        page.add_init_script(MARKS)
        page.goto(url, wait_until="load")
        if charts:
            page.wait_for_selector("html[data-charts=drawn]", timeout=120000)
        timing = page.evaluate(
            """(names) => names.map(name => name === 'load'
                 ? performance.getEntriesByType('navigation')[0].loadEventEnd
                 : performance.getEntriesByName(name)[0].startTime)""",
            names,
        )
        for name, value in zip(names, timing, strict=True):
            seen[name].append(value)
        context.close()
    return {name: statistics.median(values) for name, values in seen.items()}


@dataclass
class EditTimes:
    """Medians over the edits, ms from the `change` event: the handler's end, the frame's
    requestAnimationFrame callback (the wait for the frame), the task after it (the next paint:
    the headline figure) and the paint after the chart's diamonds moved; and the worst next paint."""

    handler: float
    frame: float
    painted: float
    diamonds: float
    worst: float

    def line(self) -> str:
        return (
            f"median {self.painted:.1f} ms (worst {self.worst:.1f} ms): handler {self.handler:.1f} ms, "
            f"wait for the frame {self.frame - self.handler:.1f} ms, the frame's style, layout and paint "
            f"{self.painted - self.frame:.1f} ms; diamonds painted {self.diamonds:.1f} ms"
        )


def edit_latency(
    browser: Browser,
    url: str,
    edits: int,
    throttle: float,
    field: str = PAGE_TARGET,
    settle: int = 200,
    event: bool = True,
) -> EditTimes:
    """Times of editing the first target `field` finds, once the charts are drawn (EDIT, SETTLE);
    without `event`, of writing its value alone."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    if throttle > 1:
        page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    page.goto(url)
    page.wait_for_selector("html[data-ready=true]", timeout=60000)
    page.wait_for_selector("html[data-charts=drawn]", timeout=120000)
    page.locator("#chart").scroll_into_view_if_needed()  # the chart in view: its paint is measured
    default = float(page.locator(field).first.input_value())
    times = []
    for i in range(edits + 3):
        if settle:
            page.evaluate(SETTLE, settle)
        edit = page.evaluate(EDIT, [field, default + (i % 10) - 5 + 0.5, event])
        if i >= 3:  # the first edits warm up the JIT
            times.append(edit)
    context.close()
    handler, frame, painted, diamonds = (statistics.median(column) for column in zip(*times, strict=True))
    return EditTimes(handler, frame, painted, diamonds, max(edit[2] for edit in times))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--site", type=Path, help="a built site (default: build the default site)")
    parser.add_argument("--page", default=PAGE, help=f"the comparison page's slug (default {PAGE})")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--cpu-throttle", type=float, default=1.0)
    parser.add_argument("--explorer-only", action="store_true", help="only the explorer's target edit")
    parser.add_argument(
        "--settle-ms",
        type=int,
        default=200,
        help="ms the page rests (then its idle callback) between edits; 0: edits back to back (default 200)",
    )
    parser.add_argument(
        "--floor", action="store_true", help="with --explorer-only: also the value written without an event"
    )
    args = parser.parse_args()
    if args.explorer_only:
        explorer_only(args.site, args.edits, args.cpu_throttle, args.settle_ms, args.floor)
        return
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site
        if site is None:
            site = Path(tmp) / "site"
            assert build_site(["build", "--root", str(ROOT), "-q", "-o", str(site)]) == 0
        comparison = site / args.page / "index.html"
        plain_folder = Path(tmp) / "plain"
        plain_folder.mkdir()
        text = plain_page(comparison.read_text(encoding="utf-8"))
        (plain_folder / "index.html").write_text(text, encoding="utf-8")
        (Path(tmp) / "assets").mkdir(exist_ok=True)
        (Path(tmp) / "assets" / "site.css").write_bytes((site / "assets" / "site.css").read_bytes())
        made = mkdocs_page(comparison.read_text(encoding="utf-8"), Path(tmp) / "mkdocs")
        with serve(site) as url, serve(Path(tmp)) as plain_root, sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-quic"]
            )
            page_url = f"{url}{args.page}/index.html"
            times = load_times(browser, page_url, args.runs, args.cpu_throttle, charts=True)
            plain_url = f"{plain_root}plain/index.html"
            plain = load_times(browser, plain_url, args.runs, args.cpu_throttle, charts=False)
            mkdocs_url = f"{plain_root}mkdocs/site/index.html"
            mkdocs = None
            if made is not None:
                mkdocs = load_times(browser, mkdocs_url, args.runs, args.cpu_throttle, charts=False)
            edit = edit_latency(browser, page_url, args.edits, args.cpu_throttle, settle=args.settle_ms)
            explorer = explorer_line(browser, url, args.edits, args.cpu_throttle, args.settle_ms)
            browser.close()
    throttle = f", CPU throttled {args.cpu_throttle:g}×" if args.cpu_throttle > 1 else ""
    print(f"page {args.page}{throttle}, medians of {args.runs} fresh loads over localhost:")
    base = plain["load"]
    print(f"  plain page of the same text: load {base:.0f} ms")
    if mkdocs is not None:
        print(f"  MkDocs page of the same text (its default theme): load {mkdocs['load']:.0f} ms")
    print(
        f"  comparison page: load {times['load']:.0f} ms ({times['load'] / base:.2f}× the plain page"
        + (f", {times['load'] / mkdocs['load']:.2f}× the MkDocs page" if mkdocs else "")
        + f"), table ready {times['ready']:.0f} ms, interactivity chart drawn {times['chart']:.0f} ms "
        f"({times['chart'] / base:.2f}×), every chart drawn {times['charts']:.0f} ms"
    )
    print(f"target edit → next paint, {args.edits} edits, {args.settle_ms} ms apart: {edit.line()}")
    print(explorer)


def explorer_line(browser: Browser, url: str, edits: int, throttle: float, settle: int) -> str:
    edit = edit_latency(browser, url + EXPLORER, edits, throttle, EXPLORER_TARGET, settle)
    return f"explorer, 8 sides, target edit → next paint, {edits} edits, {settle} ms apart: {edit.line()}"


def floor_line(browser: Browser, url: str, edits: int, throttle: float, settle: int) -> str:
    """The measurement's floor in the explorer: the target's value written with no event."""
    floor = edit_latency(browser, url + EXPLORER, edits, throttle, EXPLORER_TARGET, settle, event=False)
    return (
        f"explorer, the floor (the value written, no event): median {floor.painted:.1f} ms, wait for the "
        f"frame {floor.frame - floor.handler:.1f} ms, the frame {floor.painted - floor.frame:.1f} ms"
    )


def explorer_only(site: Path | None, edits: int, throttle: float, settle: int, floor: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        if site is None:
            site = Path(tmp) / "site"
            assert build_site(["build", "--root", str(ROOT), "-q", "-o", str(site)]) == 0
        with serve(site) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-quic"]
            )
            print(explorer_line(browser, url, edits, throttle, settle))
            if floor:
                print(floor_line(browser, url, edits, throttle, settle))
            browser.close()


if __name__ == "__main__":
    main()
