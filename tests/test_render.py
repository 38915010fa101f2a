"""Rendering: hostile input stays inert, Markdown bodies are sanitised, golden output of a small site."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.linkcheck import broken_links
from site_builder.present.result import ShownPoints
from site_builder.read.table import PointTable
from site_builder.render.downloads import POINT_COLUMNS, csv_bytes, points_csv
from site_builder.render.environment import json_for_script, safe_markdown, safe_url
from site_builder.render.site import PLOTLY_FOLDER
from tests.conftest import SCORES_CSV
from tests.factories import point as measured_point
from tests.htmlcheck import parse_strict
from tests.test_narrate import comparison as fp4_vs_fp8

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden" / "small-site"
HOSTILE = "<script>alert(1)</script>"


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.inline: list[str] = []  # the code of each script without src or data type
        self.handlers: list[str] = []
        self._code: bool = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts.append(dict(attrs))
            self._code = not dict(attrs).get("src") and not dict(attrs).get("type")
            if self._code:
                self.inline.append("")
        self.handlers += [name for name, _ in attrs if name.startswith("on")]

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._code = False

    def handle_data(self, data: str) -> None:
        if self._code:
            self.inline[-1] += data


# The one inline script a page may hold: the theme's, which applies a reader's remembered light or
# dark choice before the first paint (a script file there would hold up parsing the page).
FIRST_PAINT = (
    'try{var t=localStorage.getItem("site-theme");if(t==="light"||t==="dark")'
    'document.documentElement.setAttribute("data-theme",t)}catch(e){}'
)


def test_hostile_model_label_and_body_render_as_inert_text(project: Path) -> None:
    csv = project / "data" / "results" / "lab.csv"
    csv.write_text(csv.read_text().replace("dsr1", HOSTILE.replace(",", "")))
    stub = project / "content" / "h200-fp4-vs-fp8.md"
    stub.write_text(
        '---\nkind: precision\nmodel: "<script>alert(1)</script>"\nhardware: h200\nsides:\n'
        '  - {label: "<img src=x onerror=alert(2)>", precision: fp4}\n  - {label: FP8, precision: fp8}\n---\n'
        "Body <script>alert(3)</script> and [a link](javascript:alert(4)) and <b onclick=alert(5)>bold</b>.\n"
    )
    assert main(["build", "--root", str(project), "-q"]) == 0
    site = project / "site"
    for page in site.rglob("*.html"):
        html = page.read_text()
        parse_strict(page)
        found = _Scripts()
        found.feed(html)
        assert found.handlers == [], page
        assert found.inline in ([], [FIRST_PAINT]), page  # no script a hostile value could have made
        for script in found.scripts:  # only our own scripts: data blocks, the assets, the theme's
            assert (
                script.get("type") in ("application/json", "application/ld+json")
                or (script.get("src") or "").endswith(
                    (
                        "assets/plotly-basic.min.js",
                        "assets/engine.js",
                        "assets/site.js",
                        "assets/charts.js",
                        "assets/explore.js",
                        "assets/theme.js",
                        "assets/index.js",
                    )
                )
                or script == {}
            ), script
        assert "<script>alert" not in html and "<img src=x" not in html and "javascript:" not in html
    text = (site / "h200-fp4-vs-fp8" / "index.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # the model name, shown as text
    assert "Body &lt;script&gt;alert(3)&lt;/script&gt;" in text  # the stub body, shown as text
    assert "\\u003cscript\\u003e" in text  # inside JSON data blocks
    assert broken_links(site) == []


def test_safe_markdown_and_urls() -> None:
    html = str(safe_markdown("**ok** <em onclick=x>raw</em> [l](javascript:x) [m](https://a.example/)"))
    assert "<strong>ok</strong>" in html and "&lt;em onclick=x&gt;" in html
    assert "javascript" not in html and 'href="https://a.example/"' in html
    assert safe_url("https://github.com/x") == "https://github.com/x"
    assert safe_url("javascript:alert(1)") is None and safe_url("data:text/html,x") is None
    assert safe_url(None) is None
    assert str(json_for_script({"a": "</script><!--"})) == '{"a":"\\u003c/script\\u003e\\u003c!--"}'


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "assets" not in p.relative_to(folder).parts
    }


def test_golden_output_of_a_small_site(project: Path) -> None:
    """The tiny fixture project builds to exactly the files in tests/golden/small-site.

    After an intended change, regenerate with UPDATE_GOLDEN=1 and review the diff.
    """
    (project / "data" / "results" / "scores.csv").write_text(SCORES_CSV)
    assert main(["build", "--root", str(project), "-q", "--site-url", "https://example.org/"]) == 0
    built = project / "site"
    assert (built / "assets" / "plotly-basic.min.js").read_bytes() == (
        PLOTLY_FOLDER / "plotly-basic.min.js"
    ).read_bytes()
    for name in ("site.css", "site.js", "favicon.svg"):
        assert (built / "assets" / name).read_bytes() == (ROOT / "templates" / "assets" / name).read_bytes()
    if os.environ.get("UPDATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(built, GOLDEN, ignore=shutil.ignore_patterns("assets"))
    expected, actual = _tree(GOLDEN), _tree(built)
    assert sorted(actual) == sorted(expected)
    for name in expected:
        assert actual[name] == expected[name], f"{name} differs from the golden copy"
    # and the golden site itself holds real numbers: FP4 beats FP8 at the middle target
    page = expected["h200-fp4-vs-fp8/index.html"].decode()
    assert re.search(r"FP4 delivers (at least )?[\d.]+× the tok/s/GPU of FP8", page)


def test_csv_cells_a_spreadsheet_would_run_are_guarded() -> None:
    """A text starting = + - @ tab or CR gets a leading apostrophe; numbers never do (a negative
    one included); the csv module quotes what needs it and writes None empty, a float by repr."""
    rows: list[list[object]] = [["=SUM(A1)", "+1", "-x", "@a", "\tb", "a,b", 'say "hi"', "", None]]
    rows.append([-2, -0.5, 1e-7, True, "ok", "é", "2026-01-01", "x=y", 0])
    assert csv_bytes(rows) == (
        b'\'=SUM(A1),\'+1,\'-x,\'@a,\'\tb,"a,b","say ""hi""",,\n'
        + "-2,-0.5,1e-07,True,ok,é,2026-01-01,x=y,0\n".encode()
    )
    assert csv_bytes([["\rc", 1]]).startswith(b"'\rc")
    assert csv_bytes([[""], ["=y"]]) == b'""\n\'=y\n'  # a lone empty field quoted


