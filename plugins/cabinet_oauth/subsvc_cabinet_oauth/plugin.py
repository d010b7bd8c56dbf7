"""Plugin `cabinet_oauth`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_cabinet_oauth import hooks, hookspecs
from subsvc_cabinet_oauth.merge import ACCOUNT_MERGED
from subsvc_cabinet_oauth.models import MergeToken, OAuthIdentity, OAuthState
from subsvc_cabinet_oauth.routes import linking, merge, oauth
from subsvc_cabinet_oauth.schemas import AccountMergedPayload
from subsvc_cabinet_oauth.settings import CabinetOAuthSettings

plugin = Plugin(
    models=[OAuthIdentity, OAuthState, MergeToken],
    endpoints=[oauth.router, linking.router, merge.router],
    tags={
        "Cabinet OAuth": "Log in with Google, Yandex, Discord or VK ID (OAuth 2.0).",
        "Cabinet Account Linking": (
            "Link and unlink providers and the messenger; complete a link without a JWT."
        ),
        "Cabinet Account Merge": "Preview and execute a merge offered by a linking conflict.",
    },
    settings=CabinetOAuthSettings,
    events={ACCOUNT_MERGED: AccountMergedPayload},
    hookspecs=hookspecs,
    hooks=[hooks],
)
