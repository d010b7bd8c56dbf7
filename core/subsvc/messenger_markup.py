"""The messenger's HTML (Bot API ``parse_mode=HTML``): what a message may contain.

:func:`clean` answers the text as it will be sent, or raises :class:`MarkupError` naming the
first problem and where it is. Allowed: ``b``/``strong``, ``i``/``em``, ``u``/``ins``,
``s``/``strike``/``del``, ``span class="tg-spoiler"``, ``tg-spoiler``, ``a href``, ``code``
(``class="language-x"`` inside ``pre``), ``pre``, ``blockquote`` (optionally ``expandable``)
and ``tg-emoji emoji-id``; the entities ``&lt; &gt; &amp; &quot;`` and numeric ones. Tags must
be closed in order; ``pre`` holds only ``code``, ``code`` holds no tags, block quotes do not
nest. A ``<``, ``>`` or ``&`` that starts no tag or entity is escaped (``a < b`` stays
readable), as the reference's sanitiser does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PLAIN_TAGS = frozenset({"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "tg-spoiler", "pre"})
ALLOWED_TAGS = PLAIN_TAGS | {"span", "a", "code", "blockquote", "tg-emoji"}
NAMED_ENTITIES = frozenset({"lt", "gt", "amp", "quot"})
LINK_SCHEMES = ("http://", "https://", "tg://", "mailto:")
ALLOWED_LIST = (
    'b, strong, i, em, u, ins, s, strike, del, span class="tg-spoiler", tg-spoiler, a href, code, pre, '
    "blockquote, tg-emoji"
)

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^<>]*)>")
_ATTRIBUTE = re.compile(
    r"\s*([A-Za-z_:][-A-Za-z0-9_:.]*)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'=<>`]+)))?"
)
_ENTITY = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
_LANGUAGE = re.compile(r"language-[A-Za-z0-9_+#.-]{1,64}")


MAX_CODE_POINT = 0x10FFFF


class MarkupError(ValueError):
    """The text is not valid messenger HTML; the message says what and where."""


@dataclass(frozen=True, slots=True)
class _Open:
    name: str
    at: int


def _fail(problem: str, at: int) -> MarkupError:
    return MarkupError(f"Invalid HTML: {problem} (at character {at + 1})")


def _code_point(entity: str) -> int:
    """The character a numeric entity (``#65``, ``#x41``) names."""
    return int(entity[2:], 16) if entity[1:2] in ("x", "X") else int(entity[1:])


def _attributes(raw: str, tag: str, at: int) -> dict[str, str | None]:
    """The attributes of a start tag; malformed ones and repeats are errors."""
    found: dict[str, str | None] = {}
    position = 0
    body = raw.rstrip()
    while position < len(body):
        match = _ATTRIBUTE.match(body, position)
        if match is None or match.end() == position:
            raise _fail(f"malformed attributes in <{tag}>", at)
        name = match.group(1).lower()
        if name in found:
            raise _fail(f'attribute "{name}" is given twice in <{tag}>', at)
        values = [v for v in match.group(2, 3, 4) if v is not None]
        found[name] = values[0] if values else None
        position = match.end()
    return found


def _only(attributes: dict[str, str | None], tag: str, allowed: set[str], at: int) -> None:
    for name in attributes:
        if name not in allowed:
            raise _fail(f'attribute "{name}" is not allowed in <{tag}>', at)


def _check_start(tag: str, attributes: dict[str, str | None], parent: str | None, at: int) -> None:
    """The rules of one start tag: its attributes and where it may stand."""
    if parent == "code":
        raise _fail(f"<code> cannot contain tags, found <{tag}>", at)
    if parent == "pre" and tag != "code":
        raise _fail(f"<pre> may contain only <code>, found <{tag}>", at)
    if tag in PLAIN_TAGS:
        _only(attributes, tag, set(), at)
    elif tag == "span":
        _only(attributes, tag, {"class"}, at)
        if attributes.get("class") != "tg-spoiler":
            raise _fail('<span> is allowed only as <span class="tg-spoiler">', at)
    elif tag == "a":
        _only(attributes, tag, {"href"}, at)
        href = (attributes.get("href") or "").strip()
        if not href:
            raise _fail("<a> needs an href attribute", at)
        if not href.lower().startswith(LINK_SCHEMES):
            raise _fail(f"the link {href!r} must start with http://, https://, tg:// or mailto:", at)
    elif tag == "code":
        _only(attributes, tag, {"class"}, at)
        language = attributes.get("class")
        if language is not None and (parent != "pre" or not _LANGUAGE.fullmatch(language)):
            raise _fail('<code> takes only class="language-..." and only inside <pre>', at)
    elif tag == "blockquote":
        _only(attributes, tag, {"expandable"}, at)
        if attributes.get("expandable"):
            raise _fail("expandable takes no value in <blockquote>", at)
    elif tag == "tg-emoji":
        _only(attributes, tag, {"emoji-id"}, at)
        if not (attributes.get("emoji-id") or "").isdigit():
            raise _fail("<tg-emoji> needs a numeric emoji-id attribute", at)


def clean(text: str) -> str:
    """The text as it will be sent (stray ``<``, ``>`` and ``&`` escaped), or
    :class:`MarkupError` for an unsupported tag, attribute or entity, or tags that are not
    closed in order."""
    out: list[str] = []
    stack: list[_Open] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char == "<":
            match = _TAG.match(text, position)
            if match is None:
                out.append("&lt;")
                position += 1
                continue
            closing, name, rest = match.group(1) == "/", match.group(2).lower(), match.group(3)
            if name not in ALLOWED_TAGS:
                raise _fail(f"unsupported tag <{name}>; the messenger allows {ALLOWED_LIST}", position)
            if rest.rstrip().endswith("/"):
                raise _fail(f"<{name}/> cannot close itself: write <{name}>...</{name}>", position)
            if closing:
                if rest.strip():
                    raise _fail(f"the closing tag </{name}> cannot have attributes", position)
                if not stack:
                    raise _fail(f"</{name}> closes a tag that was never opened", position)
                if stack[-1].name != name:
                    raise _fail(f"</{name}> found where </{stack[-1].name}> was expected", position)
                stack.pop()
            else:
                attributes = _attributes(rest, name, position)
                parent = stack[-1].name if stack else None
                _check_start(name, attributes, parent, position)
                if name == "blockquote" and any(item.name == "blockquote" for item in stack):
                    raise _fail("block quotes cannot be nested", position)
                stack.append(_Open(name, position))
            out.append(match.group(0))
            position = match.end()
        elif char == "&":
            match = _ENTITY.match(text, position)
            if match is None:
                out.append("&amp;")
                position += 1
                continue
            entity = match.group(1)
            if entity.startswith("#") and not 0 < _code_point(entity) <= MAX_CODE_POINT:
                raise _fail(f"the entity &{entity}; names no character", position)
            if not entity.startswith("#") and entity not in NAMED_ENTITIES:
                raise _fail(
                    f"unsupported entity &{entity};: the messenger knows &lt; &gt; &amp; &quot; "
                    "and numeric ones",
                    position,
                )
            out.append(match.group(0))
            position = match.end()
        elif char == ">":
            out.append("&gt;")
            position += 1
        else:
            out.append(char)
            position += 1
    if stack:
        raise _fail(f"<{stack[-1].name}> is not closed", stack[-1].at)
    return "".join(out)


def visible_text(markup: str) -> str:
    """The text a reader sees (tags removed; entities left as they are)."""
    return _TAG.sub("", markup)
