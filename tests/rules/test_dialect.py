"""Cantonese → Mandarin: detection per clause, Mandarin left alone, exact offsets, and the lexicon build."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rules.normalize import dialect_detect, normalize, to_simplified
from rules.normalize.data import build_dialect_lexicon
from rules.normalize.dialect import cantonese_regions, dialect_edits
from rules.normalize.dialect_lexicon import GRAMMAR_FILE, MINED_FILE, read_table
from rules.normalize.offsets import apply_edits
from tests.shared_data import SHARED_DATA


@pytest.mark.parametrize(
    ("text", "mandarin"),
    [
        (
            "佢哋话个系统坏咗。技术部回复：系统正常，好多部门的关系数据都已恢复。",
            "技术部回复：系统正常，好多部门的关系数据都已恢复。",
        ),
        ("他在信里写了“咁”这个字，意思是这样。", "他在信里写了“咁”这个字，意思是这样。"),
        (
            "乙方在深圳经营的“佢哋嘅茶餐厅”品牌及其商标，自本合同生效之日起归甲方所有。",
            "乙方在深圳经营的“佢哋嘅茶餐厅”品牌及其商标，自本合同生效之日起归甲方所有。",
        ),
        ("原告陈啲明与被告签订租赁合同，月租三千元。", "原告陈啲明与被告签订租赁合同，月租三千元。"),
    ],
    ids=["xitong-guanxi-beside-cantonese", "gam-quoted", "contract-quotes-a-shop-name", "di-in-a-name"],
)
def test_mandarin_with_cantonese_characters_is_left_alone(text: str, mandarin: str) -> None:
    result = normalize(text)
    assert result.text.endswith(mandarin)
    if text == mandarin:
        assert result.report.dialect_replacements == 0
        assert not result.report.is_cantonese


def test_mixed_ticket_is_rewritten_only_where_it_is_cantonese() -> None:
    ticket = "我哋嘅社保系统又坏咗，点算？客服回复：系统维护时间是每周一，好多用户都知道这个关系。"
    result = normalize(ticket)
    cantonese, mandarin = ticket.split("？", 1)
    assert result.text == "我们的社保系统又坏了，怎么办？" + mandarin
    assert cantonese_regions(ticket) == [(0, len(cantonese) + 1)]
    # a sentence too short to judge (肥死你呀！) follows its Cantonese neighbour on the same line
    assert normalize("肥死你呀！又食咁多嘢！").text == "肥死你！又吃这么多东西！"


def test_quotations_are_judged_by_their_sentence() -> None:
    assert normalize("佢同我講：“你哋唔可以咁做。”").text == "他跟我说：“你们不可以这么做。”"
    assert normalize("“佢哋唔喺度。”").text == "“他们不在。”"  # nothing but the quotation: it speaks for itself
    shop = "合同约定，乙方以“佢哋嘅茶餐厅”为字号经营。"
    assert normalize(shop).text == shop


def test_grammar_rules_win_over_the_mined_table() -> None:
    _, grammar_rows = read_table(GRAMMAR_FILE)
    _, mined_rows = read_table(MINED_FILE)
    mined = {row[0]: row[1] for row in mined_rows}
    assert mined["喎"] == "喔"  # the mined table's choice …
    assert ["喎", "", "[\\u4e00-\\u9fff]", "$"] in grammar_rows
    assert normalize("佢唔嚟喎。").text == "他不来。"  # … the grammar rule (a final particle is dropped) wins


def test_mined_table_rewrites_words_the_grammar_rules_lack() -> None:
    assert "餸" not in [row[0] for row in read_table(GRAMMAR_FILE)[1]]
    assert normalize("佢成日喺屋企食餸。").text == "他经常在家吃菜。"


@pytest.mark.parametrize(
    ("text", "kept"),
    [("早点解决问题，唔好拖。", "早点解决"), ("佢问点解释呢个词。", "点解释")],
    ids=["dim-gaai-kyut", "dim-gaai-sik"],
)
def test_dim_gaai_before_a_verb_is_not_why(text: str, kept: str) -> None:
    assert kept in normalize(text).text


# Grammar keys, mined keys, Mandarin words and punctuation: the rewrite's offset map must stay exact.
PIECES = [
    *["佢哋", "佢", "嘅", "喺度", "喺", "咗", "唔係", "唔", "冇", "啲", "嗰個", "點解", "依家", "用緊", "緊"],
    *["咩", "呀", "啦", "喇", "囉", "係咪", "係", "畀", "攞返", "睇下", "嘢", "屋企", "好耐", "踎", "餸"],
    *["我", "你", "系统", "关系", "广州", "社保卡", "办", "合同", "，", "。", "？", "“", "”", "\n", "a1"],
]


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("走啦！", "走！"),  # a short sentence ending in a particle is Cantonese on that evidence alone
        ("行得未呀？", "行得了吗？"),
        ("八號交喇！", "八号交了！"),
        ("開咩電視唧？", "开什么电视？"),
        ("愾！我又唔識佢哋。", "我又不会他们。"),  # an opening interjection goes with its mark
        ("因為-因為我呢個年紀嘅人，唔鍾意唱歌。", "因为我这个年纪的人，不喜欢唱歌。"),  # a spoken restart
        ("但係你叫得你自己做歌迷嘅話，梗係買正版啦！", "但是你叫得你自己做歌迷的话，当然买正版！"),
    ],
)
def test_particles_interjections_and_restarts(text: str, written: str) -> None:
    result = normalize(text)
    assert result.text == written
    assert all(result.to_original(i, i + 1)[1] <= len(text) for i in range(len(result.text)))


@pytest.mark.parametrize(
    "text",
    ["这个喇叭坏了，请尽快修理。", "人生就是这样呀，大家都辛苦。", "我们的喇叭声音太大呀。"],
)
def test_particles_do_not_make_mandarin_cantonese(text: str) -> None:
    # 喇 inside a word is no particle; 呀 decides alone in a sentence of ten characters or fewer only
    assert normalize(text).text == text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_every_rewrite_maps_back_to_exactly_its_key(text: str) -> None:
    edits = dialect_edits(text)
    rewritten, step = apply_edits(text, edits, group_multichar=True)
    previous_end = 0
    new_position = 0
    for start, end, mandarin in edits:
        assert previous_end <= start < end
        new_position += start - previous_end
        for offset in range(start - previous_end):  # untouched text maps one to one
            old = previous_end + offset
            new = new_position - (start - previous_end) + offset
            assert rewritten[new] == text[old]
            assert (step.span(new, new + 1) if step else (new, new + 1)) == (old, old + 1)
        if mandarin:
            span = step.span(new_position, new_position + len(mandarin)) if step else (start, end)
            assert span == (start, end)
            assert rewritten[new_position : new_position + len(mandarin)] == mandarin
        new_position += len(mandarin)
        previous_end = end
    assert rewritten[new_position:] == text[previous_end:]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_normalized_rewrites_map_back_to_their_cantonese_key(text: str) -> None:
    simplified, _ = to_simplified(text, cantonese=True)
    # no other step moves text (a run of 。 folds to an ellipsis of another length)
    assume(len(simplified) == len(text) and "\n" not in text and "a1" not in text and "。。" not in text)
    result = normalize(text)
    shift = 0
    for start, end, mandarin in dialect_edits(simplified):
        new_start = start + shift
        if mandarin:
            assert result.text[new_start : new_start + len(mandarin)] == mandarin
            assert result.to_original(new_start, new_start + len(mandarin)) == (start, end)
        shift += len(mandarin) - (end - start)


@pytest.mark.skipif(not (SHARED_DATA / "train" / "dialect_lexicon.tsv").exists(), reason="no ../shared/data")
def test_lexicon_build_reproduces_the_shipped_table(tmp_path: pytest.TempPathFactory) -> None:
    pytest.importorskip("jieba")
    out = tmp_path / "cantonese_lexicon.tsv"  # type: ignore[operator]
    build_dialect_lexicon.main(["--shared", str(SHARED_DATA), "--out", str(out)])
    assert out.read_bytes() == MINED_FILE.read_bytes()


def test_normalize_detects_cantonese_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The score that picks hk2s and the regions the rewrite reads come from one detection pass.
    calls: list[str] = []
    detect = dialect_detect._marker_hits

    def counting(text: str) -> object:
        calls.append(text)
        return detect(text)

    monkeypatch.setattr(dialect_detect, "_marker_hits", counting)
    result = normalize("佢哋話個系統壞咗，點算？")
    assert result.text == "他们说个系统坏了，怎么办？"
    assert len(calls) == 1


@pytest.mark.parametrize(
    ("cantonese", "mandarin"),
    [
        ("我哋一齊去啦。", "我们一起去。"),  # sentence-final 啦: written Chinese leaves it out
        ("你等吓我，我即刻嚟。", "你等一下我，我马上来。"),
        ("佢哋想試吓。", "他们想试一下。"),
        ("你哋問吓佢。", "你们问一下他。"),
        ("佢哋琴日因為落雨冇去行街。", "他们昨天因为下雨没有去逛街。"),
        ("冇問題，我聽日畀返你。", "没问题，我明天还给你。"),
        ("佢冇錢冇辦法。", "他没钱没办法。"),
        ("冇人喺度。", "没人在这里。"),
        ("我哋坐吓。", "我们坐一下。"),
        ("你食咗飯未呀？", "你吃了饭了吗？"),
        ("我要落樓買嘢。", "我要下楼买东西。"),
        ("呢度嘅嘢好好食㗎。", "这里的东西很好吃的。"),
        ("佢走咗去邊呀？", "他走了去哪里？"),
        ("啲錢佢哋用晒喇。", "那些钱他们用完了。"),
        ("多謝晒你哋。", "谢谢你们。"),
        ("差唔多夠鐘返工喇。", "差不多到时间上班了。"),
    ],
)
def test_set_phrases_and_verb_complements(cantonese: str, mandarin: str) -> None:
    # 一齊/即刻/行街 and 冇 + noun as Mandarin says them, 吓 after a verb = 一下, 晒 after a verb = done, 未呀 asks.
    assert normalize(cantonese).text == mandarin


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="佢哋唔係嘅喺咗啲冇嘢我你好食飯返屋企得而家点解，。？！；“”《》\n ", max_size=60))
def test_one_sentence_shortcut_scores_as_the_general_path(text: str) -> None:
    hits = dialect_detect._marker_hits(text)
    assume(hits)
    general = tuple(dialect_detect._units(text, *dialect_detect._candidate_sentences(text, hits)))
    assert dialect_detect._scored_units(text) == general
