"""Plugin `promo_groups`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_promo_groups import admin_routes, hookspecs
from subsvc_promo_groups.models import PromoGroup
from subsvc_promo_groups.routes import router

plugin = Plugin(
    models=[PromoGroup],
    endpoints=[router, admin_routes.router],
    permissions={"promo_groups": ["read", "create", "edit", "delete"]},
    tags={"promo-groups": "Promo groups: discount groups of users; one is the default group of new users."},
    hookspecs=hookspecs,
)
