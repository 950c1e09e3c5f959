"""Portal routes: submit, jobs, results, the dispatcher's queue, hotspots, search, the key-term grid, the review
queue, repeat cases, organisation admin and invitations."""

from __future__ import annotations

from django.urls import path, re_path

from frontend import (
    case_views,
    dispatch_views,
    hotspot_views,
    invitation_views,
    org_views,
    report_views,
    review_views,
    search_views,
    term_grid_views,
    views,
)

urlpatterns = [
    path("", views.home, name="home"),
    path("organisation/switch/", views.organisation_switch, name="organisation_switch"),
    path("invitations/", invitation_views.invitations, name="invitations"),
    path("invitations/<uuid:invitation_id>/accept/", invitation_views.accept, name="invitation_accept"),
    path("invitations/<uuid:invitation_id>/decline/", invitation_views.decline, name="invitation_decline"),
    path("submit/", views.submit, name="submit"),
    path("submit/upload/", views.upload, name="upload"),
    path("jobs/", views.jobs, name="jobs"),
    path("documents/<uuid:document_id>/", views.result, name="result"),
    re_path(
        r"^documents/(?P<document_id>[0-9a-f-]{36})/report\.(?P<file_format>docx|pdf)$",
        report_views.report,
        name="result_report",
    ),
    path("hotspots/", hotspot_views.hotspots, name="hotspots"),
    path("dispatch/", dispatch_views.queue, name="dispatch"),
    path("search/", search_views.search, name="search"),
    path("contracts/terms/", term_grid_views.grid, name="term_grid"),
    re_path(r"^contracts/terms\.(?P<file_format>csv|xlsx)$", term_grid_views.grid_export, name="term_grid_export"),
    path(
        "documents/<uuid:document_id>/terms/<str:finding_id>/decide/",
        term_grid_views.cell_decide,
        name="term_cell_decide",
    ),
    path("jobs/<uuid:job_id>/llm-rerun/", views.llm_rerun, name="job_llm_rerun"),
    path("review/", review_views.queue, name="review_queue"),
    path("review/<uuid:task_id>/", review_views.task, name="review_task"),
    path("review/<uuid:task_id>/claim/", review_views.claim, name="review_claim"),
    path("review/<uuid:task_id>/release/", review_views.release, name="review_release"),
    path("review/<uuid:task_id>/decide/", review_views.decide, name="review_decide"),
    path("review/<uuid:task_id>/response/", review_views.response, name="review_response"),
    path("review/<uuid:task_id>/finalize/", review_views.finalize, name="review_finalize"),
    path("cases/", case_views.cases, name="cases"),
    path("cases/<uuid:case_id>/", case_views.case, name="case"),
    path("cases/<uuid:case_id>/merge/", case_views.merge, name="case_merge"),
    path("cases/<uuid:case_id>/split/", case_views.split, name="case_split"),
    path("organisation/", org_views.settings_page, name="org_settings"),
    path("organisation/keys/", org_views.key_create, name="org_key_create"),
    path("organisation/keys/<int:key_id>/revoke/", org_views.key_revoke, name="org_key_revoke"),
    path("organisation/webhook/", org_views.webhook_save, name="org_webhook"),
    path("organisation/members/", org_views.member_invite, name="org_member_invite"),
    path(
        "organisation/invitations/<uuid:invitation_id>/withdraw/",
        org_views.invitation_withdrawn,
        name="org_invitation_withdraw",
    ),
    path("organisation/members/<int:membership_id>/role/", org_views.member_role, name="org_member_role"),
    path("organisation/members/<int:membership_id>/remove/", org_views.member_remove, name="org_member_remove"),
]
