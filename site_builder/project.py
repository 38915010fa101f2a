"""Where a site's inputs live, and the packaged defaults that fill in what a project lacks.

A project is a folder with `content/` (stubs, `site.yaml`) and `data/` (result files). Everything
else has a default that ships inside the package, as MkDocs and Pelican ship their themes: the
theme (`templates/`), the hardware and model catalogs (`data/hardware.yaml`, `data/models.yaml`)
and the guides (`docs/*.md`). A project overrides any of them by having its own file of that name:
a template or asset file by file, a catalog as a whole, a guide by name (its other guides are added).
Of the packaged guides, a site publishes those for its readers unless its site.yaml asks for more.

In a wheel the defaults live in `site_builder/defaults/`; in a checkout (an editable install, the
tests) they are the repository's own top-level `templates/`, `data/` and `docs/`.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_CHECKOUT = _PACKAGE.parent


def is_hidden(path: Path) -> bool:
    """Editor and system files a project never means as input: '.x', '.#x' locks, 'x~' backups."""
    return path.name.startswith((".", "#")) or path.name.endswith("~")


def _default(packaged: str, checkout: str, probe: str) -> Path:
    """The packaged copy, else the checkout's folder (both hold `probe`)."""
    for folder in (_PACKAGE / "defaults" / packaged, _CHECKOUT / checkout):
        if (folder / probe).is_file():
            return folder
    raise RuntimeError(f"site_builder is installed without its {packaged} (no {probe}); reinstall it")


def default_theme() -> Path:
    return _default("theme", "templates", "comparison.html")


def default_catalogs() -> Path:
    return _default("catalog", "data", "hardware.yaml")


def default_guides() -> Path:
    return _default("guides", "docs", "methodology.md")


# The packaged guides a site's readers need: how its numbers are computed, what its input files
# and its comparison.json hold. The others (authoring, deployment, performance) are for the
# people who run a site or change the tool; site.yaml's `guides:` publishes them too.
READER_GUIDES = frozenset({"methodology.md", "data-format.md", "comparison-json.md"})
OPERATOR_GUIDES = ("authoring", "deployment", "performance")


@dataclass(frozen=True)
class Project:
    """The folders of one site project; the defaults are looked up, never copied in."""

    data: Path
    content: Path
    out: Path
    templates: Path
    docs: Path

    @classmethod
    def under(cls, root: Path, out: Path | None = None) -> Project:
        return cls(
            data=root / "data",
            content=root / "content",
            out=out or root / "site",
            templates=root / "templates",
            docs=root / "docs",
        )

    # -- what the build reads, after overrides ---------------------------------------------------

    def template_folders(self) -> list[Path]:
        """Jinja's search path: the project's own templates first, then the default theme."""
        own = [self.templates] if self.templates.is_dir() else []
        return [*own, default_theme()]

    def asset_files(self) -> dict[str, Path]:
        """Every file under the theme's `assets/`, the project's own replacing the default's."""
        found: dict[str, Path] = {}
        for folder in reversed(self.template_folders()):
            assets = folder / "assets"
            if assets.is_dir():
                for path in sorted(assets.rglob("*")):
                    if path.is_file() and not is_hidden(path):
                        found[path.relative_to(assets).as_posix()] = path
        return dict(sorted(found.items()))

    def catalog_file(self, name: str) -> Path:
        """`data/hardware.yaml` or `data/models.yaml`: the project's, else the packaged one."""
        own = self.data / name
        return own if own.is_file() or own.is_symlink() else default_catalogs() / name

    def catalog_files(self, name: str) -> tuple[Path, Path | None]:
        """The packaged catalog of this name, and the project's own that adds to it (None: none;
        the packaged one itself, where the project is the tool's own checkout)."""
        own = self.data / name
        packaged = default_catalogs() / name
        if not (own.is_file() or own.is_symlink()) or own.resolve() == packaged.resolve():
            return packaged, None
        return packaged, own

    def guide_files(self, asked: Collection[str] = ()) -> dict[str, Path]:
        """Guides by name (`methodology.md` …): the packaged guides for readers, those for the
        people who run a site or change the tool only where `asked` (site.yaml `guides:`) names
        them, and a project's own, replacing or adding (a project whose docs/ is the packaged
        folder itself, as the tool's own repository, has none of its own)."""
        packaged = default_guides()
        found = {
            p.name: p
            for p in sorted(packaged.glob("*.md"))
            if not is_hidden(p) and (p.name in READER_GUIDES or p.stem in asked)
        }
        if self.docs.is_dir() and self.docs.resolve() != packaged.resolve():
            found.update({p.name: p for p in sorted(self.docs.glob("*.md")) if not is_hidden(p)})
        return dict(sorted(found.items()))

    def input_folders(self) -> tuple[Path, ...]:
        """The folders a build reads: its output may not sit inside any of them."""
        return (self.data, self.content, self.templates, self.docs)

    def watched(self) -> tuple[Path, ...]:
        """Folders whose changes `serve` rebuilds for."""
        return (self.content, self.data, self.templates, self.docs)
