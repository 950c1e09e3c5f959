"""LLM client configuration: one frozen value the caller builds (the Django layer builds it from settings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Engine = Literal["vllm", "llamacpp"]
ENGINES: tuple[Engine, ...] = ("vllm", "llamacpp")


@dataclass(frozen=True)
class LLMConfig:
    """Where the OpenAI-compatible server is and how hard to try; raises ValueError on nonsense values."""

    base_url: str = "http://127.0.0.1:8088/v1"
    model: str = "gemma-3-270m"
    engine: Engine = "llamacpp"
    connect_timeout_s: float = 3.0
    read_timeout_s: float = 60.0
    max_retries: int = 2
    backoff_base_s: float = 0.25
    backoff_max_s: float = 4.0
    max_concurrency: int = 4
    breaker_failure_threshold: int = 5
    breaker_cooldown_s: float = 30.0
    context_window_tokens: int = 8192
    max_output_tokens: int = 512

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ValueError(f"LLM engine must be one of {ENGINES}, not {self.engine!r}")
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"LLM base_url must be an http(s) URL, not {self.base_url!r}")
        if self.max_retries < 0 or self.max_concurrency < 1 or self.breaker_failure_threshold < 1:
            raise ValueError("max_retries >= 0, max_concurrency >= 1 and breaker_failure_threshold >= 1")
        if self.max_output_tokens >= self.context_window_tokens:
            raise ValueError("max_output_tokens must leave room for the prompt in the context window")

    @property
    def server_root(self) -> str:
        """The server URL without the trailing `/v1` (tokenize endpoints live at the root)."""
        root = self.base_url.rstrip("/")
        return root[: -len("/v1")] if root.endswith("/v1") else root
