"""An evaluation's report files (`eval --out DIR`): rows.csv, summary.json and report.md, and the two
figures the Evaluations page draws too (right rate against mean tokens, silent-wrong rate).

The figures are written as PNG through plotly's static export when its engine (kaleido) is
installed and works; otherwise report.md holds the table alone and says why.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core.files import check_target, ensure_folder, write_bytes_atomic, write_text_atomic

ROW_COLUMNS = [
    "case", "method", "repeat", "debate_id", "status", "right", "flagged", "silent_wrong", "over_flagged",
    "needs_human", "confidence", "rounds", "calls", "input_tokens", "output_tokens", "tokens", "cost", "wall_ms",
    "judge_same_conclusion", "judge_reasoning", "missing", "error", "answer",
]


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def signed_pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.0f} pts"


def interval(ci: Sequence[float] | None) -> str:
    return "-" if not ci else f"{ci[0] * 100:+.0f} to {ci[1] * 100:+.0f} pts"


def rows_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=ROW_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for r in rows:
        judge = r.get("judge") or {}
        writer.writerow({**{k: r.get(k) for k in ROW_COLUMNS}, "missing": "; ".join(r.get("missing") or []),
                         "judge_same_conclusion": judge.get("same_conclusion"),
                         "judge_reasoning": judge.get("reasoning")})
    return buf.getvalue()


def summary_table(summary: Mapping[str, Mapping[str, Any]], currency: str | None = None) -> list[dict[str, Any]]:
    """One row per method in plain words, as report.md and the Evaluations page show it."""
    out = []
    for name, s in summary.items():
        cost = s.get("total_cost")
        out.append({
            "method": name,
            "runs": s.get("runs"),
            "right": pct(s.get("right_rate")),
            "silent wrong": pct(s.get("silent_wrong_rate")),
            "over-flagged": pct(s.get("over_flag_rate")),
            "sent to a human": pct(s.get("flag_rate")),
            "mean tokens": "-" if s.get("mean_tokens") is None else f"{s['mean_tokens']:,.0f}",
            "total cost": "-" if cost is None else f"{cost:.4f} {currency or ''}".strip(),
            "mean time (s)": "-" if s.get("mean_wall_ms") is None else f"{s['mean_wall_ms'] / 1000:.2f}",
            "right vs single": signed_pct(s.get("right_rate_diff")),
            "95% interval": interval(s.get("diff_ci95")),
            "failed runs": s.get("errors"),
        })
    return out


def markdown_table(table: Sequence[Mapping[str, Any]]) -> str:
    if not table:
        return "(no methods)"
    headers = list(table[0])
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in table:
        lines.append("| " + " | ".join(str(row[h]).replace("|", "\\|") for h in headers) + " |")
    return "\n".join(lines)


def figures(summary: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, Any]]:
    """(file stem, plotly figure): right rate against mean tokens, and the silent-wrong rate, per method."""
    import plotly.graph_objects as go  # heavy, optional: loaded only when a figure is drawn

    names = list(summary)
    scatter = go.Figure(go.Scatter(
        x=[summary[n].get("mean_tokens") or 0 for n in names],
        y=[(summary[n].get("right_rate") or 0) * 100 for n in names],
        mode="markers+text", text=names, textposition="top center", marker={"size": 12}))
    scatter.update_layout(title="Right answers against tokens spent", xaxis_title="mean tokens per run",
                          yaxis_title="right (%)", yaxis_range=[0, 105])
    bars = go.Figure(go.Bar(x=names, y=[(summary[n].get("silent_wrong_rate") or 0) * 100 for n in names]))
    bars.update_layout(title="Wrong answers nobody was asked to check", yaxis_title="silent wrong (%)",
                       yaxis_range=[0, 105])
    return [("right_vs_tokens", scatter), ("silent_wrong", bars)]


def export_png(fig: Any, path: Path) -> str | None:
    """Write the figure as PNG; the reason it could not be written, or None."""
    try:
        import kaleido  # noqa: F401 - only to tell "not installed" from "failed"
    except ImportError:
        return "plotly's static image export needs the kaleido package, which is not installed"
    try:
        data = fig.to_image(format="png")
    except Exception as exc:  # noqa: BLE001 - kaleido needs a browser engine; any failure leaves the table alone
        return f"the static image export failed ({' '.join(str(exc).split())[:200]})"
    # Written like every report file (atomically, never through a link); a failure here is the
    # folder's, which is the user's to fix, so it is raised rather than noted.
    write_bytes_atomic(path, data, "the report figure")
    return None


def report_markdown(report: Mapping[str, Any], images: Sequence[str], note: str | None) -> str:
    summary = report.get("summary") or {}
    lines = [
        f"# Evaluation of {report.get('protocol')}",
        "",
        f"{len(report.get('cases') or [])} labelled cases, methods: {', '.join(report.get('methods') or [])}.",
        "",
        "*Right*: the answer has the expected label and every point it must mention. *Silent wrong*: not sent "
        "to a human although wrong, or although the case needed a human. *Over-flagged*: right, on a case that "
        "needed no human, yet sent to one. Rates are shares of the runs that finished; *right vs single* is the "
        "difference in right answers from one agent answering alone, paired by case, with a bootstrap 95% "
        "interval from ten cases on.",
        "",
        markdown_table(summary_table(summary, report.get("currency"))),
        "",
    ]
    for image in images:
        lines += [f"![{image}]({image})", ""]
    if note:
        lines += [f"No plots: {note}.", ""]
    skipped = report.get("skipped") or []
    if skipped:
        lines += ["Cases left out (the protocol cannot use them):", ""]
        lines += [f"- {s['case']}: {s['reason']}" for s in skipped]
        lines.append("")
    return "\n".join(lines)


REPORT_FILES = ("rows.csv", "summary.json", "report.md", "right_vs_tokens.png", "silent_wrong.png")


def check_out_dir(out_dir: str | Path) -> Path:
    """Refuse, before an evaluation runs, an `--out` folder the report could not be written to: a
    file, a FIFO, a folder that cannot be created, a report file name taken by a symbolic link or a
    directory (files.FileProblem, one line). The folder is created."""
    out = ensure_folder(out_dir, "the report")
    for name in REPORT_FILES:
        check_target(out / name, "the report file")
    return out


def write_out_dir(report: Mapping[str, Any], out_dir: str | Path) -> list[Path]:
    """rows.csv, summary.json, report.md and, when the export works, one PNG per figure, each
    written atomically (files.write_text_atomic)."""
    out = check_out_dir(out_dir)
    written = [out / "rows.csv", out / "summary.json"]
    write_text_atomic(written[0], rows_csv(report.get("rows") or []), "the report file")
    summary_doc = {k: report.get(k) for k in ("evaluation_id", "protocol", "methods", "cases", "skipped",
                                               "currency", "summary")}
    write_text_atomic(written[1], json.dumps(summary_doc, ensure_ascii=False, indent=2), "the report file")
    images: list[str] = []
    note = None
    for stem, fig in figures(report.get("summary") or {}):
        problem = export_png(fig, out / f"{stem}.png")
        if problem:
            note = problem
            break
        images.append(f"{stem}.png")
        written.append(out / f"{stem}.png")
    write_text_atomic(out / "report.md", report_markdown(report, images, note), "the report file")
    written.append(out / "report.md")
    return written
