"""What an upload must be: a known kind, not empty, not too large, never active content (HTML,
SVG, XML, JavaScript: by declared type, by file name and by its first bytes), and a photo a
real JPEG, PNG, GIF or WebP image (by its magic bytes)."""

from __future__ import annotations

import re
from typing import Literal

MediaType = Literal["photo", "video", "document"]
MAX_FILE_BYTES = 10 * 1024 * 1024

UNSUPPORTED = "Unsupported media type"
EMPTY = "File is empty"
TOO_LARGE = "File too large. Maximum size: 10MB"
INVALID_IMAGE = "Invalid image type. Allowed: JPEG, PNG, GIF, WebP"
NOT_ALLOWED = "This file type is not allowed"

IMAGE_TYPES = {"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp"}
# what a photo may declare itself (the content is then checked): an image type, or nothing
DECLARED_IMAGE_TYPES = frozenset({*IMAGE_TYPES, "image/jpg", "image/pjpeg", "", "application/octet-stream"})
ACTIVE_TYPES = frozenset(
    {
        "text/html",
        "application/xhtml+xml",
        "image/svg+xml",
        "text/xml",
        "application/xml",
        "text/xsl",
        "application/xslt+xml",
        "text/javascript",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "text/ecmascript",
        "text/x-component",
    }
)
ACTIVE_EXTENSIONS = frozenset(
    {"html", "htm", "xhtml", "shtml", "mhtml", "mht", "svg", "svgz", "xml", "xsl", "xslt", "js", "mjs", "htc"}
)
# what browsers take for markup at the start of a file (WHATWG MIME sniffing), and SVG
_MARKUP = re.compile(
    rb"<(\?xml|!--|!doctype|svg|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p)"
    rb"(?=[\s>/]|$)"
)
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


class UploadRefused(Exception):
    """The file may not be uploaded; the message is the 400's detail."""


def check(kind: MediaType, data: bytes, filename: str | None, content_type: str | None) -> None:
    """Raise :class:`UploadRefused` unless ``data`` may be staged as ``kind``."""
    if not data:
        raise UploadRefused(EMPTY)
    if len(data) > MAX_FILE_BYTES:
        raise UploadRefused(TOO_LARGE)
    declared = (content_type or "").split(";")[0].strip().lower()
    if kind == "photo":
        if declared not in DECLARED_IMAGE_TYPES:
            raise UploadRefused(INVALID_IMAGE)
        if image_type(data) is None:
            raise UploadRefused(INVALID_IMAGE)
    if is_active(data, filename, declared):
        raise UploadRefused(NOT_ALLOWED)


def is_active(data: bytes, filename: str | None, declared: str) -> bool:
    """Whether the file is (or says it is) something a browser would run or render."""
    if declared in ACTIVE_TYPES or declared.endswith("+xml") or "javascript" in declared:
        return True
    extension = (filename or "").rpartition(".")[2].strip().lower() if "." in (filename or "") else ""
    return extension in ACTIVE_EXTENSIONS or looks_like_markup(data)


def looks_like_markup(data: bytes) -> bool:
    """Whether ``data`` starts (after a byte-order mark and white space) with markup."""
    head = data[:1024]
    if head.startswith(_BOMS[0]):
        head = head[3:]
    elif head[:2] in _BOMS[1:]:
        head = (
            head[2:]
            .decode("utf-16-le" if head[:2] == _BOMS[1] else "utf-16-be", "ignore")
            .encode("ascii", "ignore")
        )
    return _MARKUP.match(head.lstrip(b" \t\r\n\x0c").lower()) is not None


def image_type(data: bytes) -> str | None:
    """The image format by its magic bytes (jpg, png, gif, webp), else None."""
    if data.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def safe_filename(name: str | None, fallback: str = "file") -> str:
    """A file name fit for a header and the messenger: no folders, quotes, backslashes, control
    or non-ASCII characters; at most 128 characters."""
    base = re.split(r"[/\\]", name or "")[-1]
    cleaned = "".join(c if c.isascii() and c.isprintable() and c not in "\"'\\;" else "_" for c in base)
    cleaned = cleaned.strip(" .")[:128]
    return cleaned or fallback
