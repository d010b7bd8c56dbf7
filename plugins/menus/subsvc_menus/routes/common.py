"""What every route module of the plugin shares: its settings, the editor of a change and
the change event. The service's refusals are answered as ``plugin.py`` declares them."""

from __future__ import annotations

from pydantic import BaseModel
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.auth.principal import Principal
from subsvc.services import services
from subsvc_menus.settings import MenusSettings
from subsvc_menus.store import Editor

UPDATED = "menu.updated"


class MenuUpdated(BaseModel):
    """A menu document or list changed: ``document`` is ``bot_layout``, ``cabinet_layout``,
    ``button_styles``, ``main_menu_buttons`` or ``user_messages``."""

    document: str
    action: str


def settings(request: Request) -> MenusSettings:
    return MenusSettings.of(request.app)


def editor(request: Request, principal: Principal) -> Editor:
    """The change's author for the layout history, and how much history is kept."""
    who = f"{principal.kind}:{principal.id}" + (f" {principal.name}" if principal.name else "")
    return Editor(user_info=who[:255], keep=settings(request).MENUS_HISTORY_KEEP)


def publish(request: Request, session: AsyncSession, document: str, action: str) -> None:
    """Tell subscribers (webhooks, the admin WebSocket, bot instances) once the change commits."""
    services(request.app).events.publish(session, UPDATED, MenuUpdated(document=document, action=action))
