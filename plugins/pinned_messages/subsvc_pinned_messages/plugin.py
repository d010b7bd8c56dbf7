"""Plugin `pinned_messages`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_pinned_messages import merging
from subsvc_pinned_messages.messages import PinnedMessageError
from subsvc_pinned_messages.models import MODELS
from subsvc_pinned_messages.routes import admin, web
from subsvc_pinned_messages.routes.common import PERMISSIONS
from subsvc_pinned_messages.runs import FINISHED_EVENT
from subsvc_pinned_messages.schemas import PinnedMessageRunFinished
from subsvc_pinned_messages.sender import JOBS
from subsvc_pinned_messages.settings import PinnedMessagesSettings

plugin = Plugin(
    models=MODELS,
    endpoints=[web.router, admin.router],
    permissions=PERMISSIONS,
    tags={
        "pinned-messages": "The message shown at /start (at most one active); its broadcast (send and pin) "
        "and unpin in every user's chat.",
        "Cabinet Admin Pinned Messages": "Cabinet administrators' pinned messages: the Web API's operations.",
    },
    settings=PinnedMessagesSettings,
    events={FINISHED_EVENT: PinnedMessageRunFinished},
    jobs=JOBS,
    hooks=[merging],
    errors={PinnedMessageError: PinnedMessageError.answer},
)
