"""The explorer's files: its page (explore/index.html, templates/explore.html) and one data
file per model (explore/data/<model>.js), which the page loads on demand.

A data file is a script that registers its document (`window.siteExplorerData[<model>] =
<JSON>;`), so the explorer reads it from file:// too, where a browser refuses fetch(); the text
after `[<model>] = ` and before the final ";" is the JSON document (docs/comparison-json.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from site_builder import metrics
from site_builder.present.charts import INTERACTIVITY_HOVER, axis_title, base_layout, trace_names, value_hover

if TYPE_CHECKING:
    from site_builder.render.site import SiteRenderer

EXPLORE = "explore/"  # the explorer's folder
DATA = "data/"  # its data files, inside it
REGISTRY = "window.siteExplorerData"
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def explore_url(query: str = "") -> str:
    """The explorer's address from the site's root, with a query (`model=…&seq=…`)."""
    return f"{EXPLORE}index.html" + (f"?{query}" if query else "")


def data_file(model: str) -> str:
    """A model's data file, from the explorer's folder: named by its key where the key is a plain
    file name, else by its key's safe characters and a digest (a key may hold any printable text)."""
    if SAFE_NAME.fullmatch(model):
        return f"{DATA}{model}.js"
    digest = hashlib.sha256(model.encode()).hexdigest()[:10]
    return f"{DATA}{re.sub(r'[^A-Za-z0-9_-]+', '-', model).strip('-')[:40]}-{digest}.js"


def data_script(model: str, document: Mapping[str, Any]) -> bytes:
    """A model's data file: the document as JSON, registered under the model's key."""
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    key = json.dumps(model)
    return f"({REGISTRY} = {REGISTRY} || {{}})[{key}] = {text};\n".encode()


def explorer_chart() -> dict[str, Any]:
    """What the explorer's chart words as a comparison page's does (present/charts.py): each
    metric's axis title and hover format, the trace names ({label}: the side's), the layout."""
    return {
        "metrics": [
            {"key": m.key, "label": m.label, "axis": axis_title(m), "hover": value_hover(m)}
            for m in metrics.SHOWN
        ],
        "names": trace_names("{label}"),
        "x_hover": INTERACTIVITY_HOVER,
        "layout": base_layout(),
    }


def explorer_files(renderer: SiteRenderer, models: Mapping[str, Mapping[str, Any]]) -> dict[str, bytes]:
    """The explorer's page and its data files (a site without points: the page alone, saying so)."""
    listed = [
        {
            "key": key,
            "name": document["model_name"],
            "file": data_file(key),
            "sequences": [s[0] for s in document["sequences"]],
        }
        for key, document in models.items()
    ]
    files = {f"{EXPLORE}{data_file(key)}": data_script(key, document) for key, document in models.items()}
    labelled = any(isl is None for document in models.values() for _, isl, _ in document["sequences"])
    page = renderer.explore_page(listed, metrics.page_table(metrics.SHOWN), explorer_chart(), labelled)
    if page is not None:
        files[explore_url()] = page
    return dict(sorted(files.items()))
