"""`/menu-layout` (tag menu-layout), the layout as a whole: read, replace, reset, check,
export, import, preview, the catalogue of builtin buttons, callbacks and placeholders, and
the history with rollback."""

from __future__ import annotations

from typing import Any, Literal

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Limit, Offset, Router, from_attributes
from subsvc.auth.principal import Principal
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_menus import catalogue, history, store
from subsvc_menus import layout as rules
from subsvc_menus.routes.common import editor, publish, settings
from subsvc_menus.schemas.layout import (
    AvailableCallback,
    AvailableCallbacksResponse,
    BuiltinButtonInfo,
    BuiltinButtonsListResponse,
    ButtonConditions,
    DynamicPlaceholder,
    DynamicPlaceholdersResponse,
    LayoutIssue,
    MenuLayout,
    MenuLayoutExportResponse,
    MenuLayoutHistoryDetail,
    MenuLayoutHistoryEntry,
    MenuLayoutHistoryResponse,
    MenuLayoutImportRequest,
    MenuLayoutImportResponse,
    MenuLayoutResponse,
    MenuLayoutUpdateRequest,
    MenuLayoutValidateRequest,
    MenuLayoutValidateResponse,
    MenuPreviewRequest,
    MenuPreviewResponse,
)
from subsvc_menus.visibility import MenuContext, keyboard

router = Router(area="web", tag="menu-layout", prefix="/menu-layout")
DOCUMENT = "bot_layout"
INVALID = {400: "The layout would be invalid (every problem named)"}
HISTORY_NOT_FOUND = {404: "History entry not found"}


def respond(request: Request, saved: store.Saved) -> MenuLayoutResponse:
    return from_attributes(
        MenuLayoutResponse,
        saved.layout,
        is_enabled=settings(request).MENU_LAYOUT_ENABLED,
        updated_at=saved.updated_at,
    )


@router.get("")
async def get_menu_layout(request: Request, session: AsyncSession) -> MenuLayoutResponse:
    """Получить текущую конфигурацию меню (the defaults until it is first changed)."""
    return respond(request, await store.current(session))


@router.put("", responses=INVALID)
async def update_menu_layout(
    request: Request, session: AsyncSession, principal: Principal, payload: MenuLayoutUpdateRequest
) -> MenuLayoutResponse:
    """Обновить конфигурацию меню полностью: the rows and/or the buttons given replace the
    current ones. Texts with placeholders get ``dynamic_text``. 400 names every problem of
    the result (unknown or repeated buttons, duplicate rows, bad URLs...)."""

    def replace(layout: MenuLayout) -> None:
        if payload.rows is not None:
            layout.rows = payload.rows
        if payload.buttons is not None:
            layout.buttons = payload.buttons
            for button in layout.buttons.values():
                button.dynamic_text = button.dynamic_text or rules.has_placeholders(button.text)

    _, saved = await store.edit(
        session, editor(request, principal), replace, action="update", summary="Layout replaced"
    )
    publish(request, session, DOCUMENT, "update")
    return respond(request, saved)


@router.post("/reset")
async def reset_menu_layout(
    request: Request, session: AsyncSession, principal: Principal
) -> MenuLayoutResponse:
    """Сбросить конфигурацию к дефолтной."""
    saved = await store.reset(session, editor(request, principal))
    publish(request, session, DOCUMENT, "reset")
    return respond(request, saved)


@router.get("/builtin-buttons")
async def list_builtin_buttons() -> BuiltinButtonsListResponse:
    """Получить список встроенных кнопок."""
    items = [
        BuiltinButtonInfo(
            id=key,
            default_text={"ru": ru, "en": en},
            callback_data=action,
            default_conditions=ButtonConditions(**conditions) if conditions else None,
            supports_dynamic_text=dynamic,
            supports_direct_open=direct,
        )
        for key, (action, ru, en, _, _, conditions, dynamic, direct) in catalogue.BUILTIN.items()
    ]
    return BuiltinButtonsListResponse(items=items, total=len(items))


@router.get("/available-callbacks")
async def list_available_callbacks(session: AsyncSession) -> AvailableCallbacksResponse:
    """Получить список всех доступных callback_data для создания кнопок; ``is_in_menu`` when a
    button of the layout already sends it."""
    layout = (await store.current(session)).layout
    used = {button.action for button in layout.buttons.values()} | set(layout.buttons)
    items = [
        AvailableCallback(
            callback_data=data,
            name=name,
            category=category,
            default_text={"ru": f"{icon} {ru}", "en": f"{icon} {en}"},
            default_icon=icon,
            requires_subscription=needs_subscription,
            is_in_menu=data in used,
        )
        for data, name, category, icon, ru, en, needs_subscription in catalogue.CALLBACKS
    ]
    categories = sorted({item.category for item in items})
    return AvailableCallbacksResponse(items=items, total=len(items), categories=categories)


@router.get("/placeholders")
async def list_dynamic_placeholders() -> DynamicPlaceholdersResponse:
    """Получить список доступных динамических плейсхолдеров для текста кнопок."""
    items = [
        DynamicPlaceholder(placeholder=p, description=d, example=e, category=c)
        for p, d, e, c in catalogue.PLACEHOLDERS
    ]
    return DynamicPlaceholdersResponse(items=items, total=len(items))


