"""The charts in real Chromium: drawn in the page from its data, with the traces the numbers call
for, units in every hover, a log/linear switch, the table's side colours, a toolbar that stays on
the site, a titled opaque PNG export, and target diamonds that follow the table."""

from __future__ import annotations

import csv
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from site_builder.formatting import fixed, grouped
from site_builder.metrics import SHOWN
from tests.browser.test_pages import KINDS, Watch, open_page, set_target

TRACES = """() => document.getElementById('chart').data.map(t => ({
    name: t.name, role: t.meta.role, side: t.meta.side, x: t.x, y: t.y,
    color: t.meta.role === 'curve' ? t.line.color : t.marker.color, hover: t.hovertemplate}))"""
# The target diamonds (one marker trace per side, meta.role "targets", each point's column in its
# customdata), each with where it is drawn: the centre of its marker, in data coordinates by the
# axes' public ranges over the plot area
MARKS = """() => {
    const gd = document.getElementById('chart'), xa = gd.layout.xaxis, ya = gd.layout.yaxis;
    const area = gd.querySelector('.nsewdrag').getBoundingClientRect();
    const data = (axis, fraction) => {
        const value = axis.range[0] + fraction * (axis.range[1] - axis.range[0]);
        return axis.type === 'log' ? Math.pow(10, value) : value;
    };
    const groups = gd.querySelectorAll('.scatterlayer .trace');
    return gd.data.flatMap((t, i) => t.meta.role !== 'targets' ? [] : t.x.map((x, n) => {
        const box = groups[i].querySelectorAll('.point')[n].getBoundingClientRect();
        return {side: t.meta.side, column: t.customdata[n], x: x, y: t.y[n], fill: t.marker.color,
                symbol: t.marker.symbol,
                drawnX: data(xa, (box.left + box.width / 2 - area.left) / area.width),
                drawnY: data(ya, 1 - (box.top + box.height / 2 - area.top) / area.height)};
    }));
}"""


