"""What an operation served in several areas did, worded by each area's answer model.

The Web API's answers carry their text as ``detail``, the cabinet's as ``message``. A handler
mounted in both (:func:`subsvc.api.operation`) returns an :class:`Outcome`; each mount's
``response_model`` reads from it the fields it has (``success``, ``detail`` or ``message``,
``data``), leaving out the rest. Subclass it for further fields one area's model shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Outcome:
    """An operation's text (``None``: none), whether it succeeded, and its data."""

    text: str | None
    success: bool = True
    data: Any = None

    @property
    def detail(self) -> str | None:
        """The text, as the Web API's answers name it."""
        return self.text

    @property
    def message(self) -> str | None:
        """The text, as the cabinet's answers name it."""
        return self.text
