"""Webhooks end to end over HTTP: an admin registers a local receiver through the API, a debate is
submitted, completes and is reviewed, and the receiver gets deliveries whose Standard Webhooks
signature the `standardwebhooks` package verifies with the secret the API showed once."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import standardwebhooks
from test_api_support import api, case_json  # noqa: F401  (api is a fixture)

from debate_core.client import ApiError


class Receiver:
    """A small local HTTP endpoint keeping every request it gets (body and headers)."""

    def __init__(self) -> None:
        self.got: list[tuple[bytes, dict[str, str]]] = []
        got = self.got

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                got.append((body, {k.lower(): v for k, v in self.headers.items()}))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *_: object) -> None:  # keep the test output quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, kinds: set[str], timeout: float = 30.0) -> dict[str, tuple[bytes, dict[str, str]]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            by_type = {json.loads(body)["type"]: (body, headers) for body, headers in list(self.got)}
            if kinds <= set(by_type):
                return by_type
            time.sleep(0.1)
        raise AssertionError(f"no delivery of {kinds - set(by_type)} within {timeout} s; got {sorted(by_type)}")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_submit_complete_review_delivers_signed_webhooks(api, receiver):  # noqa: F811
    with api.client("admin") as admin:
        hook = admin.add_webhook(receiver.url, ["debate.completed", "review.recorded"])
        assert hook["secret"].startswith("whsec_") and hook["url"] == receiver.url
        listed = admin.webhooks()
        assert [(w["id"], w["url"], w["secret"]) for w in listed] == [(hook["id"], receiver.url, None)]
    with api.client("reviewer") as c:
        with pytest.raises(ApiError) as err:
            c.webhooks()
        assert err.value.status == 403
        debate_id = c.submit(case_json(), "cross_critique")["id"]
        debate = c.wait(debate_id, timeout=60, every=0.1)
        c.review(debate_id, "accept", version=debate["version"])
    got = receiver.wait_for({"debate.completed", "review.recorded"})
    verifier = standardwebhooks.Webhook(hook["secret"])
    for kind, (body, headers) in got.items():
        assert {"webhook-id", "webhook-timestamp", "webhook-signature"} <= set(headers)
        payload = verifier.verify(body, headers)  # raises when the signature does not match
        assert payload["type"] == kind and debate_id in json.dumps(payload["data"])
    with pytest.raises(standardwebhooks.webhooks.WebhookVerificationError):
        standardwebhooks.Webhook("whsec_" + "QUJD" * 8).verify(got["review.recorded"][0],
                                                                got["review.recorded"][1])
    with api.client("admin") as admin:
        assert admin.delete_webhook(hook["id"]) == {"deleted": True}
        assert admin.webhooks() == []
        with pytest.raises(ApiError) as err:
            admin.delete_webhook(hook["id"])
        assert err.value.status == 404
