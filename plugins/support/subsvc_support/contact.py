"""The support contact (`SUPPORT_USERNAME`) as the cabinet shows it: a messenger username
(``@name`` or ``name``, linked through ``SUPPORT_MESSENGER_LINK_BASE``) or any URL."""

from __future__ import annotations

import re
from dataclasses import dataclass

USERNAME = re.compile(r"@?([A-Za-z][A-Za-z0-9_]{3,31})")


@dataclass(frozen=True)
class Contact:
    url: str | None
    username: str | None  # "@name" when the contact is a messenger username
    is_messenger: bool


def contact(value: str | None, link_base: str) -> Contact:
    """``@name`` -> (``<base>name``, ``@name``, messenger); a link under ``link_base`` -> the
    same; anything else -> the URL as given; nothing -> no contact."""
    text = (value or "").strip()
    if not text:
        return Contact(None, None, False)
    base = link_base if link_base.endswith("/") else link_base + "/"
    name = text.removeprefix(base) if text.startswith(base) else text
    found = USERNAME.fullmatch(name.rstrip("/"))
    if found is None:
        return Contact(text, None, False)
    return Contact(base + found.group(1), "@" + found.group(1), True)
