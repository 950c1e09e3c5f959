"""`manage.py train_adapter` learns from Acme's reviewed results in the LLM stage's own prompt format: every pair
is the prompt the stage sends (one user turn, no system turn) and the answer the review settled on, in the
question's JSON schema; the held-back slice is the one every retraining holds back; failures are recorded."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command

from contracts.learned.adapter import adapter_train_command
from contracts.learned.adapter_pairs import NAME, contract_pairs, document_cut, pairs_split, ticket_pairs
from contracts.learned.store import model_root
from contracts.learned.tickets_retrain import ticket_training
from contracts.llm import llm_client_for
from contracts.models import AuditEvent, LearnedModelVersion
from contracts.review.models import ModelState
from contracts.review.workflow import review_finding_decide, review_task_claim, review_task_finalize
from inference.prompts import prompt_render
from inference.questions import clause_prompt_values, ticket_prompt_values
from inference.schemas import clause_extraction_model, ticket_classification_model
from rules.clauses import clause_presence
from rules.clauses.pack import load_pack
from rules.tickets.taxonomy import load_taxonomy
from tests.learned_models import adapter_activate
from tests.reviewed_documents import document_reviewable, ticket_reviewed

pytestmark = pytest.mark.django_db

LIGHT = ("城乡建设", "城市建设和市政管理", "城市公共设施")
SMOKE = ("环境保护", "环境污染", "大气污染")
TICKETS = (  # (text, what the rules said, what the reviewer settled on: None = approved)
    ("幸福路小区门口的路灯坏了两个星期，晚上一片漆黑，请尽快维修。联系人张伟，电话13812345678。", LIGHT, None),
    ("开发区化工厂夜里排放黑烟，气味刺鼻，附近居民头晕，请查处。", LIGHT, SMOKE),
    ("人民路的井盖丢失多日，行人险些掉下去，请有关部门处理。", LIGHT, None),
    ("工业园的锅炉冒出浓烟，整条街都是煤烟味，请环保部门来看看。", LIGHT, SMOKE),
)
CONTRACT = (
    "第一条 保密\n双方对本合同内容负有保密义务，未经对方书面同意不得向第三方披露。\n"
    "第二条 争议解决\n因本合同引起的争议，提交北京仲裁委员会仲裁。\n"
)


def _reviewed(actors: Any) -> None:
    for text, said, gold in TICKETS:
        ticket_reviewed(actors, text, said, gold)


def test_ticket_pairs_are_the_stage_prompt_and_the_reviewed_path(actors: Any) -> None:
    _reviewed(actors)
    pairs = {pair.text[:10]: pair for pair in ticket_pairs(actors.acme)}
    assert len(pairs) == len(TICKETS)
    schema = ticket_classification_model(tuple(load_taxonomy().level1_names))
    for text, said, gold in TICKETS:
        pair = pairs[text[:10]]
        assert pair.prompt == prompt_render("ticket_classification", pair.text,
                                            **ticket_prompt_values(load_taxonomy())).messages  # fmt: skip
        assert [turn["role"] for turn in pair.prompt] == ["user"]
        if "电话" not in text:
            assert pair.text == document_cut(text)  # the document as the stage asks about it (normalized)
        answer = schema.model_validate_json(pair.answer)
        assert (answer.level1, answer.level2, answer.level3) == (gold or said)
        assert answer.evidence in pair.text and pair.gold == ((gold or said)[0],)
        line = json.loads(pair.jsonl())
        assert [m["role"] for m in line["messages"]] == ["user", "assistant"]


def test_personal_data_is_masked_in_the_pairs(actors: Any) -> None:
    _reviewed(actors)
    lines = "".join(pair.jsonl() for pair in ticket_pairs(actors.acme))
    assert "13812345678" not in lines and "路灯坏了两个星期" in lines  # the number masked, the complaint kept


def test_contract_pairs_answer_the_clause_types_the_review_settled_on(actors: Any) -> None:
    found = [f for f in clause_presence(CONTRACT).values() if f is not None]
    assert found, "the rules find clauses in the contract"
    findings: list[dict[str, Any]] = [
        {"id": f"K{n}", "kind": "clause", "label": f.label, "status": f.status, "span": [f.start, f.end],
         "source": "rule"}
        for n, f in enumerate(found)
    ]  # fmt: skip
    task = document_reviewable(actors, "contract", CONTRACT, findings)
    review_task_claim(task_id=task.pk, user=actors.rita, organisation=actors.acme)
    for finding in findings:
        review_finding_decide(task_id=task.pk, user=actors.rita, organisation=actors.acme,
                              finding_id=finding["id"], decision="approve")  # fmt: skip
    review_task_finalize(task_id=task.pk, user=actors.rita, organisation=actors.acme)
    (pair,) = contract_pairs(actors.acme)
    labels = tuple(load_pack().clauses)
    assert pair.prompt == prompt_render("clause_extraction", pair.text, **clause_prompt_values(labels)).messages
    answer = clause_extraction_model(labels).model_validate_json(pair.answer)
    assert {item.label for item in answer.findings} == set(pair.gold) == {f.label for f in found}
    assert all(item.evidence in pair.text for item in answer.findings)


def test_the_held_back_tickets_are_those_every_retraining_holds_back(actors: Any) -> None:
    _reviewed(actors)
    train, held, split = pairs_split(ticket_pairs(actors.acme))
    retrain_held = {item.key for item in ticket_training(actors.acme).split.held}
    assert {pair.key for pair in held} == retrain_held and held and train
    assert not {pair.key for pair in train} & retrain_held
    assert split.statement()["held_back"] == len(held)


def test_rank_and_target_modules_are_settings(settings: Any, tmp_path: Any) -> None:
    assert settings.DOCGATE_ADAPTER_RANK == 64
    assert settings.DOCGATE_ADAPTER_TARGET_MODULES == ("q_proj", "k_proj", "v_proj", "o_proj")
    settings.DOCGATE_ADAPTER_RANK, settings.DOCGATE_ADAPTER_TARGET_MODULES = 8, ("q_proj", "v_proj")
    command = adapter_train_command(tmp_path / "pairs.jsonl", tmp_path / "out")
    assert command[1:3] == ["-m", "inference.adapter_train"]
    assert command[command.index("--rank") + 1] == "8" and command[command.index("--targets") + 1] == "q_proj,v_proj"


def _train_adapter() -> LearnedModelVersion:
    call_command("train_adapter", organisation="acme", stdout=io.StringIO())
    return LearnedModelVersion.objects.get(name=NAME)


def test_nothing_reviewed_trains_nothing_and_says_so(actors: Any, settings: Any, tmp_path: Any) -> None:
    settings.DOCGATE_MODELS_DIR = str(tmp_path / "models")
    row = _train_adapter()
    assert row.state == ModelState.FAILED and "no reviewed ticket or contract" in row.reason


def test_a_training_that_cannot_run_is_recorded_and_audited(actors: Any, settings: Any, tmp_path: Any) -> None:
    settings.DOCGATE_MODELS_DIR = str(tmp_path / "models")
    settings.DOCGATE_ADAPTER_TRAIN_PYTHON = str(tmp_path / "no-such-venv" / "bin" / "python")
    _reviewed(actors)
    row = _train_adapter()
    assert row.state == ModelState.FAILED and "training did not run" in row.reason
    assert AuditEvent.objects.filter(action="model.training_failed").exists()
    # The pairs it was to learn from stay in the organisation's own folder.
    assert list(model_root("acme", NAME).glob("adapter-*/pairs.jsonl"))


def test_the_stage_asks_the_active_adapter_by_its_served_name(actors: Any, settings: Any, tmp_path: Any) -> None:
    assert llm_client_for("acme").model == settings.LLM_MODEL
    assert adapter_activate(settings, tmp_path) == "acme-adapter-20260101T000000"
    assert llm_client_for("acme").model == "acme-adapter-20260101T000000"
    assert llm_client_for("globex").model == settings.LLM_MODEL  # another organisation: the base model
