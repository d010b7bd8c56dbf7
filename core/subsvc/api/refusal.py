"""A domain error that carries its own HTTP answer, for the plugins whose rules refuse with
several statuses: ``raise MyRefusal(409, "Id taken")``, declared in the plugin's ``errors`` as
``{MyRefusal: Refusal.answer}``."""

from __future__ import annotations


class Refusal(Exception):
    """A refusal of a plugin's rules: answered ``status`` with ``detail``."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail

    def answer(self) -> tuple[int, str]:
        """The HTTP answer: the status and the detail."""
        return self.status, self.detail
