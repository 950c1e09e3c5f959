"""Money and percentage expressions in Chinese text: Arabic, Chinese (大写/小写) and mixed numerals."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

__all__ = [
    "AmountMatch",
    "PercentMatch",
    "ascii_digits",
    "find_amounts",
    "find_percentages",
    "parse_amount",
    "parse_chinese_number",
    "parse_number",
    "parse_percentage",
]

_DIGIT_VALUES = {
    "零": 0, "〇": 0, "○": 0, "Ｏ": 0,
    "一": 1, "壹": 1, "幺": 1,
    "二": 2, "贰": 2, "貳": 2, "两": 2, "兩": 2,
    "三": 3, "叁": 3, "參": 3, "叄": 3,
    "四": 4, "肆": 4,
    "五": 5, "伍": 5,
    "六": 6, "陆": 6, "陸": 6,
    "七": 7, "柒": 7,
    "八": 8, "捌": 8,
    "九": 9, "玖": 9,
}  # fmt: skip
_SMALL_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_BIG_UNITS = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
_MULTIPLIERS = {**_SMALL_UNITS, **_BIG_UNITS}

_CN_DIGIT_CLASS = "零〇○一壹二贰貳两兩三叁參叄四肆五伍六陆陸七柒八捌九玖"
_CN_UNIT_CLASS = "十拾百佰千仟万萬亿億"
_CN_NUM = f"[{_CN_DIGIT_CLASS}{_CN_UNIT_CLASS}]+(?:点[{_CN_DIGIT_CLASS}]+[{_CN_UNIT_CLASS}]*)?"
_AR_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_NUMBER = rf"(?:(?:{_AR_NUM})\s?[{_CN_UNIT_CLASS}]*|{_CN_NUM})"
_COIN_DIGIT = rf"(?:零|〇)?[\d{_CN_DIGIT_CLASS}]"
_SMALL_COIN = rf"(?:(?P<jiao>{_COIN_DIGIT})角)?(?:(?P<fen>{_COIN_DIGIT})分)?"

# Longer alternatives first so "US$" wins over "$" and "人民币元" is not read as a bare 元.
_PREFIX = r"人民币|RMB|CNY|USD|US\$|HKD|HK\$|EUR|[¥￥$＄€£]"
_UNIT = r"元|圆|块钱|美元|美金|欧元|港元|港币|日元|英镑"
# "人民币（大写）：壹万元整" — the label between the currency and the digits is noise, not a number.
_PREFIX_NOISE = r"\s*(?:[（(]\s*(?:大写|小写)\s*[)）])?\s*[：:]?\s*"

_AMOUNT_RE = re.compile(
    rf"(?:(?P<prefix>{_PREFIX}){_PREFIX_NOISE})?(?P<number>{_NUMBER})\s?"
    rf"(?:(?P<unit>{_UNIT}){_SMALL_COIN}(?P<whole>整|正)?)?",
    re.IGNORECASE,
)
_PERCENT_RE = re.compile(rf"(?P<ar>{_AR_NUM})\s?[%％]|(?P<scale>百分之|千分之|万分之)(?P<frac>{_AR_NUM}|{_CN_NUM})")
_PERCENT_SCALE = {"百分之": Decimal(1), "千分之": Decimal("0.1"), "万分之": Decimal("0.01"), "%": Decimal(1)}

_CURRENCY_BY_CUE = {
    "美元": "USD", "美金": "USD", "usd": "USD", "us$": "USD", "$": "USD", "＄": "USD",
    "欧元": "EUR", "eur": "EUR", "€": "EUR",
    "港元": "HKD", "港币": "HKD", "hkd": "HKD", "hk$": "HKD",
    "日元": "JPY", "英镑": "GBP", "£": "GBP",
}  # fmt: skip


@dataclass(frozen=True)
class AmountMatch:
    """A money expression found in text: character offsets, raw text, value and ISO currency."""

    start: int
    end: int
    raw: str
    value: Decimal
    currency: str


@dataclass(frozen=True)
class PercentMatch:
    """A percentage found in text; value is in percent (百分之二十 → 20, 千分之五 → 0.5)."""

    start: int
    end: int
    raw: str
    value: Decimal


def ascii_digits(text: str) -> str:
    """Return text with every Unicode decimal digit (全角 １２３ …) replaced by its ASCII form."""
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in text)


def _tidy(value: Decimal) -> Decimal:
    """Return value without a trailing '.0' from multiplication, keeping cents such as 1200.50."""
    return value.to_integral_value() if value == value.to_integral_value() else value


def parse_chinese_number(text: str) -> Decimal | None:
    """Parse a Chinese numeral (一千二百, 壹拾万, 二〇二三, 五点五, 一万五) or return None."""
    text = text.strip()
    if not text:
        return None
    integer_part, _, fraction_part = text.partition("点")
    if fraction_part:
        if not all(ch in _DIGIT_VALUES for ch in fraction_part):
            # "一点五万" — the decimal point sits before a trailing multiplier.
            digits = fraction_part.rstrip(_CN_UNIT_CLASS)
            trailing = fraction_part[len(digits) :]
            head = parse_chinese_number(f"{integer_part}点{digits}") if digits else None
            scale = _multiplier_product(trailing)
            return None if head is None or scale is None else _tidy(head * scale)
        whole = _chinese_integer(integer_part) if integer_part else 0
        if whole is None:
            return None
        fraction = "".join(str(_DIGIT_VALUES[ch]) for ch in fraction_part)
        return Decimal(f"{whole}.{fraction}")
    value = _chinese_integer(text)
    return None if value is None else Decimal(value)


def _chinese_integer(text: str) -> int | None:
    """Return the integer a Chinese numeral names, or None when it is malformed."""
    if not text:
        return None
    if all(ch in _DIGIT_VALUES or ch.isdecimal() for ch in text):
        # A bare digit string (二〇二三, 幺三八) is read digit by digit, as in years and phone numbers.
        return int("".join(str(_DIGIT_VALUES.get(ch, ch)) for ch in ascii_digits(text)))
    total = section = 0
    digit: int | None = None
    last_unit = 0
    after_zero = False  # the previous character was 零
    zero_gap = False  # a 零 since the last unit: 一百零五 is 105, not the colloquial 150
    saw_digit = False
    for ch in text:
        if ch in _DIGIT_VALUES or ch.isdecimal():
            if digit is not None and not after_zero:
                return None  # two digits without a unit between them ("一二百") is not a number
            digit = _DIGIT_VALUES[ch] if ch in _DIGIT_VALUES else int(ascii_digits(ch))
            after_zero = digit == 0
            zero_gap = zero_gap or after_zero
            saw_digit = True
            if after_zero:
                digit = None
        elif ch in _SMALL_UNITS:
            unit = _SMALL_UNITS[ch]
            if digit is None:
                if saw_digit and ch not in "十拾":
                    return None  # "一百千" stacks units without a digit
                digit = 1  # 十万 / 一千零十 / 百万: a unit without a digit means one of it
            section += (1 if digit is None else digit) * unit
            digit, last_unit, after_zero, zero_gap = None, unit, False, False
            saw_digit = True
        elif ch in _BIG_UNITS:
            unit = _BIG_UNITS[ch]
            section += digit or 0
            if unit == 10**8:
                total = (total + section) * unit
            else:
                total += (section or (0 if total else 1)) * unit
            section, digit, last_unit, after_zero, zero_gap = 0, None, unit, False, False
            saw_digit = True
        else:
            return None
    if digit is not None:
        # Colloquial 一万五 / 两千三 mean 15000 / 2300: a trailing digit counts in the next lower place.
        section += digit * (last_unit // 10 if last_unit >= 100 and not zero_gap else 1)
    return total + section


def _multiplier_product(units: str) -> Decimal | None:
    """Return the product of trailing multipliers (千万 → 10^7), or None if any is unknown."""
    product = Decimal(1)
    for ch in units:
        if ch not in _MULTIPLIERS:
            return None
        product *= _MULTIPLIERS[ch]
    return product


_ARABIC_WITH_UNITS = re.compile(rf"(?P<num>{_AR_NUM})\s?(?P<units>[{_CN_UNIT_CLASS}]*)")


def parse_number(text: str) -> Decimal | None:
    """Parse an Arabic (1,200.50), Chinese (一千二百) or mixed (5.5万, 3千) number, or return None."""
    text = ascii_digits(text.strip())
    if not text:
        return None
    arabic = _ARABIC_WITH_UNITS.fullmatch(text)
    if arabic:
        try:
            base = Decimal(arabic["num"].replace(",", ""))
        except InvalidOperation:  # pragma: no cover - the regex admits only valid decimals
            return None
        scale = _multiplier_product(arabic["units"])
        return None if scale is None else _tidy(base * scale)
    if any(ch.isdecimal() for ch in text):
        # Mixed forms such as 3千5百 are read by the Chinese parser, which accepts ASCII digits too.
        value = _chinese_integer(text)
        return None if value is None else Decimal(value)
    return parse_chinese_number(text)


def _currency(*cues: str | None) -> str:
    """Return the ISO currency a prefix or unit implies; Chinese text defaults to CNY."""
    for cue in cues:
        if cue and cue.lower() in _CURRENCY_BY_CUE:
            return _CURRENCY_BY_CUE[cue.lower()]
    return "CNY"


def _has_real_digit(number: str) -> bool:
    """Return whether a number has a digit, so bare units such as the 万元 of 单位：万元 are not amounts."""
    return any(ch.isdecimal() or ch in _DIGIT_VALUES or ch in "十拾" for ch in number)


def _amount_value(match: re.Match[str]) -> Decimal | None:
    """Return the value of a regex money match, adding 角 and 分, or None if the number is malformed."""
    number = match["number"]
    if not _has_real_digit(number):
        return None
    value = parse_number(number)
    if value is None:
        return None
    for group, scale in (("jiao", Decimal("0.1")), ("fen", Decimal("0.01"))):
        coin = (match[group] or "").lstrip("零〇")
        if coin:
            value += scale * (_DIGIT_VALUES[coin] if coin in _DIGIT_VALUES else int(ascii_digits(coin)))
    return _tidy(value)


def parse_amount(text: str) -> Decimal | None:
    """Parse one money expression (¥1,200.50, 人民币伍万元整, 5.5万元, 壹佰元伍角叁分) or return None."""
    text = text.strip()
    match = _AMOUNT_RE.fullmatch(text)
    if match is None:
        return None
    return _amount_value(match)


def find_amounts(text: str) -> list[AmountMatch]:
    """Return money expressions in text; each needs a cue (元, ¥, 人民币, RMB …) so 2023年 is not money."""
    found: list[AmountMatch] = []
    for match in _AMOUNT_RE.finditer(text):
        if not (match["prefix"] or match["unit"]):
            continue
        value = _amount_value(match)
        if value is None:
            continue
        end = match.end()
        raw = match.group()
        # The optional space before a unit is only part of the amount when a unit follows it.
        stripped = raw.rstrip()
        end -= len(raw) - len(stripped)
        currency = _currency(match["prefix"], match["unit"])
        found.append(AmountMatch(match.start(), end, stripped, value, currency))
    return found


def _percent_value(match: re.Match[str]) -> Decimal | None:
    """Return the percent value of a percentage regex match, or None when malformed."""
    if match["ar"]:
        return parse_number(match["ar"])
    fraction = parse_number(match["frac"])
    if fraction is None:
        return None
    return _tidy(fraction * _PERCENT_SCALE[match["scale"]])


def parse_percentage(text: str) -> Decimal | None:
    """Parse one percentage (20%, 百分之二十, 百分之五点五, 千分之五, 万分之五) in percent, or None."""
    match = _PERCENT_RE.fullmatch(text.strip())
    return None if match is None else _percent_value(match)


def find_percentages(text: str) -> list[PercentMatch]:
    """Return every percentage expression in text with its value in percent."""
    found: list[PercentMatch] = []
    for match in _PERCENT_RE.finditer(text):
        value = _percent_value(match)
        if value is not None:
            found.append(PercentMatch(match.start(), match.end(), match.group(), value))
    return found
