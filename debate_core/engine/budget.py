"""The token budget of a debate: the default for paid providers, what the budget may cost, and
the tokens a resumed debate spent before it was resumed.

One rule, used by the CLI (`run`, `resume`, `continue`, `fork`), the app's New debate page and its
background worker, so the budget stored with a debate is the one it ran with:

- a budget the user sets (`--max-total-tokens N`, the page's field) always wins;
- else a budget stored with the debate being resumed, continued or forked, unless it was the
  default (a default follows the provider the debate goes on with);
- else a paid provider gets `DEFAULT_MAX_TOTAL_TOKENS`: the openai provider pointed at a server that
  is not on this machine or a private network (OpenAI's API when no base URL is given);
- offline, replay and local servers cost nothing, so they get no budget unless one is set.

How the runtime counts it (runtime.py, `DebateRun.step`): before each model call, the tokens used so
far plus the next prompt's estimate must stay within the budget. Calls of one stage start together,
so the replies of calls already under way can take a debate past its budget; the next call stops it.
A continued debate counts its own stored steps; a resumed debate counts every token spent by the
debates it resumes (steps reused from them are not counted twice, and cost no new tokens); a fork
counts only its own calls, its parent's reused rounds being paid for by the parent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..providers.openai_provider import is_local_url

if TYPE_CHECKING:
    from ..core.pricing import PriceTable
    from ..core.settings import DebateSettings

# 200,000 tokens per debate. Every sample case runs well inside it with its default settings: the
# largest, a three-round cross critique, used about 67,000 tokens (offline run, estimated tokens),
# the same with three agents about 118,000. Real models write longer replies and are re-asked now
# and then, so the default leaves room for that. It stops the runaway cases the default was made
# for: six cross-critique agents on that case use about 484,000 tokens, and a debate with a large
# evidence set had an estimated 1.9 million input tokens. At a small model's prices (0.15 and 0.60
# per million) it is at most about 0.12 in the price table's currency; at a large model's (2.50
# and 10.00), at most 2.00.
DEFAULT_MAX_TOTAL_TOKENS = 200_000

DEFAULT, SET = "default", "set"


@dataclass(frozen=True)
class Budget:
    """A debate's effective budget: the tokens (None: no budget) and where they come from."""

    max_total_tokens: int | None
    source: str | None  # "default", "set", or None without a budget


def is_paid(provider_name: str | None, base_url: str | None) -> bool:
    """Whether debates on this provider cost money: the openai provider on a server that is not
    local (an empty base URL is OpenAI's API)."""
    if provider_name != "openai":
        return False
    return not is_local_url(base_url or None)


def provider_is_paid(provider: Any) -> bool:
    """`is_paid` for a built provider (a resumed debate's provider wraps the live one)."""
    live = getattr(provider, "live", provider)
    return is_paid(getattr(live, "name", None), getattr(live, "base_url", None))


def effective_budget(paid: bool, *, explicit: int | None = None, stored: int | None = None,
                     stored_source: str | None = None) -> Budget:
    """The budget a debate runs with (the rule in this module's docstring)."""
    if explicit is not None:
        return Budget(int(explicit), SET)
    if stored is not None and stored_source != DEFAULT:
        return Budget(int(stored), SET)
    if paid:
        return Budget(DEFAULT_MAX_TOTAL_TOKENS, DEFAULT)
    return Budget(None, None)


def apply_budget(settings: DebateSettings, provider: Any, explicit: int | None = None) -> Budget:
    """Set the effective budget on `settings` (in place) for a debate on `provider`; returns it.
    A budget already in `settings` without a source counts as set by the user."""
    budget = effective_budget(provider_is_paid(provider), explicit=explicit, stored=settings.max_total_tokens,
                              stored_source=settings.budget_source)
    settings.max_total_tokens, settings.budget_source = budget.max_total_tokens, budget.source
    return budget


def provider_models(provider: Any) -> list[str]:
    """The models a provider calls: its main model and any per-agent ones."""
    live = getattr(provider, "live", provider)
    models = [str(getattr(live, "model", "") or "")]
    models += [str(m) for m in (getattr(live, "agent_models", None) or {}).values()]
    return sorted({m for m in models if m})


def budget_cost(tokens: int | None, models: list[str], table: PriceTable | None) -> float | None:
    """What `tokens` cost at most: every token at the higher of input and output price of the
    dearest model. None without a budget, without prices, or when a model has no price (a model
    without a price is never counted as free)."""
    if not tokens or table is None or not models:
        return None
    prices = [table.price_for(m) for m in models]
    if any(p is None for p in prices):
        return None
    rate = max(max(p.input_per_1m, p.output_per_1m) for p in prices if p is not None)
    return tokens * rate / 1_000_000


def describe(settings: DebateSettings | None, provider: Any = None, table: PriceTable | None = None) -> dict[str, Any]:
    """The `budget` object of `run --json`: {max_total_tokens, source, estimated_cost, currency}."""
    tokens = settings.max_total_tokens if settings is not None else None
    source = (settings.budget_source or SET) if tokens else None
    cost = budget_cost(tokens, provider_models(provider), table) if provider is not None else None
    return {"max_total_tokens": tokens, "source": source,
            "estimated_cost": None if cost is None else round(cost, 6),
            "currency": table.currency if cost is not None and table is not None else None}


def spent_before(store: Any, debate: dict[str, Any]) -> int:
    """Tokens spent by the debates this one resumes (its `resumed_from` chain), which its budget
    counts as used already."""
    total, seen, current = 0, {debate.get("id")}, debate.get("resumed_from")
    while current and current not in seen:
        seen.add(current)
        try:
            row = store.get_debate(current, with_steps=False)
        except KeyError:  # a resumed debate that was deleted since: nothing more to count
            break
        total += int(row.get("input_tokens") or 0) + int(row.get("output_tokens") or 0)
        current = row.get("resumed_from")
    return total
