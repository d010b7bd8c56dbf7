"""Plugin `pages`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_pages.models import FaqPage, FaqSetting, PrivacyPolicy, PublicOffer, ServiceRule
from subsvc_pages.routes import router

plugin = Plugin(
    models=[ServiceRule, PublicOffer, PrivacyPolicy, FaqSetting, FaqPage],
    endpoints=[router],
    permissions={"info_pages": ["read", "create", "edit", "delete"]},
    tags={"pages": "Information pages: service rules (versioned), public offer, privacy policy and FAQ."},
)
