"""A web worker loads what requests need when it starts, not on its first request."""

from __future__ import annotations

import subprocess
import sys

from tests.workers import ROOT


def test_importing_the_wsgi_application_loads_the_views_pdfium_and_the_broker_client() -> None:
    probe = (
        "import sys, config.wsgi\n"
        "wanted = ['contracts.api.views', 'frontend.views', 'pypdfium2', 'rules.safety', 'kombu.transport.redis']\n"
        "print(' '.join(name for name in wanted if name not in sys.modules))\n"
    )
    env = {"DJANGO_SETTINGS_MODULE": "config.settings", "REDIS_URL": "redis://127.0.0.1:6379/15", "PATH": ""}
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "", f"loaded only on a first request: {done.stdout}"


def test_worker_warm_up_runs_the_rule_stages_without_the_database() -> None:
    # pytest-django refuses database access in a test not marked for it: the warm-up a pool process runs before
    # its first job must not need one (it runs before the worker's own connection handling).
    from contracts.analysis import rules_warm_up
    from rules.clauses import load_pack

    load_pack.cache_clear()
    rules_warm_up()
    assert load_pack.cache_info().currsize == 1
