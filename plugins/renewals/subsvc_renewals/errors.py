"""The refusals of the renewal operations: the reference's statuses and texts (a text, or a
``{code, message, ...}`` object), answered as ``{"detail": ...}``."""

from __future__ import annotations

from typing import Any

NO_SUBSCRIPTION = "No subscription found"


class RenewalError(Exception):
    """A renewal, autopay, pause or switch the rules refuse: ``status`` and ``detail`` (what
    the cabinet answers; the mini app maps them onto its own bodies)."""

    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(detail if isinstance(detail, str) else detail.get("message", str(detail)))
        self.status = status
        self.detail = detail

    def answer(self) -> tuple[int, Any]:
        """The HTTP answer: the status and the detail."""
        return self.status, self.detail


def coded(status: int, code: str, message: str, **fields: Any) -> RenewalError:
    """A refusal with a ``{code, message, ...}`` body."""
    return RenewalError(status, {"code": code, "message": message, **fields})
