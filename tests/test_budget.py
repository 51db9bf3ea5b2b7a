"""The token budget: a default for paid providers, an explicit budget that always wins, the budget
and its estimated cost in `run --json` and on the New debate page, and a debate stopped by its
budget that keeps its steps and goes on with a higher one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fault_server import FaultServer, NameScript

from debate_core import cli
from debate_core.core.app_settings import save_prices
from debate_core.core.cases import CASES_DIR
from debate_core.engine import budget
from debate_core.engine.budget import DEFAULT_MAX_TOTAL_TOKENS
from debate_core.engine.runtime import DebateSettings
from debate_core.providers import make_provider
from debate_core.providers.openai_provider import OpenAIProvider
from debate_core.store import DebateStore

WILL = str(CASES_DIR / "national_will_formalities.json")
WILL_VALID = {
    "AgentOutput": {
        "answer": "The will is valid only if the notarial deposit formalities were met.",
        "claims": [{"id": "C1", "statement": "A deposited secret will needs a notarial deed of deposit.",
                    "evidence": ["kuhperdata_940", "deed_of_deposit_extract"], "confidence": 0.6}],
        "uncertainties": ["whether the witnesses signed"],
    },
    "CritiqueOutput": {"critiques": []},
    "SupervisorOutput": {"answer": "Valid if deposited with the notary as required.", "confidence": 0.6,
                         "rationale": "Both agents agree.", "agreed_claims": ["C1"]},
}


def openai(base_url: str | None) -> OpenAIProvider:
    # Building the provider sends nothing; probe=False keeps it from asking a local server for its slots.
    return OpenAIProvider(model="gpt-4o-mini", base_url=base_url, api_key="sk-test-budget", probe=False)


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, json.loads(out), err


# -- the rule -----------------------------------------------------------------------------------


@pytest.mark.parametrize("base_url", ["https://api.example.com/v1", "https://api.openai.com/v1",
                                      "http://93.184.216.34:8000/v1"])
def test_the_default_budget_applies_to_a_paid_url(base_url: str) -> None:
    settings = DebateSettings()
    found = budget.apply_budget(settings, openai(base_url))
    assert found == budget.Budget(DEFAULT_MAX_TOTAL_TOKENS, "default")
    assert (settings.max_total_tokens, settings.budget_source) == (DEFAULT_MAX_TOTAL_TOKENS, "default")
    assert settings.as_dict()["budget_source"] == "default"
    # An empty base URL is OpenAI's API: paid.
    assert budget.is_paid("openai", None) and budget.is_paid("openai", "")


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:8080/v1", "http://localhost:11434/v1",
                                      "http://192.168.1.20:8000/v1", "http://gpu-box.local:8000/v1"])
def test_no_default_budget_for_a_local_server(base_url: str) -> None:
    settings = DebateSettings()
    assert budget.apply_budget(settings, openai(base_url)) == budget.Budget(None, None)
    assert settings.max_total_tokens is None and "budget_source" not in settings.as_dict()


def test_no_default_budget_offline_or_replay() -> None:
    for provider in (make_provider("offline"),
                     make_provider("replay", cassette={"format": "debate-cassette/1", "calls": []})):
        settings = DebateSettings()
        assert budget.apply_budget(settings, provider) == budget.Budget(None, None)
        assert settings.max_total_tokens is None


def test_an_explicit_budget_always_wins() -> None:
    paid, local = openai("https://api.example.com/v1"), openai("http://127.0.0.1:8080/v1")
    for provider in (paid, local, make_provider("offline")):
        settings = DebateSettings(max_total_tokens=5_000)  # as --max-total-tokens puts it
        assert budget.apply_budget(settings, provider) == budget.Budget(5_000, "set")
        stored = DebateSettings(max_total_tokens=9_000, budget_source="default")
        assert budget.apply_budget(stored, provider, explicit=1_234) == budget.Budget(1_234, "set")
    # A stored budget the user set is kept; a stored default follows the provider it goes on with.
    assert budget.effective_budget(False, stored=7_000, stored_source="set") == budget.Budget(7_000, "set")
    assert budget.effective_budget(False, stored=7_000) == budget.Budget(7_000, "set")
    assert budget.effective_budget(False, stored=DEFAULT_MAX_TOTAL_TOKENS, stored_source="default") == \
        budget.Budget(None, None)
    assert budget.effective_budget(True, stored=None) == budget.Budget(DEFAULT_MAX_TOTAL_TOKENS, "default")


def test_the_budget_cost_is_at_the_dearest_price_and_unknown_without_one() -> None:
    from debate_core.core.pricing import parse_price_table

    table = parse_price_table({"currency": "EUR", "models": {"gpt-4o-mini": {"input": 0.15, "output": 0.60},
                                                             "gpt-4o": {"input": 2.5, "output": 10.0}}})
    assert budget.budget_cost(200_000, ["gpt-4o-mini"], table) == pytest.approx(0.12)
    assert budget.budget_cost(200_000, ["gpt-4o-mini-2024-07-18", "gpt-4o"], table) == pytest.approx(2.0)
    assert budget.budget_cost(200_000, ["gpt-4o-mini", "unpriced"], table) is None
    assert budget.budget_cost(None, ["gpt-4o-mini"], table) is None
    assert budget.budget_cost(200_000, ["gpt-4o-mini"], None) is None


# -- run --json and the other commands ----------------------------------------------------------


def test_run_json_shows_a_set_budget_and_its_estimated_cost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "d.db")
    code, out, _ = cli_json(capsys, "run", WILL, "--protocol", "cross_critique", "--json", "--quiet", "--db", db)
    assert code == 0
    assert out["budget"] == {"max_total_tokens": None, "source": None, "estimated_cost": None, "currency": None}

    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"currency": "EUR", "models": {"offline-rules": {"input": 1.0, "output": 4.0}}}))
    monkeypatch.setenv("DEBATE_PRICES", str(prices))
    code, out, _ = cli_json(capsys, "run", WILL, "--protocol", "cross_critique", "--max-total-tokens", "150000",
                            "--json", "--quiet", "--db", db)
    assert code == 0 and out["status"] == "completed"
    assert out["budget"] == {"max_total_tokens": 150_000, "source": "set", "estimated_cost": 0.6, "currency": "EUR"}
    stored = DebateStore(db, readonly=True).get_debate(out["debate_id"], with_steps=False)["settings"]
    assert (stored["max_total_tokens"], stored["budget_source"]) == (150_000, "set")


def test_run_json_shows_the_default_budget_of_a_paid_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # No test reaches a paid server: the offline provider stands in for one here.
    monkeypatch.setattr(budget, "provider_is_paid", lambda provider: True)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"models": {"offline-rules": {"input": 0.15, "output": 0.60}}}))
    monkeypatch.setenv("DEBATE_PRICES", str(prices))
    db = str(tmp_path / "d.db")
    code = cli.main(["run", WILL, "--protocol", "cross_critique", "--json", "--db", db])
    out, err = capsys.readouterr()
    assert code == 0
    result = json.loads(out)
    assert result["budget"] == {"max_total_tokens": DEFAULT_MAX_TOTAL_TOKENS, "source": "default",
                                "estimated_cost": 0.12, "currency": "USD"}
    assert "token budget: 200,000 tokens, the default for a paid model, at most about 0.12 USD" in err
    assert "--max-total-tokens N" in err
    stored = DebateStore(db, readonly=True).get_debate(result["debate_id"], with_steps=False)["settings"]
    assert (stored["max_total_tokens"], stored["budget_source"]) == (DEFAULT_MAX_TOTAL_TOKENS, "default")


def test_continue_and_fork_take_a_budget_and_report_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "d.db")
    code, out, _ = cli_json(capsys, "run", WILL, "--protocol", "cross_critique", "--pause-after-round", "1",
                            "--max-total-tokens", "90000", "--json", "--quiet", "--db", db)
    assert code == 0 and out["status"] == "paused" and out["budget"]["max_total_tokens"] == 90_000
    paused = out["debate_id"]
    code, out, _ = cli_json(capsys, "fork", paused, "--from-round", "1", "--json", "--quiet", "--db", db)
    assert code == 0 and out["budget"]["max_total_tokens"] == 90_000 and out["budget"]["source"] == "set"
    code, out, _ = cli_json(capsys, "continue", paused, "--max-total-tokens", "120000", "--json", "--quiet",
                            "--db", db)
    assert code == 0 and out["status"] == "completed"
    assert out["budget"]["max_total_tokens"] == 120_000
    stored = DebateStore(db, readonly=True).get_debate(paused, with_steps=False)["settings"]
    assert stored["max_total_tokens"] == 120_000
    assert cli.main(["continue", paused, "--max-total-tokens", "0", "--db", db]) == 2
    assert "--max-total-tokens must be at least 1" in capsys.readouterr().err


# -- a debate stopped by its budget, resumed with a higher one ----------------------------------


def test_a_budget_stop_keeps_the_steps_and_resumes_with_a_higher_budget(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "d.db")
    with FaultServer(NameScript(WILL_VALID)) as server:
        flags = ["--provider", "openai", "--base-url", server.base_url, "--model", "fault-model", "--db", db,
                 "--json", "--quiet"]
        code, full, _ = cli_json(capsys, "run", WILL, "--protocol", "cross_critique", "--rounds", "2", *flags)
        assert code == 0 and full["status"] == "completed"
        # A loopback server is local: no default budget.
        assert full["budget"]["max_total_tokens"] is None
        total = full["usage"]["input_tokens"] + full["usage"]["output_tokens"]
        full_calls = full["usage"]["calls"]

        small = total // 2
        code, stopped, _ = cli_json(capsys, "run", WILL, "--protocol", "cross_critique", "--rounds", "2",
                                    "--max-total-tokens", str(small), *flags)
        assert code == 1 and stopped["status"] == "failed"
        debate_id = stopped["debate_id"]
        assert f"stopped by the token budget of {small:,} tokens at {stopped['failed_step']}" in stopped["error"]
        assert f"python -m debate_core resume {debate_id} --max-total-tokens " in stopped["error"]
        assert stopped["budget"] == {"max_total_tokens": small, "source": "set", "estimated_cost": None,
                                     "currency": None}
        store = DebateStore(db, readonly=True)
        saved = store.get_debate(debate_id)
        assert saved["status"] == "failed" and saved["error"] == stopped["error"]
        kept = [s for s in saved["steps"] if s["status"] == "ok"]
        assert kept and all(s["status"] == "ok" for s in saved["steps"])  # nothing started past the budget
        spent = saved["input_tokens"] + saved["output_tokens"]

        # Resumed with the same budget, the tokens already spent count: it stops at once, asking nothing.
        requests = len(server.bodies())
        code, again, _ = cli_json(capsys, "resume", debate_id, *flags)
        assert code == 1 and f"stopped by the token budget of {small:,} tokens" in again["error"]
        assert f"{spent:,} of them before it was resumed" in again["error"]
        assert again["usage"]["calls"] == 0 and len(server.bodies()) == requests

        code, resumed, _ = cli_json(capsys, "resume", debate_id, "--max-total-tokens", str(total * 3), *flags)
    assert code == 0 and resumed["status"] == "completed", resumed.get("error")
    assert resumed["budget"] == {"max_total_tokens": total * 3, "source": "set", "estimated_cost": None,
                                 "currency": None}
    # The stored steps were reused: only the rest was asked of the model.
    assert resumed["usage"]["calls"] == full_calls - len(kept)
    new = store.get_debate(resumed["debate_id"])
    assert new["resumed_from"] == debate_id and new["settings"]["max_total_tokens"] == total * 3
    assert sum(1 for s in new["steps"] if s["model"] == "stored") == len(kept)


# -- the New debate page --------------------------------------------------------------------------


def _caption_text(app: Any) -> list[str]:
    return [c.value.replace("\\", "") for c in app.caption]


def test_new_debate_page_shows_the_budget_and_its_cost_for_a_paid_url(app: Any, db_path: Path) -> None:
    save_prices(db_path, {"gpt-4o-mini": {"input": 0.15, "output": 0.60}}, "USD")
    app.run()
    app.radio(key="nd-provider").set_value("openai").run()
    app.text_input(key="nd-base-url").set_value("https://api.example.com/v1").run()
    app.text_input(key="nd-model").set_value("gpt-4o-mini").run()
    assert not app.exception, [e.message for e in app.exception]
    field = app.number_input(key="nd-budget-paid")
    assert field.label == "Token budget for this debate" and field.value == DEFAULT_MAX_TOTAL_TOKENS
    assert any("200,000 tokens (the default for a paid model). Estimated cost of the budget: at most 0.1200 USD"
               in c for c in _caption_text(app))

    field.set_value(50_000).run()
    assert any("50,000 tokens (set for this debate)" in c and "0.0300 USD" in c for c in _caption_text(app))

    # A model without a price: the budget shows, its cost cannot be estimated.
    app.text_input(key="nd-model").set_value("some-model").run()
    assert any("No price for some-model" in c for c in _caption_text(app))

    # A local server: no budget unless one is set.
    app.text_input(key="nd-base-url").set_value("http://localhost:8080/v1").run()
    assert app.number_input(key="nd-budget-local").value is None
    assert any(c.startswith("No budget") for c in _caption_text(app))
    # Nothing was started: no test calls a paid server.
    assert "debate_id" not in app.session_state


def test_the_worker_stores_the_default_budget_of_a_paid_provider(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from debate_core.core.cases import load_case
    from debate_core.jobs import worker

    # No test reaches a paid server: the offline provider stands in for one here.
    monkeypatch.setattr(budget, "provider_is_paid", lambda provider: True)
    db = tmp_path / "w.db"
    page_settings = DebateSettings(rounds=2)  # the page left its budget field empty
    debate_id = worker.start_debate(load_case(WILL), "cross_critique", make_provider("offline"), page_settings,
                                    db_path=db)
    assert worker.wait(debate_id, 60)
    stored = DebateStore(db, readonly=True).get_debate(debate_id, with_steps=False)["settings"]
    assert (stored["max_total_tokens"], stored["budget_source"]) == (DEFAULT_MAX_TOTAL_TOKENS, "default")
    assert page_settings.max_total_tokens is None  # the caller's settings are left as they were
