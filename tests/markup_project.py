"""A project whose every text field that reaches a chart holds Plotly text markup: side labels,
stub titles, model names, evaluation task names and setups, dataset titles and configuration
fields (framework). Fields a loader refuses as identifiers never reach a chart; the rest must be
shown literally."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
MARKUP = '<a href="https://x">L</a><b>B</b><br>'
STUBS = ("b200-vs-h200-fp8-dsr1.md", "example-b200-fp4-vs-h200-fp8-sweep.md")


def _marked(text: str) -> str:
    return f"{text} {MARKUP}"


def _stub(text: str) -> str:
    """A stub with markup in its title and each side's label (YAML single-quoted)."""
    text = re.sub(r'^title: "(.*)"$', lambda m: "title: '" + _marked(m.group(1)) + "'", text, flags=re.M)
    return re.sub(r"\{label: ([^,}]+),", lambda m: "{label: '" + _marked(m.group(1)) + "',", text)


def _points_file(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    document["dataset"]["title"] = _marked(document["dataset"]["title"])
    for record in document.get("points", []):
        record["framework"] = _marked(str(record.get("framework", "")))
    for record in document.get("evaluations", []):
        record["task"] = _marked(str(record["task"]))
        record["setup"] = _marked(str(record.get("setup", "")))
    path.write_text(json.dumps(document), encoding="utf-8")


def _sweep_csv(path: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    for row in rows:
        row["framework"] = _marked(row["framework"])
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")


def markup_project(project: Path) -> Path:
    """The repository's data and two of its stubs (hardware with accuracy, a sweep), markup in
    every text field; no generated pages."""
    shutil.copytree(ROOT / "data", project / "data")
    (project / "content").mkdir(parents=True)
    for name in STUBS:
        text = (ROOT / "content" / name).read_text(encoding="utf-8")
        (project / "content" / name).write_text(_stub(text), encoding="utf-8")
    (project / "content" / "site.yaml").write_text(
        f"title: '{_marked('Site')}'\nauto_pages: false\n", encoding="utf-8"
    )
    models = yaml.safe_load((project / "data" / "models.yaml").read_text(encoding="utf-8"))
    for entry in models.values():
        entry["name"] = _marked(entry["name"])
    (project / "data" / "models.yaml").write_text(yaml.safe_dump(models), encoding="utf-8")
    for path in (project / "data" / "results").glob("*.json"):
        _points_file(path)
    sweep = project / "data" / "results" / "example-sweep"
    _sweep_csv(sweep / "example-sweep.csv")
    info = yaml.safe_load((sweep / "_dataset.yaml").read_text(encoding="utf-8"))
    info["title"] = _marked(info["title"])
    (sweep / "_dataset.yaml").write_text(yaml.safe_dump(info), encoding="utf-8")
    return project
