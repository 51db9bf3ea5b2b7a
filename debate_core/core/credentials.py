"""Which model servers may receive this server's own API key.

The operator who runs the workbench gives it a key (OPENAI_API_KEY in the environment, or
`secrets.toml`) for particular servers: the base URL set next to it (OPENAI_BASE_URL, or OpenAI's
API when none is set) and any listed in DEBATE_KEY_BASE_URLS. A visitor of the app can type any
base URL, so the key must never follow a typed URL elsewhere: a debate against another server
brings its own key, typed for that debate, or goes without one.

Nothing here reads Streamlit: the app passes its secrets in as a plain mapping.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

# OpenAI's own API: the server an empty base URL means, whichever way it is written.
OPENAI_API = "https://api.openai.com/v1"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str | None) -> str:
    """One spelling per server: scheme and host in lower case, no default port, no user info, no
    trailing slash, query or fragment. Empty (OpenAI's API) is written out, so the two compare equal."""
    url = (url or "").strip() or OPENAI_API
    parts = urlsplit(url)
    scheme = (parts.scheme or "").lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: keep the text, it matches nothing configured
        return url.rstrip("/")
    netloc = host if port in (None, _DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    return f"{scheme}://{netloc}{parts.path.rstrip('/')}"


def split_urls(text: str | Iterable[str] | None) -> list[str]:
    """Base URLs from a comma-, space- or line-separated string, or a list."""
    if not text:
        return []
    items = text.replace(",", " ").split() if isinstance(text, str) else [str(t) for t in text]
    return [i.strip() for i in items if i and i.strip()]


@dataclass(frozen=True)
class ServerCredentials:
    """The server's key and the base URLs its operator configured it for."""

    api_key: str | None
    base_urls: tuple[str, ...]  # as the operator wrote them; the first is the default

    def allows(self, base_url: str | None) -> bool:
        """Whether the server's key may go to this base URL."""
        target = normalize_url(base_url)
        return any(normalize_url(u) == target for u in self.base_urls)

    def key_for(self, base_url: str | None) -> str | None:
        """The server's key for this base URL, or None when the URL is not one the operator configured."""
        return self.api_key if self.api_key and self.allows(base_url) else None

    @property
    def default_base_url(self) -> str:
        """The base URL a new debate starts from: the operator's first, empty meaning OpenAI's API."""
        first = self.base_urls[0] if self.base_urls else ""
        return "" if normalize_url(first) == OPENAI_API else first

    def including(self, base_url: str | None) -> ServerCredentials:
        """The same, with one more base URL the operator chose (the command line's --base-url: whoever
        types it runs the process and owns its environment already)."""
        if base_url is None or self.allows(base_url):
            return self
        return ServerCredentials(self.api_key, (*self.base_urls, base_url))

    def described(self) -> list[str]:
        """The configured base URLs in words, for the Settings page."""
        return [("OpenAI's API (" + OPENAI_API + ")") if normalize_url(u) == OPENAI_API else u
                for u in self.base_urls]


def _section(secrets: Mapping[str, Any] | None, name: str) -> Mapping[str, Any]:
    value = (secrets or {}).get(name)
    return value if isinstance(value, Mapping) else {}


def server_credentials(env: Mapping[str, str] | None = None,
                       secrets: Mapping[str, Any] | None = None) -> ServerCredentials:
    """The key and its base URLs from the environment and, for the app, `secrets.toml`.

    Read: OPENAI_API_KEY, OPENAI_BASE_URL and DEBATE_KEY_BASE_URLS (each from the environment or the
    secrets' top level), and a secrets `[openai]` section with `api_key`, `base_url` and `base_urls`.
    The environment wins over the secrets for the key. The first base URL is OPENAI_BASE_URL (or the
    secrets' `base_url`), else OpenAI's API, as the OpenAI client itself would choose; the listed
    ones follow."""
    env = os.environ if env is None else env
    section = _section(secrets, "openai")
    top = secrets or {}

    def first(*values: Any) -> str:
        for v in values:
            if isinstance(v, str) and v.strip():
                return v.strip()
        return ""

    key = first(env.get("OPENAI_API_KEY"), top.get("OPENAI_API_KEY"), section.get("api_key")) or None
    main = first(env.get("OPENAI_BASE_URL"), top.get("OPENAI_BASE_URL"), section.get("base_url"))
    listed = [*split_urls(env.get("DEBATE_KEY_BASE_URLS")), *split_urls(top.get("DEBATE_KEY_BASE_URLS")),
              *split_urls(section.get("base_urls"))]
    urls: list[str] = [main or OPENAI_API]
    for u in listed:
        if not any(normalize_url(u) == normalize_url(seen) for seen in urls):
            urls.append(u)
    return ServerCredentials(key, tuple(urls))


@dataclass(frozen=True)
class KeyPlan:
    """Which key a debate would send to its base URL, in words, and what stops it from starting."""

    source: str  # "typed", "server" or "none"
    note: str
    blocker: str | None = None


def key_plan(creds: ServerCredentials, base_url: str | None, typed_key: str | None,
             no_key_needed: bool = False) -> KeyPlan:
    """What a debate from the app would do about its key, decided before Start.

    A typed key goes with this debate only. The server's key goes only to a configured base URL. Any
    other base URL, while the server holds a key, needs the visitor's own key or their word that the
    server needs none, so the server's key can never be the silent fallback."""
    where = (base_url or "").strip() or "OpenAI's API"
    if typed_key:
        return KeyPlan("typed", "Your key is used for this debate only; it is never saved.")
    if creds.allows(base_url):
        if creds.api_key:
            return KeyPlan("server", f"Using this server's key, which its operator configured for {where}.")
        if normalize_url(base_url) == OPENAI_API:
            return KeyPlan("none", "", "OpenAI's API needs a key: type yours above.")
        return KeyPlan("none", "No key is set on this server: fine for servers that need none "
                               "(llama.cpp, Ollama, vLLM).")
    if normalize_url(base_url) == OPENAI_API:
        return KeyPlan("none", "", "OpenAI's API needs a key: type yours above.")
    if not creds.api_key or no_key_needed:
        return KeyPlan("none", f"No key will be sent to {where}.")
    allowed = ", ".join(creds.described()) or "none"
    return KeyPlan("none", "", f"This server's own key is sent only to the servers its operator configured "
                               f"({allowed}). For {where}, type the key for that server above, or tick "
                               "'This server needs no key'.")
