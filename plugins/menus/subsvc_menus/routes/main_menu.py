"""`/main-menu` (tag main-menu): the main menu's extra buttons and its messages."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Limit, Offset, Query, Router
from subsvc.auth.principal import Principal
from subsvc_menus import main_menu
from subsvc_menus.routes.common import publish
from subsvc_menus.schemas.main_menu import (
    MainMenuButtonCreateRequest,
    MainMenuButtonListResponse,
    MainMenuButtonResponse,
    MainMenuButtonUpdateRequest,
    UserMessageCreateRequest,
    UserMessageListResponse,
    UserMessageResponse,
    UserMessageUpdateRequest,
)

router = Router(area="web", tag="main-menu", prefix="/main-menu")
NOT_FOUND = {404: "Unknown id"}
BAD_ACTION = {400: "An action_value its button type cannot open (the rule is named)"}
BAD_TEXT = {400: "Message text the messenger does not accept as HTML (the problem is named)"}


@router.get("/buttons")
async def list_main_menu_buttons(
    session: AsyncSession, limit: Limit = 50, offset: Offset = 0
) -> MainMenuButtonListResponse:
    """The extra buttons, in display order."""
    items, total = await main_menu.list_buttons(session, limit, offset)
    return MainMenuButtonListResponse.model_validate(
        {"items": items, "total": total, "limit": limit, "offset": offset}, from_attributes=True
    )


@router.post("/buttons", status_code=201, summary="Create Main Menu Button Endpoint", responses=BAD_ACTION)
async def create_main_menu_button(
    request: Request, session: AsyncSession, payload: MainMenuButtonCreateRequest
) -> MainMenuButtonResponse:
    """A new link (http(s):// or tg://) or Mini App (https://) button; without
    ``display_order`` it goes last. 400 for an action value its type cannot open."""
    button = await main_menu.create_button(session, payload.model_dump())
    publish(request, session, "main_menu_buttons", "create")
    return MainMenuButtonResponse.model_validate(button, from_attributes=True)


@router.patch(
    "/buttons/{button_id}", summary="Update Main Menu Button Endpoint", responses={**NOT_FOUND, **BAD_ACTION}
)
async def update_main_menu_button(
    request: Request, session: AsyncSession, button_id: int, payload: MainMenuButtonUpdateRequest
) -> MainMenuButtonResponse:
    """Change the fields given (null stays). 404 ``Main menu button not found``."""
    button = await main_menu.update_button(session, button_id, payload.model_dump(exclude_unset=True))
    publish(request, session, "main_menu_buttons", "update")
    return MainMenuButtonResponse.model_validate(button, from_attributes=True)


@router.delete(
    "/buttons/{button_id}", status_code=204, summary="Delete Main Menu Button Endpoint", responses=NOT_FOUND
)
async def delete_main_menu_button(request: Request, session: AsyncSession, button_id: int) -> None:
    """Delete a button. 404 ``Main menu button not found``."""
    await main_menu.delete_button(session, button_id)
    publish(request, session, "main_menu_buttons", "delete")


@router.get("/messages")
async def list_user_messages(
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    include_inactive: Annotated[bool, Query(description="Включать неактивные сообщения")] = True,
) -> UserMessageListResponse:
    """The messages, by sort order."""
    items, total = await main_menu.list_messages(session, limit, offset, include_inactive)
    return UserMessageListResponse.model_validate(
        {"items": items, "total": total, "limit": limit, "offset": offset}, from_attributes=True
    )


@router.post("/messages", status_code=201, summary="Create User Message Endpoint", responses=BAD_TEXT)
async def create_user_message(
    request: Request, session: AsyncSession, principal: Principal, payload: UserMessageCreateRequest
) -> UserMessageResponse:
    """A new message; its text must be HTML the messenger accepts (400 otherwise).
    ``created_by`` is the id of the API token that created it."""
    message = await main_menu.create_message(session, payload.model_dump(), created_by=principal.id)
    publish(request, session, "user_messages", "create")
    return UserMessageResponse.model_validate(message, from_attributes=True)


@router.patch(
    "/messages/{message_id}", summary="Update User Message Endpoint", responses={**NOT_FOUND, **BAD_TEXT}
)
async def update_user_message(
    request: Request, session: AsyncSession, message_id: int, payload: UserMessageUpdateRequest
) -> UserMessageResponse:
    """Change the fields given (null stays). 404 ``User message not found``; 400 for HTML the
    messenger does not accept."""
    message = await main_menu.update_message(session, message_id, payload.model_dump(exclude_unset=True))
    publish(request, session, "user_messages", "update")
    return UserMessageResponse.model_validate(message, from_attributes=True)


@router.post("/messages/{message_id}/toggle", summary="Toggle User Message Endpoint", responses=NOT_FOUND)
async def toggle_user_message(
    request: Request, session: AsyncSession, message_id: int
) -> UserMessageResponse:
    """Switch a message on or off. 404 ``User message not found``."""
    message = await main_menu.toggle_message(session, message_id)
    publish(request, session, "user_messages", "toggle")
    return UserMessageResponse.model_validate(message, from_attributes=True)


@router.delete(
    "/messages/{message_id}", status_code=204, summary="Delete User Message Endpoint", responses=NOT_FOUND
)
async def delete_user_message(request: Request, session: AsyncSession, message_id: int) -> None:
    """Delete a message. 404 ``User message not found``."""
    await main_menu.delete_message(session, message_id)
    publish(request, session, "user_messages", "delete")
