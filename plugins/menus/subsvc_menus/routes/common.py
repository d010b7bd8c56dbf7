"""What every route module of the plugin shares: its settings, the editor of a change, the
change event, and the service's refusals as HTTP answers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pydantic import BaseModel
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError
from subsvc.auth.principal import Principal
from subsvc_menus.cabinet import CabinetMenuError
from subsvc_menus.layout import LayoutError
from subsvc_menus.main_menu import MenuRuleError, NotFound
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
    request.app.state.events.publish(session, UPDATED, MenuUpdated(document=document, action=action))


@contextmanager
def refusals() -> Iterator[None]:
    """The service's refusals as 400/404/409 answers."""
    try:
        yield
    except LayoutError as exc:
        raise HTTPError(exc.status, exc.message) from None
    except NotFound as exc:
        raise HTTPError(404, str(exc)) from None
    except (MenuRuleError, CabinetMenuError) as exc:
        raise HTTPError(400, str(exc)) from None
