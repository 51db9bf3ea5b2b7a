"""Plotly figures for the debate view and the analytics page (figures only; pages place them)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from debate_core.core.schemas import SEVERITIES
from debate_core.present import formatting, views

_LAYOUT = {"margin": {"l": 40, "r": 10, "t": 40, "b": 40}, "height": 300, "legend": {"orientation": "h", "y": -0.25}}


def _threshold(fig: go.Figure, value: float, label: str) -> None:
    """A dashed horizontal line where the moderator's rule changes its answer, named on the plot."""
    fig.add_hline(y=value, line_dash="dash", line_color="#555", annotation_text=label,
                  annotation_position="top left")


def _lines(rows: list[dict[str, Any]], title: str, y_title: str, *, percent: bool = False,
           y_range: list[float] | None = None) -> go.Figure:
    fig = go.Figure()
    names: list[str] = []
    for r in rows:
        if r["name"] not in names:
            names.append(r["name"])
    for name in names:
        pts = sorted((r for r in rows if r["name"] == name), key=lambda r: r["round"])
        ys = [p["value"] * 100 if percent else p["value"] for p in pts]
        fig.add_trace(go.Scatter(x=[p["round"] for p in pts], y=ys, mode="lines+markers", name=name))
    fig.update_layout(title=title, xaxis_title="round", yaxis_title=y_title, **_LAYOUT)
    fig.update_xaxes(dtick=1)
    if y_range:
        fig.update_yaxes(range=y_range)
    return fig


def severity_figure(traj: list[dict[str, Any]], key: str = "severity",
                    title: str = "Critiques by severity") -> go.Figure | None:
    rows = [t for t in traj if isinstance(t.get(key), dict)]
    if not rows:
        return None
    fig = go.Figure()
    for sev in SEVERITIES:
        fig.add_trace(go.Bar(x=[t["round"] for t in rows], y=[t[key].get(sev, 0) for t in rows],
                             name=sev, marker_color=formatting.SEVERITY_HEX[sev]))
    fig.update_layout(barmode="stack", title=title, xaxis_title="round",
                      yaxis_title="critiques", **_LAYOUT)
    fig.update_xaxes(dtick=1)
    return fig


def _rounds(traj: list[dict[str, Any]], key: str) -> int:
    return len({t.get("round") for t in traj if t.get(key) not in (None, {}, [])})


def single_round_numbers(traj: list[dict[str, Any]]) -> list[tuple[str, dict[str, float]]]:
    """The measures that have a value in one round only, as (title, {name: value}): a one-bar or
    single-dot chart says less than the numbers themselves."""
    out: list[tuple[str, dict[str, float]]] = []
    for key in sorted({k for t in traj for k in t} - {"round"}):
        if _rounds(traj, key) != 1:
            continue
        rows = views.series(traj, key)
        if rows:
            out.append((TITLES.get(key, key.replace("_", " ").capitalize()) + f" (round {rows[0]['round']})",
                        {r["name"].replace("_", " "): r["value"] for r in rows}))
    return out


TITLES = {"answer_change": "Answer change per agent", "jaccard": "Rule similarity between rounds (Jaccard)",
          "judge_scores": "Judge's top score per reasoner", "top_score": "Top judge score",
          "confidence": "Confidence per agent", "stance_weights": "Stance weights", "severity": "Critiques by severity",
          "improvement": "Top score gain over the previous round"}


