"""The Settings page's Webhooks section (admins only): the endpoints other systems gave us, adding
and deleting one, and what was sent to each, attempt by attempt.

A new endpoint's signing secret is shown once, right after it is added: the store keeps it to sign
with but never shows it again, as the receiving system must keep it secret too."""

from __future__ import annotations

import streamlit as st

from debate_core.core import webhooks as rules
from debate_core.core.identity import PermissionRefused
from debate_core.present import formatting
from ui import common

STATUS_WORDS = {"pending": "waiting to be sent", "failed": "not delivered yet; will try again",
                "delivered": "delivered", "given up": "given up"}
SECRET_KEY = "webhook-new-secret"


def _when(stamp: str | None) -> str:
    return (stamp or "").replace("T", " ")[:19] or "—"


def _answer(attempt: dict) -> str:
    if attempt.get("status_code") is not None:
        return f"HTTP {attempt['status_code']}"
    return attempt.get("error") or "no answer"


def delivery_rows(deliveries: list[dict]) -> list[dict]:
    """One table row per attempt (a delivery not tried yet gets one row), newest delivery first."""
    rows = []
    for d in deliveries:
        attempts = d["attempts_log"] or [None]
        for a in reversed(attempts):
            last = a is None or a["attempt"] == d["attempts"]
            rows.append({
                "event": d["event_type"], "debate": d.get("debate_id") or "",
                "attempt": a["attempt"] if a else 0, "sent at": _when(a["at"]) if a else "—",
                "answer": _answer(a) if a else "not sent yet",
                "took (ms)": round(a["duration_ms"]) if a and a.get("duration_ms") is not None else None,
                "delivery": STATUS_WORDS.get(d["status"], d["status"]) if last else "",
                "next try": _when(d["next_attempt_at"]) if last and d["status"] == "failed" else "",
            })
    return rows


def _add(url: str, events: list[str], secret: str) -> None:
    store = common.write_store()
    try:
        hook = store.add_webhook(url=url, events=events, secret=secret or None, actor=common.actor())
    except (ValueError, PermissionRefused) as exc:
        st.error(f"Endpoint not added: {formatting.md_escape(exc)}")
        return
    finally:
        store.close()
    st.session_state[SECRET_KEY] = (hook["url"], hook["secret"])
    for key in ("wh-url", "wh-events", "wh-secret"):  # an empty form for the next one; kept after a refusal
        st.session_state.pop(key, None)
    st.rerun()


def _delete() -> None:
    """Delete the chosen endpoint (a callback, so the list below is drawn without it)."""
    chosen = st.session_state.get("wh-delete-choice")
    if chosen is None:
        return
    store = common.write_store()
    try:
        gone = store.delete_webhook(int(chosen), actor=common.actor())
    except PermissionRefused as exc:
        common.flash("webhooks", "error", f"Not deleted: {formatting.md_escape(exc)}")
        return
    finally:
        store.close()
    common.flash("webhooks", "success" if gone else "error",
                 "Deleted the endpoint; nothing more is sent to it." if gone else "That endpoint was already deleted.")


def section() -> None:
    """Draw the section; the caller shows it to admins only (the store checks the role again)."""
    st.subheader("Webhooks", anchor=False)
    st.caption("Another system can be told when something happens here: this server sends a signed message "
               "(Standard Webhooks) to each address below for the events it was given. A message that is not "
               "accepted is tried again after 5 s, 30 s, 2 min, 10 min and 1 h, then given up. Sending never "
               "holds up a debate or a review.")
    new = st.session_state.pop(SECRET_KEY, None)
    if new:
        st.success(f"Added {formatting.md_escape(new[0])}. Its signing secret is below: copy it now and give it "
                   "to the receiving system. It is not shown again.")
        st.code(new[1], language=None)
    common.show_flash("webhooks")

    store = common.read_store()
    try:
        hooks = store.list_webhooks()
        deliveries = {h["id"]: store.webhook_deliveries(webhook_id=h["id"], limit=20) for h in hooks}
    finally:
        store.close()
    if hooks:
        st.dataframe([{"address": h["url"], "events": ", ".join(h["events"]), "added by": h["created_by"],
                       "added on": _when(h["created_at"])} for h in hooks], hide_index=True, key="wh-list")
    else:
        st.caption("No endpoint is registered yet.")

    with st.form("webhook-form", clear_on_submit=False):
        url = st.text_input("Address (URL) to send to", key="wh-url", placeholder="https://example.org/hooks/debates")
        events = st.multiselect("Events to send", list(rules.WEBHOOK_EVENTS), key="wh-events",
                                format_func=lambda e: f"{e}: {rules.EVENT_DESCRIPTIONS[e]}")
        secret = st.text_input("Signing secret (optional; leave empty to have one made)", key="wh-secret",
                               type="password", placeholder="whsec_...")
        if st.form_submit_button("Add endpoint"):
            _add(url, events, secret)

    if hooks:
        labels = {h["id"]: h["url"] for h in hooks}
        d1, d2 = st.columns([3, 1], vertical_alignment="bottom")
        d1.selectbox("Endpoint", list(labels), format_func=labels.get, key="wh-delete-choice")
        d2.button("Delete endpoint", key="wh-delete", icon=":material/delete:", on_click=_delete)
        st.markdown("**Recent deliveries**")
        for h in hooks:
            with st.expander(f"To {formatting.md_escape(h['url'])}", expanded=False):
                rows = delivery_rows(deliveries[h["id"]])
                if rows:
                    st.dataframe(rows, hide_index=True, key=f"wh-deliveries-{h['id']}")
                else:
                    st.caption("Nothing has been sent to this address yet.")
