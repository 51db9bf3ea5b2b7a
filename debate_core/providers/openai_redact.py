"""Text from the OpenAI-compatible provider that may be shown or stored: keys scrubbed, base URLs
without user info, long server messages shortened.

The provider holds its API key as a `SecretStr`; every error message it produces passes through
`redact`, and every base URL it reports passes through `public_url`.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

_KEY_LIKE = re.compile(r"\b(sk-[A-Za-z0-9]{0,3})[A-Za-z0-9_\-]{8,}")


def redact(text: str, secret: str | None = None) -> str:
    """Remove the key (and anything shaped like an OpenAI key) from text that may be shown or stored."""
    if secret and len(secret) >= 4:
        text = text.replace(secret, "***")
    return _KEY_LIKE.sub(r"\1***", text)


def public_url(url: str | None) -> str | None:
    """A base URL fit for storing: user info (user:password@) removed."""
    if not url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def short(text: str, limit: int = 300) -> str:
    """One line of at most `limit` characters (a server's error message can be a whole HTML page)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
