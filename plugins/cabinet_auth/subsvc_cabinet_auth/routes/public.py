"""Cabinet:Public: the site-verification tokens the cabinet's pages carry."""

from __future__ import annotations

from starlette.requests import Request

from subsvc.api import Router
from subsvc_cabinet_auth.settings import CabinetAuthSettings

router = Router(area="cabinet", tag="Cabinet:Public", prefix="/cabinet/public")


@router.get("/site-verification", public=True)
async def get_site_verification(request: Request) -> dict[str, str | None]:
    """Every configured site-verification token (`CABINET_SITE_VERIFICATION`), by name: the
    cabinet puts them in `<meta>` tags of its pages for payment providers and search engines."""
    return dict(CabinetAuthSettings.of(request.app).CABINET_SITE_VERIFICATION)
