"""Putting one subscription into the panel, idempotently.

A panel user known by uuid is updated by uuid. Without one (or when the panel lost it) the
user is looked up by name and created only when absent; a creation the panel refuses
because the name exists (an earlier attempt that was not recorded) is followed by the
lookup and an update. So a change applied twice leaves one panel user with the same fields.

After a push the subscription's pending actions (:data:`subsvc_panel_sync.models.ACTION_BITS`)
are performed: its used traffic reset, its devices forgotten; a new account needs neither.

A removed subscription's queued change (:class:`Removed`) disables its panel user: the one
with the recorded uuid, else the one with its name while its user is still known. A panel
user that is gone already, or that cannot be found, leaves nothing to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from subsvc_panel.api import PanelClient, PanelError, PanelNotFound, PanelUnavailable

from subsvc.db import storable
from subsvc_panel_sync.mapping import ACTIVE, DISABLED, Wanted, from_row, username_of
from subsvc_panel_sync.models import RESET_DEVICES, RESET_TRAFFIC

Action = Literal["created", "updated", "disabled", "unchanged", "failed"]
ERROR_CHARS = 500


@dataclass(frozen=True)
class Pushed:
    """What one push did: ``panel_uuid`` (when known), ``error`` (when it failed), the
    pending actions it performed (bits) and the links the panel answered (URL, crypto link)."""

    wanted: Wanted
    action: Action
    panel_uuid: str | None = None
    error: str | None = None
    unavailable: bool = False
    actions_done: int = 0
    links: tuple[str | None, str | None] = (None, None)


async def user_by_username(client: PanelClient, username: str) -> dict[str, Any] | None:
    """``GET /api/users/by-username/{username}`` (the panel client has no such call); ``None``
    when the panel does not know the name."""
    try:
        found = await client.request("GET", f"/users/by-username/{username}")
    except PanelNotFound:
        return None
    return found if isinstance(found, dict) and found.get("uuid") else None


async def find_user(client: PanelClient, wanted: Wanted | Removed) -> dict[str, Any] | None:
    """The subscription's panel user by name: among the users of its messenger id (or of its
    e-mail), else by the name itself."""
    username = wanted.username
    if username is None:
        return None
    if wanted.messenger_id is not None:
        candidates = await client.users_by_messenger_id(wanted.messenger_id)
    elif wanted.email:
        candidates = await client.users_by_email(wanted.email)
    else:
        return await user_by_username(client, username)
    return next((u for u in candidates if u.get("username") == username and u.get("uuid")), None)


async def _settle_status(client: PanelClient, wanted: Wanted, user: Mapping[str, Any]) -> Mapping[str, Any]:
    """Enable or disable the user when the panel did not take ``status`` from the fields."""
    status = str(user.get("status") or "").upper()
    uuid = str(user["uuid"])
    if wanted.panel_status == DISABLED and status != DISABLED:
        disabled: Mapping[str, Any] = await client.disable_user(uuid)
        return disabled
    if wanted.panel_status == ACTIVE and status == DISABLED:
        enabled: Mapping[str, Any] = await client.enable_user(uuid)
        return enabled
    return user


def _action(wanted: Wanted, created: bool) -> Action:
    if created:
        return "created"
    return "disabled" if wanted.panel_status == DISABLED else "updated"


async def push(
    client: PanelClient,
    wanted: Wanted,
    panel_user: Mapping[str, Any] | None = None,
    *,
    looked_up: bool = False,
) -> Pushed:
    """Make the panel show ``wanted``, then perform its pending actions; never raises (a
    failure is a :class:`Pushed` with ``error``, and the actions done before it).
    ``panel_user``/``looked_up``: what a full sync already knows of the panel (a user in sync
    is left alone)."""
    try:
        account, action = await _write(client, wanted, panel_user, looked_up)
    except PanelError as exc:
        return Pushed(wanted, "failed", wanted.panel_uuid, _error(exc), isinstance(exc, PanelUnavailable))
    uuid = str(account["uuid"])
    links = links_of(account)
    done = RESET_TRAFFIC | RESET_DEVICES if action == "created" else 0  # a new account has neither
    actions = (RESET_TRAFFIC, client.reset_user_traffic), (RESET_DEVICES, client.delete_all_user_devices)
    try:
        for bit, perform in actions:
            if wanted.pending_actions & bit & ~done:
                await perform(uuid)
                done |= bit
    except PanelError as exc:
        unavailable = isinstance(exc, PanelUnavailable)
        return Pushed(wanted, "failed", uuid, _error(exc), unavailable, done & wanted.pending_actions)
    return Pushed(wanted, action, uuid, actions_done=done & wanted.pending_actions, links=links)


def links_of(account: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The account's subscription URL and crypto link (``happ.cryptoLink``)."""
    happ = account.get("happ")
    link = happ.get("cryptoLink") if isinstance(happ, Mapping) else None
    url = account.get("subscriptionUrl")
    return (url if isinstance(url, str) else None), (link if isinstance(link, str) else None)