@router.get("/export")
async def export_menu_layout(request: Request, session: AsyncSession) -> MenuLayoutExportResponse:
    """Экспортировать конфигурацию меню (what `POST /menu-layout/import` takes back)."""
    layout = (await store.current(session)).layout
    bot_version = services(request.app).settings.BOT_VERSION
    return from_attributes(MenuLayoutExportResponse, layout, exported_at=utcnow(), bot_version=bot_version)


@router.post("/import", responses=INVALID)
async def import_menu_layout(
    request: Request, session: AsyncSession, principal: Principal, payload: MenuLayoutImportRequest
) -> MenuLayoutImportResponse:
    """Импортировать конфигурацию меню: ``replace`` puts it in place of the current layout;
    ``merge`` adds the rows and buttons the layout lacks (a warning for each one skipped).
    The counts are what was imported. 400 when the result would be invalid."""
    incoming = MenuLayout(version=payload.version, rows=payload.rows, buttons=payload.buttons)
    counts: dict[str, Any] = {}

    def apply(layout: MenuLayout) -> None:
        if payload.merge_mode == "replace":
            result, rows, buttons = incoming, len(incoming.rows), len(incoming.buttons)
            warnings: list[str] = []
        else:
            result, rows, buttons, warnings = rules.merged(layout, incoming)
        layout.version, layout.rows, layout.buttons = result.version, result.rows, result.buttons
        counts.update(imported_rows=rows, imported_buttons=buttons, warnings=warnings)

    summary = f"Import ({payload.merge_mode})"
    await store.edit(session, editor(request, principal), apply, action="import", summary=summary)
    publish(request, session, DOCUMENT, "import")
    return MenuLayoutImportResponse(success=True, **counts)


def _issues(found: list[rules.Issue], severity: Literal["error", "warning"]) -> list[LayoutIssue]:
    return [
        LayoutIssue(
            loc=loc,
            msg=message,
            type=kind,
            field=".".join(str(part) for part in loc),
            message=message,
            severity=severity,
        )
        for loc, kind, message in found
    ]


@router.post("/validate")
async def validate_menu_layout(
    session: AsyncSession, payload: MenuLayoutValidateRequest
) -> MenuLayoutValidateResponse:
    """Валидировать конфигурацию меню без сохранения: the rows and buttons given (the saved
    ones where one part is left out; the saved layout when both are). Errors keep a layout
    from being saved; warnings do not."""
    layout = (await store.current(session)).layout
    if payload.rows is not None:
        layout.rows = payload.rows
    if payload.buttons is not None:
        layout.buttons = payload.buttons
    errors, warnings = rules.check(layout)
    return MenuLayoutValidateResponse(
        is_valid=not errors, errors=_issues(errors, "error"), warnings=_issues(warnings, "warning")
    )


@router.post("/preview")
async def preview_menu(session: AsyncSession, payload: MenuPreviewRequest) -> MenuPreviewResponse:
    """Предпросмотр меню для указанного контекста пользователя: the keyboard lines that user
    sees (visibility, conditions, texts in the language with placeholders filled). What the
    request does not say counts as none or zero; the bot's feature switches as on."""
    layout = (await store.current(session)).layout
    lines = keyboard(layout, MenuContext(**payload.model_dump()))
    return MenuPreviewResponse(rows=lines, total_buttons=sum(len(line.buttons) for line in lines))


@router.get("/history")
async def get_menu_layout_history(
    session: AsyncSession, limit: Limit = 50, offset: Offset = 0
) -> MenuLayoutHistoryResponse:
    """Получить историю изменений меню, newest first (``MENUS_HISTORY_KEEP`` entries are kept)."""
    entries, total = await history.page(session, limit, offset)
    items = [MenuLayoutHistoryEntry.model_validate(entry, from_attributes=True) for entry in entries]
    return MenuLayoutHistoryResponse(items=items, total=total)


async def _entry(session: AsyncSession, history_id: int) -> Any:
    entry = await history.entry(session, history_id)
    if entry is None:
        raise HTTPError(404, f"History entry {history_id} not found")
    return entry


@router.get("/history/{history_id}", responses=HISTORY_NOT_FOUND)
async def get_history_entry(session: AsyncSession, history_id: int) -> MenuLayoutHistoryDetail:
    """Получить конкретную запись истории с полной конфигурацией (``config``)."""
    return MenuLayoutHistoryDetail.model_validate(await _entry(session, history_id), from_attributes=True)


@router.post("/history/{history_id}/rollback", responses={**HISTORY_NOT_FOUND, **INVALID})
async def rollback_to_history(
    request: Request, session: AsyncSession, principal: Principal, history_id: int
) -> MenuLayoutResponse:
    """Откатить конфигурацию к записи из истории (recorded as a ``rollback`` entry)."""
    target = rules.load((await _entry(session, history_id)).config)

    def restore(layout: MenuLayout) -> None:
        layout.version, layout.rows, layout.buttons = target.version, target.rows, target.buttons

    summary = f"Rollback to history #{history_id}"
    _, saved = await store.edit(
        session, editor(request, principal), restore, action="rollback", summary=summary
    )
    publish(request, session, DOCUMENT, "rollback")
    return respond(request, saved)