def trajectory_figures(traj: list[dict[str, Any]],
                       thresholds: dict[str, tuple[float, str]] | None = None) -> list[tuple[str, go.Figure]]:
    """Every convergence plot this debate has data for over two rounds or more, with a stable key
    for each, and the moderator's threshold lines (`thresholds`: measure -> (value, label)) drawn
    on the plots of the measures they apply to. Measures of one round go to `single_round_numbers`."""
    thresholds = thresholds or {}
    traj = [t for t in traj if isinstance(t, dict)]
    single = {k for k in {k for t in traj for k in t} if _rounds(traj, k) == 1}
    traj = [{k: v for k, v in t.items() if k not in single} for t in traj]
    figs: list[tuple[str, go.Figure]] = []
    sev = severity_figure(traj)
    if sev is not None:
        figs.append(("severity", sev))
    specs = [
        ("answer_change", "Answer change per agent", "% changed", True, [0, 100]),
        ("jaccard", "Rule similarity between rounds (Jaccard)", "Jaccard", False, [0, 1.05]),
        ("judge_scores", "Judge's top score per reasoner", "score", False, [0, 105]),
        ("top_score", "Top judge score", "score", False, [0, 105]),
        ("confidence", "Confidence per agent", "confidence", False, [0, 1.05]),
        ("stance_weights", "Stance weights", "weight", False, None),
        ("improvement", "Top score gain over the previous round", "points", False, None),
    ]
    for key, title, y_title, percent, y_range in specs:
        rows = views.series(traj, key)
        if rows:
            fig = _lines(rows, title, y_title, percent=percent, y_range=y_range)
            if key in thresholds:
                value, label = thresholds[key]
                _threshold(fig, value * 100 if percent else value, label)
            figs.append((key, fig))
    # Whatever else a protocol measures per round gets a plain chart, so no measure goes unseen.
    done = {"round", "severity", *(spec[0] for spec in specs)}
    for key in sorted({k for t in traj for k in t} - done):
        if all(set(t.get(key) or {}) <= set(SEVERITIES) for t in traj if isinstance(t.get(key), dict)) and any(
                isinstance(t.get(key), dict) and t[key] for t in traj):
            fig = severity_figure(traj, key, key.replace("_", " ").capitalize())
            if fig is not None:
                figs.append((key, fig))
            continue
        rows = views.series(traj, key)
        if rows:
            figs.append((key, _generic(rows, key.replace("_", " ").capitalize())))
    return figs


def _generic(rows: list[dict[str, Any]], title: str) -> go.Figure:
    if len({r["round"] for r in rows}) > 1:
        return _lines(rows, title, "value")
    fig = go.Figure(go.Bar(x=[r["name"] for r in rows], y=[r["value"] for r in rows]))
    fig.update_layout(title=f"{title} (round {rows[0]['round']})", **_LAYOUT)
    return fig


def token_figure(usage: list[dict[str, Any]]) -> go.Figure | None:
    if len(usage) < 2:  # one agent's bar says no more than its numbers, which the table beside it gives
        return None
    agents = [u["agent"] for u in usage]
    fig = go.Figure([
        go.Bar(x=agents, y=[u["input_tokens"] for u in usage], name="input tokens"),
        go.Bar(x=agents, y=[u["output_tokens"] for u in usage], name="output tokens"),
    ])
    fig.update_layout(barmode="stack", title="Token use per agent", yaxis_title="tokens", **_LAYOUT)
    return fig


def rates_figure(data: dict[str, Any]) -> go.Figure:
    """Rates by protocol from `chart_rules.rates(...).data`; a rate with nothing to count has no bar."""
    fig = go.Figure()
    for key, name, color in (("escalation_rate", "escalation", "#ff7f0e"), ("override_rate", "override", "#d62728"),
                             ("agreement_rate", "reviewer agreed with moderator", "#2ca02c")):
        fig.add_trace(go.Bar(x=data["protocols"], y=data[key], name=name, marker_color=color))
    fig.update_layout(barmode="group", title="Rates by protocol", yaxis_title="%", **_LAYOUT)
    fig.update_yaxes(range=[0, 105])
    return fig


def per_protocol_bar(data: dict[str, Any], title: str, y_title: str) -> go.Figure:
    """One bar per protocol from `chart_rules.rounds(...).data` (protocols without a value are not in it)."""
    fig = go.Figure(go.Bar(x=data["protocols"], y=data["values"]))
    fig.update_layout(title=title, yaxis_title=y_title, **_LAYOUT)
    fig.update_yaxes(rangemode="tozero")
    return fig


