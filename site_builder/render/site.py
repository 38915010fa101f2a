"""The site renderer: every page through the theme, template problems logged (file and line),
never raised; and the files that list or serve every page (index, 404, robots, sitemap,
guides, assets). Every internal link is relative, so the site works under a sub-path and from
file://.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from jinja2 import (
    TemplateError,
    TemplateNotFound,
    TemplateSyntaxError,
)
from markupsafe import Markup

from site_builder import __version__, metrics
from site_builder.catalog import CONSTANTS, HardwareCatalog, hardware_name
from site_builder.confounders import CONFOUNDERS
from site_builder.content import SiteConfig
from site_builder.files import read_bytes, read_text
from site_builder.kinds import KINDS
from site_builder.plan import RelatedLink
from site_builder.present import preview as previews
from site_builder.present.charts import chart_data
from site_builder.present.narrate import Narrative, narrate, run_dates
from site_builder.present.schema import ComparisonResult
from site_builder.present.scorecard import ScorecardView, scorecard_filters
from site_builder.present.tables import accuracy_table, table
from site_builder.present.views import without_latency
from site_builder.problems import ProblemLog
from site_builder.project import Project
from site_builder.render.environment import build_date, environment, safe_markdown, shown_path
from site_builder.render.pages import PREVIEW, PageSource, page_data, preview_png
from site_builder.sections import SECTIONS, page_sections
from site_builder.write import Owner

METHODOLOGY = "methodology.md"  # the guide every number's page links to


# The chart library: plotly.js's official basic partial bundle, vendored (site_builder/vendor/plotly/
# README.md says where from), published with its licence beside it.
PLOTLY_FOLDER = Path(__file__).resolve().parents[1] / "vendor" / "plotly"


PLOTLY_ASSETS = {"plotly-basic.min.js": "plotly-basic.min.js", "plotly-basic.LICENSE.txt": "LICENSE"}


@dataclass(frozen=True)
class Guide:
    """A page made from a Markdown file of the guides (methodology.md has its own address)."""

    source: Path
    text: str

    @property
    def is_methodology(self) -> bool:
        """The methodology guide has its own address, header link and title."""
        return self.source.name == METHODOLOGY

    @property
    def address(self) -> str:
        return "methodology/" if self.is_methodology else f"docs/{self.source.stem}/"

    def _title_line(self) -> tuple[list[str], int | None]:
        """The guide's lines and which is its '# Title' (None: it has none)."""
        lines = self.text.splitlines(keepends=True)
        return lines, next((n for n, line in enumerate(lines) if line.startswith("# ")), None)

    @property
    def title(self) -> str:
        lines, number = self._title_line()
        if number is None:
            return self.source.stem.replace("-", " ").capitalize()
        return lines[number][2:].strip().strip("`")

    @property
    def body(self) -> str:
        """The text below its title: the page template shows the title as the page's one h1."""
        lines, number = self._title_line()
        return self.text if number is None else "".join(lines[:number] + lines[number + 1 :])


