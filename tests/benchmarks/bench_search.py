"""Chinese full-text search over many tickets: `documents_search` latency (P50/P95) by kind of query, with the
plan that shows the trigram index at work.

Run: `BENCH_DATABASE_URL=postgres://…/<empty database> python -m tests.benchmarks.bench_search` (without it a
throw-away SQLite file); `BENCH_SEARCH_TICKETS` stored tickets, 100,000 by default (1,000,000 for the target);
`BENCH_SEARCH_REUSE=1` times an earlier run's tickets at BENCH_DATABASE_URL again without loading them. One JSON
object.

The tickets are bulk-loaded into one organisation (the worst case: the organisation filter removes nothing), not
run through the pipeline. Each is made of complaint phrases, an address (district, road, house number) and a phone
number drawn at random, so that a phrase occurs in a few percent of tickets and an address in a handful. On
PostgreSQL the trigram index is dropped for the load and built afterwards (timed), as a bulk load is done.
Queries, each timed through `documents_search` as a reviewer sees it (full text) and, for the address and the
phrase, as a submitter (masked text, the masking policy applied to every candidate):
- `address`: a road and house number (rare: a few tickets each), through the index;
- `phrase`: a four-character complaint phrase (a few percent of tickets), through the index, the newest ranked;
- `short`: a common two-character word, which no trigram index serves (PostgreSQL: the bigram index; SQLite: the
  newest days' text is read with LIKE);
- `rare_short`: a two-character word in about one ticket in 2,000 (PostgreSQL: the bigram index; SQLite: LIKE
  over the whole history, the embedded default's cost).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import random
import sys
import time
import uuid
from datetime import timedelta
from typing import Any

import numpy as np

from tests.benchmarks.django_bench import django_bench_setup

TICKETS = int(os.environ.get("BENCH_SEARCH_TICKETS", "100000"))
QUERIES = int(os.environ.get("BENCH_SEARCH_QUERIES", "60"))
CHUNK = 50_000
DISTRICTS = ["东城区", "西城区", "朝阳区", "海淀区", "丰台区", "石景山区", "通州区", "昌平区", "大兴区", "顺义区",
             "房山区", "门头沟区", "怀柔区", "平谷区", "密云区", "延庆区"]  # fmt: skip
ROADS = [a + b for a in ("幸福", "和平", "建设", "人民", "解放", "光明", "胜利", "文化", "长安", "新华", "东风",
                          "青年", "友谊", "团结", "中山", "民主", "复兴", "振兴", "朝阳", "育才")
         for b in ("路", "街", "大道")]  # fmt: skip
PHRASES = ["噪音扰民", "油烟扰民", "违章停车", "道路破损", "路灯不亮", "垃圾清运不及时", "电梯故障", "漏水严重",
           "拖欠工资", "物业不作为", "施工扬尘", "占道经营", "供暖不热", "停水停电", "井盖缺失", "违法建设",
           "广场舞扰民", "餐馆排污", "公交晚点", "绿化带被毁", "消防通道堵塞", "群租房安全隐患", "学校周边交通拥堵",
           "宠物扰民", "非法小广告", "商家虚假宣传", "快递丢件", "燃气异味", "楼道堆物", "共享单车乱停"]  # fmt: skip
CONNECTIVES = ["多次反映至今未解决", "希望有关部门尽快处理", "严重影响居民生活", "已经持续一个多月", "请相关部门核实",
               "夜间尤其严重", "老人孩子休息不好", "投诉多次无人回应"]  # fmt: skip
SHORT_WORDS = ["油烟", "噪音", "漏水", "路灯"]
# Two-character words no phrase holds: one ticket in 2,000 gets one of them (each about one in 20,000).
RARE_SHORT_WORDS = ["蚊子", "鸽子", "井水", "猫狗", "霉斑", "蜂窝", "鼠患", "碎石", "暴雨", "铁门"]
RARE_SHARE = 1 / 2000


def _percentiles(values: list[float]) -> dict[str, float]:
    return {f"p{q}": round(float(np.percentile(values, q)), 2) for q in (50, 95, 100)}


def _ticket(rng: random.Random) -> tuple[str, str]:
    """A ticket's text and its address (what an `address` query looks for)."""
    address = f"{rng.choice(ROADS)}{rng.randint(1, 999)}号"
    phone = "1" + "".join(str(rng.randint(0, 9)) for _ in range(10))
    phrases = rng.sample(PHRASES, rng.randint(1, 2))
    text = (
        f"我是{rng.choice(DISTRICTS)}{address}的居民，电话{phone}，反映{'，'.join(phrases)}的问题，"
        f"{'，'.join(rng.sample(CONNECTIVES, rng.randint(1, 3)))}。"
    )
    return text, address


