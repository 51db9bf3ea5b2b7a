"""The HTTP API (FastAPI): `create_app(db)` serves the store at `db` under /v1, with tokens and roles
(context.py), the debate routes and their live events (debates.py), submissions checked as `run`
checks them (submission.py), one JSON shape for every error (errors.py) and the request and
response models of the OpenAPI schema (models.py). `python -m debate_core api` serves it."""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]