class SiteRenderer:
    """Renders every page of a site; template and guide problems go to the log, not up the stack."""

    def __init__(
        self,
        project: Project,
        config: SiteConfig,
        catalog: HardwareCatalog,
        log: ProblemLog,
    ) -> None:
        self.project = project
        self.env = environment(project.template_folders())
        self.config = config
        self.catalog = catalog
        self.log = log
        self.site_url = (config.site_url.rstrip("/") + "/") if config.site_url else None
        self.built = build_date()
        self._common_at: dict[str, dict[str, Any]] = {}
        self.guides_by_name = self._read_guides()
        # the guides' Markdown as HTML, by a digest of the text: what an earlier build made (the
        # build cache's), and what this one used (for the cache to keep)
        self.known_guides_html: Mapping[str, str] = {}
        self.guides_html: dict[str, str] = {}

    def _read_guides(self) -> dict[str, Guide]:
        guides = {}
        for name, path in self.project.guide_files(self.config.guides).items():
            text = read_text(path, shown_path(path), self.log, root=path.parent)
            if text is not None:
                guides[name] = Guide(path, text)
        return guides

    def compile_templates(self) -> None:
        """Compile a comparison page's templates now (each is compiled once an environment, on
        first use): done before workers fork, they share the compiled code. A template that fails
        is left to fail, and be reported, where a page renders it."""
        for name in (
            "comparison.html",
            "embed.html",
            "base.html",
            "head.html",
            "macros.html",
            *(s.template for s in SECTIONS),
        ):
            with contextlib.suppress(TemplateError, UnicodeDecodeError):
                self.env.get_template(name)

    def render(self, template: str, context: Mapping[str, Any]) -> bytes | None:
        """A template rendered, or None with the problem logged: the template file and line where
        it went wrong (an included section's, not the page's), and what went wrong."""
        try:
            return self.env.get_template(template).render(context).encode()
        except UnicodeDecodeError:
            for path in self._templates_not_utf8():
                self.log.add(self._shown_template(path), "", "", "not valid UTF-8: save it as UTF-8")
        except TemplateSyntaxError as exc:
            where = self._shown_template(Path(exc.filename)) if exc.filename else template
            self.log.add(where, f"line {exc.lineno}", "", f"template syntax error: {exc.message}")
        except TemplateNotFound as exc:
            file, line = self._failing_template(exc, template)
            self.log.add(file, line, "", f"template not found: {exc.name}")
        except Exception as exc:  # a template's own expression failed: name it, never a traceback
            file, line = self._failing_template(exc, template)
            kind = (
                "template error"
                if isinstance(exc, TemplateError)
                else f"template error ({type(exc).__name__})"
            )
            self.log.add(file, line, "", f"{kind}: {exc}")
        return None

    def _shown_template(self, path: Path) -> str:
        """'templates/sections/notes.html' for a project's file, '… (default theme)' for ours."""
        resolved = path.resolve()
        for folder in self.project.template_folders():
            if folder.resolve() in resolved.parents:
                relative = resolved.relative_to(folder.resolve()).as_posix()
                if folder == self.project.templates:
                    return f"{folder.name}/{relative}"
                return f"templates/{relative} (default theme)"
        return path.as_posix()

    def _failing_template(self, exc: BaseException, template: str) -> tuple[str, str]:
        """(file, 'line N') of the innermost template frame in the exception's traceback."""
        folders = [f.resolve() for f in self.project.template_folders()]
        found = (self._shown_template(folders[-1] / template), "")
        for frame in traceback.extract_tb(exc.__traceback__):
            path = Path(frame.filename)
            if path.is_absolute() and any(f in path.resolve().parents for f in folders):
                found = (self._shown_template(path), f"line {frame.lineno}" if frame.lineno else "")
        return found

    def _templates_not_utf8(self) -> list[Path]:
        bad = []
        for folder in self.project.template_folders():
            for path in sorted(folder.rglob("*")):
                if path.is_file() and "assets" not in path.relative_to(folder).parts:
                    try:
                        path.read_bytes().decode("utf-8")
                    except UnicodeDecodeError:
                        bad.append(path)
        return bad

    def absolute(self, path: str, otherwise: str | None = None) -> str | None:
        """The address of a path of the site, where the site's URL is known; else `otherwise`."""
        return self.site_url + path if self.site_url else otherwise

    def _names(self, comparison: ComparisonResult) -> tuple[list[str], list[str]]:
        names, architectures = [], []
        for side in comparison.sequences[0].sides:  # narrate reads the first workload too
            spec = self.catalog.gpus.get(side.hardware)
            names.append(hardware_name(self.catalog, side.hardware))
            if spec is None or not spec.architecture:
                architectures.append("")
            else:
                architectures.append(
                    f"{spec.vendor} {spec.architecture}" if spec.vendor else spec.architecture
                )
        return names, architectures

    def narrative(self, comparison: ComparisonResult) -> Narrative:
        names, architectures = self._names(comparison)
        return narrate(comparison, comparison.sequences[0], names, architectures)

    def _common(self, root: str) -> dict[str, Any]:
        """What every page's template is given, the same for every page at one depth (made once
        a depth: guide titles read each guide's first line)."""
        common = self._common_at.get(root)
        if common is None:
            common = self._common_at[root] = {
                "guides": self.guides(root),
                "root": root,
                "site": self.config,
                "version": __version__,
                "built": self.built,
                "has_methodology": METHODOLOGY in self.guides_by_name,
            }
        return common

    def _structured_data(
        self, comparison: ComparisonResult, narrative: Narrative, root: str
    ) -> list[dict[str, Any]]:
        here = self.absolute(f"{comparison.slug}/", "index.html")
        home = self.absolute("", f"{root}index.html")
        dates = run_dates(comparison.sequences)
        dataset: dict[str, Any] = {
            "@context": "https://schema.org",
            "@type": "Dataset",
            "name": comparison.title,
            "description": f"{narrative.summary} {narrative.lede}",
            "url": here,
            "variableMeasured": [m.label for m in metrics.SHOWN] + ["Interactivity (tok/s/user)"],
            "distribution": [
                {
                    "@type": "DataDownload",
                    "encodingFormat": "application/json",
                    "contentUrl": self.absolute(f"{comparison.slug}/comparison.json", "comparison.json"),
                },
                {
                    "@type": "DataDownload",
                    "encodingFormat": "text/csv",
                    "contentUrl": self.absolute(f"{comparison.slug}/points.csv", "points.csv"),
                },
            ],
            "isBasedOn": [s.url or s.source for s in comparison.data_sources],
            "creditText": "; ".join(s.source for s in comparison.data_sources),
        }
        licences = sorted({s.licence for s in comparison.data_sources if s.licence})
        if licences:
            dataset["license"] = licences[0] if len(licences) == 1 else licences
        if dates:
            dataset["temporalCoverage"] = f"{dates[0]}/{dates[-1]}"
        crumbs = {
            "@context": "https://schema.org",
            "@type": "BreadcrumbList",
            "itemListElement": [
                {"@type": "ListItem", "position": 1, "name": self.config.title, "item": home},
                {"@type": "ListItem", "position": 2, "name": KINDS[comparison.kind].name},
                {"@type": "ListItem", "position": 3, "name": comparison.title, "item": here},
            ],
        }
        return [crumbs, dataset]

    def chart_context(self, page: PageSource) -> dict[str, Any]:
        """What the page script draws the chart from: made once for the page and its embed."""
        return {
            "charts": chart_data(page.comparison, page.points),
            "page_data": page_data(page.comparison, page.points),
        }

    def embed_page(self, page: PageSource, chart: Mapping[str, Any]) -> bytes | None:
        """The chart-only page for iframes (embed/<slug>/): no site chrome, a link back; its
        address takes the page's filters and basis (`f=`, `basis=`), which its script applies."""
        view = chart["page_data"].get("view")
        context = {
            **self._common("../../"),
            **chart,
            # the page's view data too (an embed's address takes the page's f= and basis=), without
            # the latency view's columns, which an embed does not show
            "page_data": chart["page_data"] | ({"view": without_latency(view)} if view else {}),
            "c": page.comparison,
            "canonical": self.absolute(f"{page.comparison.slug}/"),
        }
        return self.render("embed.html", context)

    def comparison_page(
        self,
        page: PageSource,
        narrative: Narrative,
        related: Sequence[RelatedLink],
        chart: Mapping[str, Any],
        like_for_like: Sequence[tuple[str, RelatedLink]] = (),
        preview: bool = False,
    ) -> bytes | None:
        """The page's HTML, its related section linking to `related` (`chart`: its chart
        context, chart_context's), its headline's caveat to the first like-for-like page of a
        setting the caveat names; `preview`: its head names its preview image."""
        comparison = page.comparison
        root = "../"
        context = {
            **self._common(root),
            "c": comparison,
            "n": narrative,
            "kind_name": KINDS[comparison.kind].name,
            "sections": page_sections(comparison.sections),
            "body": safe_markdown(page.body_markdown) if page.body_markdown.strip() else None,
            "auto": page.generated,
            "tables": [(s, table(comparison, s)) for s in comparison.sequences],
            "accuracy": [accuracy_table(t, self.catalog) for t in comparison.accuracy.tasks]
            if comparison.accuracy
            else [],
            **chart,
            "gpu_constants": list(CONSTANTS.values()),
            "related": related,
            "like_for_like": next(
                (
                    (CONFOUNDERS[setting].shared_words, link)
                    for setting, link in like_for_like
                    if setting in narrative.confounded_by
                ),
                None,
            ),
            "measured_power": page.measured_power,
            "structured": self._structured_data(comparison, narrative, root),
            "canonical": self.absolute(f"{comparison.slug}/"),
        }
        if preview:
            context["preview"] = self.preview_image(comparison)
        return self.render("comparison.html", context)

    def preview_image(self, comparison: ComparisonResult) -> dict[str, Any]:
        """What a page's head says of its preview image: its address (absolute where the site's
        URL is known, as og:image asks; else relative to the page), size and text alternative."""
        return {
            "url": self.absolute(preview_png(comparison.slug), PREVIEW),
            "width": previews.WIDTH,
            "height": previews.HEIGHT,
            "alt": previews.alt_text(comparison),
        }

    def index_page(
        self, entries: Sequence[dict[str, Any]], cards: Sequence[ScorecardView] = ()
    ) -> bytes | None:
        groups: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for entry in entries:
            kind = KINDS[entry["kind"]].name
            groups.setdefault(kind, {}).setdefault(entry["group"], []).append(entry)
        structured = {
            "@context": "https://schema.org",
            "@type": "WebSite",
            "name": self.config.title,
            "description": self.config.description,
        }
        if self.site_url:
            structured["url"] = self.site_url
        context = {
            **self._common(""),
            "groups": groups,
            "count": len(entries),
            "scorecards": cards,
            "scorecard_metrics": metrics.SCORECARD,
            "filters": scorecard_filters(cards),
            "structured": [structured],
            "canonical": self.site_url,
        }
        return self.render("index.html", context)

    def explore_page(
        self,
        models: Sequence[dict[str, Any]],
        shown: Sequence[dict[str, Any]],
        chart: Mapping[str, Any],
        labelled_workloads: bool = False,
    ) -> bytes | None:
        """The explorer (explore/index.html): the models it can load, the metrics it can show and
        its chart's words; whether some model has a labelled workload (its switch is then not
        only of input/output lengths)."""
        context = {
            **self._common("../"),
            "models": models,
            "labelled_workloads": labelled_workloads,
            "metrics": shown,
            "explore": {"models": models, "chart": chart},
            "canonical": self.absolute("explore/"),
        }
        return self.render("explore.html", context)

    def _guide_html(self, guide: Guide, root: str) -> Markup:
        """A guide as HTML, its links to other guides pointing at their pages in the site."""
        key = hashlib.sha256(guide.body.encode()).hexdigest()
        html = self.known_guides_html.get(key)
        if html is None:
            html = str(safe_markdown(guide.body))
        self.guides_html[key] = html

        def link(match: re.Match[str]) -> str:
            name, anchor = match.group(1), match.group(2) or ""
            target = self.guides_by_name.get(name)
            if target is not None:
                return f'href="{root}{target.address}index.html{anchor}"'
            return match.group(0)

        return Markup(re.sub(r'href="([\w.-]+\.md)(#[\w-]+)?"', link, html))

    def guide_page(self, guide: Guide) -> bytes | None:
        """A guide's page: methodology/index.html or docs/<name>/index.html."""
        root = "../" * guide.address.count("/")
        context = {
            **self._common(root),
            "content": self._guide_html(guide, root),
            "canonical": self.absolute(guide.address),
            "doc_title": "Methodology" if guide.is_methodology else guide.title,
        }
        return self.render("methodology.html", context)

    def guides(self, root: str) -> list[dict[str, str]]:
        """The footer's links: every guide but the methodology (linked on its own)."""
        return [
            {"href": f"{root}{g.address}index.html", "title": g.title}
            for g in self.guides_by_name.values()
            if not g.is_methodology
        ]

    def not_found_page(self) -> bytes | None:
        context = {**self._common(self.site_url or ""), "canonical": None}
        return self.render("404.html", context)

    def sitemap(self, slugs: Sequence[str]) -> bytes | None:
        if not self.site_url:
            return None
        guides = [g.address for g in self.guides_by_name.values() if g.is_methodology]
        urls = ["", *guides, *(f"{s}/" for s in slugs)]
        context = {"urls": [self.site_url + u for u in urls], "lastmod": self.built}
        return self.render("sitemap.xml", context)

    def robots(self) -> bytes:
        lines = ["User-agent: *", "Allow: /"]
        if self.site_url:
            lines.append(f"Sitemap: {self.site_url}sitemap.xml")
        return ("\n".join(lines) + "\n").encode()

    def assets(self) -> dict[str, bytes]:
        """The theme's assets (a project's own replacing the default's) and the chart library."""
        files = {}
        for name, path in self.project.asset_files().items():
            folder = path.parents[len(PurePosixPath(name).parts) - 1]  # the theme's assets/
            content = read_bytes(path, f"templates/assets/{name}", self.log, root=folder)
            if content is not None:
                files[f"assets/{name}"] = content
        for name, vendored in PLOTLY_ASSETS.items():
            files[f"assets/{name}"] = (PLOTLY_FOLDER / vendored).read_bytes()
        return files


