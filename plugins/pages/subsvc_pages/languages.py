"""The cabinet's languages: the ``AVAILABLE_LANGUAGES`` setting, normalised and deduplicated,
with the names and flags of the known ones."""

from __future__ import annotations

from subsvc_pages.cabinet_schemas import LanguageItem
from subsvc_pages.service import DEFAULT_LANGUAGE, normalize_language

KNOWN = {
    "ru": ("Русский", "🇷🇺"),
    "en": ("English", "🇬🇧"),
    "ua": ("Українська", "🇺🇦"),
    "zh": ("中文", "🇨🇳"),
    "fa": ("فارسی", "🇮🇷"),
}
UNKNOWN_FLAG = "🌐"


def available(setting: str) -> list[str]:
    """The codes of the setting in order, normalised, without repeats (the default language
    when it names none)."""
    codes = [normalize_language(part) for part in setting.split(",") if part.strip()]
    return list(dict.fromkeys(codes)) or [DEFAULT_LANGUAGE]


def describe(code: str) -> LanguageItem:
    name, flag = KNOWN.get(code, (code.upper(), UNKNOWN_FLAG))
    return LanguageItem(code=code, name=name, flag=flag)
