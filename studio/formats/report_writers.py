"""Writing a project report as one self-contained HTML file and as Markdown.

Both writers read the same `Report` and format every cell with `format_cell`, so the two files
show the same numbers. The HTML inlines its CSS and every figure (base64 PNG data URIs): it
opens anywhere, offline, and can be mailed as one file. The Markdown names each figure as
`figures/NAME.png`, the files written beside it.
"""

from __future__ import annotations

import base64
import html
import math

from studio.domain.report import Cell, Figure, Interval, Report, Section, Spread, Table

UNDEFINED = "–"  # a statistic that is undefined (no pairs, constant leaderboard) or missing
FIGURE_DIR = "figures"


NOISE = 1e-12  # below it a value is float rounding noise (a difference of equal sums), shown as 0.000


def format_number(value: float | None) -> str:
    """Three decimals; a value that three decimals would show as 0.000 (a variance of 0.0004) with
    two significant digits instead, so that it reads as what it is."""
    if value is None or math.isnan(value) or math.isinf(value):
        return UNDEFINED
    if NOISE <= abs(value) < 0.0005:
        return f"{value:.2g}"
    text = f"{value:.3f}"
    return "0.000" if text == "-0.000" else text  # a rounding artefact, not a negative value


def format_cell(value: Cell) -> str:
    """One cell as both writers show it: counts with separators, statistics with 3 decimals."""
    if value is None:
        return UNDEFINED
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return format_number(value)
    if isinstance(value, Interval):
        if value.low is None and value.high is None:
            return UNDEFINED
        return f"[{format_number(value.low)}, {format_number(value.high)}]"
    if isinstance(value, Spread):
        if value.mean is None:
            return UNDEFINED
        return f"{format_number(value.mean)} ± {format_number(value.std)}"
    return value


def _numeric(value: Cell) -> bool:
    return isinstance(value, int | float | Interval | Spread) and not isinstance(value, bool)


def figure_path(figure: Figure) -> str:
    return f"{FIGURE_DIR}/{figure.name}.png"


# -- HTML -------------------------------------------------------------------------------------

STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2430; margin: 0 auto;
       max-width: 1100px; padding: 1.5rem 2rem 4rem; }