def tokens_box(data: dict[str, Any]) -> go.Figure:
    """Tokens per debate per protocol from `chart_rules.tokens(...).data`: a box from the store's
    quartiles where a protocol has enough debates, else a dot at the median with its range."""
    fig = go.Figure()
    for q in data["boxes"]:
        fig.add_trace(go.Box(name=q["protocol"], q1=[q["q1"]], median=[q["median"]], q3=[q["q3"]],
                             lowerfence=[q["low"]], upperfence=[q["high"]], x=[q["protocol"]]))
    for q in data["dots"]:
        fig.add_trace(go.Scatter(
            name=q["protocol"], x=[q["protocol"]], y=[q["median"]], mode="markers", marker={"size": 10},
            error_y={"type": "data", "symmetric": False, "array": [q["high"] - q["median"]],
                     "arrayminus": [q["median"] - q["low"]]},
            hovertemplate=f"{q['debates']} debate(s): %{{y:,}} tokens in the middle, "
                          f"{q['low']:,} to {q['high']:,}<extra></extra>"))
    fig.update_layout(title=data["title"], yaxis_title=data["y_title"], showlegend=False, **_LAYOUT)
    fig.update_yaxes(rangemode="tozero")
    return fig


def trend_figure(data: dict[str, Any], period: str) -> go.Figure:
    """Debates started per day or week (bars) and the share the moderator flagged (line, right
    axis), on a date axis laid out by `chart_rules.trend`: bars centred on their period, as wide
    as most of it, labelled with dates."""
    fig = go.Figure()
    fig.add_trace(go.Bar(x=data["x"], y=data["debates"], name="debates started", width=data["width_ms"],
                         customdata=data["labels"], hovertemplate="%{customdata}: %{y} debates<extra></extra>"))
    fig.add_trace(go.Scatter(x=data["x"], y=data["escalation"], mode="lines+markers", name="flagged for a human (%)",
                             yaxis="y2", customdata=data["labels"],
                             hovertemplate="%{customdata}: %{y:.0f}% flagged<extra></extra>"))
    fig.update_layout(title=f"Debates per {period} and escalation rate", yaxis_title="debates",
                      yaxis2={"title": "% of completed", "overlaying": "y", "side": "right", "range": [0, 105]},
                      **_LAYOUT)
    fig.update_xaxes(type="date", range=data["range"], tickformat=data["tickformat"])
    if data["tickvals"] is not None:
        fig.update_xaxes(tickvals=data["tickvals"], ticktext=data["ticktext"])
    fig.layout.yaxis.rangemode = "tozero"
    if max(data["debates"], default=0) <= 10:
        fig.layout.yaxis.dtick = 1  # counts of debates: no half-debate ticks
    return fig


def comparison_figure(measure: dict[str, list[dict[str, Any]]], key: str, label_a: str = "A",
                      label_b: str = "B") -> go.Figure:
    """One per-round measure of two debates on one plot: debate A in solid lines, debate B dashed,
    one line per agent (or name) of the measure, the same colour for the same name in both."""
    percent = key == "answer_change"
    names: list[str] = []
    for r in measure.get("a", []) + measure.get("b", []):
        if r["name"] not in names:
            names.append(r["name"])
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
    fig = go.Figure()
    for side, label, dash in (("a", label_a, "solid"), ("b", label_b, "dash")):
        for i, name in enumerate(names):
            pts = sorted((r for r in measure.get(side, []) if r["name"] == name), key=lambda r: r["round"])
            if not pts:
                continue
            suffix = "" if name == key else f" · {name.replace('_', ' ')}"
            fig.add_trace(go.Scatter(
                x=[p["round"] for p in pts], y=[p["value"] * 100 if percent else p["value"] for p in pts],
                mode="lines+markers", name=f"{label}{suffix}",
                line={"dash": dash, "color": formatting.SEVERITY_HEX.get(name, palette[i % len(palette)])}))
    title = TITLES.get(key, key.replace("_", " ").capitalize())
    fig.update_layout(title=f"{title}: {label_a} and {label_b}", xaxis_title="round",
                      yaxis_title="% changed" if percent else "value", **_LAYOUT)
    fig.update_xaxes(dtick=1)
    return fig

