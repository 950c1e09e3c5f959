"""The portal in a real browser: upload contracts and read highlighted results, enter a ticket, review it.

Alice submits for Acme, Rita reviews for Acme, Oscar administers Globex. Jobs run in-process (LLM off).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from contracts.models import Document, Job, JobState
from contracts.pipeline import job_run
from tests.browser.conftest import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONTRACT = (
    "技术服务合同\n第一条 合同期限\n本合同有效期为2年，自签订之日起计算。\n"
    "第二条 违约责任\n任何一方违约，应向守约方支付合同总价款百分之十的违约金。\n"
    "<script>window.__xss = 'script'; alert('xss')</script><img src=x onerror=\"window.__xss='img'\">\n"
    "第三条 争议解决\n因本合同引起的争议，提交北京仲裁委员会仲裁。\n"
)
TICKET = "我是A市居民，电话13812345678，小区楼下餐馆油烟太大，多次反映至今未解决。"


def run_pending_jobs() -> None:
    """Play the worker: run every queued job in this process."""
    for job_id in Job.objects.filter(state=JobState.QUEUED).values_list("pk", flat=True):
        job_run(job_id, "browser-test")


def test_contract_upload_shows_a_highlighted_result_and_injected_script_stays_text(
    actors: Any, new_page: Any, tmp_path: Path
) -> None:
    contract = tmp_path / "服务合同.txt"
    contract.write_text(CONTRACT, encoding="utf-8")
    second = tmp_path / "second.txt"
    second.write_text("第一条 保密\n双方应对本合同内容保密。", encoding="utf-8")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 not really a pdf" + bytes(range(256)))

    page = new_page()
    sign_in(page, "alice", "alice-password-1")
    page.goto("/submit/")
    assert page.locator("[data-testid=nav-submit]").inner_text() == "提交"  # Chinese by default
    page.set_input_files("[data-testid=file-input]", [str(contract), str(second), str(broken)])
    page.wait_for_function("document.querySelectorAll('#upload-list li.ok, #upload-list li.failed').length === 3")
    assert page.locator("#upload-list li.ok").count() == 2
    failed = page.locator("#upload-list li.failed [data-testid=upload-status]")
    assert failed.count() == 1 and failed.inner_text().strip()
    screenshot(page, "submit-uploads")

    page.goto("/jobs/")
    assert page.locator("#jobs-rows tr[data-state=queued]").count() == 2
    run_pending_jobs()
    page.wait_for_selector("#jobs-rows tr[data-state=done]")  # the list refreshes itself
    screenshot(page, "jobs")

    document = Document.objects.get(original_name="服务合同.txt")
    page.goto(f"/documents/{document.pk}/")
    page.wait_for_selector("#doctext mark.f-rule")
    assert page.locator("#doctext mark").count() >= 3
    assert page.locator("[data-testid=legend] .f-llm").count() == 1
    assert "违约金" in page.locator("[data-testid=findings-table]").inner_text()
    # The payload is on the page as text, and neither the script nor the onerror handler ran.
    assert "<script>window.__xss" in page.locator("#doctext").inner_text()
    assert page.evaluate("window.__xss") is None
    assert page.locator("#doctext script, #doctext img").count() == 0
    page.locator("a.finding-link").first.click()
    assert page.locator("#doctext mark.active").count() >= 1
    screenshot(page, "result-contract")


def test_ticket_is_reviewed_with_shortcuts_and_the_submitter_sees_version_2(actors: Any, new_page: Any) -> None:
    alice = new_page()
    sign_in(alice, "alice", "alice-password-1")
    alice.goto("/submit/")
    alice.fill("input[name=title]", "餐馆油烟扰民")
    alice.fill("textarea[name=text]", TICKET)
    alice.select_option("select[name=channel]", "phone")
    alice.fill("input[name=region]", "A市")
    alice.fill("input[name=reference]", "T-2026-001")
    alice.click("[data-testid=ticket-submit]")
    alice.wait_for_url("**/documents/*/")
    run_pending_jobs()
    alice.wait_for_selector("[data-testid=job-state][data-state=needs_review]")  # the page reloads itself
    assert "13812345678" not in alice.content()  # the submitter sees personal data masked
    screenshot(alice, "result-ticket-v1")

    rita = new_page()
    sign_in(rita, "rita", "rita-password-1")
    rita.goto("/review/")
    screenshot(rita, "review-queue")
    rita.click("[data-testid=task-link]")
    rita.click("[data-testid=claim]")
    rita.wait_for_selector("[data-finding-form]")
    rita.keyboard.press("j")
    rita.keyboard.press("c")  # opens the correction of the selected finding and focuses its label
    rita.keyboard.type("城乡建设")
    rita.locator("[data-finding-row].active [data-testid=correct-submit]").click()
    rita.wait_for_selector("[data-testid=decision]")
    rita.keyboard.press("j")
    rita.keyboard.press("j")
    rita.keyboard.press("a")
    rita.wait_for_function("document.querySelectorAll('[data-testid=decision]').length === 2")
    rita.fill("textarea[name=text]", "您反映的餐馆油烟问题已转交相关部门处理。")
    rita.click("[data-testid=save-response]")
    audit = rita.locator("[data-testid=audit]").inner_text()
    assert "任务已认领" in audit and audit.count("发现项已裁定") == 2
    screenshot(rita, "review-task")
    rita.keyboard.press("f")
    rita.wait_for_url("**?v=2")

    alice.reload()
    assert "2" in alice.locator("[data-testid=result-version]").inner_text()
    assert alice.locator("[data-testid=job-state]").get_attribute("data-state") == "done"
    assert "城乡建设" in alice.locator("[data-testid=findings-table]").inner_text()
    assert "已转交相关部门处理" in alice.locator("[data-testid=response]").inner_text()
    assert alice.locator("[data-testid=versions] li").count() == 2
    screenshot(alice, "result-ticket-v2")


def test_admin_creates_an_api_key_that_is_shown_once(actors: Any, new_page: Any) -> None:
    page = new_page()
    sign_in(page, "oscar", "oscar-password-1")
    page.goto("/organisation/")
    page.fill("input[name=name]", "热线系统")
    page.click("[data-testid=create-key]")
    secret = page.locator("[data-testid=secret]").inner_text()
    assert secret.startswith("dg_")
    screenshot(page, "organisation-admin")
    page.reload()
    assert page.locator("[data-testid=secret]").count() == 0
