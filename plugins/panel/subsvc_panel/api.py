"""What other plugins may use of the panel plugin (the rest of ``subsvc_panel`` is private).

For the plugins that require this one: the panel's REST client (``app.state.panel``, see
:mod:`subsvc_panel.client` for its calls and the objects the panel answers), its errors, and
the client's accounts and devices as the port's values (:func:`panel_user`, :func:`devices_of`,
:func:`delete_all_devices`).
A plugin that only needs a facet of the panel and must work without it (servers, tariffs,
cabinet_admin_users) does not import this module: it uses the port :mod:`subsvc.panel`,
whose hooks this plugin implements. The client's :class:`PanelError` is the port's
:class:`subsvc.panel.PanelError`.
"""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.panel import NOT_CONFIGURED
from subsvc_panel.accounts import delete_all_devices, devices_of, panel_user, parse_time, utc
from subsvc_panel.client import (
    PanelClient,
    PanelError,
    PanelNotConfigured,
    PanelNotFound,
    PanelUnavailable,
)

__all__ = [
    "PanelClient",
    "PanelError",
    "PanelNotConfigured",
    "PanelNotFound",
    "PanelUnavailable",
    "client_of",
    "configured_client",
    "delete_all_devices",
    "devices_of",
    "panel_user",
    "parse_time",
    "utc",
]


def client_of(app: Starlette) -> PanelClient:
    """The app's panel client, configured or not (its calls then raise
    :class:`PanelNotConfigured`)."""
    client: PanelClient = app.state.panel
    return client


def configured_client(app: Starlette) -> PanelClient:
    """The app's panel client; :class:`PanelNotConfigured` (a 503 through this plugin) when
    ``PANEL_API_URL`` or ``PANEL_API_KEY`` is missing."""
    client = client_of(app)
    if not client.configured:
        raise PanelNotConfigured(client.configuration_error or NOT_CONFIGURED)
    return client
