"""What other plugins may use of the promocodes plugin (the rest is private): the cabinet's
activation for another front end (the mini app).

- :func:`activate_for_user`: the user's row locked, the code applied in the caller's
  transaction (``PROMOCODE_DAILY_ACTIVATION_LIMIT`` honoured); an :class:`Activation` (the code
  row, the balance before and after, the effects' texts), or :class:`ActivationRefused`
  (``reason`` and the cabinet's ``message``; the caller rolls back). ``None``: no such user.
- :class:`PromoCode`, the ORM model, for reading.
"""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc_promocodes import activation
from subsvc_promocodes.activation import Activation, ActivationRefused
from subsvc_promocodes.models import PromoCode
from subsvc_promocodes.settings import PromocodesSettings

__all__ = ["Activation", "ActivationRefused", "PromoCode", "activate_for_user"]


async def activate_for_user(
    app: Starlette, session: AsyncSession, user_id: int, code: str
) -> Activation | None:
    """Activate ``code`` for the user (as ``POST /cabinet/promocode/activate`` does), or
    ``None`` when there is no such user. Raises :class:`ActivationRefused`."""
    user = await activation.lock_user(session, user_id)
    if user is None:
        return None
    limit = PromocodesSettings.of(app).PROMOCODE_DAILY_ACTIVATION_LIMIT
    return await activation.activate(app, session, user, code, daily_limit=limit)