def comparison(site: Path, slug: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((site / slug / "comparison.json").read_text())
    return data


def measured(site: Path, slug: str, sequence: str, label: str) -> list[dict[str, Any]]:
    """A side's measured points on one workload, in its order, as the page's points.csv lists them
    (comparison.json lists only the frontier's: schema 2)."""
    with (site / slug / "points.csv").open(newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if (row["sequence"], row["side"]) == (sequence, label)]
    return [
        {
            "interactivity": float(row["interactivity"]),
            "throughput_per_gpu": float(row["throughput_per_gpu"]),
            "concurrency": float(row["concurrency"]),
            "gpu_count": int(row["gpu_count"]) if row["gpu_count"] else None,
            "on_frontier": row["on_frontier"] == "True",
        }
        for row in rows
    ]


def test_each_page_draws_each_sides_frontier_and_measured_points(
    page: Page, root_url: str, built_site: Path
) -> None:
    """Per side: a curve through every frontier knot (first to last, exactly at the knots), and one
    marker per measured point at its own (x, throughput); every page kind and a sweep page."""
    compared = 0
    for slug in (*KINDS.values(), "example-b200-fp4-vs-h200-fp8-sweep"):
        data = comparison(built_site, slug)
        for sequence in data["sequences"]:
            open_page(page, f"{root_url}{slug}/index.html?seq={sequence['sequence']}&metric=throughput")
            traces = page.evaluate(TRACES)
            labels = [s["label"] for s in sequence["sides"]]
            expected = []
            for index, side in enumerate(sequence["sides"]):
                if side["frontier"]:
                    expected.append((f"{labels[index]} frontier", "curve", index))
                expected.append((f"{labels[index]} measured", "points", index))
            # then each side's target diamonds (test_diamonds_sit_at_the_tables_targets…)
            expected += [(f"{label} at targets", "targets", index) for index, label in enumerate(labels)]
            assert [(t["name"], t["role"], t["side"]) for t in traces] == expected, (
                slug,
                sequence["sequence"],
            )
            for trace in traces:
                side = sequence["sides"][trace["side"]]
                if trace["role"] == "points":
                    # markers at the measured values to 6 significant digits (charts.marker_value)
                    points = measured(built_site, slug, sequence["sequence"], side["label"])
                    measured_at = [(p["interactivity"], p["throughput_per_gpu"]) for p in points]
                    markers = list(zip(trace["x"], trace["y"], strict=True))
                    assert len(markers) == len(measured_at)
                    compared += len(markers)
                    assert all(
                        d == pytest.approx(m, rel=5e-6) for d, m in zip(markers, measured_at, strict=True)
                    )
                elif trace["role"] == "curve":
                    drawn = dict(zip(trace["x"], trace["y"], strict=True))
                    knots = [(k["interactivity"], k["throughput_per_gpu"]) for k in side["frontier"]]
                    assert trace["x"][0] == knots[0][0] and trace["x"][-1] == knots[-1][0]
                    assert all(drawn[x] == y for x, y in knots), (slug, sequence["sequence"])
                    assert trace["x"] == sorted(set(trace["x"]))
    assert compared > 0  # markers were checked against the points the page lists


def test_each_measured_point_is_drawn_at_its_concurrency_per_gpu(
    page: Page, root_url: str, built_site: Path
) -> None:
    """A point off the frontier carries its GPU count, not the ratio (charts.point_columns): the
    page divides it out again, to the value comparison.json lists (None without a GPU count)."""
    slug = KINDS["precision"]
    data = comparison(built_site, slug)
    sequence = data["sequences"][0]
    open_page(page, f"{root_url}{slug}/index.html?seq={sequence['sequence']}&metric=users_per_gpu")
    page.wait_for_function(
        "document.getElementById('chart').getAttribute('data-drawn').includes('|users_per_gpu|')"
    )
    drawn = [t for t in page.evaluate(TRACES) if t["role"] == "points"]
    assert len(drawn) == 2
    for trace in drawn:
        points = measured(built_site, slug, sequence["sequence"], sequence["sides"][trace["side"]]["label"])
        assert any(not p["on_frontier"] for p in points)  # the case this test is for
        # hand check: concurrency ÷ GPUs of each point, in the side's order
        expected = [p["concurrency"] / p["gpu_count"] if p["gpu_count"] else None for p in points]
        assert trace["y"] == expected


def test_every_hover_states_its_unit_with_grouped_digits(page: Page, root_url: str) -> None:
    open_page(page, f"{root_url}{KINDS['precision']}/index.html")
    for metric in SHOWN:
        page.select_option("#metric-select", metric.key)
        page.wait_for_function(
            f"document.getElementById('chart').getAttribute('data-drawn').includes('|{metric.key}|')"
        )
        for trace in page.evaluate(TRACES):
            assert "%{x:,.1f} tok/s/user" in trace["hover"], trace["name"]
            assert f"%{{y:,.{metric.decimals}f}}" in trace["hover"], trace["name"]
            assert (metric.unit or metric.label.lower()) in trace["hover"], trace["name"]
    # what a reader sees: hover the first measured point
    page.select_option("#metric-select", "throughput")
    page.wait_for_function(
        "document.getElementById('chart').getAttribute('data-drawn').includes('|throughput|')"
    )
    point = page.evaluate("""() => { const gd = document.getElementById('chart');
        const i = gd.data.findIndex(t => t.meta.role === 'points');
        return {curve: i, x: gd.data[i].x[0], y: gd.data[i].y[0], custom: gd.data[i].customdata[0]}; }""")
    page.evaluate("(p) => Plotly.Fx.hover('chart', [{curveNumber: p.curve, pointNumber: 0}])", point)
    hover = page.locator("#chart .hoverlayer").text_content() or ""
    assert f"{grouped(fixed(point['y'], 1))} tok/s/GPU" in hover
    assert "concurrency" in hover


def test_the_interactivity_axis_switches_between_log_and_linear(page: Page, root_url: str) -> None:
    open_page(page, f"{root_url}{KINDS['precision']}/index.html")
    types = "() => [document.getElementById('chart').layout.xaxis.type, document.getElementById('chart').layout.yaxis.type]"
    assert page.evaluate(types) == ["log", "linear"]
    marks_before = page.evaluate(MARKS)
    page.locator("#log-x").uncheck()
    page.wait_for_function("document.getElementById('chart').layout.xaxis.type === 'linear'")
    page.locator("#log-y").check()
    page.wait_for_function("document.getElementById('chart').layout.yaxis.type === 'log'")
    assert page.evaluate(types) == ["linear", "log"]
    marks_after = page.evaluate(MARKS)  # the diamonds stay on their targets and values
    assert marks_after and len(marks_after) == len(marks_before)
    for before, after in zip(marks_before, marks_after, strict=True):
        assert (after["x"], after["y"]) == (before["x"], before["y"])
        assert after["drawnX"] == pytest.approx(before["x"], rel=2e-2)
        assert after["drawnY"] == pytest.approx(before["y"], rel=5e-2)
    assert page.locator("#log-x").evaluate("el => el.labels[0].textContent.trim()") == "interactivity"


def test_diamonds_sit_at_the_tables_targets_and_follow_an_edit(
    page: Page, root_url: str, built_site: Path
) -> None:
    slug = KINDS["precision"]
    sequence = comparison(built_site, slug)["sequences"][0]
    open_page(page, f"{root_url}{slug}/index.html?seq={sequence['sequence']}&metric=throughput")
    marks = {(m["side"], m["column"]): m for m in page.evaluate(MARKS)}
    for column, result in enumerate(sequence["results"]):
        for side, numbers in enumerate(result["sides"]):
            assert ((side, column) in marks) == numbers["measured"]
            if numbers["measured"]:  # the build's number (the page's own, unrounded) …
                mark = marks[(side, column)]
                assert mark["x"] == sequence["targets"][column]
                assert mark["y"] == pytest.approx(numbers["throughput_per_gpu"], rel=1e-12)
                # … drawn there on the chart's axes (to a pixel or two)
                assert mark["drawnX"] == pytest.approx(mark["x"], rel=2e-2)
                assert mark["drawnY"] == pytest.approx(mark["y"], rel=2e-2, abs=60)
    set_target(page, 1, 100.0)
    page.wait_for_function(
        "document.getElementById('chart').getAttribute('data-marks').split(',')[1] === '100'"
    )
    moved = {(m["side"], m["column"]): m for m in page.evaluate(MARKS)}
    cells = page.locator(".sequence-panel:not([hidden]) tr[data-metric=throughput] td").nth(1)
    values = cells.locator(".value").all_inner_texts()
    for side in (0, 1):
        assert ((side, 1) in moved) == (values[side] != "not measured")
        if (side, 1) in moved:
            mark = moved[(side, 1)]
            shown = values[side].removesuffix(" (sparse data)")
            assert mark["x"] == 100.0 and grouped(fixed(mark["y"], 1)) == shown
            assert mark["drawnX"] == pytest.approx(100.0, rel=2e-2)


def test_a_hover_label_is_never_covered(page: Page, root_url: str) -> None:
    """The diamonds are an ordinary trace of the chart, drawn before (under) its hover layer, and
    nothing of the page's own lies over the chart: a hover label over a diamond is on top."""
    open_page(page, f"{root_url}{KINDS['precision']}/index.html?metric=throughput")
    hovered = page.evaluate("""() => {
        const gd = document.getElementById('chart');
        const curve = gd.data.findIndex(t => t.meta.role === 'curve');
        const targets = gd.data.findIndex(t => t.meta.role === 'targets');
        Plotly.Fx.hover('chart', [{curveNumber: curve, pointNumber: 1}]);
        const label = gd.querySelector('.hoverlayer .hovertext');
        const diamond = gd.querySelectorAll('.scatterlayer .trace')[targets].querySelector('.point');
        return {text: label.textContent,
                under: Boolean(diamond.compareDocumentPosition(label) & Node.DOCUMENT_POSITION_FOLLOWING),
                shapes: (gd.layout.shapes || []).map(s => s.name),
                siblings: Array.from(gd.parentNode.children).map(el => el.tagName)};
    }""")
    assert "frontier" in hovered["text"] and hovered["under"]
    assert hovered["shapes"] == ["band"]  # no diamond is drawn outside Plotly's traces
    assert hovered["siblings"] == ["DIV", "FIGCAPTION"]


@pytest.mark.parametrize("width", [1400, 390])
def test_a_diamond_has_its_own_hover_with_the_tables_value(
    browser: Browser, root_url: str, built_site: Path, width: int
) -> None:
    """Hovering a diamond names its side and says its target and the value the table shows there."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    slug = KINDS["precision"]
    data = comparison(built_site, slug)
    sequence = data["sequences"][0]
    open_page(page, f"{root_url}{slug}/index.html?seq={sequence['sequence']}&metric=throughput")
    marks = page.evaluate(MARKS)
    assert marks and {m["symbol"] for m in marks} == {"diamond"}
    for mark in marks:
        page.wait_for_timeout(120)  # Plotly takes one hover in each 50 ms or so
        label = data["sides"][mark["side"]]["label"]
        value = sequence["results"][mark["column"]]["sides"][mark["side"]]["throughput_per_gpu"]
        text = page.evaluate(
            """(m) => { const gd = document.getElementById('chart');
                const i = gd.data.findIndex(t => t.meta.role === 'targets' && t.meta.side === m.side);
                Plotly.Fx.hover('chart', [{curveNumber: i, pointNumber: gd.data[i].customdata.indexOf(m.column)}]);
                return gd.querySelector('.hoverlayer .hovertext').textContent; }""",
            mark,
        )
        assert text.startswith(f"{label} at targets")
        assert f"{grouped(fixed(sequence['targets'][mark['column']], 1))} tok/s/user" in text
        assert f"{grouped(fixed(value, 1))} tok/s/GPU" in text
    context.close()


def test_side_colours_are_the_tables_and_meet_contrast_in_both_themes(
    browser: Browser, root_url: str
) -> None:
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        open_page(page, f"{root_url}{KINDS['precision']}/index.html")
        table = page.evaluate("""() => [0, 1].map(i => getComputedStyle(
            document.querySelector('.sequence-panel:not([hidden]) .side-' + i + ' .side-label')).color)""")
        chart = {t["side"]: t["color"] for t in page.evaluate(TRACES)}
        marks = page.evaluate(MARKS)
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        for side in (0, 1):
            fill = next(m["fill"] for m in marks if m["side"] == side)
            assert _rgb(chart[side]) == _rgb(table[side]) == _rgb(fill), (scheme, side)
            assert _contrast(_rgb(table[side]), _rgb(background)) >= 4.5, (scheme, side)  # text, WCAG AA
        assert page.evaluate("document.getElementById('chart').layout.paper_bgcolor") != "rgba(0,0,0,0)"
        context.close()


def test_toolbar_stays_on_the_site_and_exports_a_titled_opaque_png(
    browser: Browser, root_url: str, tmp_path: Path
) -> None:
    context = browser.new_context(accept_downloads=True, color_scheme="dark")
    page = context.new_page()
    watch = Watch(page, root_url)
    open_page(page, f"{root_url}{KINDS['precision']}/index.html")
    buttons = page.evaluate(
        "Array.from(document.querySelectorAll('#chart .modebar-btn')).map(b => b.getAttribute('data-title'))"
    )
    assert buttons == [
        "Zoom",
        "Pan",
        "Zoom in",
        "Zoom out",
        "Autoscale",
        "Reset axes",
        "Download this chart as a PNG",
    ]
    assert page.locator(".modebar a, .modebar-btn--logo").count() == 0  # no link to plotly.com
    page.evaluate("""() => { const original = Plotly.downloadImage; window.exported = [];
        Plotly.downloadImage = (figure, options) => { window.exported.push({title: figure.layout.title.text,
            background: figure.layout.paper_bgcolor, filename: options.filename,
            diamonds: figure.data.filter(t => t.meta.role === 'targets').reduce((n, t) => n + t.x.length, 0)});
            return original(figure, options); }; }""")
    page.locator("#chart").hover()
    with page.expect_download() as download:
        page.locator("#chart .modebar-btn[data-title='Download this chart as a PNG']").click()
    saved = tmp_path / "chart.png"
    download.value.save_as(saved)
    [exported] = page.evaluate("window.exported")
    title = page.locator("h1").inner_text()
    assert exported["title"] == f"{title} · 1k/1k · Throughput per GPU"
    assert (
        exported["background"] == "rgb(17, 20, 24)" and exported["diamonds"] == len(page.evaluate(MARKS)) > 0
    )
    assert download.value.suggested_filename == f"{KINDS['precision']}-1k-1k-throughput.png"
    assert _first_pixel_alpha(saved.read_bytes()) == 255
    assert watch.problems == []
    context.close()


def test_charts_are_labelled_figures_not_images(page: Page, root_url: str) -> None:
    for slug in (KINDS["precision"], "example-b200-fp4-vs-h200-fp8-sweep"):
        open_page(page, f"{root_url}{slug}/index.html")
        charts = page.evaluate("""() => Array.from(document.querySelectorAll('.chart')).map(el => ({
            role: el.closest('[role=img]') ? 'img' : null,
            caption: el.closest('figure').querySelector('figcaption').textContent}))""")
        assert charts and all(c["role"] is None and len(c["caption"]) > 40 for c in charts)


def _rgb(css: str) -> tuple[int, int, int]:
    if css.startswith("#"):
        return int(css[1:3], 16), int(css[3:5], 16), int(css[5:7], 16)
    r, g, b = (int(float(v)) for v in css[css.index("(") + 1 : css.index(")")].split(",")[:3])
    return r, g, b


def _contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    def luminance(rgb: tuple[int, int, int]) -> float:
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in rgb)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _first_pixel_alpha(png: bytes) -> int:
    """The top-left pixel's alpha of an 8-bit PNG (255 for a colour type without alpha): the first
    pixel of the first row is stored as is whatever the row's filter."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    chunks: dict[bytes, bytes] = {}
    at = 8
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at : at + 8])
        chunks.setdefault(kind, b"")
        chunks[kind] += png[at + 8 : at + 8 + length]
        at += 12 + length
    depth, colour = chunks[b"IHDR"][8], chunks[b"IHDR"][9]
    assert depth == 8
    if colour in (0, 2):
        return 255
    row = zlib.decompress(chunks[b"IDAT"])
    return row[1 + (3 if colour == 6 else 1)]
