"""Intake latency measured with wrk (a C load generator) instead of Python client threads.

The Python clients of `run_load` cost ~3.6 ms of CPU per upload on the same two cores as the server (a quarter of
the machine at 128 uploads/s), and their threads share one GIL, so part of what they time is their own waiting.
wrk keeps 20 connections busy from two event-loop threads for a fraction of that, which leaves the cores to the
server, as clients on other machines would. Every request carries a different prepared PDF (intake de-duplicates
by checksum), so the run stops before the bodies run out.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

BOUNDARY = "docgate-wrk-boundary"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"
# Each wrk thread has its own Lua state: thread t sends bodies t, t + threads, t + 2 × threads … once each.
LUA = r"""
local bodies, next_index = {}, 1
local counter = 0
function setup(thread)
  thread:set("first", counter)
  counter = counter + 1
end
function init(args)
  local folder, count, threads = args[1], tonumber(args[2]), tonumber(args[3])
  for i = first, count - 1, threads do
    local file = io.open(folder .. "/" .. i .. ".body", "rb")
    bodies[#bodies + 1] = file:read("*a")
    file:close()
  end
end
function request()
  local body = bodies[next_index]
  if body == nil then  -- out of distinct bodies: stop this thread (its last request repeats one, refused as a copy)
    wrk.thread:stop()
    body = bodies[#bodies]
  end
  next_index = next_index + 1
  return wrk.format("POST", "/api/v1/documents/", nil, body)
end
function done(summary, latency, requests)
  io.write(string.format(
    'WRK {"requests": %d, "non_2xx": %d, "socket_errors": %d, ' ..
    '"p50": %.1f, "p90": %.1f, "p99": %.1f, "max": %.1f, "seconds": %.3f}\n',
    summary.requests, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, summary.duration / 1e6))
end
"""


WRK_MISSING = "wrk is not installed (make bench installs it where it can)"


def wrk_available() -> bool:
    return shutil.which("wrk") is not None


def multipart_body(n: int, pdf: bytes) -> bytes:
    """Upload n as one multipart/form-data body (kind=contract, file=contract-n.pdf)."""
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="kind"\r\n\r\ncontract\r\n'
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="contract-{n}.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n"
    ).encode()
    return head + pdf + f"\r\n--{BOUNDARY}--\r\n".encode()


def json_body(submission: dict[str, str]) -> bytes:
    return json.dumps(submission, ensure_ascii=False).encode("utf-8")


def wrk_submit(
    base_url: str, key: str, bodies: dict[int, bytes], content_type: str, clients: int, seconds: float
) -> dict[str, Any]:
    """POST the prepared request bodies (numbered from 0) with wrk (2 threads, `clients` connections) for at most
    `seconds`; return its request count, error counts and latency percentiles (ms). Raise RuntimeError when wrk
    fails."""
    threads = 2
    with tempfile.TemporaryDirectory(prefix="docgate-wrk-") as tmp:
        folder = Path(tmp)
        for n, body in bodies.items():
            (folder / f"{n}.body").write_bytes(body)
        script = folder / "upload.lua"
        script.write_text(LUA)
        command = [
            "wrk", "-t", str(threads), "-c", str(clients), "-d", f"{seconds:g}s", "--timeout", "10s",
            "-H", f"Authorization: Api-Key {key}",
            "-H", f"Content-Type: {content_type}",
            "-s", str(script), base_url, "--", str(folder), str(len(bodies)), str(threads),
        ]  # fmt: skip
        completed = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    match = re.search(r"^WRK (\{.*\})$", completed.stdout, re.MULTILINE)
    if completed.returncode != 0 or match is None:
        raise RuntimeError(f"wrk failed ({completed.returncode}): {(completed.stdout + completed.stderr)[-800:]}")
    report: dict[str, Any] = json.loads(match.group(1))
    report["requests_per_s"] = round(report["requests"] / report["seconds"], 1) if report["seconds"] else None
    return report
