"""``/miniapp/devices/remove``: the cabinet's device deletion (addons' public API), its
refusals in the text style as the cabinet's."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_addons.api import delete_device

from subsvc.api import Router
from subsvc.panel import RESPONSES as PANEL_RESPONSES
from subsvc_miniapp import auth
from subsvc_miniapp.promo_schemas import MiniAppDeviceRemovalRequest, MiniAppDeviceRemovalResponse

router = Router(area="web", tag="miniapp")


@router.post(
    "/miniapp/devices/remove",
    public=True,
    responses={
        **auth.USER_RESPONSES,
        **PANEL_RESPONSES,
        400: "`Panel user not found` (the panel has no account for the subscription yet), or the init data's",
        404: "`No subscription found`, `Device not found` in the account, or `User not found`",
    },
)
async def remove_connected_device(
    request: Request, session: AsyncSession, body: MiniAppDeviceRemovalRequest
) -> MiniAppDeviceRemovalResponse:
    """Forget one device of the user's current subscription in the VPN panel (at once)."""
    user = await auth.user_of(request.app, session, body.initData, "text")
    assert user.id is not None
    deleted = await delete_device(request.app, session, user.id, None, body.hwid)
    return MiniAppDeviceRemovalResponse(success=True, message=deleted.message)
