"""Where each document is shown (``bot``, ``web`` or ``both``): the environment's setting when
given (then fixed), else the administrators' stored choice, else ``both``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc_pages.models import DocumentDisplayMode
from subsvc_pages.service import upsert
from subsvc_pages.settings import PagesSettings

Document = Literal["faq", "rules", "privacy", "offer", "recurrent"]
DOCUMENTS: tuple[Document, ...] = ("faq", "rules", "privacy", "offer", "recurrent")
MODES = ("bot", "web", "both")
DEFAULT_MODE = "both"
SETTING_OF: dict[Document, str] = {
    "faq": "FAQ_DISPLAY_MODE",
    "rules": "SERVICE_RULES_DISPLAY_MODE",
    "privacy": "PRIVACY_POLICY_DISPLAY_MODE",
    "offer": "PUBLIC_OFFER_DISPLAY_MODE",
    "recurrent": "RECURRENT_PAYMENTS_DISPLAY_MODE",
}


class DisplayModeLocked(ValueError):
    """A change of a display mode the environment fixes."""

    def __init__(self, document: Document, mode: str) -> None:
        super().__init__(f"Display mode is fixed by {SETTING_OF[document]}={mode}")


@dataclass(frozen=True)
class DisplayMode:
    """A document's display mode and whether the environment fixes it."""

    mode: str
    env_locked: bool

    @property
    def in_web(self) -> bool:
        """Shown in the cabinet."""
        return self.mode in ("web", "both")


async def display_modes(app: Starlette, session: AsyncSession) -> dict[Document, DisplayMode]:
    """Every document's display mode."""
    settings = PagesSettings.of(app)
    stored = {
        row.document: row.display_mode for row in (await session.exec(select(DocumentDisplayMode))).all()
    }
    modes: dict[Document, DisplayMode] = {}
    for document in DOCUMENTS:
        fixed: str | None = getattr(settings, SETTING_OF[document])
        if fixed is not None:
            modes[document] = DisplayMode(fixed, True)
        else:
            modes[document] = DisplayMode(stored.get(document, DEFAULT_MODE), False)
    return modes


async def display_mode(app: Starlette, session: AsyncSession, document: Document) -> DisplayMode:
    return (await display_modes(app, session))[document]


async def set_display_mode(
    app: Starlette, session: AsyncSession, document: Document, mode: str
) -> DisplayMode:
    """Store a document's mode; :class:`DisplayModeLocked` when the environment fixes another."""
    current = await display_mode(app, session, document)
    if current.env_locked:
        if current.mode != mode:
            raise DisplayModeLocked(document, current.mode)
        return current
    await upsert(session, DocumentDisplayMode, {"document": document}, {"display_mode": mode})
    return DisplayMode(mode, False)
