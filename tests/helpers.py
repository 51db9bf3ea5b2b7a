"""Builders for scripted debates: cases, step outputs and cassettes for the replay provider."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from debate_core.core.schemas import Case

CASSETTE = "debate-cassette/1"


def small_case(**extra: Any) -> Case:
    data = {
        "id": "test-case",
        "title": "Test inheritance case",
        "question": "Does the rice field belong to the estate?",
        "evidence": [
            {"id": "E1", "source": "KUHPerdata art. 832", "text": "Blood relatives inherit in equal shares.", "authority": "statute"},
            {"id": "E2", "source": "MA decision", "text": "Daughters inherit equally with sons.", "authority": "supreme_court"},
            {"id": "E3", "source": "Adat statement", "text": "Harta pusaka tinggi belongs to the kaum.", "authority": "customary"},
            {"id": "E4", "source": "KAN letter", "text": "The sawah is pusaka tinggi of the kaum.", "authority": "customary"},
        ],
        "domain_hint": "conflict",
    }
    data.update(extra)
    return Case.model_validate(data)


def claim(cid: str, evidence: list[str], confidence: float = 0.7, statement: str | None = None) -> dict[str, Any]:
    return {"id": cid, "statement": statement or f"Statement of {cid}", "evidence": evidence,
            "confidence": confidence, "assumptions": []}


def agent_output(answer: str, claims: list[dict[str, Any]]) -> dict[str, Any]:
    return {"answer": answer, "claims": claims, "uncertainties": [], "open_questions": []}


def critique(kid: str, target_claim: str, severity: str = "MINOR", issue: str = "logic_gap",
             fix: str | None = "Fix it.") -> dict[str, Any]:
    out = {"id": kid, "target_claim_id": target_claim, "issue_type": issue, "severity": severity,
           "description": f"{issue} on {target_claim}"}
    if fix is not None:
        out["suggested_fix"] = fix
    return out


def critiques(*items: dict[str, Any]) -> dict[str, Any]:
    return {"critiques": list(items)}


def minor3(target_claim: str = "C1") -> dict[str, Any]:
    return critiques(*(critique(f"K{i}", target_claim) for i in range(1, 4)))


SUPERVISOR = {"answer": "No: the rice field is harta pusaka tinggi of the kaum, not part of the estate.", "confidence": 0.6, "rationale": "Because.", "agreed_claims": [],
              "disputed_claims": []}

NLA_R1 = agent_output("The estate is divided equally among the children under the civil code.",
                      [claim("C1", ["E1"]), claim("C2", ["E2"])])
ALA_R1 = agent_output("The sawah is harta pusaka tinggi of the kaum and is not part of the estate.",
                      [claim("C1", ["E3"]), claim("C2", ["E4"])])


def cassette(calls: list[tuple[str, dict[str, Any]]], protocol: str = "cross_critique") -> dict[str, Any]:
    return {"format": CASSETTE, "protocol": protocol, "calls": [{"step": s, "output": o} for s, o in calls]}


def finished_event_data(step_id: str, output: dict[str, Any], protocol: str = "cross_critique",
                        **extra: Any) -> dict[str, Any]:
    """A `turn_finished` event's data as the runtime records it: the output plus the rows the
    protocol's spec projects from it (claims, critiques)."""
    from debate_core.core.steps import parse_step_id
    from debate_core.protocols import get_spec

    key, projection = parse_step_id(step_id), get_spec(protocol).projection
    data: dict[str, Any] = {"call": 1, "raw": "{}", "output": output, **extra}
    for kind in ("claims", "critiques"):
        fn = getattr(projection, kind)
        rows = fn(key, output) if fn else []
        if rows:
            data[f"{kind}_rows"] = rows
    return data


def open_tab(app: Any, label: str, key: str = "done") -> Any:
    """Switch the debate page to one of its tabs (only the tab on view is drawn) and rerun it."""
    app.session_state[f"tabs-{key}"] = label
    return app.run()


def count_debates(db: Path) -> int:
    """Debates stored in a database file, read without the store (0 when there is none yet)."""
    if not db.exists():
        return 0
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT COUNT(*) FROM debates").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()
