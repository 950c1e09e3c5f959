"""`make bench`: run every benchmark module in its own process and print one JSON object of their reports."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def main() -> int:
    """Run each tests/benchmarks/bench_*.py as a module; a failing benchmark is reported, not hidden."""
    reports: dict[str, object] = {}
    failed = False
    for path in sorted(HERE.glob("bench_*.py")):
        module = f"tests.benchmarks.{path.stem}"
        print(f"running {module} …", file=sys.stderr, flush=True)
        started = time.perf_counter()
        completed = subprocess.run([sys.executable, "-m", module], cwd=ROOT, capture_output=True, text=True)
        elapsed = round(time.perf_counter() - started, 1)
        if completed.returncode != 0:
            failed = True
            reports[path.stem] = {"error": completed.stderr.strip().splitlines()[-5:], "seconds": elapsed}
            continue
        try:
            reports[path.stem] = json.loads(completed.stdout)
        except json.JSONDecodeError:
            failed = True
            reports[path.stem] = {"error": "benchmark did not print one JSON object", "seconds": elapsed}
    machine = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": _cpu_count(),
        "processor": platform.processor() or platform.machine(),
    }
    print(json.dumps({"machine": machine, "benchmarks": reports}, ensure_ascii=False, indent=2))
    return 1 if failed else 0


def _cpu_count() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


if __name__ == "__main__":
    sys.exit(main())
