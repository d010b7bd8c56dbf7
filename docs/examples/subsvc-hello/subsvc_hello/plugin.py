"""Plugin `hello`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_hello.models import Greeting
from subsvc_hello.routes import router
from subsvc_hello.settings import HelloSettings

plugin = Plugin(
    models=[Greeting],
    endpoints=[router],
    permissions={"hello": ["read", "edit"]},
    tags={"hello": "Greetings per language."},
    settings=HelloSettings,
)
