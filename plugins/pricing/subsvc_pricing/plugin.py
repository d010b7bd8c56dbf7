"""Plugin `pricing`: what it contributes to subsvc (settings and extension points; no tables,
no routes)."""

from subsvc.manifest import Plugin
from subsvc_pricing import hookspecs
from subsvc_pricing.settings import PricingSettings

plugin = Plugin(settings=PricingSettings, hookspecs=hookspecs)
