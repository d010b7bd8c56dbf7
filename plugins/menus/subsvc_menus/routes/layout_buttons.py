"""`/menu-layout/buttons` and `/menu-layout/rows` (tag menu-layout): one button or row at a
time. Each change is one transaction on the locked layout, checked as a whole before it is
saved (400 names every problem) and recorded in the history."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc.auth.principal import Principal
from subsvc_menus import layout as rules
from subsvc_menus import store
from subsvc_menus.routes.common import editor, publish
from subsvc_menus.schemas.layout import (
    AddCustomButtonRequest,
    AddRowRequest,
    ButtonUpdateRequest,
    MenuButtonConfig,
    MenuLayout,
    MenuRowConfig,
    MoveButtonResponse,
    MoveButtonToRowRequest,
    ReorderButtonsInRowRequest,
    ReorderButtonsResponse,
    RowsReorderRequest,
    SwapButtonsRequest,
    SwapButtonsResponse,
    SwappedButton,
)

router = Router(area="web", tag="menu-layout", prefix="/menu-layout")
T = TypeVar("T")
REFUSALS = {400: "Refused: the reason is named", 404: "Unknown button or row"}


async def _change(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    action: str,
    summary: str,
    mutate: Callable[[MenuLayout], T],
) -> T:
    result, _ = await store.edit(
        session, editor(request, principal), mutate, action="update", summary=summary
    )
    publish(request, session, "bot_layout", action)
    return result


@router.post("/buttons", status_code=201, responses={**REFUSALS, 409: "Button id taken"})
async def add_custom_button(
    request: Request, session: AsyncSession, principal: Principal, payload: AddCustomButtonRequest
) -> MenuButtonConfig:
    """Добавить кастомную кнопку (URL, MiniApp или callback), at the end of ``row_id`` when
    given (404 for an unknown row). 409 when the id is taken; 400 for a builtin type or an
    action the type cannot use."""
    return await _change(
        request,
        session,
        principal,
        "button_add",
        f"Button '{payload.id}' added",
        lambda layout: rules.add_button(layout, payload),
    )


@router.patch("/buttons/{button_id}", responses=REFUSALS)
async def update_button(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    button_id: str,
    payload: ButtonUpdateRequest,
) -> MenuButtonConfig:
    """Обновить конфигурацию отдельной кнопки: the fields given. 404 ``Button 'x' not found``;
    400 for a new action of a builtin button."""
    changes = payload.model_dump(exclude_unset=True)
    return await _change(
        request,
        session,
        principal,
        "button_update",
        f"Button '{button_id}' updated",
        lambda layout: rules.update_button(layout, button_id, changes),
    )


@router.delete("/buttons/{button_id}", status_code=204, responses=REFUSALS)
async def delete_custom_button(
    request: Request, session: AsyncSession, principal: Principal, button_id: str
) -> None:
    """Удалить кастомную кнопку (and take it out of its row). 400 for a builtin button
    (disable it instead); 404 for an unknown one."""
    await _change(
        request,
        session,
        principal,
        "button_delete",
        f"Button '{button_id}' deleted",
        lambda layout: rules.delete_button(layout, button_id),
    )


@router.post("/buttons/swap", responses=REFUSALS)
async def swap_buttons(
    request: Request, session: AsyncSession, principal: Principal, payload: SwapButtonsRequest
) -> SwapButtonsResponse:
    """Обменять местами две кнопки (даже из разных строк); answers where each one is now.
    404 for a button in no row."""
    first, second = payload.button_id_1, payload.button_id_2
    (r1, p1), (r2, p2) = await _change(
        request,
        session,
        principal,
        "buttons_swap",
        f"Buttons '{first}' and '{second}' swapped",
        lambda layout: rules.swap(layout, first, second),
    )
    return SwapButtonsResponse(
        button_1=SwappedButton(id=first, new_row=r1, new_position=p1),
        button_2=SwappedButton(id=second, new_row=r2, new_position=p2),
    )


def _moved(button_id: str, placed: tuple[int, str, int]) -> MoveButtonResponse:
    index, row_id, position = placed
    return MoveButtonResponse(
        button_id=button_id, new_row_index=index, target_row_id=row_id, position=position
    )


async def _move_vertically(
    request: Request, session: AsyncSession, principal: Principal, button_id: str, step: int
) -> MoveButtonResponse:
    summary = f"Button '{button_id}' moved {'up' if step < 0 else 'down'}"
    placed = await _change(
        request,
        session,
        principal,
        "button_move",
        summary,
        lambda layout: rules.move_vertically(layout, button_id, step),
    )
    return _moved(button_id, placed)


@router.post("/buttons/{button_id}/move-up", responses=REFUSALS)
async def move_button_up(
    request: Request, session: AsyncSession, principal: Principal, button_id: str
) -> MoveButtonResponse:
    """Переместить кнопку вверх: to the end of the row above (a row left empty goes away).
    400 in the top row; 404 for a button in no row."""
    return await _move_vertically(request, session, principal, button_id, -1)


@router.post("/buttons/{button_id}/move-down", responses=REFUSALS)
async def move_button_down(
    request: Request, session: AsyncSession, principal: Principal, button_id: str
) -> MoveButtonResponse:
    """Переместить кнопку вниз: to the end of the row below (a row left empty goes away).
    400 in the bottom row; 404 for a button in no row."""
    return await _move_vertically(request, session, principal, button_id, 1)


@router.post("/buttons/{button_id}/move-to-row", responses=REFUSALS)
async def move_button_to_row(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    button_id: str,
    payload: MoveButtonToRowRequest,
) -> MoveButtonResponse:
    """Переместить кнопку в указанную строку, at ``position`` (default: the end). 404 for an
    unknown button or row."""
    placed = await _change(
        request,
        session,
        principal,
        "button_move",
        f"Button '{button_id}' moved to row '{payload.target_row_id}'",
        lambda layout: rules.move_to_row(layout, button_id, payload.target_row_id, payload.position),
    )
    return _moved(button_id, placed)


@router.post("/rows", status_code=201, responses={**REFUSALS, 409: "Row id taken"})
async def add_row(
    request: Request, session: AsyncSession, principal: Principal, payload: AddRowRequest
) -> MenuRowConfig:
    """Добавить новую строку at ``position`` (default: the end). 409 when the id is taken;
    400 for buttons that do not exist or are already in a row."""
    return await _change(
        request,
        session,
        principal,
        "row_add",
        f"Row '{payload.id}' added",
        lambda layout: rules.add_row(layout, payload),
    )


@router.post("/rows/reorder", responses=REFUSALS)
async def reorder_rows(
    request: Request, session: AsyncSession, principal: Principal, payload: RowsReorderRequest
) -> list[MenuRowConfig]:
    """Изменить порядок строк: the listed rows first, in that order, the others after them.
    404 for an unknown row, 400 for one listed twice; nothing changes then."""

    def reorder(layout: MenuLayout) -> list[MenuRowConfig]:
        return list(rules.reorder_rows(layout, payload.ordered_ids))

    return await _change(request, session, principal, "rows_reorder", "Rows reordered", reorder)


@router.delete("/rows/{row_id}", status_code=204, responses=REFUSALS)
async def delete_row(request: Request, session: AsyncSession, principal: Principal, row_id: str) -> None:
    """Удалить строку (its buttons stay, in no row). 404 ``Row 'x' not found``."""
    await _change(
        request,
        session,
        principal,
        "row_delete",
        f"Row '{row_id}' deleted",
        lambda layout: rules.delete_row(layout, row_id),
    )


@router.post("/rows/{row_id}/reorder-buttons", responses=REFUSALS)
async def reorder_buttons_in_row(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    row_id: str,
    payload: ReorderButtonsInRowRequest,
) -> ReorderButtonsResponse:
    """Изменить порядок кнопок в строке: exactly the row's buttons, in a new order (400
    ``Button mismatch: missing: ...; extra: ...`` otherwise). 404 for an unknown row."""
    buttons = await _change(
        request,
        session,
        principal,
        "row_reorder_buttons",
        f"Buttons of row '{row_id}' reordered",
        lambda layout: list(rules.reorder_buttons_in_row(layout, row_id, payload.ordered_button_ids)),
    )
    return ReorderButtonsResponse(row_id=row_id, buttons=buttons)
