"""When an Analytics chart says something, and what stands in for it when it does not.

A chart drawn from one or two points misleads: a bar of one protocol's rounds on an empty axis, a
box plot of one debate, a trend of one week stretched across the page with clock times for ticks.
Each rule here takes what the store returns and decides: a chart (with the data it draws) or a
sentence that says the same in words. It also keeps the offline agents' tokens apart: they use no
model, so their token counts are estimates (`providers.base.estimate_tokens` counts the words of
each prompt and reply) and they cost nothing. No Streamlit and no plotting here: `ui/plots.py`
draws what these rules return.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from ..providers.offline import OfflineProvider
from .formatting import num, plain_code

# The model name the offline provider records on every debate and step it runs.
OFFLINE_MODEL = OfflineProvider().model
ESTIMATE_NOTE = ("The offline agents use no model: their tokens are estimated from the words of each prompt and "
                 "reply, and they cost nothing.")
# A box plot needs enough debates for its quartiles to differ from the debates themselves.
BOX_MIN_DEBATES = 5
# The trend chart shows at least this many periods of axis, so a single period is a narrow bar.
MIN_PERIODS_SHOWN = 7
# Up to this many periods, each bar gets its own date label; beyond, the axis picks dates itself.
MAX_LABELLED_PERIODS = 12
DAY_MS = 86_400_000


@dataclass
class Decision:
    """A chart (`draw`, with `data` for the figure) or, when it would say too little, `sentences`
    in its place. A chart may carry sentences too: what it leaves out, said in words."""

    draw: bool
    data: dict[str, Any] = field(default_factory=dict)
    sentences: list[str] = field(default_factory=list)


def protocol_name(protocol: str) -> str:
    """A protocol as the sentences name it: its name in words, as the tables beside them show it
    ('cross critique' for cross_critique; a spec title such as 'Thesis, antithesis, synthesis' would
    not match the table, and its commas would blur a list of protocols)."""
    return plain_code(protocol)


def _plural(n: float, word: str) -> str:
    return f"{num(n)} {word}" + ("" if n == 1 else "s")


# -- Offline tokens ----------------------------------------------------------------------------------

@dataclass
class TokenBasis:
    """Which debates' tokens are reported by a model and which are the offline agents' estimates,
    from `DebateStore.tokens_by_model` rows (protocol, model, debates, input_tokens, output_tokens)."""

    model_debates: int = 0
    model_tokens: int = 0
    offline_debates: int = 0
    offline_tokens: int = 0
    offline_by_protocol: dict[str, int] = field(default_factory=dict)
    debates_by_protocol: dict[str, int] = field(default_factory=dict)

    @property
    def all_offline(self) -> bool:
        return self.offline_debates > 0 and self.model_debates == 0

    def protocol_estimate(self, protocol: str) -> str:
        """'' when the protocol's tokens are all reported by a model, 'estimated' when all its
        debates ran offline, 'part estimated' when some did."""
        offline = self.offline_by_protocol.get(protocol, 0)
        if not offline:
            return ""
        return "estimated" if offline >= self.debates_by_protocol.get(protocol, 0) else "part estimated"

    def headline(self, tokens_per_debate: float | None) -> tuple[str, str, str | None]:
        """The 'tokens per debate' metric as (label, value, help): the model-run debates' mean, with
        the offline debates' estimate named apart; only estimates when every debate ran offline."""
        if not self.offline_debates:
            return "tokens per debate", num(tokens_per_debate, 0), None
        offline_mean = self.offline_tokens / self.offline_debates
        if self.all_offline:
            # "about": the label stays short enough for its column; the help says why it is an estimate.
            return "tokens per debate", f"about {num(offline_mean, 0)}", ESTIMATE_NOTE
        return ("tokens per debate", num(self.model_tokens / self.model_debates, 0),
                f"Of the {_plural(self.model_debates, 'debate')} run with a model. The "
                f"{_plural(self.offline_debates, 'offline debate')} are left out: about {num(offline_mean, 0)} "
                f"tokens per debate, estimated. {ESTIMATE_NOTE}")

    def cell(self, protocol: str, value: float | None) -> str:
        """A protocol's tokens per debate for a table, marked when they are (partly) estimates."""
        kind = self.protocol_estimate(protocol)
        return num(value, 0) + (f" ({kind})" if kind and value is not None else "")


