"""The e-mails' texts: ``templates/<language>/<name>.{subject,txt,html}``, filled with
:class:`string.Template` (``$link``, ``$code``...). Values are HTML-escaped in the HTML part.
A language without its own files gets English."""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template

FOLDER = Path(__file__).resolve().parent / "templates"
FALLBACK = "en"


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str
    html: str


@cache
def _load(language: str, template: str, part: str) -> Template:
    return Template((FOLDER / language / f"{template}.{part}").read_text(encoding="utf-8"))


def languages() -> set[str]:
    return {path.name for path in FOLDER.iterdir() if path.is_dir()}


def pick_language(language: str | None) -> str:
    """``ru``, ``ru-RU`` -> ``ru`` when there are Russian texts; anything else -> English."""
    code = (language or "").strip().lower()[:2]
    return code if code in languages() else FALLBACK


def render(template: str, language: str | None, /, **values: str) -> Rendered:
    """The subject, plain text and HTML of ``template`` in ``language``."""
    chosen = pick_language(language)
    escaped = {key: html.escape(value) for key, value in values.items()}
    return Rendered(
        subject=_load(chosen, template, "subject").substitute(values).strip(),
        text=_load(chosen, template, "txt").substitute(values),
        html=_load(chosen, template, "html").substitute(escaped),
    )
