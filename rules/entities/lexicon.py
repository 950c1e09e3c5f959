"""Fixed terms for the EntityRuler: party roles, province-level regions, major cities, relative dates."""

from __future__ import annotations

from typing import Any

from rules.entities.expressions import PARTY_ROLES

# Province-level divisions with their formal suffix; bare names only where they are unambiguous in prose
# (a bare 江西 would fire inside 浙江西部, a bare 海南 inside 上海南路).
_PROVINCES_WORDS = (
    "河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 "
    "湖南 广东 海南 四川 贵州 云南 陕西 甘肃 青海 台湾"
)
_PROVINCES = tuple(_PROVINCES_WORDS.split())
_MUNICIPALITIES = ("北京", "天津", "上海", "重庆")
_AUTONOMOUS = {
    "内蒙古": "内蒙古自治区",
    "广西": "广西壮族自治区",
    "西藏": "西藏自治区",
    "宁夏": "宁夏回族自治区",
    "新疆": "新疆维吾尔自治区",
    "香港": "香港特别行政区",
    "澳门": "澳门特别行政区",
}
_CITIES_WORDS = (
    "石家庄 太原 沈阳 长春 哈尔滨 南京 杭州 合肥 福州 南昌 济南 郑州 武汉 "
    "长沙 广州 海口 成都 贵阳 昆明 西安 兰州 西宁 呼和浩特 南宁 拉萨 银川 "
    "乌鲁木齐 深圳 苏州 青岛 大连 宁波 厦门 无锡 佛山 东莞"
)
_CITIES = tuple(_CITIES_WORDS.split())
_RELATIVE_DATE_WORDS = "次日 翌日 当日 当天 同日 即日 次月 当月 本月 上月 下月 今年 去年 明年 今天 昨天 明天 前天 后天"
RELATIVE_DATES = tuple(_RELATIVE_DATE_WORDS.split())


def region_terms() -> list[str]:
    """Return the region gazetteer: formal names plus the bare names safe to match in running text."""
    terms = [f"{name}省" for name in _PROVINCES]
    terms += [name for name in _MUNICIPALITIES] + [f"{name}市" for name in _MUNICIPALITIES]
    terms += list(_AUTONOMOUS) + list(_AUTONOMOUS.values())
    terms += [name for name in _CITIES] + [f"{name}市" for name in _CITIES]
    return terms


def ruler_patterns() -> list[dict[str, Any]]:
    """Return EntityRuler phrase patterns; each pattern's id becomes the entity's rule id."""
    patterns: list[dict[str, Any]] = [{"label": "PARTY", "pattern": role, "id": "party.role"} for role in PARTY_ROLES]
    patterns += [{"label": "REGION", "pattern": term, "id": "region.gazetteer"} for term in region_terms()]
    patterns += [{"label": "DATE", "pattern": word, "id": "date.relative"} for word in RELATIVE_DATES]
    return patterns