def token_basis(rows: Iterable[Mapping[str, Any]]) -> TokenBasis:
    basis = TokenBasis()
    for r in rows:
        protocol, debates = str(r.get("protocol")), int(r.get("debates") or 0)
        tokens = int(r.get("input_tokens") or 0) + int(r.get("output_tokens") or 0)
        basis.debates_by_protocol[protocol] = basis.debates_by_protocol.get(protocol, 0) + debates
        if r.get("model") == OFFLINE_MODEL:
            basis.offline_debates += debates
            basis.offline_tokens += tokens
            basis.offline_by_protocol[protocol] = basis.offline_by_protocol.get(protocol, 0) + debates
        else:
            basis.model_debates += debates
            basis.model_tokens += tokens
    return basis


def priced_rows(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The `tokens_by_model` rows a cost may be computed from: the offline agents' are left out,
    even when a price is set for their model name, since they call no model."""
    return [r for r in rows if r.get("model") != OFFLINE_MODEL]


def is_offline_step(step: Mapping[str, Any]) -> bool:
    return step.get("model") == OFFLINE_MODEL


# -- Rounds to converge ------------------------------------------------------------------------------

def _none_converged(protocols: list[str]) -> str:
    names = ", ".join(protocol_name(p) for p in protocols)
    return f"No {names} debate has converged yet." if len(protocols) == 1 else \
        f"No debate has converged yet in: {names}."


def rounds(per_protocol: list[Mapping[str, Any]]) -> Decision:
    """Mean rounds to converge per protocol: a bar per protocol once two protocols have a converged
    debate; before that, a sentence. A protocol with no converged debate is named, never drawn as 0."""
    points = [r for r in per_protocol if r.get("rounds_to_converge") is not None]
    missing = [str(r["protocol"]) for r in per_protocol if r.get("rounds_to_converge") is None]
    if len(points) >= 2:
        return Decision(True, {"protocols": [str(r["protocol"]) for r in points],
                               "values": [float(r["rounds_to_converge"]) for r in points]},
                        [_none_converged(missing)] if missing else [])
    if not points:
        return Decision(False, sentences=["No debate has converged yet: the moderator stopped each one at its "
                                          "round limit, or it has not finished."])
    r = points[0]
    value, name = float(r["rounds_to_converge"]), protocol_name(str(r["protocol"])).capitalize()
    if int(r.get("debates") or 0) == 1:
        first = f"1 {protocol_name(str(r['protocol']))} debate converged in {_plural(value, 'round')}."
    else:
        first = f"{name} debates that converged took {_plural(round(value, 1), 'round')} on average."
    return Decision(False, sentences=[first] + ([_none_converged(missing)] if missing else []))


# -- Rates -------------------------------------------------------------------------------------------

RATE_KEYS = ("escalation_rate", "override_rate", "agreement_rate")


def rates(per_protocol: list[Mapping[str, Any]]) -> Decision:
    """Escalation, override and agreement rates compared across protocols: a chart once two
    protocols have a rate; with one, the headline figures above are already its rates. A rate with
    nothing to count (no completed or no reviewed debate) is left out, never drawn as 0%."""
    with_rates = [r for r in per_protocol if any(r.get(k) is not None for k in RATE_KEYS)]
    if len(with_rates) >= 2:
        return Decision(True, {"protocols": [str(r["protocol"]) for r in with_rates],
                               **{k: [None if r.get(k) is None else float(r[k]) * 100 for r in with_rates]
                                  for k in RATE_KEYS}})
    if not with_rates:
        return Decision(False, sentences=["No debate has completed or been reviewed yet: the rates show once "
                                          "one has."])
    name = protocol_name(str(with_rates[0]["protocol"]))
    return Decision(False, sentences=[f"The rates above are those of {name}, the only protocol with a completed or "
                                      "reviewed debate so far; a chart compares protocols once there are two."])


# -- Tokens per debate -------------------------------------------------------------------------------

def _token_phrase(q: Mapping[str, Any]) -> str:
    n = int(q.get("debates") or 0)
    if n == 1:
        return f"1 {protocol_name(str(q['protocol']))} debate used {num(q['median'], 0)} tokens"
    return (f"{n} {protocol_name(str(q['protocol']))} debates used {num(q['low'], 0)} to {num(q['high'], 0)} "
            f"tokens, {num(q['median'], 0)} in the middle")


def tokens(quartiles: list[Mapping[str, Any]], basis: TokenBasis) -> Decision:
    """Tokens per debate per protocol: a box for a protocol with enough debates, a dot at the
    median with its range for one with fewer, drawn once there are two protocols or one box; a
    single protocol's few debates are a sentence. Offline estimates are said to be estimates."""
    boxes = [q for q in quartiles if int(q.get("debates") or 0) >= BOX_MIN_DEBATES]
    if len(quartiles) >= 2 or boxes:
        kinds = {basis.protocol_estimate(str(q["protocol"])) for q in quartiles} - {""}
        axis = "tokens" if not kinds else ("tokens (estimated)" if kinds == {"estimated"}
                                           else "tokens (offline debates estimated)")
        return Decision(True, {
            "boxes": [dict(q) for q in boxes],
            "dots": [dict(q) for q in quartiles if q not in boxes],
            "y_title": axis,
            "title": "Estimated tokens per debate" if kinds == {"estimated"} else "Tokens per debate",
        }, [ESTIMATE_NOTE] if kinds else [])
    if not quartiles:
        return Decision(False, sentences=[])
    q = quartiles[0]
    kind = basis.protocol_estimate(str(q["protocol"]))
    sentence = _token_phrase(q) + (f" ({kind})." if kind else ".")
    return Decision(False, sentences=[sentence] + ([ESTIMATE_NOTE] if kind else []))


# -- Debates over time -------------------------------------------------------------------------------

def _period_days(period: str) -> int:
    if period not in ("day", "week"):
        raise ValueError(f"period must be 'day' or 'week', got {period!r}")
    return 1 if period == "day" else 7


def period_label(start: str, period: str) -> str:
    """'26 Nov 2026' for a day, 'week of 23 Nov 2026' for a week (the store's weeks start on Monday)."""
    d = date.fromisoformat(start[:10])
    text = f"{d.day} {d:%b %Y}"
    return text if period == "day" else f"week of {text}"


def trend(rows: list[Mapping[str, Any]], period: str) -> Decision:
    """Debates started per day or week on a date axis: each bar centred on its period and as wide
    as most of it, the axis at least `MIN_PERIODS_SHOWN` periods wide so one period is a narrow bar,
    and every bar labelled with its date while there are few enough to read."""
    days = _period_days(period)
    rows = [r for r in rows if r.get("period")]
    if not rows:
        return Decision(False, sentences=[])
    starts = [datetime.fromisoformat(str(r["period"])[:10]) for r in rows]
    half = timedelta(days=days) / 2
    centres = [(s + half).isoformat() for s in starts]
    labels = [period_label(str(r["period"]), period) for r in rows]
    shown = max(MIN_PERIODS_SHOWN, (starts[-1] - starts[0]).days // days + 1)
    spare = timedelta(days=days) * (shown - ((starts[-1] - starts[0]).days // days + 1))
    first = starts[0] - spare / 2
    last = starts[-1] + timedelta(days=days) + spare / 2
    data = {
        "x": centres, "labels": labels, "width_ms": int(days * DAY_MS * 0.8),
        "range": [first.isoformat(), last.isoformat()],
        "debates": [int(r.get("debates") or 0) for r in rows],
        "escalation": [None if r.get("escalation_rate") is None else float(r["escalation_rate"]) * 100 for r in rows],
        "tickformat": "%d %b %Y",
        "tickvals": centres if len(rows) <= MAX_LABELLED_PERIODS else None,
        "ticktext": labels if len(rows) <= MAX_LABELLED_PERIODS else None,
    }
    sentences = []
    if len(rows) == 1:
        r = rows[0]
        when = f"in the {labels[0]}" if period == "week" else f"on {labels[0]}"
        sentences.append(f"{_plural(int(r.get('debates') or 0), 'debate')} started {when}, "
                         f"{num(int(r.get('completed') or 0))} completed.")
    return Decision(True, data, sentences)