HOSTILE_LABELS_STUB = """---
kind: precision
model: dsr1
hardware: h200
slug: h200-labels
title: "H200: the same sides, other labels"
sides:
  - {label: '=FP4, "four"', precision: fp4, framework: sglang}
  - {label: "FP8", precision: fp8, framework: sglang}
---
"""


def test_points_csv_is_every_point_as_the_csv_module_writes_it(project: Path) -> None:
    """points.csv: per page, csv.writer's lines (formula guard on text) of every measured point,
    the frontier's knots among them as comparison.json lists them, also where two pages label
    the same points differently."""
    from site_builder.pipeline import run
    from site_builder.project import Project

    (project / "content" / "h200-labels.md").write_text(HOSTILE_LABELS_STUB)
    site = run(Project.under(project)).files
    pages = [name.split("/")[0] for name in site if name.endswith("/points.csv")]
    assert sorted(pages) == ["h200-fp4-vs-fp8", "h200-labels"]
    for page in pages:
        comparison = json.loads(site[f"{page}/comparison.json"])
        lines = site[f"{page}/points.csv"].decode().splitlines(keepends=True)
        assert lines[0] == ",".join(["sequence", "side", "on_frontier", *POINT_COLUMNS]) + "\n"
        written = list(csv.reader(lines[1:]))
        for sequence in comparison["sequences"]:
            for side in sequence["sides"]:
                label = "'" + side["label"] if side["label"][:1] in "=+-@\t\r" else side["label"]
                mine = [r for r in written if r[:2] == [sequence["sequence"], label]]
                assert len(mine) == side["point_count"]
                knots = [r for r in mine if r[2] == "True"]
                for row, knot in zip(knots, side["frontier"], strict=True):
                    buffer = io.StringIO()
                    values = [knot[c] for c in POINT_COLUMNS]
                    guarded = ["'" + v if isinstance(v, str) and v[:1] in "=+-@\t\r" else v for v in values]
                    csv.writer(buffer, lineterminator="\n").writerow([*row[:3], *guarded])
                    assert buffer.getvalue() in "".join(lines), page
    assert b'"\'=FP4, ""four""",True' in site["h200-labels/points.csv"]


