"""The API over HTTP, against the real server: submit, complete, review, live events, lists with
History's filters and a cursor, the queue, labelled cases, protocols and the OpenAPI schema."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from test_api_support import api, case_json, finished  # noqa: F401  (api is a fixture)

from debate_core.cli import main
from debate_core.client import ApiError, Client
from debate_core.store import DebateStore


def test_submit_answers_202_with_a_location_then_completes_and_a_review_names_the_token(api):  # noqa: F811
    raw = httpx.post(f"{api.url}/v1/debates", json={"case": case_json(), "protocol": "cross_critique"},
                     headers={"Authorization": f"Bearer {api.tokens['reviewer']}"})
    assert raw.status_code == 202
    body = raw.json()
    assert raw.headers["location"] == f"/v1/debates/{body['id']}"
    assert body["status"] in ("running", "completed")
    with api.client("reviewer") as c:
        debate = c.wait(body["id"], timeout=60, every=0.1)
        assert debate["status"] == "completed" and debate["review_state"] == "pending"
        assert debate["steps"] is None and debate["final_answer"]
        result = c.review(body["id"], "accept", version=debate["version"])
        assert result["state_after"] == "accepted" and result["reviewer"] == "reviewer bot"
        after = c.get(body["id"], steps=True)
    assert after["review_state"] == "accepted" and after["reviewed_by"] == "reviewer bot"
    assert [(r["reviewer"], r["kind"], r["action"]) for r in after["reviews"]] == [("reviewer bot", "token", "accept")]
    assert after["steps"] and all("step_id" in s for s in after["steps"])
    store = api.store()
    try:
        started = [r for r in store.audit_log(target=body["id"]) if r["action"] != "review"]
        assert started and started[-1]["reviewer"] == "reviewer bot" and started[-1]["actor_kind"] == "token"
    finally:
        store.close()


def test_a_stale_version_is_409_and_changes_nothing(api):  # noqa: F811
    debate = finished(api)
    with api.client("reviewer") as c:
        with pytest.raises(ApiError) as err:
            c.review(debate["id"], "accept", version=debate["version"] + 5)
        assert (err.value.status, err.value.code, err.value.field) == (409, "stale_version", "version")
        assert c.get(debate["id"])["review_state"] == "pending"
        with pytest.raises(ApiError) as err:
            c.review(debate["id"], "override", version=debate["version"])
        assert (err.value.status, err.value.field) == (422, "answer")


def test_the_event_stream_reads_steps_rounds_and_the_verdict_then_ends(api):  # noqa: F811
    with api.client("viewer") as viewer, api.client("reviewer") as reviewer:
        debate_id = reviewer.submit(case_json(), "cross_critique", provider={"name": "offline", "latency_ms": 30})["id"]
        events = list(viewer.events(debate_id))
    kinds = [e["event"] for e in events]
    assert "step.finished" in kinds and "round.closed" in kinds
    assert kinds.index("verdict") > kinds.index("round.closed")
    assert kinds[-1] == "end" and events[-1]["data"]["status"] == "completed"
    verdict = next(e for e in events if e["event"] == "verdict")["data"]
    assert verdict["final_answer"] and verdict["review_state"] == "pending"
    raw = httpx.get(f"{api.url}/v1/debates/{debate_id}/events",
                    headers={"Authorization": f"Bearer {api.tokens['viewer']}"})
    assert raw.headers["content-type"].startswith("text/event-stream")
    assert "event: verdict" in raw.text


def test_following_reviews_the_stream_stays_open_until_the_review_decides(api):  # noqa: F811
    debate = finished(api)
    got: list[dict] = []
    with api.client("viewer") as viewer:
        reading = threading.Thread(target=lambda: got.extend(viewer.events(debate["id"], follow_reviews=True)))
        reading.start()
        time.sleep(1.0)
        assert reading.is_alive()  # the verdict is in, the review is not
        with api.client("reviewer") as c:
            c.review(debate["id"], "escalate", reason="the adat evidence is thin", version=debate["version"])
            time.sleep(0.6)
            assert reading.is_alive()  # escalated is not decided
        with api.client("supervisor") as c:
            c.review(debate["id"], "approve", version=debate["version"] + 1)
        reading.join(timeout=10)
    assert not reading.is_alive()
    reviews = [e["data"] for e in got if e["event"] == "review.recorded"]
    assert [(r["reviewer"], r["action"], r["state_after"]) for r in reviews] == [
        ("reviewer bot", "escalate", "escalated"), ("supervisor bot", "approve", "approved")]
    assert got[-1]["event"] == "end"


def test_the_list_filters_as_history_does_and_pages_by_cursor(api):  # noqa: F811
    ids = [finished(api)["id"] for _ in range(3)]
    with api.client("reviewer") as c:
        c.review(ids[0], "accept", version=c.get(ids[0])["version"])
        first = c.list(limit=2)
        assert [d["id"] for d in first["debates"]] == ids[::-1][:2] and first["next_cursor"]
        second = c.list(limit=2, cursor=first["next_cursor"])
        assert [d["id"] for d in second["debates"]] == [ids[0]] and second["next_cursor"] is None
        assert [d["id"] for d in c.list(review_state="accepted")["debates"]] == [ids[0]]
        assert [d["id"] for d in c.list(reviewer="Reviewer Bot")["debates"]] == [ids[0]]
        assert c.list(protocol="dialectic")["debates"] == []
        assert len(c.list(outcome="flagged")["debates"]) + len(c.list(outcome="converged")["debates"]) \
            + len(c.list(outcome="not_converged")["debates"]) == 3
        assert c.list(created_from="2999-01-01")["debates"] == []
        with pytest.raises(ApiError) as err:
            c.list(outcome="won")
        assert (err.value.status, err.value.field) == (422, "outcome")
        with pytest.raises(ApiError) as err:
            c.list(cursor="not-a-cursor")
        assert err.value.field == "cursor"


def test_evaluation_runs_are_left_out_unless_asked(api):  # noqa: F811
    debate_id = finished(api)["id"]
    store = api.store()
    try:
        store.sql.execute("UPDATE debates SET evaluation_id = ? WHERE id = ?", ["ev1", debate_id])
    finally:
        store.close()
    with api.client("viewer") as c:
        assert c.list()["debates"] == []
        assert [d["id"] for d in c.list(include_evaluations=True)["debates"]] == [debate_id]


def test_the_queue_is_the_callers_and_labelled_cases_are_what_export_labels_writes(api, tmp_path, capsys):  # noqa: F811
    debates = [finished(api) for _ in range(2)]
    flagged = [d for d in debates if d["needs_human_review"]]
    with api.client("reviewer") as c:
        queue = c.queue()
        assert [d["id"] for d in queue["debates"]] == [d["id"] for d in flagged]
        assert queue["left"] == len(flagged)
        for d in debates:
            c.review(d["id"], "accept", version=d["version"])
        assert c.queue()["debates"] == []
        labelled = c.labelled_cases()
        with pytest.raises(ApiError) as err:
            c.queue("supervisor")
        assert err.value.status == 403
    assert sum(labelled["decided"].values()) == 2
    assert main(["--db", str(api.db), "export-labels", str(tmp_path / "labels")]) == 0
    written = {p.name: json.loads(p.read_text()) for p in (tmp_path / "labels").glob("*.json")}
    assert written == labelled["cases"]


def test_protocols_are_the_specs_protocols_json_gives(api, capsys):  # noqa: F811
    capsys.readouterr()
    assert main(["protocols", "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    with api.client("viewer") as c:
        assert c.protocols() == expected


def test_openapi_lists_every_route_with_its_models(api):  # noqa: F811
    schema = httpx.get(f"{api.url}/openapi.json").json()
    routes = {(path, method) for path, item in schema["paths"].items() for method in item}
    assert routes == {
        ("/v1/health", "get"), ("/v1/protocols", "get"), ("/v1/debates", "post"), ("/v1/debates", "get"),
        ("/v1/debates/{debate_id}", "get"), ("/v1/debates/{debate_id}/reviews", "post"),
        ("/v1/debates/{debate_id}/control", "post"), ("/v1/debates/{debate_id}/forks", "post"),
        ("/v1/debates/{debate_id}/events", "get"), ("/v1/queue", "get"), ("/v1/labelled-cases", "get"),
        ("/v1/webhooks", "post"), ("/v1/webhooks", "get"), ("/v1/webhooks/{webhook_id}", "delete"),
    }
    for path, item in schema["paths"].items():
        for method, op in item.items():
            if method == "post":
                assert "$ref" in json.dumps(op["requestBody"]), (path, method)
            ok = op["responses"][next(c for c in op["responses"] if c.startswith("2"))]
            assert ok["content"], (path, method)
            if path != "/v1/health":
                assert op.get("security"), (path, method)
    assert {"DebateRequest", "Debate", "DebatePage", "ErrorBody", "ReviewRequest", "Queue",
            "Webhook"} <= set(schema["components"]["schemas"])
    assert httpx.get(f"{api.url}/docs").status_code == 200


def test_control_pauses_and_stops_and_a_fork_starts_from_a_closed_round(api):  # noqa: F811
    with api.client("reviewer") as c:
        debate_id = c.submit(case_json(), "cross_critique", pause_after_round=1)["id"]
        paused = c.wait(debate_id, timeout=60, every=0.1)
        assert paused["status"] == "paused"
        fork = c.fork(debate_id, 1, rounds=2)
        assert c.wait(fork["id"], timeout=60, every=0.1)["parent_id"] == debate_id
        assert c.control(debate_id, "stop") == {"id": debate_id, "status": "stopped"}
        with pytest.raises(ApiError) as err:
            c.control(debate_id, "pause")
        assert (err.value.status, err.value.code) == (409, "not_now")


def test_a_restarted_server_reports_a_debate_its_predecessor_left_running_as_interrupted(tmp_path, capsys):
    import subprocess
    import sys

    from helpers import small_case
    from test_api_support import create_token, serve

    from debate_core.jobs import worker

    db = tmp_path / "api.db"
    token = create_token(db, "viewer bot", "viewer", capsys)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    store = DebateStore(db)
    try:
        left = store.create_debate(small_case(), "cross_critique", {"provider": "offline"},
                                   {"rounds": 2, "runner": {"pid": dead.pid, "host": worker.runner_info()["host"]}})
        assert store.get_debate(left, with_steps=False)["status"] == "running"
    finally:
        store.close()
    gen = serve(db)
    url = next(gen)
    try:
        with Client(url, token) as c:
            debate = c.get(left)
    finally:
        gen.close()
    assert debate["status"] == "failed"
    assert debate["error"].startswith("interrupted:") and f"pid {dead.pid}" in debate["error"]
