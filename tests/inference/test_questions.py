"""Tasks over a scripted server: chunk spans shift back, ungrounded and invalid outputs are counted, not kept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from inference.answers import LLMFinding, chunk_findings_merge
from inference.client import RETRY_NOTE, LLMClient
from inference.config import LLMConfig
from inference.errors import LLMUnavailable
from inference.prompts import prompt_render
from inference.questions import cantonese_rewrite, clauses_extract, response_draft, ticket_classify
from rules.tickets.taxonomy import load_taxonomy
from tests.inference.fake_server import Scripted, ScriptedServer, completion, scripted_server

LABELS = ["保密", "违约金/违约责任", "争议解决"]
CONTRACT = (
    "第一条 保密\n双方应对合作中知悉的商业秘密承担保密义务。\n"
    "第二条 违约责任\n任何一方违约的，应向守约方支付合同总额百分之二十的违约金。\n"
)
TICKET = "我家小区楼下的路灯坏了一个多月了，晚上很黑，老人容易摔倒，希望尽快修好。"


def reply(payload: dict[str, Any]) -> Scripted:
    return completion(json.dumps(payload, ensure_ascii=False))


@pytest.fixture
def llm() -> Iterator[ScriptedServer]:
    """A server that counts one token per character and answers chat requests from its script."""
    with scripted_server() as server:
        server.count_chars_as_tokens = True
        yield server


def client_with_document_budget(server: ScriptedServer, task: str, budget: int, **values: str) -> LLMClient:
    """A client whose context window leaves exactly `budget` tokens (characters here) for the document."""
    overhead = len(prompt_render(task, "", **values).text) + len(RETRY_NOTE)
    window = overhead + 64 + 32 + budget
    config = LLMConfig(base_url=server.base_url, context_window_tokens=window, max_output_tokens=64, max_retries=0)
    return LLMClient(config)


def test_clause_findings_from_each_chunk_point_at_the_full_text(llm: ScriptedServer) -> None:
    labels = "\n".join(f"- {label}" for label in LABELS)
    client = client_with_document_budget(llm, "clause_extraction", 45, labels=labels)
    llm.script = [
        reply({"findings": [{"label": "保密", "evidence": "承担保密义务"}, {"label": "保密", "evidence": "不得转让"}]}),
        reply({"findings": [{"label": "违约金/违约责任", "evidence": "支付合同总额百分之二十的违约金"}]}),
    ]
    result = clauses_extract(client, CONTRACT, LABELS)
    assert result.chunks == 2 and result.calls == 2
    assert result.dropped_ungrounded == 1
    assert [(f.label, f.quote) for f in result.findings] == [
        ("保密", "承担保密义务"),
        ("违约金/违约责任", "支付合同总额百分之二十的违约金"),
    ]
    assert all(CONTRACT[f.start : f.end] == f.quote for f in result.findings)
    assert result.findings[1].start > CONTRACT.index("第二条")
    assert (result.prompt_version, result.model, result.engine) == ("clause_extraction.v2", "gemma-3-270m", "llamacpp")
    assert result.wall_ms >= result.llm_latency_ms > 0


def test_clause_request_enum_is_the_live_label_list(llm: ScriptedServer) -> None:
    client = LLMClient(LLMConfig(base_url=llm.base_url, max_output_tokens=64))
    llm.script = [reply({"findings": []})]
    clauses_extract(client, CONTRACT, LABELS)
    schema = llm.chat_bodies()[0]["response_format"]["schema"]
    assert schema["properties"]["findings"]["items"]["properties"]["label"]["enum"] == LABELS


def test_ticket_path_outside_the_taxonomy_is_dropped_and_counted(llm: ScriptedServer) -> None:
    client = LLMClient(LLMConfig(base_url=llm.base_url, max_output_tokens=64))
    path = {"level1": "城乡建设", "level2": "路灯照明", "level3": "路灯"}
    llm.script = [reply({**path, "urgency": "high", "evidence": "路灯坏了一个多月了"})]
    result = ticket_classify(client, TICKET, load_taxonomy())
    assert result.off_taxonomy == 1
    category, urgency = result.findings
    assert (category.kind, category.label, dict(category.attributes)) == ("category", "城乡建设", {})
    assert (urgency.kind, urgency.label) == ("urgency", "high")
    assert TICKET[category.start : category.end] == "路灯坏了一个多月了"
    level1_enum = llm.chat_bodies()[0]["response_format"]["schema"]["properties"]["level1"]["enum"]
    assert level1_enum == list(load_taxonomy().level1_names)


def test_ticket_with_valid_path_keeps_levels_two_and_three(llm: ScriptedServer) -> None:
    taxonomy = load_taxonomy()
    level1, level2, level3 = next(taxonomy.paths())
    client = LLMClient(LLMConfig(base_url=llm.base_url, max_output_tokens=64))
    llm.script = [
        reply({"level1": level1, "level2": level2, "level3": level3, "urgency": "urgent", "evidence": "老人容易摔倒"})
    ]
    result = ticket_classify(client, TICKET, taxonomy)
    assert result.off_taxonomy == 0
    assert dict(result.findings[0].attributes) == {"level2": level2, "level3": level3}


def test_invalid_replies_are_counted_and_yield_no_findings(llm: ScriptedServer) -> None:
    client = LLMClient(LLMConfig(base_url=llm.base_url, max_output_tokens=64))
    llm.script = [completion("{不是JSON"), completion('{"level1": "不存在的类别"}')]
    result = ticket_classify(client, TICKET, load_taxonomy())
    assert (result.invalid_outputs, result.calls, result.findings) == (1, 1, ())
    assert len(llm.chat_bodies()) == 2


def test_rewrite_keeps_a_chunk_unchanged_when_its_reply_is_invalid(llm: ScriptedServer) -> None:
    text = "佢哋喺度搞咗好耐。\n點解仲未整好？\n"
    client = client_with_document_budget(llm, "cantonese_rewrite", 16)
    llm.script = [reply({"rewritten": "他们在这里弄了很久。"}), completion("oops"), completion("oops")]
    result = cantonese_rewrite(client, text)
    assert result.output_text == "他们在这里弄了很久。\n點解仲未整好？\n"
    assert (result.chunks, result.invalid_outputs, result.findings) == (2, 1, ())


def test_an_empty_or_unrelated_rewrite_is_dropped_and_the_chunk_kept(llm: ScriptedServer) -> None:
    text = "我哋屋企樓下嗰間餐廳日日夜晚都好嘈，投訴咗好多次。\n佢哋喺度搞咗好耐。\n"
    client = client_with_document_budget(llm, "cantonese_rewrite", 30)
    llm.script = [reply({"rewritten": ""}), reply({"rewritten": "他们在这里弄了很久。"})]
    result = cantonese_rewrite(client, text)
    assert result.output_text == "我哋屋企樓下嗰間餐廳日日夜晚都好嘈，投訴咗好多次。\n他们在这里弄了很久。\n"
    assert (result.chunks, result.invalid_outputs, result.dropped_ungrounded) == (2, 0, 1)
    llm.script = [reply({"rewritten": "请根据以上内容回答问题，谢谢您的配合与支持。"})]
    unrelated = cantonese_rewrite(client, "我哋屋企樓下嗰間餐廳日日夜晚都好嘈，投訴咗好多次。")
    assert (unrelated.output_text, unrelated.dropped_ungrounded) == (
        "我哋屋企樓下嗰間餐廳日日夜晚都好嘈，投訴咗好多次。",
        1,
    )
    llm.script = [reply({"rewritten": "我们家楼下那间餐厅每天晚上都很吵，投诉了很多次。"})]
    kept = cantonese_rewrite(client, "我哋屋企樓下嗰間餐廳日日夜晚都好嘈，投訴咗好多次。")
    assert (kept.output_text, kept.dropped_ungrounded) == ("我们家楼下那间餐厅每天晚上都很吵，投诉了很多次。", 0)


def test_draft_evidence_is_grounded_and_the_draft_returned(llm: ScriptedServer) -> None:
    client = LLMClient(LLMConfig(base_url=llm.base_url, max_output_tokens=64))
    llm.script = [reply({"draft": "您好，已转交相关部门处理。", "evidence": ["路灯坏了", "小区的水管爆了"]})]
    result = response_draft(client, "ticket", TICKET, "类别：城乡建设；紧急程度：high")
    assert result.output_text == "您好，已转交相关部门处理。"
    assert [f.quote for f in result.findings] == ["路灯坏了"]
    assert result.dropped_ungrounded == 1
    assert result.prompt_version == "response_draft_ticket.v2"
    assert "类别：城乡建设" in llm.chat_bodies()[0]["messages"][0]["content"]


def test_unavailable_server_propagates_from_a_task() -> None:
    with scripted_server(Scripted(200, {"count": 10})) as server:
        client = LLMClient(LLMConfig(base_url=server.base_url, max_retries=0, max_output_tokens=64))
        with pytest.raises(LLMUnavailable):
            ticket_classify(client, TICKET, load_taxonomy())


def test_result_serialises_to_plain_json(llm: ScriptedServer) -> None:
    client = LLMClient(LLMConfig(base_url=llm.base_url, max_output_tokens=64))
    llm.script = [reply({"findings": [{"label": "保密", "evidence": "商业秘密"}]})]
    data = clauses_extract(client, CONTRACT, LABELS).as_dict()
    assert json.loads(json.dumps(data, ensure_ascii=False))["findings"][0]["quote"] == "商业秘密"


def test_merge_keeps_the_longest_of_overlapping_same_label_findings() -> None:
    findings = [
        LLMFinding("clause", "保密", "保密义务", 10, 14),
        LLMFinding("clause", "保密", "承担保密义务", 8, 14),
        LLMFinding("clause", "定金", "保密义务", 10, 14),
        LLMFinding("clause", "保密", "保密", 40, 42),
    ]
    merged = chunk_findings_merge(findings)
    assert [(f.label, f.start, f.end) for f in merged] == [("保密", 8, 14), ("定金", 10, 14), ("保密", 40, 42)]
