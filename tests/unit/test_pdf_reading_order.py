"""PDF text in the order a reader sees it, whatever order the content stream draws it in."""

from __future__ import annotations

from contracts.intake.extraction import ExtractionLimits
from contracts.intake.pdf import pdf_page_texts
from contracts.intake.reading_order import Glyph, reading_order_text, runs_of
from rules.clauses import clause_presence
from tests.files import cjk_pdf_placed

LIMITS = ExtractionLimits(max_unzipped_bytes=10_000_000, max_pdf_pages=50, max_text_chars=1_000_000)

ARTICLES = [
    "第八条 违约责任",
    "任何一方违约的，应向守约方支付合同总价百分之十的违约金。",
    "第九条 争议解决",
    "因本合同发生的争议，双方协商不成的，提交北京仲裁委员会仲裁。",
    "第十条 其他",
    "本合同一式两份，双方各执一份，自双方签字之日起生效。",
]


def _lines_at(lines: list[str], top: float = 800.0, x: float = 50.0) -> list[tuple[float, float, str]]:
    return [(x, top - 16 * number, line) for number, line in enumerate(lines)]


def test_an_article_drawn_last_is_read_where_it_stands() -> None:
    # An editor appended the revised 第九条 to the end of the stream; on the page it stands between 第八条 and 第十条.
    placed = _lines_at(ARTICLES)
    drawn = placed[:2] + placed[4:] + placed[2:4]
    text = pdf_page_texts(cjk_pdf_placed([drawn]), LIMITS)[0]
    assert text == "\n".join(ARTICLES)
    dispute = clause_presence(text)["争议解决"]
    assert dispute is not None and text[dispute.start : dispute.end].startswith("第九条 争议解决")


def test_lines_drawn_bottom_up_read_top_down() -> None:
    drawn = list(reversed(_lines_at(ARTICLES)))
    assert pdf_page_texts(cjk_pdf_placed([drawn]), LIMITS) == ["\n".join(ARTICLES)]


def test_two_columns_under_a_title_read_column_by_column() -> None:
    left = ["第一条 租赁期限", "租期自2024年1月1日", "起至2026年12月31日止。"]
    right = ["第二条 租金", "月租金人民币伍仟元，", "每月5日前支付。"]
    title = (200.0, 800.0, "房屋租赁合同")
    # Drawn row by row across both columns, as a table-like export does: the stream interleaves the columns.
    drawn = [title]
    for number, (first, second) in enumerate(zip(left, right, strict=True)):
        drawn += [(50.0, 760.0 - 16 * number, first), (320.0, 760.0 - 16 * number, second)]
    text = pdf_page_texts(cjk_pdf_placed([drawn]), LIMITS)[0]
    assert text == "\n".join(["房屋租赁合同", *left, *right])


def test_list_numbers_drawn_apart_from_their_items_stay_on_their_lines() -> None:
    # Word-style numbering: the numbers are drawn first as their own strings, the items tab-aligned after them.
    items = ["甲方𠮷祥公司按时交付房屋；", "乙方按时支付租金；", "双方共同维护设施。"]  # 𠮷: beyond UCS-2
    numbers = [(50.0, 800.0 - 16 * n, f"（{'一二三'[n]}）") for n in range(3)]
    texts = [(90.0, 800.0 - 16 * n, item) for n, item in enumerate(items)]
    text = pdf_page_texts(cjk_pdf_placed([numbers + texts]), LIMITS)[0]
    assert text == "\n".join(f"（{'一二三'[n]}） {item}" for n, item in enumerate(items))


def test_runs_break_at_line_breaks_jumps_back_and_new_baselines() -> None:
    glyphs = [
        Glyph("甲", 0, 0, 10, 10),
        Glyph("乙", 10, 0, 20, 10),
        Glyph("\n", 20, 0, 20, 10),
        Glyph("丙", 0, -16, 10, -6),
        Glyph("丁", 0, 0, 10, 10),  # back to the first line's start: a new run
    ]
    assert ["".join(run.text) for run in runs_of(glyphs)] == ["甲乙", "丙", "丁"]
    assert reading_order_text(glyphs) == "甲乙\n丁\n丙"
    assert reading_order_text([]) == ""


def test_a_page_built_to_nest_cuts_deeply_is_still_read_top_down() -> None:
    # Line gaps growing by 30 % each: every cut peels off one line, a recursion as deep as the page is long.
    glyphs, y = [], 0.0
    for number in range(1100):
        glyphs += [Glyph(str(number % 10), 0, y, 6, y + 10), Glyph("\n", 6, y, 6, y + 10)]
        y -= 10 + 1.3**number
    assert reading_order_text(glyphs) == "\n".join(str(number % 10) for number in range(1100))
