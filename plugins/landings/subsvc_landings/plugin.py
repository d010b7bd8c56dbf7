"""Plugin `landings`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_landings import hooks
from subsvc_landings.admin_routes import admin
from subsvc_landings.models import GuestPurchase, LandingPage, PaymentAccount
from subsvc_landings.public_routes import public
from subsvc_landings.settings import LandingsSettings

plugin = Plugin(
    models=[LandingPage, GuestPurchase, PaymentAccount],
    endpoints=[public, admin],
    permissions={"landings": ["read", "create", "edit", "delete"]},
    tags={
        "Landing Pages": "Public landing pages by slug and guest purchases (gifts) paid at a provider.",
        "Cabinet Admin Landings": "Landing pages for administrators: pages, order, statistics, purchases.",
    },
    hooks=[hooks],
    settings=LandingsSettings,
)
