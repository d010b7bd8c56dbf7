"""Plugin `addons`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_addons import buy_routes, buying, hookspecs, merging, sale_routes
from subsvc_addons.models import DeviceName
from subsvc_addons.routes import router
from subsvc_addons.settings import AddonsSettings

plugin = Plugin(
    models=[DeviceName],
    endpoints=[router, sale_routes.router, buy_routes.router],
    settings=AddonsSettings,
    hookspecs=hookspecs,
    hooks=[merging, buying],
)
