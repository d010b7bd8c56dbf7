"""Plugin `promocodes`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_promocodes import hooks, hookspecs, merging, personal, service
from subsvc_promocodes.activation import ACTIVATED
from subsvc_promocodes.models import PromoCode, PromoCodeDiscount, PromoCodeUse
from subsvc_promocodes.routes import endpoints
from subsvc_promocodes.routes.common import NOT_FOUND
from subsvc_promocodes.rules import PromoCodeRuleError
from subsvc_promocodes.schemas import PromoCodeActivated
from subsvc_promocodes.settings import PromocodesSettings

plugin = Plugin(
    models=[PromoCode, PromoCodeUse, PromoCodeDiscount],
    endpoints=endpoints,
    permissions={"promocodes": ["read", "create", "edit", "delete", "stats"]},
    tags={
        "promo-codes": "Promo codes: balance, days, trial, promo group and discount codes.",
        "Admin Promocodes": "The cabinet administrators' promo codes.",
        "Cabinet Promocode": "A cabinet user activates a promo code.",
    },
    settings=PromocodesSettings,
    events={ACTIVATED: PromoCodeActivated},
    hookspecs=hookspecs,
    hooks=[hooks, merging, personal],
    errors={service.PromoCodeNotFound: (404, NOT_FOUND), PromoCodeRuleError: 400},
)
