"""What other plugins may use of the promo_offers plugin (the rest is private): the cabinet's
claim of an offer for another front end (the mini app).

- :func:`claim`: the user's offer claimed and its effects applied in the caller's transaction
  (a :class:`ClaimOfferResponse`), or :class:`ClaimRefused` (``status``, ``detail``; when
  ``expired`` the caller commits the offer's deactivation before answering).
"""

from __future__ import annotations

from subsvc_promo_offers.claims import ClaimRefused, claim
from subsvc_promo_offers.schemas import ClaimOfferResponse

__all__ = ["ClaimOfferResponse", "ClaimRefused", "claim"]
