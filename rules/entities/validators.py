"""Checksums and plausibility checks that turn digit runs into identifiers (GB 11643, Luhn)."""

from __future__ import annotations

import datetime as dt

# GB 11643-1999: weights 2^(17-i) mod 11 and the check character indexed by the weighted sum mod 11.
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK_CHARS = "10X98765432"
# First two digits of a resident ID are a province-level code (GB/T 2260); 71/81/82 are Taiwan, HK and Macao.
_PROVINCE_CODES = frozenset(
    {11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46, 50, 51, 52, 53, 54,
     61, 62, 63, 64, 65, 71, 81, 82}
)  # fmt: skip
_OLDEST_BIRTH_YEAR = 1900


def resident_id_check_char(first17: str) -> str:
    """Return the GB 11643 check character ('0'-'9' or 'X') for the first 17 digits of a resident ID."""
    total = sum(int(digit) * weight for digit, weight in zip(first17, _ID_WEIGHTS, strict=True))
    return _ID_CHECK_CHARS[total % 11]


def _plausible_birthdate(year: int, month: int, day: int, today: dt.date | None = None) -> bool:
    """Return whether a birth date exists and lies between 1900 and today."""
    try:
        born = dt.date(year, month, day)
    except ValueError:
        return False
    return year >= _OLDEST_BIRTH_YEAR and born <= (today or dt.date.today())


def is_resident_id(candidate: str, today: dt.date | None = None) -> bool:
    """Return whether an 18-character string is a valid resident ID: region, birth date and checksum."""
    if len(candidate) != 18 or not candidate[:17].isascii() or not candidate[:17].isdigit():
        return False
    if int(candidate[:2]) not in _PROVINCE_CODES:
        return False
    if not _plausible_birthdate(int(candidate[6:10]), int(candidate[10:12]), int(candidate[12:14]), today):
        return False
    return resident_id_check_char(candidate[:17]) == candidate[17].upper()


def is_legacy_resident_id(candidate: str) -> bool:
    """Return whether a 15-digit string looks like a pre-1999 resident ID (region and 19YYMMDD birth date)."""
    if len(candidate) != 15 or not candidate.isascii() or not candidate.isdigit():
        return False
    if int(candidate[:2]) not in _PROVINCE_CODES:
        return False
    return _plausible_birthdate(1900 + int(candidate[6:8]), int(candidate[8:10]), int(candidate[10:12]))


def luhn_valid(digits: str) -> bool:
    """Return whether an ASCII digit string passes the Luhn (mod 10) check used by bank cards."""
    if not digits.isascii() or not digits.isdigit():
        return False
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0
