"""Rule-based verdicts and escalation (no LLM), one module per protocol family."""
