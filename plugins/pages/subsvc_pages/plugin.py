"""Plugin `pages`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_pages import cabinet_routes, info_page_routes, legal_routes
from subsvc_pages.models import (
    DocumentDisplayMode,
    FaqPage,
    FaqSetting,
    InfoPage,
    LegalConsent,
    PrivacyPolicy,
    PublicOffer,
    RecurrentPaymentsDocument,
    ServiceRule,
)
from subsvc_pages.routes import router
from subsvc_pages.settings import PagesSettings

plugin = Plugin(
    models=[
        ServiceRule,
        PublicOffer,
        PrivacyPolicy,
        RecurrentPaymentsDocument,
        FaqSetting,
        FaqPage,
        DocumentDisplayMode,
        LegalConsent,
        InfoPage,
    ],
    endpoints=[
        router,
        cabinet_routes.info,
        legal_routes.admin,
        info_page_routes.admin,
        info_page_routes.public,
    ],
    permissions={"info_pages": ["read", "create", "edit", "delete"]},
    tags={
        "pages": "Information pages: service rules (versioned), public offer, privacy policy and FAQ.",
        "Cabinet Info": "The cabinet's public documents, the service's languages and the user's.",
    },
    settings=PagesSettings,
)
