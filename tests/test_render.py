"""Rendering: hostile input stays inert, Markdown bodies are sanitised, golden output of a small site."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.linkcheck import broken_links
from site_builder.render import PLOTLY_FOLDER, _csv, json_for_script, safe_markdown, safe_url
from tests.conftest import SCORES_CSV
from tests.htmlcheck import parse_strict

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
                    ("assets/plotly-basic.min.js", "assets/engine.js", "assets/site.js", "assets/theme.js")
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
    assert re.search(r"FP4 delivers [\d.]+× the tok/s/GPU of FP8", page)


CELLS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.sampled_from(list("ab ,\"\r\n\t=+-@'é")), max_size=6),
)


@given(st.integers(2, 5).flatmap(lambda width: st.lists(st.lists(CELLS, min_size=width, max_size=width))))
def test_csv_files_are_what_the_csv_module_writes(rows: list[list[object]]) -> None:
    """render._csv builds CSV column by column; the bytes must be csv.writer's, with the formula
    guard (a text starting = + - @ tab or CR gets a leading apostrophe) on text cells only."""
    guarded = [
        ["'" + v if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r") else v for v in row]
        for row in rows
    ]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(guarded)
    assert _csv(rows) == buffer.getvalue().encode()


def test_csv_columns_of_one_value_and_of_equal_values_written_apart() -> None:
    """A column holding one value throughout is written once and repeated; values a set takes
    for one (1 and True, 0.0 and -0.0) keep their own text, as the csv module writes them."""
    rows = [["=x", 1, 0.0, None, "a,b"], ["=x", True, -0.0, None, "a,b"], ["=x", 1, 0.0, None, "a,b"]]
    assert _csv(rows) == b'\'=x,1,0.0,,"a,b"\n\'=x,True,-0.0,,"a,b"\n\'=x,1,0.0,,"a,b"\n'
    assert _csv([[], []]) == b"\n\n" and _csv([[""], ["=y"]]) == b'""\n\'=y\n'


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
    """points.csv, whose rows a process writes once for the same points and prefixes with each
    page's sequence and label: per page, byte for byte csv.writer over the points comparison.json
    lists (formula guard on text), also where two pages label the same points differently."""
    from site_builder.pipeline import run
    from site_builder.project import Project
    from site_builder.render import POINT_COLUMNS

    (project / "content" / "h200-labels.md").write_text(HOSTILE_LABELS_STUB)
    site = run(Project.under(project)).files
    pages = [name.split("/")[0] for name in site if name.endswith("/points.csv")]
    assert sorted(pages) == ["h200-fp4-vs-fp8", "h200-labels"]
    for page in pages:
        comparison = json.loads(site[f"{page}/comparison.json"])
        rows = [["sequence", "side", "on_frontier", *POINT_COLUMNS]]
        for sequence in comparison["sequences"]:
            for side in sequence["sides"]:
                for point in side["points"]:
                    values = [sequence["sequence"], side["label"], point["on_frontier"]]
                    rows.append([*values, *(point[c] for c in POINT_COLUMNS)])
        guarded = [
            ["'" + v if isinstance(v, str) and v[:1] in "=+-@\t\r" and v else v for v in r] for r in rows
        ]
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(guarded)
        assert site[f"{page}/points.csv"] == buffer.getvalue().encode(), page
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


@given(
    st.integers(2, 5).flatmap(
        lambda width: st.lists(st.lists(CELLS, min_size=width, max_size=width), min_size=1)
    ),
    st.data(),
)
def test_a_csv_line_depends_on_its_row_alone(rows: list[list[object]], data: st.DataObject) -> None:
    """points.csv keeps each point's line and makes the missing ones in a batch: the lines of any
    subset of rows, made together, are those rows' lines made with all the others."""
    from site_builder.render import _csv_lines

    text = data.draw(st.sets(st.integers(0, len(rows[0]) - 1)).map(sorted))
    whole = _csv_lines(rows, text)
    chosen = data.draw(st.lists(st.integers(0, len(rows) - 1), unique=True))
    assert _csv_lines([rows[i] for i in chosen], text) == [whole[i] for i in chosen]


def test_many_memo_makes_only_what_it_lacks_and_keeps_identity() -> None:
    from site_builder.memo import IdentityMemo

    made: list[list[str]] = []

    def make(items: Sequence[str]) -> list[str]:
        batch = list(items)
        made.append(batch)
        return [s.upper() for s in batch]

    memo: IdentityMemo[str, str] = IdentityMemo(3)
    a, b, c = "a" * 300, "b" * 300, "c" * 300  # long strings: distinct objects, not interned
    a2 = "".join(["a" * 150, "a" * 150])  # equal to a, another object
    assert memo.get_many([a, b, a], make) == [a.upper(), b.upper(), a.upper()]
    assert memo.get_many([b, c, a], make) == [b.upper(), c.upper(), a.upper()]
    assert memo.get_many([a2], make) == [a.upper()]
    assert [len(batch) for batch in made] == [2, 1, 1]  # a and b; then c alone; a2 by identity
    assert made[2][0] is a2
    assert memo.get_many([c, b], make) == [c.upper(), b.upper()]  # cleared when a2 came: made again
    assert [len(batch) for batch in made] == [2, 1, 1, 2]


HOSTILE_TEXTS = st.text(alphabet=st.sampled_from(list('ab ,"=+-@é')), min_size=1, max_size=5).filter(
    str.strip
)


@given(
    st.lists(
        st.tuples(
            st.floats(0.5, 1e4),
            st.floats(1.0, 1e5),
            HOSTILE_TEXTS,
            HOSTILE_TEXTS,
            HOSTILE_TEXTS,
            st.booleans(),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_point_lines_are_the_csv_modules_whatever_the_configurations_hold(
    rows: list[tuple[float, float, str, str, str, bool]],
) -> None:
    """A point's line is written in parts (its own values, its configuration's once for every
    point of that configuration, its provenance's): together, csv.writer's line for the point,
    with the formula guard on text, however the configurations' texts repeat and quote."""
    from site_builder.comparison_json import summarize
    from site_builder.render import POINT_COLUMNS, _new_point_lines
    from tests.factories import point

    summaries = [
        summarize(point(x, y, framework=framework, precision=precision, record=record), on_frontier)
        for x, y, framework, precision, record, on_frontier in rows
    ]
    for summary, lines in zip(summaries, _new_point_lines(summaries), strict=True):
        values = [summary.on_frontier, *(getattr(summary, c) for c in POINT_COLUMNS)]
        guarded = ["'" + v if isinstance(v, str) and v[:1] in "=+-@\t\r" and v else v for v in values]
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(guarded)
        assert lines == buffer.getvalue()[:-1].encode()
