"""The support contact (`SUPPORT_USERNAME`) as the cabinet shows it: a messenger username
(``@name``, ``name``, or a link under ``SUPPORT_MESSENGER_LINK_BASE``) or any URL."""

from __future__ import annotations

import re
from dataclasses import dataclass

USERNAME = re.compile(r"@?([A-Za-z][A-Za-z0-9_]{4,31})")
SCHEMES = ("https://", "http://")


@dataclass(frozen=True)
class Contact:
    url: str | None
    username: str | None  # "@name" when the contact is a messenger username
    is_messenger: bool


def _without_scheme(text: str) -> str:
    for scheme in SCHEMES:
        if text.lower().startswith(scheme):
            return text[len(scheme) :]
    return text


def contact(value: str | None, link_base: str) -> Contact:
    """``@name`` -> (``<base>name``, ``@name``, messenger); a link under ``link_base`` (with
    or without its scheme) -> the same; anything else -> the URL as given; nothing -> none."""
    text = (value or "").strip()
    if not text:
        return Contact(None, None, False)
    base = link_base if link_base.endswith("/") else link_base + "/"
    bare, bare_base = _without_scheme(text), _without_scheme(base)
    name = bare[len(bare_base) :] if bare.lower().startswith(bare_base.lower()) else text
    found = USERNAME.fullmatch(name.rstrip("/"))
    if found is None:
        return Contact(text, None, False)
    return Contact(base + found.group(1), "@" + found.group(1), True)
