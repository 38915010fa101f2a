"""The vendored chart library: the same plotly.js version as the Python plotly, intact, licensed."""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

from plotly.offline import get_plotlyjs_version

from site_builder.render.site import PLOTLY_ASSETS, PLOTLY_FOLDER

BUNDLE = PLOTLY_FOLDER / "plotly-basic.min.js"


def _bundle_version(text: str) -> tuple[str, str]:
    """(the banner's version, the version the code sets as Plotly.version)."""
    banner = re.search(r"plotly\.js \(basic - minified\) v(\d+\.\d+\.\d+)", text[:500])
    assigned = re.findall(r"\.version=\"(\d+\.\d+\.\d+)\"\}", text)
    assert banner is not None, "the bundle's banner names no version"
    assert len(set(assigned)) == 1, f"the bundle sets Plotly.version {assigned}"
    return banner.group(1), assigned[0]


def test_the_bundle_is_the_python_plotly_version() -> None:
    banner, assigned = _bundle_version(BUNDLE.read_text(encoding="utf-8"))
    assert banner == assigned == get_plotlyjs_version(), (
        "site_builder/vendor/plotly/plotly-basic.min.js is plotly.js "
        f"{banner}, the installed Python plotly bundles {get_plotlyjs_version()}: "
        "update the vendored bundle as site_builder/vendor/plotly/README.md says"
    )


def test_the_bundle_matches_its_recorded_checksum_and_size_limit() -> None:
    data = BUNDLE.read_bytes()
    readme = (PLOTLY_FOLDER / "README.md").read_text(encoding="utf-8")
    recorded = re.search(r"`plotly-basic\.min\.js` sha256 \| `([0-9a-f]{64})`", readme)
    assert recorded is not None
    assert hashlib.sha256(data).hexdigest() == recorded.group(1)
    assert len(gzip.compress(data, 9)) <= 450_000  # issue 9's budget for the shared chart library


def test_the_licence_ships_beside_the_bundle() -> None:
    licence = (PLOTLY_FOLDER / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Plotly" in licence
    assert set(PLOTLY_ASSETS.values()) == {"plotly-basic.min.js", "LICENSE"}


def test_a_built_site_ships_the_basic_bundle_and_its_licence_not_the_full_one(tmp_path: Path) -> None:
    from site_builder.cli import main

    assert main(["init", str(tmp_path / "s")]) == 0
    assert main(["build", "--root", str(tmp_path / "s"), "-q"]) == 0
    assets = tmp_path / "s" / "site" / "assets"
    assert (assets / "plotly-basic.min.js").read_bytes() == BUNDLE.read_bytes()
    assert (assets / "plotly-basic.LICENSE.txt").read_text(encoding="utf-8").startswith("MIT License")
    assert not (assets / "plotly.min.js").exists()
    page = (
        next((tmp_path / "s" / "site").glob("*/comparison.json"))
        .with_name("index.html")
        .read_text(encoding="utf-8")
    )
    assert 'data-plotly="../assets/plotly-basic.min.js"' in page  # site.js loads it after the page
