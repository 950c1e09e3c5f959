"""Request bodies for OpenAI-compatible servers, with the per-engine structured-output fields.

llama.cpp (llama-cpp-python) honours `response_format: {"type": "json_object", "schema": ...}` and answers
`json_schema` with HTTP 500; vLLM honours `json_schema` and `structured_outputs` and silently ignores the old
`guided_*` fields, so those are never sent.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from inference.config import Engine

Message = Mapping[str, str]
ALLOWED_ROLES = frozenset({"user", "assistant"})
LLAMACPP_MAX_LENGTH = 32


def messages_check(messages: Sequence[Message]) -> list[dict[str, str]]:
    """Return the messages as plain dicts; raise ValueError on a `system` turn (Gemma rejects it) or bad shape."""
    if not messages:
        raise ValueError("at least one message is required")
    checked: list[dict[str, str]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            raise ValueError(
                "no system messages: Gemma's chat template rejects them; put instructions in the first user turn"
            )
        if role not in ALLOWED_ROLES or not isinstance(message.get("content"), str):
            raise ValueError(f"each message needs role user|assistant and string content, got {dict(message)!r}")
        checked.append({"role": str(role), "content": message["content"]})
    if checked[0]["role"] != "user":
        raise ValueError("the first message must be the user turn that carries the instructions")
    return checked


def schema_inline(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Return a JSON schema with every local `$ref` replaced by its definition and `$defs` dropped.

    Grammar compilers differ in how they follow references; a self-contained schema behaves the same everywhere.
    """
    definitions: dict[str, Any] = dict(schema.get("$defs", {}))

    def resolve(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name in seen:
                    raise ValueError(f"recursive schema reference {name!r} cannot be inlined")
                return resolve(copy.deepcopy(definitions[name]), (*seen, name))
            return {key: resolve(value, seen) for key, value in node.items() if key != "$defs"}
        if isinstance(node, list):
            return [resolve(item, seen) for item in node]
        return node

    inlined: dict[str, Any] = resolve(dict(schema), ())
    return inlined


def schema_for_llamacpp(node: Any) -> Any:
    """The schema with large `maxLength`s removed: llama-cpp-python's grammar converter unrolls maxLength into
    nested optional rules, so 200 costs seconds per request and 1200 crashes the server's grammar parser.
    Pydantic still enforces the limit when the reply is validated."""
    if isinstance(node, dict):
        return {
            key: schema_for_llamacpp(value)
            for key, value in node.items()
            if not (key == "maxLength" and isinstance(value, int) and value > LLAMACPP_MAX_LENGTH)
        }
    if isinstance(node, list):
        return [schema_for_llamacpp(item) for item in node]
    return node


def structured_fields(engine: Engine, name: str, json_schema: Mapping[str, Any]) -> dict[str, Any]:
    """The request fields that constrain the reply to `json_schema` on this engine."""
    if engine == "llamacpp":
        return {"response_format": {"type": "json_object", "schema": schema_for_llamacpp(dict(json_schema))}}
    return {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": dict(json_schema), "strict": True},
        }
    }


def choice_schema(options: Sequence[str]) -> dict[str, Any]:
    """A JSON object schema whose only field `choice` is one of `options` (llama.cpp has no choice mode)."""
    return {
        "type": "object",
        "properties": {"choice": {"type": "string", "enum": list(options)}},
        "required": ["choice"],
        "additionalProperties": False,
    }


def choice_fields(engine: Engine, options: Sequence[str]) -> dict[str, Any]:
    """The request fields that force the reply to be one of `options` on this engine."""
    if engine == "vllm":
        return {"structured_outputs": {"choice": list(options)}}
    return structured_fields(engine, "choice", choice_schema(options))


def chat_body(
    model: str,
    messages: Sequence[Message],
    *,
    max_tokens: int,
    temperature: float,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A `/v1/chat/completions` body; `extra` adds engine fields (structured output, logprobs)."""
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    body: dict[str, Any] = {
        "model": model,
        "messages": messages_check(messages),
        "max_tokens": max_tokens,
        "temperature": temperature,
        "stream": False,
    }
    body.update(extra or {})
    return body


def tokenize_request(engine: Engine, model: str, text: str) -> tuple[str, dict[str, Any]]:
    """The (path at the server root, body) that counts tokens with the server's own tokenizer."""
    if engine == "vllm":
        return "/tokenize", {"model": model, "prompt": text}
    return "/extras/tokenize/count", {"input": text}


def token_count_parse(payload: Mapping[str, Any]) -> int:
    """Read the count from a tokenize reply (`count`, or the length of `tokens`); raise ValueError otherwise."""
    if isinstance(payload.get("count"), int):
        return int(payload["count"])
    if isinstance(payload.get("tokens"), list):
        return len(payload["tokens"])
    raise ValueError(f"tokenize reply has neither count nor tokens: {dict(payload)!r}"[:300])
