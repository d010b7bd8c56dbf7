"""What other plugins may use of the recurrent plugin (the rest is private): the services its
cabinet operations call, for the mini app's equivalents. Refusals are
:class:`subsvc.api.HTTPError` with the cabinet's status and text.
"""

from __future__ import annotations

from subsvc_recurrent.schemas import RecurrentCancelled, RecurrentState
from subsvc_recurrent.service import cancel_platega, enable_platega, platega_state, purchase_with_platega

__all__ = [
    "RecurrentCancelled",
    "RecurrentState",
    "cancel_platega",
    "enable_platega",
    "platega_state",
    "purchase_with_platega",
]
