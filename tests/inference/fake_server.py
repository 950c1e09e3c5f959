"""A scripted OpenAI-compatible HTTP server on a real socket: records each request, answers from a script."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Scripted:
    """One answer: HTTP status, JSON (or raw text) body, and a delay before answering."""

    status: int = 200
    body: Any = None
    delay_s: float = 0.0


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    path: str
    body: dict[str, Any]


def completion(content: str, *, finish_reason: str = "stop", logprobs: Any = None) -> Scripted:
    """A 200 chat completion whose first choice says `content`."""
    choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}
    if logprobs is not None:
        choice["logprobs"] = logprobs
    body = {"choices": [choice], "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}
    return Scripted(200, body)


@dataclass
class ScriptedServer:
    """Answers requests in order from `script`; when it runs out, `fallback` answers (default: HTTP 500).
    With `count_chars_as_tokens`, tokenize requests get one token per character and leave the script alone."""

    script: list[Scripted] = field(default_factory=list)
    count_chars_as_tokens: bool = False
    fallback: Callable[[Recorded], Scripted] = lambda _: Scripted(500, {"error": "script exhausted"})
    requests: list[Recorded] = field(default_factory=list)
    port: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def chat_bodies(self) -> list[dict[str, Any]]:
        """The bodies of the chat-completion requests received, in order."""
        return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    def answer(self, recorded: Recorded) -> Scripted:
        with self.lock:
            self.requests.append(recorded)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self.count_chars_as_tokens and "/tokenize" in recorded.path:
                return Scripted(200, {"count": len(recorded.body.get("input") or recorded.body.get("prompt") or "")})
            return self.script.pop(0) if self.script else self.fallback(recorded)

    def done(self) -> None:
        with self.lock:
            self.in_flight -= 1


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self._answer(json.loads(self.rfile.read(length) or b"{}"))

        def do_GET(self) -> None:
            self._answer({})

        def _answer(self, body: dict[str, Any]) -> None:
            scripted = server.answer(Recorded(self.path, body))
            time.sleep(scripted.delay_s)
            server.done()
            payload = scripted.body if isinstance(scripted.body, str) else json.dumps(scripted.body)
            data = payload.encode("utf-8")
            try:
                self.send_response(scripted.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and went away, which is what a timeout test wants

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def scripted_server(*script: Scripted) -> Iterator[ScriptedServer]:
    """Run a ScriptedServer on a free port in a thread for the duration of the block."""
    state = ScriptedServer(script=list(script))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    # A short poll interval keeps shutdown (and so each test) fast.
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