async def _write(
    client: PanelClient, wanted: Wanted, panel_user: Mapping[str, Any] | None, looked_up: bool
) -> tuple[Mapping[str, Any], Action]:
    """The panel user showing ``wanted`` (updated, created or left alone) and what was done."""
    if panel_user is not None:
        if not wanted.differences(panel_user):
            return panel_user, "unchanged"
        uuid: str | None = str(panel_user["uuid"])
    else:
        uuid = None if looked_up else wanted.panel_uuid
    if uuid is not None:
        try:
            user = await client.update_user(uuid, wanted.fields())
        except PanelNotFound:
            pass  # deleted in the panel: made again below
        else:
            return await _settle_status(client, wanted, user), _action(wanted, False)
    found = None if looked_up else await find_user(client, wanted)
    created = found is None
    if found is None:
        try:
            found = await client.create_user({"username": wanted.username, **wanted.fields()})
        except PanelError as exc:
            if exc.status not in (400, 409):
                raise
            found = await find_user(client, wanted)
            if found is None:
                raise
            created = False
    if not created:
        found = await client.update_user(str(found["uuid"]), wanted.fields())
    return await _settle_status(client, wanted, found), _action(wanted, created)


def _error(exc: PanelError) -> str:
    """The panel's error in words we store (a NUL character, which PostgreSQL's text refuses,
    becomes U+FFFD)."""
    message = f"{exc.method} {exc.path}: {exc.message}".strip(": ") if exc.path else exc.message
    return storable(message, ERROR_CHARS)


@dataclass(frozen=True)
class Removed:
    """After a push the subscription's pending actions (:data:`subsvc_panel_sync.models.ACTION_BITS`)
    are performed: its used traffic reset, its devices forgotten; a new account needs neither.

    A removed subscription's queued change (a row of ``panel_sync_states`` whose
        subscription is gone): its panel user is to be disabled. ``user_found``: its user is
        still there (so the panel user's name is known without a recorded uuid)."""

    subscription_id: int
    user_id: int
    version: int
    panel_uuid: str | None
    short_id: str | None
    user_found: bool
    messenger_id: int | None
    email: str | None

    @classmethod
    def of(cls, row: Any) -> Removed:
        return from_row(cls, row, user_found=row._mapping["user_found"] is not None)

    @property
    def username(self) -> str | None:
        if self.short_id is None or not self.user_found:
            return None
        return username_of(self.messenger_id, self.user_id, self.short_id)


@dataclass(frozen=True)
class Disabled:
    """What disabling a removed subscription's panel user did: ``disabled``, ``unchanged``
    (disabled already, gone from the panel, or not to be found) or ``failed`` (``error``)."""

    removed: Removed
    action: Literal["disabled", "unchanged", "failed"]
    error: str | None = None


async def disable_removed(client: PanelClient, removed: Removed) -> Disabled:
    """Disable the removed subscription's panel user; never raises."""
    try:
        if removed.panel_uuid is not None:
            try:
                user = await client.update_user(removed.panel_uuid, {"status": DISABLED})
            except PanelNotFound:
                pass  # deleted in the panel: looked up by name below, when it can be
            else:
                if str(user.get("status") or "").upper() != DISABLED:
                    await client.disable_user(removed.panel_uuid)
                return Disabled(removed, "disabled")
        found = await find_user(client, removed)
        if found is None or str(found.get("status") or "").upper() == DISABLED:
            return Disabled(removed, "unchanged")
        await client.disable_user(str(found["uuid"]))
        return Disabled(removed, "disabled")
    except PanelError as exc:
        return Disabled(removed, "failed", _error(exc))
