"""Plugin `users`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_users import hooks, hookspecs, merging
from subsvc_users.models import User
from subsvc_users.routes import router
from subsvc_users.schemas import UserCreatedPayload
from subsvc_users.settings import UsersSettings

_ACTIONS = ["read", "edit", "block", "delete", "sync", "promo_group", "balance", "subscription"]

plugin = Plugin(
    models=[User],
    endpoints=[router],
    permissions={"users": [*_ACTIONS, "send_offer", "send_message", "referral"]},
    tags={"users": "Users: the searchable list, creation, lookups by messenger id or internal id, changes."},
    settings=UsersSettings,
    events={"user.created": UserCreatedPayload},
    hookspecs=hookspecs,
    hooks=[hooks, merging],
)