def render_shared(
    renderer: SiteRenderer,
    slugs: Sequence[str],
    entries: Sequence[dict[str, Any]],
    cards: Sequence[ScorecardView] = (),
) -> list[tuple[Owner, dict[str, bytes]]]:
    """Files that list or serve every page, by owner: index, 404, robots, sitemap, guides, assets."""
    index = renderer.index_page(sorted(entries, key=lambda e: (e["kind"], e["group"], e["title"])), cards)
    sitemap = renderer.sitemap(sorted(slugs))
    not_found = renderer.not_found_page()
    owned: list[tuple[Owner, dict[str, bytes]]] = [
        (Owner("the index page"), _made("index.html", index)),
        (Owner("the page list"), {"index.json": page_list(entries)}),
        (Owner("the 404 page"), _made("404.html", not_found)),
        (Owner("robots.txt"), {"robots.txt": renderer.robots()}),
        (Owner("the sitemap"), _made("sitemap.xml", sitemap)),
        (Owner("the hosting marker"), {".nojekyll": b""}),
        (Owner("the theme's assets", "templates/assets/", group="theme"), renderer.assets()),
    ]
    for guide in renderer.guides_by_name.values():
        page = renderer.guide_page(guide)
        own = guide.source.parent == renderer.project.docs
        file = shown_path(guide.source) if own else f"docs/{guide.source.name}, packaged"
        owner = Owner("the guide", file, group="guides")
        owned.append((owner, _made(f"{guide.address}index.html", page)))
    return owned


INDEX_SCHEMA_VERSION = 1  # index.json's; docs/comparison-json.md says what each version changed


def page_list(entries: Sequence[dict[str, Any]]) -> bytes:
    """index.json: every published page, by slug, as render.pages.page_listing describes it."""
    pages = [entry["listing"] for entry in sorted(entries, key=lambda e: str(e["listing"]["slug"]))]
    document = {"schema_version": INDEX_SCHEMA_VERSION, "pages": pages}
    text = json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False, sort_keys=True)
    return (text + "\n").encode()  # keys sorted: an entry from the page cache comes back sorted


def _made(path: str, content: bytes | None) -> dict[str, bytes]:
    """A file that was made, by its path (none for a page that failed to render)."""
    return {path: content} if content is not None else {}
