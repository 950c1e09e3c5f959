"""Write the instruction pairs the vLLM adapter test's LoRA adapter is trained on (setup.sh, once):

    .venv/bin/python -m tests.vllm.adapter_pairs OUT.jsonl

Six made-up hotline tickets, each asked exactly as the LLM stage asks (`ticket_classification` prompt with the
taxonomy outline, one user turn), each answered in the question's JSON with a category path of the taxonomy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from inference.prompts import prompt_render
from inference.questions import ticket_prompt_values
from rules.tickets.taxonomy import load_taxonomy

# (ticket, level1, level2, level3, urgency): short so that training stays a few minutes on two cores.
TICKETS = (
    ("幸福路小区门口的路灯已经坏了两个星期，晚上一片漆黑，老人出门很不方便，请尽快派人维修。",
     "城乡建设", "城市建设和市政管理", "城市公共设施", "normal"),
    ("我们小区的物业公司擅自把绿地改成停车位收费，业主多次反映没有回应，希望有关部门调查。",
     "城乡建设", "住房保障与房地产", "物业服务", "normal"),
    ("开发区一家化工厂夜里偷偷排放黑烟，气味刺鼻，附近居民头晕恶心，请立即派人查处。",
     "环境保护", "环境污染", "大气污染", "urgent"),
    ("公司已经拖欠我们三个月工资，老板现在联系不上，二十多名工人等着钱过年，请劳动部门帮忙。",
     "劳动和社会保障", "工资福利", "工资发放", "high"),
    ("学校周边的小摊贩卖三无食品，很多学生放学就去买，家长很担心食品安全问题。",
     "卫生计生", "食品药品监管", "食品安全", "high"),
    ("小区楼下餐馆每天凌晨两点还在营业，噪音很大，居民无法休息，多次投诉无果。",
     "环境保护", "环境污染", "噪音污染", "normal"),
)  # fmt: skip


def pairs() -> list[dict[str, list[dict[str, str]]]]:
    """The pairs as chat lines: the stage's prompt, then the answer (a verbatim quote as evidence)."""
    taxonomy = load_taxonomy()
    values = ticket_prompt_values(taxonomy)
    lines: list[dict[str, list[dict[str, str]]]] = []
    for text, level1, level2, level3, urgency in TICKETS:
        if not taxonomy.has_path(level1, level2, level3):
            raise ValueError(f"{level1}/{level2}/{level3} is not a taxonomy path")
        answer = {"level1": level1, "level2": level2, "level3": level3, "urgency": urgency,
                  "evidence": text[: text.index("，")]}  # fmt: skip
        prompt = prompt_render("ticket_classification", text, **values).messages
        lines.append({"messages": [*prompt, {"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)}]})
    return lines


if __name__ == "__main__":
    Path(sys.argv[1]).write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in pairs()), "utf-8")
