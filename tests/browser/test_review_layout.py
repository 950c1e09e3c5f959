"""The shared review page at the widths reviewers use: the evidence of each finding on full lines beside the text,
nothing overflowing its card, the gate's words and scale shown (screenshots at 1280 and 1920 px)."""

from __future__ import annotations

from typing import Any

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.pipeline import job_run
from contracts.review.workflow import review_task_open
from tests.browser.conftest import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A labour contract of the usual model shape: parties, term, post, pay, hours, insurance, confidentiality,
# termination, penalties, disputes (written for this test).
LABOUR_CONTRACT = "\n".join(
    [
        "劳动合同书",
        "甲方（用人单位）：江南智能制造有限公司",
        "乙方（劳动者）：张伟",
        "第一条 合同期限 本合同为固定期限劳动合同，自2025年3月1日起至2028年2月29日止，其中试用期三个月。",
        "第二条 工作内容和工作地点 乙方同意在甲方生产部担任设备维护岗位，工作地点为苏州市工业园区。",
        "第三条 工作时间和休息休假 甲方实行标准工时制度，乙方每日工作八小时，每周工作四十小时。",
        "第四条 劳动报酬 乙方月工资为人民币捌仟元整，甲方于每月十日前以货币形式足额支付。",
        "第五条 社会保险 甲方依法为乙方缴纳养老、医疗、失业、工伤和生育保险。",
        "第六条 保密义务 乙方对在工作中知悉的甲方技术秘密和经营信息负有保密义务，合同终止后两年内仍须保密。",
        "第七条 合同的解除 乙方提前三十日以书面形式通知甲方，可以解除本合同；试用期内提前三日通知。",
        "第八条 违约责任 乙方违反保密义务给甲方造成损失的，应当承担赔偿责任，并支付违约金人民币二万元。",
        "第九条 争议解决 因履行本合同发生的劳动争议，双方协商不成的，可以向苏州市劳动人事争议仲裁委员会申请仲裁。",
        "第十条 其他 本合同一式两份，甲乙双方各执一份，自双方签字盖章之日起生效。",
    ]
)


@pytest.mark.parametrize("width", [1280, 1366, 1920])
def test_the_review_page_keeps_each_findings_evidence_readable(
    actors: Any, browser: Any, live_server: Any, width: int
) -> None:
    outcome = document_submit(
        organisation=actors.acme,
        submission=Submission(kind="contract", source="api", text=LABOUR_CONTRACT, title="劳动合同（张伟）"),
    )
    job_run(outcome.job.pk, "browser-test")
    outcome.job.refresh_from_db()
    task = review_task_open(job=outcome.job, reasons=["qa_sample"])
    context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": 900}, locale="zh-CN")
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        sign_in(page, "rita", "rita-password-1")
        page.goto(f"/review/{task.pk}/")
        evidence = page.locator("[data-testid=finding-evidence]")
        assert evidence.count() >= 5, "the contract's clauses and parties are listed"
        widths = [box["width"] for box in (evidence.nth(i).bounding_box() for i in range(evidence.count())) if box]
        # A line of evidence holds at least 15 characters of 15 px text (it held one or two in a table column).
        assert min(widths) >= 240, widths
        overflow = page.evaluate(
            "() => Array.from(document.querySelectorAll('.card')).filter(c => c.scrollWidth > c.clientWidth + 1)"
            ".map(c => c.className)"
        )
        assert overflow == [], f"content wider than its card: {overflow}"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width, "no horizontal scrolling"
        assert page.locator("[data-testid=gate-layers] tr[data-layer]").count() == 3
        labels = page.locator("[data-testid=findings-table]").inner_text()
        assert "PARTY" not in labels and "当事方" in labels
        screenshot(page, f"review-labour-contract-{width}")
    finally:
        context.close()


def test_the_dispatch_queue_in_a_browser_shows_lights_in_due_order(actors: Any, browser: Any, live_server: Any) -> None:
    from tests.api.deadline_helpers import GAS_LEAK, NO_WATER, STREETLIGHT

    for text in (STREETLIGHT, NO_WATER, GAS_LEAK):
        outcome = document_submit(
            organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=text)
        )
        job_run(outcome.job.pk, "browser-test")
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900}, locale="zh-CN")
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        sign_in(page, "rita", "rita-password-1")
        page.goto("/dispatch/")
        rows = page.locator("[data-testid=dispatch-queue] tbody tr[data-light]")
        assert rows.count() == 3
        assert "派单" in page.locator("h1").inner_text()
        lights = [rows.nth(i).get_attribute("data-light") for i in range(3)]
        assert set(lights) <= {"green", "yellow"}
        colour = page.evaluate("() => getComputedStyle(document.querySelector('.light-green')).backgroundColor")
        assert colour not in ("", "rgba(0, 0, 0, 0)"), "the lights are drawn"
        screenshot(page, "dispatch-queue-1280")
    finally:
        context.close()
