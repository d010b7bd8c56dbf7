"""`/cabinet/admin/button-styles` (tag Admin Button Styles) and `/cabinet/admin/menu-layout`
(tag Admin Menu Layout): the cabinet's menu. Permissions ``settings:read`` / ``settings:edit``
(the rbac plugin audits every call)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc_menus import cabinet, documents
from subsvc_menus.routes.common import publish, settings
from subsvc_menus.schemas.cabinet import (
    ButtonStylesResponse,
    ButtonStylesUpdate,
    MenuConfigResponse,
    MenuConfigUpdateRequest,
)

READ, EDIT = "settings:read", "settings:edit"
styles_router = Router(area="cabinet-admin", tag="Admin Button Styles", prefix="/cabinet/admin/button-styles")
layout_router = Router(area="cabinet-admin", tag="Admin Menu Layout", prefix="/cabinet/admin/menu-layout")
INVALID = {400: "Refused: the reason is named"}


@styles_router.get("", permission=READ)
async def get_button_styles(request: Request, session: AsyncSession) -> ButtonStylesResponse:
    """Return current per-section button styles. Admin only."""
    return cabinet.styles_response(await cabinet.read_styles(session, settings(request).MENUS_LOCALES))


@styles_router.patch("", permission=EDIT, responses=INVALID)
async def update_button_styles(
    request: Request, session: AsyncSession, payload: ButtonStylesUpdate
) -> ButtonStylesResponse:
    """Partially update per-section button styles. Admin only. A style outside ``primary,
    success, danger, default``, a locale the bot does not speak (``MENUS_LOCALES``) or a label
    over 100 characters is a 400; an empty label removes it."""
    locales = settings(request).MENUS_LOCALES
    styles = await cabinet.take_styles(session, locales)
    cabinet.apply_styles(styles, payload, locales)
    await documents.save(session, documents.BUTTON_STYLES, cabinet.dump_styles(styles))
    publish(request, session, documents.BUTTON_STYLES, "update")
    return cabinet.styles_response(styles)


@styles_router.post("/reset", permission=EDIT)
async def reset_button_styles(request: Request, session: AsyncSession) -> ButtonStylesResponse:
    """Reset all button styles to defaults. Admin only."""
    await documents.take(session, documents.BUTTON_STYLES)
    await documents.save(session, documents.BUTTON_STYLES, None)
    publish(request, session, documents.BUTTON_STYLES, "reset")
    return cabinet.styles_response(cabinet.default_styles())


@layout_router.get("", summary="Get Menu Layout", permission=READ)
async def get_cabinet_menu_layout(request: Request, session: AsyncSession) -> MenuConfigResponse:
    """Return merged menu layout config (rows + button styles). Admin only."""
    styles = await cabinet.read_styles(session, settings(request).MENUS_LOCALES)
    layout = (await documents.read(session, documents.CABINET_LAYOUT)).data
    return cabinet.merged(layout, styles)


@layout_router.put("", summary="Update Menu Layout", permission=EDIT, responses=INVALID)
async def update_cabinet_menu_layout(
    request: Request, session: AsyncSession, payload: MenuConfigUpdateRequest
) -> MenuConfigResponse:
    """Save full menu layout config. Splits into layout + button styles. Admin only. At most
    20 rows of 8 buttons, each button once; builtin buttons are the cabinet's sections,
    custom ones have ids ``custom_*`` and an http(s):// or tg:// URL (https:// to open in the
    Mini App). Both parts are saved in one transaction."""
    locales = settings(request).MENUS_LOCALES
    cabinet.check_rows(payload.rows, locales)
    styles = await cabinet.take_styles(session, locales)
    await documents.take(session, documents.CABINET_LAYOUT)
    layout = cabinet.split(payload.rows, styles)
    await documents.save(session, documents.BUTTON_STYLES, cabinet.dump_styles(styles))
    await documents.save(session, documents.CABINET_LAYOUT, layout)
    publish(request, session, documents.CABINET_LAYOUT, "update")
    return cabinet.merged(layout, styles)


@layout_router.post("/reset", summary="Reset Menu Layout", permission=EDIT)
async def reset_cabinet_menu_layout(request: Request, session: AsyncSession) -> MenuConfigResponse:
    """Reset menu layout AND button styles to defaults. Admin only."""
    for key in (documents.BUTTON_STYLES, documents.CABINET_LAYOUT):
        await documents.take(session, key)
        await documents.save(session, key, None)
    publish(request, session, documents.CABINET_LAYOUT, "reset")
    return cabinet.merged(None, cabinet.default_styles())
