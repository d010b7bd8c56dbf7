"""Plugin `cabinet_admin_users`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_cabinet_admin_users import hookspecs, merging, restrictions
from subsvc_cabinet_admin_users.changes import STATUS_CHANGED, USER_DELETED
from subsvc_cabinet_admin_users.messages import SEND
from subsvc_cabinet_admin_users.models import DeviceName, UserAdminSettings, UserMessage
from subsvc_cabinet_admin_users.routes import endpoints
from subsvc_cabinet_admin_users.routes.common import TAG
from subsvc_cabinet_admin_users.schemas import UserDeleted, UserStatusChanged
from subsvc_cabinet_admin_users.settings import CabinetAdminUsersSettings

plugin = Plugin(
    models=[UserAdminSettings, DeviceName, UserMessage],
    endpoints=endpoints,
    permissions={
        "users": [
            "read",
            "edit",
            "block",
            "delete",
            "balance",
            "subscription",
            "promo_group",
            "referral",
            "sync",
        ]
    },
    tags={
        TAG: "Cabinet administrators' user management: the list, statistics, detail, balance, "
        "subscriptions, status, restrictions, promo group, referrer and referrals, activity, messages "
        "through the bot, deletion and the VPN panel account."
    },
    settings=CabinetAdminUsersSettings,
    events={STATUS_CHANGED: UserStatusChanged, USER_DELETED: UserDeleted},
    jobs=[SEND],
    hookspecs=hookspecs,
    hooks=[merging, restrictions],
)
