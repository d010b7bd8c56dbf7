"""The ports earlier plugins declared to the VPN panel, implemented over the client: one
module per plugin, imported only when that plugin asks (its hook is called)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from subsvc_panel.client import PanelError as ClientError


@contextmanager
def client_errors_as(port_error: Callable[[str], Exception]) -> Iterator[None]:
    """The client's failures raised as the port's own error, with the client's message."""
    try:
        yield
    except ClientError as exc:
        raise port_error(exc.message) from exc
