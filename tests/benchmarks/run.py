"""`make bench`: run every benchmark module in its own process, print one JSON object of their reports, then
compare each ratio with the last recorded one (tests/benchmarks/baseline.json) and name every drop of more than
30 % as a regression.

    python -m tests.benchmarks.run                         # all benchmarks, compared with the baseline
    python -m tests.benchmarks.run --only bench_normalize  # one benchmark (repeat --only for more)
    python -m tests.benchmarks.run --only bench_normalize --record   # re-record its ratios in the baseline
    python -m tests.benchmarks.run --compare saved.json    # compare a saved run's output, run nothing
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.benchmarks import baseline

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def run_benchmarks(names: list[str]) -> tuple[dict[str, Any], bool]:
    """Run each tests/benchmarks/bench_*.py (or those named) as a module; return the reports and whether one
    failed (a failing benchmark is reported, not hidden)."""
    reports: dict[str, Any] = {}
    failed = False
    for path in sorted(HERE.glob("bench_*.py")):
        if names and path.stem not in names:
            continue
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
    return reports, failed


def report_comparison(reports: dict[str, Any]) -> bool:
    """Print each tracked ratio against the baseline to stderr; return True when one regressed."""
    comparisons = baseline.compare(baseline.load(), reports)
    for comparison in comparisons:
        print(comparison.line(), file=sys.stderr)
    regressed = baseline.regressions(comparisons)
    for comparison in regressed:
        print(
            f"REGRESSION: {comparison.benchmark}.{comparison.metric} lost {comparison.drop:.0%} since it was recorded "
            f"({comparison.recorded:g} -> {comparison.current:g}); if the slowdown is intended, re-record with "
            f"`python -m tests.benchmarks.run --only {comparison.benchmark} --record`",
            file=sys.stderr,
        )
    if not comparisons:
        print("no ratio of this run has a recorded baseline (tests/benchmarks/baseline.json)", file=sys.stderr)
    return bool(regressed)


def main(argv: list[str] | None = None) -> int:
    """Run (or read) the reports, print them as JSON, compare with the baseline; 1 on a failure or regression."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], help="a benchmark to run (bench_normalize)")
    parser.add_argument("--record", action="store_true", help="write this run's ratios into the baseline")
    parser.add_argument("--compare", type=Path, help="a saved output of this command to compare; nothing runs")
    options = parser.parse_args(argv)
    if options.compare:
        reports = json.loads(options.compare.read_text(encoding="utf-8"))["benchmarks"]
        failed = False
    else:
        reports, failed = run_benchmarks(options.only)
        machine = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpus": _cpu_count(),
            "processor": platform.processor() or platform.machine(),
        }
        print(json.dumps({"machine": machine, "benchmarks": reports}, ensure_ascii=False, indent=2))
    regressed = report_comparison(reports)
    if options.record:
        commit = baseline.current_commit(ROOT)
        baseline.save(baseline.recorded(baseline.load(), reports, commit, baseline.today()))
        print(f"baseline re-recorded at {commit} for: {', '.join(sorted(reports))}", file=sys.stderr)
    return 1 if failed or (regressed and not options.record) else 0


def _cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


if __name__ == "__main__":
    sys.exit(main())
