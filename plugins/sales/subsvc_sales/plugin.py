"""Plugin `sales`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_sales import hooks, hookspecs, merging
from subsvc_sales.kernel import PriceChanged
from subsvc_sales.models import SalesCart, SalesTrial
from subsvc_sales.routes import router
from subsvc_sales.settings import SalesSettings

plugin = Plugin(
    models=[SalesCart, SalesTrial],
    endpoints=[router],
    settings=SalesSettings,
    hookspecs=hookspecs,
    hooks=[hooks, merging],
    errors={PriceChanged: (409, "The price has changed, please try again")},
)
