"""Set up Django on a throw-away SQLite database for benchmarks that go through DocGate's services."""

from __future__ import annotations

import os
import tempfile
from typing import Any


def django_bench_setup(database_url: str = "") -> tuple[Any, str]:
    """Configure Django on a fresh SQLite file in a temp folder (or an empty database at `database_url`), migrate,
    and return (organisation, API key)."""
    folder = tempfile.mkdtemp(prefix="docgate-bench-")
    environment = {"DOCGATE_DATA_DIR": folder, "DATABASE_URL": database_url, "REDIS_URL": "", "LLM_ENABLED": "false"}
    os.environ.update(environment)
    # One key sends every request of a bench: it measures the work, not the request budgets (60 submissions/min).
    os.environ.update({"DOCGATE_THROTTLE_SUBMIT": "off", "DOCGATE_THROTTLE_READ": "off"})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import logging

    import django
    from django.core.management import call_command

    django.setup()
    logging.disable(logging.WARNING)  # enqueue warnings and request logs would only slow the loop down
    call_command("migrate", verbosity=0, interactive=False)
    from contracts.models import ApiKey, Organisation

    organisation = Organisation.objects.create(name="Bench", slug="bench")
    return organisation, ApiKey.issue(organisation=organisation, name="bench")[1]


def contract_text(chars: int, salt: int) -> str:
    """A contract-like text of about `chars` characters, distinct per `salt` (intake de-duplicates by checksum)."""
    clauses = [
        "第{n}条 合同期限\n本合同自双方签字之日起生效，有效期两年。\n",
        "第{n}条 违约责任\n任何一方违约的，应向对方支付合同总价款百分之十的违约金。\n",
        "第{n}条 争议解决\n因本合同发生的争议，提交上海仲裁委员会仲裁。\n",
        "第{n}条 付款方式\n甲方应于收到发票后三十日内以银行转账方式支付人民币120,000.00元。\n",
    ]
    parts = [f"合同编号 B-{salt}\n"]
    n = 1
    while sum(map(len, parts)) < chars:
        parts.append(clauses[n % len(clauses)].format(n=n))
        n += 1
    return "".join(parts)[:chars]
