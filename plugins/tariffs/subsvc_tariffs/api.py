"""What other plugins may use of the tariffs plugin (the rest is private).

:class:`Tariff`, the ORM model, for reading and joining.
"""

from __future__ import annotations

from subsvc_tariffs.models import Tariff

__all__ = [
    "Tariff",
]