def _rare_word(rng: random.Random) -> str:
    """Now and then a sentence with a rare two-character word (its own random stream: the tickets stay the same)."""
    if rng.random() >= RARE_SHARE:
        return ""
    return f"另外楼下有{rng.choice(RARE_SHORT_WORDS)}的问题。"


def _insert(vendor: str, rows: list[tuple[Any, ...]]) -> None:
    from django.db import connection, transaction

    columns = ["id", "organisation_id", "kind", "source", "title", "original", "original_name", "content_type",
               "size_bytes", "sha256", "encoding", "text", "metadata", "reference", "created_at"]  # fmt: skip
    with transaction.atomic(), connection.cursor() as cursor:
        if vendor == "postgresql":
            with cursor.cursor.copy(f"COPY contracts_document ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(columns))
            adapted = [(row[0].hex, row[1], *row[2:-1], row[-1].isoformat()) for row in rows]
            cursor.executemany(f"INSERT INTO contracts_document ({', '.join(columns)}) VALUES ({marks})", adapted)


def _index_sql() -> tuple[list[str], list[str]]:
    """The PostgreSQL indexes of search (trigrams, bigrams): how to create and how to drop them."""
    trigrams = importlib.import_module("contracts.migrations.0014_search")
    bigrams = importlib.import_module("contracts.migrations.0019_search_bigrams")
    return [trigrams.POSTGRES_INDEX, bigrams.POSTGRES_INDEX], [trigrams.POSTGRES_DROP, bigrams.POSTGRES_DROP]


def _load(organisation: Any, vendor: str) -> tuple[dict[str, float], list[str]]:
    """Bulk-load TICKETS tickets over the last year; seconds per part, and a sample of the addresses stored."""
    from django.db import connection
    from django.utils import timezone

    rng, rare = random.Random(7), random.Random(13)
    now = timezone.now()
    create, drop = _index_sql()
    timings = {"generate_s": 0.0, "copy_s": 0.0, "index_s": 0.0, "index_trigram_s": 0.0, "index_bigram_s": 0.0}
    addresses: list[str] = []
    if vendor == "postgresql":
        with connection.cursor() as cursor:
            for sql in drop:
                cursor.execute(sql)
    for start in range(0, TICKETS, CHUNK):
        started = time.perf_counter()
        rows = []
        for i in range(start, min(TICKETS, start + CHUNK)):
            text, address = _ticket(rng)
            text += _rare_word(rare)
            if len(addresses) < 5000 and rng.random() < 0.05:
                addresses.append(address)
            at = now - timedelta(seconds=rng.randint(0, 365 * 86400))
            sha = hashlib.sha256(f"{i}:{text}".encode()).hexdigest()
            rows.append((uuid.uuid4(), organisation.pk, "ticket", "api", "", "", "", "text/plain",
                         len(text.encode()), sha, "utf-8", text, "{}", "", at))  # fmt: skip
        timings["generate_s"] += time.perf_counter() - started
        started = time.perf_counter()
        _insert(vendor, rows)
        timings["copy_s"] += time.perf_counter() - started
        print(f"loaded {start + len(rows):,} tickets", file=sys.stderr)
    started = time.perf_counter()
    with connection.cursor() as cursor:
        if vendor == "postgresql":
            cursor.execute("SET maintenance_work_mem = '1GB'")
            for sql, part in zip(create, ("index_trigram_s", "index_bigram_s"), strict=True):
                built = time.perf_counter()
                cursor.execute(sql)
                timings[part] = time.perf_counter() - built
        cursor.execute("ANALYZE contracts_document")
    timings["index_s"] = time.perf_counter() - started
    return {k: round(v, 1) for k, v in timings.items()}, addresses


def _timed(organisation: Any, queries: list[str], *, sees_personal_data: bool) -> dict[str, Any]:
    from contracts.search import documents_search

    documents_search(organisation=organisation, query=queries[0], sees_personal_data=sees_personal_data)  # warm
    runs, found = [], []
    for query in queries:
        started = time.perf_counter()
        page = documents_search(organisation=organisation, query=query, sees_personal_data=sees_personal_data)
        runs.append((time.perf_counter() - started) * 1000)
        found.append(len(page.hits))
    return {
        "queries": len(queries),
        "ms": _percentiles(runs),
        "results_on_first_page_mean": round(float(np.mean(found)), 1),
    }


def _plan(organisation: Any, query: str) -> str:
    """The database's plan for the first span's look-up of the newest matches, as `documents_search` sends it."""
    from django.db import connection
    from django.utils import timezone

    from contracts.models import Document
    from contracts.search import RANK_WINDOW, SPANS_DAYS, documents_holding

    since = timezone.now() - timedelta(days=SPANS_DAYS[0])
    holding = documents_holding(Document.objects.filter(organisation=organisation), query)
    newest = holding.filter(created_at__gte=since).order_by("-created_at").values_list("pk", flat=True)
    sql, params = newest[:RANK_WINDOW].query.sql_with_params()
    explain = "EXPLAIN " if connection.vendor == "postgresql" else "EXPLAIN QUERY PLAN "
    with connection.cursor() as cursor:
        cursor.execute(explain + sql, params)
        return " | ".join(" ".join(str(c) for c in row).strip() for row in cursor.fetchall())[:900]


def _reused() -> Any:
    """The organisation of an earlier run at BENCH_DATABASE_URL (BENCH_SEARCH_REUSE=1)."""
    os.environ.update({"DATABASE_URL": os.environ["BENCH_DATABASE_URL"], "REDIS_URL": "", "LLM_ENABLED": "false"})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from contracts.models import Organisation

    return Organisation.objects.get(slug="bench")


def main() -> None:
    """Load the tickets, time the searches and print the JSON report."""
    reuse = os.environ.get("BENCH_SEARCH_REUSE") == "1" and os.environ.get("BENCH_DATABASE_URL")
    organisation = _reused() if reuse else django_bench_setup(os.environ.get("BENCH_DATABASE_URL", ""))[0]
    from django.db import connection

    from contracts.models import Document

    vendor = connection.vendor
    if reuse:
        load: dict[str, Any] = {"reused": True}
        rng = random.Random(11)
        addresses = [f"{rng.choice(ROADS)}{rng.randint(1, 999)}号" for _ in range(QUERIES)]
    else:
        load, addresses = _load(organisation, vendor)
    rng = random.Random(3)
    address_queries = rng.sample(addresses, min(QUERIES, len(addresses)))
    phrase_queries = [rng.choice([p for p in PHRASES if len(p) == 4]) for _ in range(QUERIES)]
    short_queries = [rng.choice(SHORT_WORDS) for _ in range(max(5, QUERIES // 6))]
    rare_queries = [rng.choice(RARE_SHORT_WORDS) for _ in range(max(5, QUERIES // 3))]
    stored = Document.objects.filter(organisation=organisation).count()
    report = {
        "bench": "search",
        "vendor": vendor,
        "tickets": stored,
        "load": load,
        "address_reviewer": _timed(organisation, address_queries, sees_personal_data=True),
        "address_submitter_masked": _timed(organisation, address_queries, sees_personal_data=False),
        "phrase_reviewer": _timed(organisation, phrase_queries, sees_personal_data=True),
        "phrase_submitter_masked": _timed(organisation, phrase_queries[:20], sees_personal_data=False),
        "short_reviewer": _timed(organisation, short_queries, sees_personal_data=True),
        "rare_short_reviewer": _timed(organisation, rare_queries, sees_personal_data=True),
        "target": "P95 <= 100 ms over 1,000,000 tickets",
        "plan_address": _plan(organisation, address_queries[0]),
        "plan_phrase": _plan(organisation, phrase_queries[0]),
        "plan_short": _plan(organisation, short_queries[0]),
        "plan_rare_short": _plan(organisation, rare_queries[0]),
    }
    print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    main()
