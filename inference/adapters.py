"""LoRA adapters on the model server: which model name a question goes to, the fallback to the base model when
the server does not have an adapter (remembered for a while), and loading an adapter into a running vLLM."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import httpx

from inference.errors import LLMRequestError, LLMUnavailable

if TYPE_CHECKING:
    from inference.client import LLMClient

# vLLM answers 404 ("The model `x` does not exist."); some servers 400 with a model error instead.
_UNKNOWN_WORDS = ("does not exist", "not found", "unknown model", "model_not_found", "no such model")


def model_unknown(error: LLMRequestError) -> bool:
    """Whether the server refused a request because it does not serve the model it names."""
    if error.status_code == 404:
        return True
    body = str(error).lower()
    return error.status_code == 400 and "model" in body and any(word in body for word in _UNKNOWN_WORDS)


class AdapterMemory:
    """The adapters a server said it does not have, each forgotten after `ttl_s` (then asked again)."""

    def __init__(self, ttl_s: float = 300.0, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._unknown: dict[str, float] = {}
        self._lock = threading.Lock()

    def unknown_mark(self, name: str) -> None:
        """Remember that the server does not serve `name`."""
        with self._lock:
            self._unknown[name] = self._clock() + self.ttl_s

    def forget(self, name: str) -> None:
        """Ask for `name` again from now on (it was just loaded)."""
        with self._lock:
            self._unknown.pop(name, None)

    def usable(self, name: str) -> bool:
        """Whether a question may name `name` (not refused by the server within the last `ttl_s`)."""
        with self._lock:
            until = self._unknown.get(name)
            if until is None:
                return True
            if self._clock() >= until:
                del self._unknown[name]
                return True
            return False


def model_for(base: str, adapter: str | None, memory: AdapterMemory) -> str:
    """The model name a question goes to: the adapter when there is one the server has not refused, else the base."""
    return adapter if adapter and memory.usable(adapter) else base


def adapter_load(client: LLMClient, name: str, path: str, *, timeout_s: float = 120.0) -> None:
    """Load the adapter at `path` (as the server sees it) under `name` into a running vLLM
    (VLLM_ALLOW_RUNTIME_LORA_UPDATING=True); raise LLMRequestError when it refuses, LLMUnavailable when down."""
    url = f"{client.config.server_root}/v1/load_lora_adapter"
    try:
        response = httpx.post(url, json={"lora_name": name, "lora_path": path}, timeout=timeout_s)
    except httpx.HTTPError as exc:
        raise LLMUnavailable(f"could not load adapter {name}: {type(exc).__name__}: {exc}") from exc
    # vLLM answers 400 "already been loaded" to a second load of the same name: it serves it, which is the point.
    if response.status_code >= 400 and "already" not in response.text:
        raise LLMRequestError(response.status_code, response.text)
    client.adapters.forget(name)