h1 { font-size: 1.6rem; margin-bottom: .3rem; }
h2 { font-size: 1.25rem; margin-top: 2.4rem; border-bottom: 1px solid #d5dae1; padding-bottom: .2rem; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: .1rem 1rem; margin: .5rem 0 1rem; }
dl.facts dt { color: #5b6573; } dl.facts dd { margin: 0; }
nav ol { columns: 2; padding-left: 1.4rem; }
p.note { color: #5b6573; font-style: italic; }
div.table { overflow-x: auto; margin: .8rem 0 1.4rem; }
table { border-collapse: collapse; font-size: 13.5px; }
caption { text-align: left; font-weight: 600; padding-bottom: .3rem; }
th, td { border-bottom: 1px solid #e3e7ec; padding: .25rem .6rem; text-align: left; vertical-align: top; }
th { background: #f3f5f8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.num span.spread { display: block; color: #5b6573; font-size: 12px; }
p.empty { color: #5b6573; }
figure { margin: 1rem 0 1.6rem; }
figure img { max-width: 100%; height: auto; border: 1px solid #e3e7ec; }
figcaption { color: #5b6573; font-size: 13px; }
"""


def render_html(report: Report) -> str:
    """The report as one HTML page with inline CSS and figures: no file or network reference."""
    e = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(report.title)}</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{e(report.title)}</h1>",
        '<dl class="facts">',
        *(f"<dt>{e(key)}</dt><dd>{e(value)}</dd>" for key, value in report.facts),
        "</dl>",
        "<nav><ol>",
        *(f'<li><a href="#{e(s.key)}">{e(s.title)}</a></li>' for s in report.sections),
        "</ol></nav>",
    ]
    for number, section in enumerate(report.sections, 1):
        out.extend(_html_section(number, section))
    out.extend(["</body>", "</html>"])
    return "\n".join(out) + "\n"


def _html_section(number: int, section: Section) -> list[str]:
    e = html.escape
    out = [f'<section id="{e(section.key)}">', f"<h2>{number}. {e(section.title)}</h2>", f"<p>{e(section.text)}</p>"]
    out.extend(f'<p class="note">{e(note)}</p>' for note in section.notes)
    for table in section.tables:
        out.extend(_html_table(table))
    for figure in section.figures:
        data = base64.b64encode(figure.png).decode("ascii")
        out.append(
            f'<figure id="figure-{e(figure.name)}"><img src="data:image/png;base64,{data}" '
            f'width="{figure.width}" height="{figure.height}" alt="{e(figure.caption)}">'
            f"<figcaption>{e(figure.caption)}</figcaption></figure>"
        )
    out.append("</section>")
    return out


def _html_table(table: Table) -> list[str]:
    e = html.escape
    if not table.rows:
        return [f'<p class="empty"><strong>{e(table.title)}</strong>: {e(table.empty)}</p>']
    # A wide table scrolls inside its own box instead of running past the page's right edge.
    out = [
        '<div class="table"><table>',
        f"<caption>{e(table.title)}</caption>",
        "<thead><tr>" + "".join(f"<th>{e(c)}</th>" for c in table.columns) + "</tr></thead>",
        "<tbody>",
    ]
    for row in table.rows:
        cells = []
        for column in table.columns:
            value = row.get(column)
            attribute = ' class="num"' if _numeric(value) else ""
            cells.append(f"<td{attribute}>{_html_cell(value)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.extend(["</tbody>", "</table></div>"])
    return out


def _html_cell(value: Cell) -> str:
    """A cell's text; a spread puts its `± std` on a line of its own, so that a row of ten of them
    (the topic-subsampling table) fits a laptop's page."""
    if isinstance(value, Spread) and value.mean is not None:
        mean, std = html.escape(format_number(value.mean)), html.escape(format_number(value.std))
        return f'{mean}<span class="spread">± {std}</span>'
    return html.escape(format_cell(value))


# -- Markdown ---------------------------------------------------------------------------------


def _md_cell(text: str) -> str:
    # A pipe ends a cell and a line break ends the row; `<` would open inline HTML.
    escaped = text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")
    return " ".join(escaped.split())


def _md_text(text: str) -> str:
    # Prose carries label set and file names: a `<` in one must not open inline HTML.
    return text.replace("<", "&lt;")


def _md_alt(text: str) -> str:
    return _md_text(text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]"))


def render_markdown(report: Report) -> str:
    """The report as Markdown (GitHub tables); figures are referenced as figures/NAME.png."""
    out = [f"# {_md_text(report.title)}", ""]
    out.extend(f"- **{key}**: {_md_text(value)}" for key, value in report.facts)
    out.append("")
    for number, section in enumerate(report.sections, 1):
        out.extend([f"## {number}. {_md_text(section.title)}", "", _md_text(section.text), ""])
        for note in section.notes:
            out.extend([f"_{_md_text(note)}_", ""])
        for table in section.tables:
            out.extend(_md_table(table))
        for figure in section.figures:
            out.extend([f"![{_md_alt(figure.caption)}]({figure_path(figure)})", ""])
    return "\n".join(out).rstrip("\n") + "\n"


def _md_table(table: Table) -> list[str]:
    if not table.rows:
        return [f"**{_md_text(table.title)}**: {_md_text(table.empty)}", ""]
    numeric = [any(_numeric(row.get(c)) for row in table.rows) for c in table.columns]
    out = [
        f"**{_md_text(table.title)}**",
        "",
        "| " + " | ".join(_md_cell(c) for c in table.columns) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    for row in table.rows:
        out.append("| " + " | ".join(_md_cell(format_cell(row.get(c))) for c in table.columns) + " |")
    out.append("")
    return out
