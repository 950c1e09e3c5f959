"""Set up Django on a throw-away SQLite database for benchmarks that go through DocGate's services, and the
embedded stack (local model server and workers) for the model benchmarks."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
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


def embedded_stack_start(stack: ExitStack, prefix: str, llm_env: dict[str, str]) -> Any:
    """What `make run` starts on its embedded defaults, for the model benchmarks: the local llama.cpp server, Django
    on a fresh SQLite file and file broker in a temp folder, migrated, and a rules worker (default queue) and a
    model worker (`llm` queue) in their own process groups, all stopped when `stack` closes. `llm_env` adds the
    LLM settings the benchmark runs under (each process, this one included, reads them). Return the Bench
    organisation."""
    from tests.llm_server import local_llm_server
    from tests.workers import ROOT, process_group_stop

    folder = Path(tempfile.mkdtemp(prefix=prefix))
    server = stack.enter_context(local_llm_server(niceness=10))  # as `make run` starts it
    env = {
        **os.environ,
        "DOCGATE_DATA_DIR": str(folder),
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "LLM_ENABLED": "true",
        "LLM_BASE_URL": server.base_url,
        "LLM_TIMEOUT_S": "300",
        "PYTHONUNBUFFERED": "1",
        **llm_env,
    }
    os.environ.update(env)  # this process reads the same settings as the workers
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from contracts.models import Organisation
    from contracts.operations.processes import DEFAULT_QUEUE, LLM_QUEUE, worker_command

    call_command("migrate", verbosity=0, interactive=False)
    for sub in ("queue", "control"):
        (settings.BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    for name, queue in (("rules", DEFAULT_QUEUE), ("llm", LLM_QUEUE)):
        log = open(folder / f"worker-{name}.log", "wb")  # noqa: SIM115 (closed with the stack)
        stack.callback(log.close)
        command = worker_command(concurrency=1, hostname=f"{name}@bench", standalone=True, queues=(queue,))
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        stack.callback(process_group_stop, process, 20)
    time.sleep(8)  # both workers up and polling the file queue
    return Organisation.objects.create(name="Bench", slug="bench")
