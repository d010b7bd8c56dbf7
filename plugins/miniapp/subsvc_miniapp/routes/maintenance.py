"""``POST /miniapp/maintenance/status``: the maintenance notice (valid init data, no user)."""

from __future__ import annotations

from starlette.requests import Request

from subsvc.api import Router
from subsvc_miniapp import auth
from subsvc_miniapp.schemas import MiniAppMaintenanceStatusResponse, MiniAppSubscriptionRequest
from subsvc_miniapp.settings import MiniAppSettings

router = Router(area="web", tag="miniapp")


@router.post("/miniapp/maintenance/status", public=True, responses=auth.SIGNATURE_RESPONSES)
async def get_maintenance_status(
    request: Request, body: MiniAppSubscriptionRequest
) -> MiniAppMaintenanceStatusResponse:
    """Whether the service is under maintenance (`MAINTENANCE_MODE`), with its message and
    reason while it is. Needs valid init data, not a registered user."""
    auth.identity(request.app, body.initData, "text")
    settings = MiniAppSettings.of(request.app)
    if not settings.MAINTENANCE_MODE:
        return MiniAppMaintenanceStatusResponse(isActive=False)
    return MiniAppMaintenanceStatusResponse(
        isActive=True, message=settings.MAINTENANCE_MESSAGE, reason=settings.MAINTENANCE_REASON
    )
