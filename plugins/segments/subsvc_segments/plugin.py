"""Plugin `segments`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_segments import hooks, hookspecs
from subsvc_segments.settings import SegmentSettings

plugin = Plugin(settings=SegmentSettings, hookspecs=hookspecs, hooks=[hooks])
