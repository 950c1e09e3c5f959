"""Departments are organisation data: Acme's own rows route its tickets, a change takes effect on the next ticket
and is kept in the audit log; Globex, which has none, routes by DocGate's defaults; a ticket the classifier is
unsure of goes to a dispatcher."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from contracts.hotline.departments import (
    AUDIT_CHANGED,
    TicketDepartment,
    department_history,
    department_save,
    department_table,
    departments_seed,
)
from contracts.intake.submission import Submission, document_submit
from contracts.models import AuditEvent, Job, JobState, Result
from contracts.pipeline import job_run
from rules.tickets.taxonomy import load_taxonomy

pytestmark = pytest.mark.django_db

NOISE = "工地每天夜间施工到凌晨，机器轰鸣噪音扰民，附近居民无法休息"


SUBMITTED = itertools.count(1)


def category_of(actors: Any, organisation: Any, text: str) -> tuple[dict[str, Any], list[str]]:
    """Submit and run a ticket (numbered, so the same words are a new ticket each time); its category, reasons."""
    text = f"{text}（第{next(SUBMITTED)}次反映）"
    job = document_submit(organisation=organisation, submission=Submission(kind="ticket", source="api", text=text)).job
    assert job_run(job.pk, "w").status in (JobState.DONE, JobState.NEEDS_REVIEW)
    result = Result.objects.get(job=job)
    finding = next(f for f in result.data["findings"] if f["kind"] == "ticket_category")
    return finding, Job.objects.get(pk=job.pk).review_reasons


def test_organisation_without_rows_routes_by_the_defaults(actors: Any) -> None:
    category, _ = category_of(actors, actors.globex, NOISE)
    assert category["label"] == "环境保护"
    default = load_taxonomy().department("环境保护")
    assert (category["department"], category["department_source"]) == (default, "default")
    assert category["alternatives"][0]["label"] == "环境保护" and category["alternatives"][0]["department"]


def test_a_changed_department_routes_the_next_ticket_and_the_change_is_kept(actors: Any) -> None:
    row = department_save(row=TicketDepartment(organisation=actors.acme, level1="环境保护", department="市生态环境局"))
    first, _ = category_of(actors, actors.acme, NOISE)
    assert (first["department"], first["department_source"], first["department_version"]) == (
        "市生态环境局",
        "organisation",
        1,
    )
    row.department = "区生态环境分局"
    department_save(row=row, user=actors.oscar)
    second, _ = category_of(actors, actors.acme, NOISE)
    assert (second["department"], second["department_version"]) == ("区生态环境分局", 2)
    # Globex's tickets are untouched by Acme's table.
    assert category_of(actors, actors.globex, NOISE)[0]["department_source"] == "default"
    history = department_history(row)
    assert [(h["version"], h["before"], h["after"]) for h in history] == [
        (1, None, "市生态环境局"),
        (2, "市生态环境局", "区生态环境分局"),
    ]
    assert history[1]["by"] == "oscar"
    assert AuditEvent.objects.filter(organisation=actors.acme, action=AUDIT_CHANGED).count() == 2


def test_seeding_copies_the_defaults_once(actors: Any) -> None:
    taxonomy = load_taxonomy()
    created = departments_seed(organisation=actors.acme)
    expected = len(taxonomy.categories) + sum(1 for c in taxonomy.categories for s in c.level2 if s.department)
    assert created == expected and departments_seed(organisation=actors.acme) == 0
    table = department_table("acme")
    for category in taxonomy.categories:
        assert table.route(category.name).department == category.department
        for sub in category.level2:
            assert table.route(category.name, sub.name).department == taxonomy.department(category.name, sub.name)
            assert table.route(category.name, sub.name).source == "organisation"


@pytest.mark.parametrize(
    ("level1", "level2", "department", "field"),
    [
        ("天气", "", "气象局", "level1"),
        ("环境保护", "城乡规划", "规划局", "level2"),
        ("环境保护", "", "  ", "department"),
    ],
    ids=["unknown-level1", "level2-of-another-category", "blank-department"],
)
def test_rows_outside_the_taxonomy_are_refused(
    actors: Any, level1: str, level2: str, department: str, field: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        department_save(
            row=TicketDepartment(organisation=actors.acme, level1=level1, level2=level2, department=department)
        )
    assert field in refused.value.message_dict
    assert not TicketDepartment.objects.exists()


def test_the_django_admin_edits_a_row_as_a_new_version_and_shows_its_history(client: Any, actors: Any) -> None:
    from django.contrib.auth import get_user_model

    row = department_save(row=TicketDepartment(organisation=actors.acme, level1="交通运输", department="交通运输局"))
    client.force_login(get_user_model().objects.create_superuser("root", password="root-password-1"))
    url = f"/admin/contracts/ticketdepartment/{row.pk}/change/"
    form = {"organisation": actors.acme.pk, "level1": "交通运输", "level2": "", "department": "市交通运输局"}
    assert client.post(url, form).status_code == 302
    row.refresh_from_db()
    assert (row.department, row.version) == ("市交通运输局", 2)
    assert row.updated_by is not None and row.updated_by.get_username() == "root"
    page = client.get(url).content.decode()
    assert "交通运输局 → 市交通运输局" in page
    refused = client.post(url, {**form, "level1": "天气"})
    assert refused.status_code == 200 and TicketDepartment.objects.get(pk=row.pk).version == 2


def test_admin_seeds_an_organisation_from_the_defaults(client: Any, actors: Any) -> None:
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.create_superuser("root", password="root-password-1"))
    answer = client.post(
        "/admin/contracts/organisation/",
        {"action": "seed_ticket_departments", "_selected_action": [actors.globex.pk]},
    )
    assert answer.status_code == 302
    assert TicketDepartment.objects.filter(organisation=actors.globex).count() > len(load_taxonomy().categories)
    assert not TicketDepartment.objects.filter(organisation=actors.acme).exists()


def test_a_ticket_below_its_categorys_threshold_goes_to_a_dispatcher(actors: Any, settings: Any, tmp_path: Any) -> None:
    """Acme's published classifier holds 环境保护 to a threshold its noise ticket does not reach: the ticket is
    still classified and names its department, but waits for a dispatcher (review reason `routing_uncertain`)."""
    from contracts.learned.tickets import classifier_publish
    from rules.evaluation.common import jsonl_rows
    from rules.tickets.classifier import TicketClassifier, train_classifier
    from tests.shared_data import shared_file

    settings.DOCGATE_MODELS_DIR = str(tmp_path / "models")
    rows = list(jsonl_rows(shared_file("tickets/public.jsonl")))[::4]
    trained = train_classifier([r["text"] for r in rows], [r["label"] for r in rows])
    strict = {**trained.metadata, "thresholds": {**trained.thresholds, "环境保护": 0.9999}}
    classifier_publish("acme", TicketClassifier(trained.pipeline, strict))
    category, reasons = category_of(actors, actors.acme, NOISE)
    assert category["label"] == "环境保护" and category["department"]
    assert category["routing"] == {
        "probability": category["routing"]["probability"],
        "threshold": 0.9999,
        "needs_dispatcher": True,
    }
    assert "routing_uncertain" in reasons
    # The same model with its own thresholds routes the ticket.
    lenient = {
        **trained.metadata,
        "model_version": f"{trained.version}-lenient",  # a new version (a published one is loaded once)
        "thresholds": {**trained.thresholds, "环境保护": 0.0},
    }
    classifier_publish("acme", TicketClassifier(trained.pipeline, lenient))
    category, reasons = category_of(actors, actors.acme, NOISE)
    assert not category["routing"]["needs_dispatcher"] and "routing_uncertain" not in reasons
