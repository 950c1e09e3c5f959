"""The report's Word comments: each anchored at exactly its finding's words, in a copy of the contract's own .docx
(runs split where needed) or in a .docx written from its text; any finding kind with a span and words is one."""

from __future__ import annotations

import io
from typing import Any

import docx

from contracts.intake.errors import ExtractionLimits
from contracts.intake.extraction import docx_text
from contracts.legal.report.comments import ReportComment, report_comments
from contracts.legal.report.summary import report_summary
from contracts.legal.report.word import comments_anchor, docx_bytes, docx_copy, docx_from_text
from tests.word_comments import comment_anchors

LIMITS = ExtractionLimits(max_unzipped_bytes=10**8, max_pdf_pages=100, max_text_chars=10**7)


def formatted_contract() -> bytes:
    """A contract as Word writes one: headings in bold runs, a sentence split over three runs, a tab, a table, and
    empty paragraphs (between articles and at the end)."""
    document = docx.Document()
    document.add_paragraph("买卖合同")
    document.add_paragraph()
    paragraph = document.add_paragraph()
    paragraph.add_run("第一条 定金。").bold = True
    paragraph.add_run("买方应于签订之日起")
    paragraph.add_run("五日内").italic = True
    paragraph.add_run("支付定金人民币30000元。\t（见附件）")
    paragraph = document.add_paragraph()
    paragraph.add_run("第二条 违约责任。").bold = True
    paragraph.add_run("任何一方违约的，应支付违约金人民币10000元。")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "卖方：某某贸易有限公司"
    table.cell(0, 1).text = "买方：某某科技有限公司"
    document.add_paragraph()
    return docx_bytes(document)


def spans_of(text: str, *quotes: str) -> list[tuple[int, int]]:
    return [(text.index(q), text.index(q) + len(q)) for q in quotes]


def test_each_comment_in_a_copy_of_the_docx_is_anchored_at_exactly_its_words() -> None:
    data = formatted_contract()
    text = docx_text(data, LIMITS)
    spans = spans_of(
        text,
        "签订之日起五日内支付",  # across three runs, starting and ending inside runs
        "定金。买方",  # from a bold heading into the plain run
        "（见附件）\n第二条 违约责任",  # across a tab's run and into the next paragraph
        "某某贸易有限公司\n买方",  # across two cells of the table
        "五日",  # inside another comment's range
    )
    comments = [ReportComment(s, e, "risk", f"R{n}", f"批注{n}") for n, (s, e) in enumerate(spans)]
    word = docx_copy(data, text)
    assert word is not None
    assert comments_anchor(word, comments) == len(comments)
    saved = docx_bytes(word)
    reread = comment_anchors(docx.Document(io.BytesIO(saved)))
    assert sorted(reread.values()) == sorted((c.text, text[c.start : c.end]) for c in comments)
    assert docx_text(saved, LIMITS) == text  # the contract's text is untouched: only runs were split


def test_a_report_written_from_the_text_anchors_the_same_way() -> None:
    text = "借款合同\n第一条\t借款金额为人民币十万元。\n第二条 借款利率为年利率24%。\x0c第三条 逾期利息。"
    comments = [ReportComment(s, e, "clause", "x", "批注") for s, e in spans_of(text, "人民币十万元", "24%。")]
    word = docx_from_text(text)
    assert comments_anchor(word, comments) == 2
    reread = comment_anchors(docx.Document(io.BytesIO(docx_bytes(word))))
    assert sorted(a for _, a in reread.values()) == ["24%。", "人民币十万元"]


def test_a_docx_whose_text_is_not_the_documents_is_not_copied() -> None:
    data = formatted_contract()
    assert docx_copy(data, docx_text(data, LIMITS)) is not None
    assert docx_copy(data, docx_text(data, LIMITS) + "补充条款") is None  # the report is written from the text
    assert docx_copy(b"PK\x03\x04 not a zip", "x") is None


def test_every_finding_kind_with_a_span_and_words_is_a_comment() -> None:
    text = "第一条 合同期限自2026年3月1日起三年。 第二条 违约金为合同总价的百分之三十。"

    def at(quote: str) -> list[int]:
        return [text.index(quote), text.index(quote) + len(quote)]

    findings: list[dict[str, Any]] = [
        {"kind": "clause", "label": "合同期限", "status": "blank", "span": at("第一条 合同期限自2026年3月1日起三年。")},
        {"kind": "risk", "label": "penalty", "severity": "warning", "message": "违约金过高", "spans": [at("违约金")]},
        {
            "kind": "term",
            "label": "term",
            "value": {"type": "duration", "amount": "3", "unit": "year"},
            "normalised": "3 year",
            "status": "agreed",
            "span": at("自2026年3月1日起三年"),
        },
        {
            "kind": "playbook",
            "label": "违约金上限",
            "grade": "escalate",
            "message": "超过20%",
            "span": at("百分之三十"),
            "basis": "民法典第585条",
        },
        {"kind": "obligation", "label": "付款", "message": "未约定付款期限", "span": at(" 第二条 ")},
        {"kind": "entity", "label": "DATE", "text": "2026年3月1日", "span": at("2026年3月1日")},  # a mention
        {"kind": "risk", "label": "nowhere", "message": "无证据位置"},  # no span: nothing to anchor at
    ]
    comments = report_comments(findings, text)
    assert [c.kind for c in comments] == ["clause", "term", "obligation", "risk", "playbook"]
    words = {c.kind: c.text for c in comments}
    assert "合同期限" in words["clause"] and "尚未填写" in words["clause"]
    assert words["term"] == "关键条款｜合同期限：3 年"  # the legal desk's term finding: its kind and value, in Chinese
    assert words["playbook"] == "审查要点｜需上报：违约金上限：超过20%（依据：民法典第585条）"
    assert words["obligation"] == "付款：未约定付款期限"
    obligation = next(c for c in comments if c.kind == "obligation")
    assert text[obligation.start : obligation.end] == "第二条"  # the span's white space is left outside


def test_the_summary_puts_what_to_decide_first() -> None:
    findings: list[dict[str, Any]] = [
        {"kind": "clause", "label": "违约金/违约责任", "status": "stipulated"},
        {"kind": "clause", "label": "争议解决", "status": "blank"},
        {"kind": "risk", "label": "deposit", "severity": "warning", "message": "定金超过20%", "basis": "民法典第586条"},
        {"kind": "playbook", "label": "付款期限", "grade": "acceptable", "message": "30日内"},
        {"kind": "playbook", "label": "管辖", "grade": "negotiate", "message": "不在我方所在地"},
    ]
    summary = report_summary(findings, title="合同审查报告", facts=[])
    assert summary.decisions[0] == "风险｜警示：定金超过20%（依据：民法典第586条）"
    assert "审查要点｜需谈判：管辖：不在我方所在地" in summary.decisions
    assert not any("30日内" in line for line in summary.decisions)  # an acceptable point needs no decision
    assert "待填写｜争议解决：模板条款尚未填写，签署前补全或删除" in summary.decisions
    assert "未发现｜合同解除/终止：决定是否要求对方补充" in summary.decisions
    assert summary.found == ["违约金/违约责任"]
