"""OpenAI-compatible provider through langchain-openai's ChatOpenAI.

Works against OpenAI or any OpenAI-compatible server (vLLM, Ollama, llama.cpp) via base URL.
The structured-output method is chosen per server: OpenAI takes `json_schema`; llama.cpp's
server only accepts response_format types text and json_object, so it needs `function_calling`.
"""

from __future__ import annotations

import json
import os
from typing import Any

from pydantic import BaseModel

from .base import Provider, RawReply, StepRequest, TransportError

METHODS = ("function_calling", "json_schema", "json_mode")


def default_method(base_url: str | None) -> str:
    if not base_url or "api.openai.com" in base_url:
        return "json_schema"
    return "function_calling"


def _tool_schema(model: type[BaseModel]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": model.__name__,
            "description": f"Return the {model.__name__} as structured arguments.",
            "parameters": model.model_json_schema(),
        },
    }


class OpenAIProvider(Provider):
    name = "openai"
    label = "openai-compatible model"

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.2,
        timeout: float = 120.0,
        max_attempts: int = 3,
        transport_retries: int = 2,
        method: str | None = None,
        agent_models: dict[str, str] | None = None,
        max_tokens: int | None = None,
        latency_ms: float = 0.0,
    ) -> None:
        super().__init__(max_attempts=max_attempts, latency_ms=latency_ms, model=model)
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        # The key is held in memory only: public_config() never includes it.
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
        self.temperature = temperature
        self.timeout = timeout
        self.transport_retries = transport_retries
        self.method = method or default_method(self.base_url)
        if self.method not in METHODS:
            raise ValueError(f"unknown structured output method {self.method!r}; choose from {', '.join(METHODS)}")
        self.agent_models = dict(agent_models or {})
        self.max_tokens = max_tokens
        self._clients: dict[str, Any] = {}

    def model_for(self, agent: str | None) -> str:
        return self.agent_models.get(agent or "", self.model)

    def public_config(self) -> dict[str, Any]:
        return {
            "provider": self.name,
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "method": self.method,
            "agent_models": self.agent_models,
            "max_attempts": self.max_attempts,
        }

    def _client(self, model: str) -> Any:
        if model not in self._clients:
            from langchain_openai import ChatOpenAI

            kwargs: dict[str, Any] = {
                "model": model,
                "api_key": self._api_key,
                "temperature": self.temperature,
                "timeout": self.timeout,
                "max_retries": self.transport_retries,
            }
            if self.base_url:
                kwargs["base_url"] = self.base_url
            if self.max_tokens:
                kwargs["max_tokens"] = self.max_tokens
            self._clients[model] = ChatOpenAI(**kwargs)
        return self._clients[model]

    def _bound(self, model: str, output_model: type[BaseModel]) -> Any:
        llm = self._client(model)
        if self.method == "function_calling":
            tool = _tool_schema(output_model)
            return llm.bind_tools([tool], tool_choice={"type": "function", "function": {"name": output_model.__name__}})
        if self.method == "json_schema":
            return llm.bind(
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": output_model.__name__, "schema": output_model.model_json_schema()},
                }
            )
        return llm.bind(response_format={"type": "json_object"})

    async def _reply(self, req: StepRequest, messages: list[dict[str, str]], attempt: int) -> RawReply:
        import openai

        bound = self._bound(self.model_for(req.agent), req.output_model)
        try:
            msg = await bound.ainvoke([(m["role"], m["content"]) for m in messages])
        except (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError, openai.InternalServerError) as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc
        except openai.APIStatusError as exc:
            raise TransportError(f"the server refused the request ({exc.status_code}): {exc.message}") from exc
        usage = getattr(msg, "usage_metadata", None) or {}
        tool_calls = getattr(msg, "tool_calls", None) or []
        if tool_calls:
            args = tool_calls[0].get("args")
            text = json.dumps(args, ensure_ascii=False)
            data = args if isinstance(args, dict) else None
        else:
            content = msg.content if isinstance(msg.content, str) else json.dumps(msg.content)
            text, data = content, None
        return RawReply(
            text=text,
            data=data,
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
        )