def test_table_csv_is_every_target_as_the_csv_module_writes_it(project: Path) -> None:
    """table.csv, its header made once and its rows from each target's flat values: per page,
    byte for byte csv.writer over what comparison.json lists (a whole-number metric rounded)."""
    from site_builder import metrics
    from site_builder.pipeline import run
    from site_builder.project import Project

    (project / "content" / "h200-labels.md").write_text(HOSTILE_LABELS_STUB)
    site = run(Project.under(project)).files
    attributes = [m.attribute for m in metrics.METRICS]
    for page in ("h200-fp4-vs-fp8", "h200-labels"):
        comparison = json.loads(site[f"{page}/comparison.json"])
        labels = [side["label"] for side in comparison["sides"]]
        rows: list[list[object]] = [
            ["sequence", "target_interactivity", "side", "measured", *attributes, "reason"]
        ]
        for sequence in comparison["sequences"]:
            for target in sequence["results"]:
                for label, at in zip(labels, target["sides"], strict=True):
                    values = [at[a] for a in attributes]
                    rows.append(
                        [
                            sequence["sequence"],
                            target["interactivity"],
                            label,
                            at["measured"],
                            *values,
                            at["reason"],
                        ]
                    )
        guarded = [
            ["'" + v if isinstance(v, str) and v[:1] in "=+-@\t\r" and v else v for v in r] for r in rows
        ]
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(guarded)
        assert site[f"{page}/table.csv"] == buffer.getvalue().encode(), page
        assert len(rows) > 5


HOSTILE_TEXTS = st.text(alphabet=st.sampled_from(list('ab ,"=+-@é')), min_size=1, max_size=5).filter(
    str.strip
)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0.5, 1e4),
            st.floats(1.0, 1e5),
            HOSTILE_TEXTS,
            HOSTILE_TEXTS,
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_points_csv_is_the_csv_modules_whatever_the_configurations_hold(
    rows: list[tuple[float, float, str, str, bool]],
) -> None:
    """points.csv lists every point of a side, as csv.writer writes it with the formula guard on
    text, however the points' engines and records quote."""
    points = [
        measured_point(x, y, 8 if even else 16, framework=framework, record=record)
        for x, y, framework, record, even in rows
    ]
    page = fp4_vs_fp8(fp4=[measured_point(20, 1000), measured_point(40, 500)])
    on_frontier = [n % 2 == 0 for n in range(len(points))]
    table = PointTable.from_records(points)
    shown = [[ShownPoints(table, on_frontier), ShownPoints(table.rows([]), [])] for _ in page.sequences]
    expected: list[list[object]] = [["sequence", "side", "on_frontier", *POINT_COLUMNS]]
    for sequence in page.sequences:
        for p, on in zip(points, on_frontier, strict=True):
            summary = {
                **p,
                "interactivity_source": "tpot",
                "users_per_gpu": p["concurrency"] / p["gpu_count"],
                "disagg": False,
                "parallelism": "TP8",
                "run_url": None,
                "client": None,
                "variant": None,
            }
            expected.append(
                [sequence.sequence, page.sides[0].label, on, *(summary[c] for c in POINT_COLUMNS)]
            )
    guarded = [
        ["'" + v if isinstance(v, str) and v[:1] in "=+-@\t\r" and v else v for v in r] for r in expected
    ]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(guarded)
    assert points_csv(page, shown) == buffer.getvalue().encode()
