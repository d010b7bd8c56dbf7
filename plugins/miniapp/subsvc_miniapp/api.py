"""What other plugins may use of the miniapp plugin: who a mini app request comes from
(:func:`user_of`, :func:`identity`) and its settings."""

from __future__ import annotations

from subsvc_miniapp.auth import identity, user_of
from subsvc_miniapp.settings import MiniAppSettings

__all__ = ["MiniAppSettings", "identity", "user_of"]
