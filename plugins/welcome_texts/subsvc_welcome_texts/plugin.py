"""Plugin `welcome_texts`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_welcome_texts.models import WelcomeText
from subsvc_welcome_texts.routes import router

plugin = Plugin(
    models=[WelcomeText],
    endpoints=[router],
    tags={"welcome-texts": "The texts the bot greets new users with (one active)."},
)
