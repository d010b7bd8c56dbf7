"""How a subscription is connected: its link (written back by the panel sync after each push),
a new link (revoking the old one in the panel, at once), the Happ app's downloads and the
connection apps' configuration."""

from __future__ import annotations

import json
import logging
from typing import Any, TypeVar

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions import api as subscriptions

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc.panel import failures_as_502
from subsvc_addons.owned import account_of, subscription_of
from subsvc_addons.schemas import ConnectionLink, HappDownloads, HappPlatformLink, Instructions, Revoked
from subsvc_addons.settings import AddonsSettings

log = logging.getLogger("subsvc.addons")
L = TypeVar("L", bound=ConnectionLink)
NO_LINK = "Subscription link not yet generated"
NO_APP_CONFIG = "App configuration not set up."
STEPS = [
    "Copy the subscription link",
    "Open your VPN application",
    "Find 'Add subscription' or 'Import' option",
    "Paste the copied link",
]
HAPP_PLATFORMS: dict[str, tuple[str, str]] = {
    "ios": ("iOS (iPhone/iPad)", "🍎"),
    "android": ("Android", "🤖"),
    "macos": ("macOS", "🖥️"),
    "windows": ("Windows", "💻"),
    "linux": ("Linux", "🐧"),
}


def link_answer(
    app: Starlette,
    url: str,
    crypto_link: str | None,
    *,
    hide: bool,
    answer: type[L],
) -> L:
    """The connection of a subscription with this link (hidden: no plain link shown)."""
    settings = AddonsSettings.of(app)
    happ = settings.CONNECT_MODE == "happ_cryptolink"
    scheme = f"happ://add/{url}" if happ else None
    template = settings.HAPP_CRYPTOLINK_REDIRECT_TEMPLATE
    redirect = template.replace("{link}", crypto_link or scheme or "") if happ and template else None
    return answer(
        subscription_url=None if hide else url,
        display_link=None if hide else url,
        happ_redirect_link=redirect,
        happ_scheme_link=scheme,
        happ_crypto_link=crypto_link,
        connect_mode=settings.CONNECT_MODE,
        hide_link=hide,
        instructions=Instructions(steps=STEPS),
    )


async def connection_link(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, *, hide: bool = False
) -> ConnectionLink:
    """The subscription's link: 404 without a subscription, or before the panel made one."""
    subscription = await subscription_of(session, user_id, subscription_id)
    if not subscription.subscription_url:
        raise HTTPError(404, NO_LINK)
    url, crypto_link = subscription.subscription_url, subscription.subscription_crypto_link
    return link_answer(app, url, crypto_link, hide=hide, answer=ConnectionLink)


async def revoke(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, *, hide: bool = False
) -> Revoked:
    """Revoke the subscription's link in the panel (the old one stops working) and keep the
    new one: 404 without a subscription, 400 without a panel account, 502/503 (panel)."""
    subscription = await subscription_of(session, user_id, subscription_id)
    assert subscription.id is not None
    with failures_as_502():
        panel, account = await account_of(app, session, subscription)
        revoked = await panel.revoke(account.uuid)
    if not revoked.subscription_url:
        raise HTTPError(502, "VPN panel error: the revoked account has no subscription link")
    state = subscriptions.PanelState(
        subscription_url=revoked.subscription_url, subscription_crypto_link=revoked.happ_link
    )
    await subscriptions.write_panel_state(session, subscription.id, state, utcnow())
    return link_answer(app, revoked.subscription_url, revoked.happ_link, hide=hide, answer=Revoked)


def happ_downloads(app: Starlette) -> HappDownloads:
    """The Happ app's download links of the platforms that have one."""
    platforms = {
        key: HappPlatformLink(name=HAPP_PLATFORMS[key][0], icon=HAPP_PLATFORMS[key][1], link=link)
        for key, link in AddonsSettings.of(app).HAPP_DOWNLOAD_LINKS.items()
        if link
    }
    return HappDownloads(platforms=platforms, happ_enabled=bool(platforms))


async def app_config(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None, *, hide: bool = False
) -> dict[str, Any]:
    """The connection apps' configuration (``APP_CONFIG_FILE``) with the subscription's links
    in place of its placeholders: 404 while none is set up (or it is not a JSON object)."""
    path = AddonsSettings.of(app).APP_CONFIG_FILE
    config: Any = None
    if path is not None:
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.error("APP_CONFIG_FILE %s cannot be read: %s", path, exc)
    if not isinstance(config, dict):
        raise HTTPError(404, NO_APP_CONFIG)
    try:
        subscription = await subscription_of(session, user_id, subscription_id)
    except HTTPError:
        url, crypto_link = None, None
    else:
        url, crypto_link = subscription.subscription_url, subscription.subscription_crypto_link
    placeholders = {
        "{{SUBSCRIPTION_LINK}}": url,
        "{{HAPP_CRYPT3_LINK}}": crypto_link,
        "{{HAPP_CRYPT4_LINK}}": crypto_link,
    }
    return {
        **_filled(config, {key: value for key, value in placeholders.items() if value}),
        "hasSubscription": bool(url or crypto_link),
        "subscriptionUrl": None if hide else url,
        "subscriptionCryptoLink": crypto_link,
        "hideLink": hide,
    }


def _filled(value: Any, placeholders: dict[str, str]) -> Any:
    """``value`` with every placeholder in its texts replaced (through objects and lists)."""
    if isinstance(value, str):
        for placeholder, replacement in placeholders.items():
            value = value.replace(placeholder, replacement)
        return value
    if isinstance(value, dict):
        return {key: _filled(item, placeholders) for key, item in value.items()}
    if isinstance(value, list):
        return [_filled(item, placeholders) for item in value]
    return value
