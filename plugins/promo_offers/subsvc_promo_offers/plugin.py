"""Plugin `promo_offers`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_promo_offers import hooks, merging, personal
from subsvc_promo_offers.claims import CLAIMED_EVENT
from subsvc_promo_offers.models import MODELS
from subsvc_promo_offers.recipients import RecipientError
from subsvc_promo_offers.routes import admin, cabinet, web
from subsvc_promo_offers.schemas import OfferClaimed
from subsvc_promo_offers.sender import JOBS
from subsvc_promo_offers.settings import PromoOffersSettings
from subsvc_promo_offers.templates import TemplateRuleError

plugin = Plugin(
    models=MODELS,
    endpoints=[web.router, admin.router, cabinet.router],
    permissions={"promo_offers": ["read", "create", "edit", "send"]},
    tags={
        "promo-offers": "Personal promo offers, their templates, log and broadcast.",
        "Admin Promo Offers": "Cabinet administrators' promo offers: templates, offers, broadcasts with "
        "messenger notifications, the log.",
        "Cabinet Promo": "The user's offers, claims, active discount and loyalty tiers.",
    },
    settings=PromoOffersSettings,
    events={CLAIMED_EVENT: OfferClaimed},
    jobs=JOBS,
    hooks=[hooks, merging, personal],
    errors={RecipientError: RecipientError.answer, TemplateRuleError: 400},
)
