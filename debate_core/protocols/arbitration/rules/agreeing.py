"""What the verdict says when no pair of reports contradicts another: the figures each metric's
reports give, converted into each other's units where they differ, and the rules that still send
close figures to a person (`differ_under_threshold`, `either_side_of_asked`, `counts_differ`) or a
part of the question the figures leave unanswered (`part_unanswered`)."""

from __future__ import annotations

from typing import Any

from ....core.schemas import AgentReport, Verdict
from ...common import short_answer
from ..contradictions import convertible, metric_key, metric_words, shown_value, unit_key
from .verdict import counts_differ, differ_under_threshold, either_side_of_asked, part_unanswered


def figure_shown(value: Any, unit: str | None) -> str:
    """A report's figure with its unit as people write it ("14.2 kg"); a value that is not a number as given."""
    if isinstance(value, float | int) or value is None:
        return shown_value(value, unit)
    return str(value)


def agreed_figures(reports: list[AgentReport]) -> str:
    """"unemployment rate 0.1% to 0.104%; ...": each metric with the range of its figures."""
    parts = []
    for metric in sorted({metric_key(r.metric) for r in reports}):
        rs = [r for r in reports if metric_key(r.metric) == metric]
        valued = sorted((r for r in rs if r.value is not None), key=lambda r: r.value)
        if not valued:
            readings = "; ".join(dict.fromkeys(f"'{r.interpretation}'" for r in rs if r.interpretation))
            parts.append(f"{metric_words(metric)} {readings or 'with no value'}")
            continue
        lo, hi = valued[0], valued[-1]
        span = figure_shown(lo.value, lo.unit) if lo.value == hi.value else \
            f"{figure_shown(lo.value, lo.unit)} to {figure_shown(hi.value, hi.unit)}"
        if len({unit_key(r.unit) for r in valued}) > 1:
            span = _converted_alike(valued) or span
        parts.append(f"{metric_words(metric)} {span}")
    return "; ".join(parts)


def _converted_alike(valued: list[AgentReport]) -> str | None:
    """Figures in units of one kind ("14.2 kg", "31.25 lb"), each shown in the first one's unit too, and
    of two the first in the other's: "14.2 kg (31.31 lb) and 31.25 lb (14.17 kg), the same figure once
    converted: both valid"; None where a unit cannot be converted."""
    base, shown = valued[0], [figure_shown(valued[0].value, valued[0].unit)]
    for r in valued[1:]:
        scales = convertible(base.unit, r.unit) if unit_key(r.unit) != unit_key(base.unit) else (1.0, 1.0)
        if scales is None:
            return None
        same = float(r.value) * scales[1] / scales[0]
        shown.append(figure_shown(r.value, r.unit) if scales == (1.0, 1.0) else
                     f"{figure_shown(r.value, r.unit)} ({figure_shown(float(f'{same:.4g}'), base.unit)})")
    if len(valued) == 2 and shown[1] != figure_shown(valued[1].value, valued[1].unit):
        # Each figure in the other's unit too, so the conversion can be checked either way.
        other = valued[1]
        other_scale, base_scale = convertible(other.unit, base.unit)
        back = float(base.value) * base_scale / other_scale
        shown[0] += f" ({figure_shown(float(f'{back:.4g}'), other.unit)})"
    return " and ".join(shown) + ", the same figure once converted: both valid"


# The rules that send close figures to a person, surest first: two counts of one thing cannot both be
# right, so that reason is named before the others; only the first that applies is given.
_CLOSE_FIGURE_RULES = (
    (counts_differ, "Two counts of one thing cannot both be right"),
    (differ_under_threshold, "The question asks to choose between them"),
    (either_side_of_asked, "They fall either side of the figure the question turns on"),
)


def _close_figures_reason(question: str, reports: list[AgentReport]) -> tuple[str, str | None, str]:
    """(rule name, reason, what the answer says) for the first close-figures rule that applies."""
    for rule, said in _CLOSE_FIGURE_RULES:
        reason = rule(question, reports)
        if reason:
            return rule.__name__, reason, said
    return "", None, ""


def skipped_verdict(reports: list[AgentReport], question: str) -> Verdict:
    metrics = sorted({metric_key(r.metric) for r in reports})
    if not reports:
        nothing = "No agent reports to compare: nothing to arbitrate."
        return Verdict(answer=nothing, short_answer=nothing, confidence=0.0,
                       needs_human_review=False, rationale="the case has no reports",
                       applied_rules=["skip.no_contradictions"])
    mean = sum(r.confidence for r in reports) / len(reports)
    close_name, close_reason, close_said = _close_figures_reason(question, reports)
    agree = (f"The reports agree: {agreed_figures(reports)}. No contradictions among {len(reports)} "
             f"report(s) on {len(metrics)} metric(s) ({', '.join(metrics)}), so no arbitration was needed.")
    if close_reason:
        agree = (f"The reports differ by less than a contradiction needs: {agreed_figures(reports)}. "
                 f"{close_said}, and a person must choose.")
    unanswered = part_unanswered(question, agree)
    return Verdict(
        answer=agree,
        short_answer=short_answer(agree),
        confidence=round(mean, 4),
        needs_human_review=bool(close_reason or unanswered),
        escalation_reasons=[r for r in (close_reason, unanswered) if r],
        rationale="no pair of reports differs by more than the threshold, reads the trend oppositely, "
                  "or holds the same claim with clearly different confidence",
        applied_rules=["skip.no_contradictions"] + ([f"escalate.{close_name}"] if close_reason else [])
        + (["escalate.part_unanswered"] if unanswered else []),
    )
