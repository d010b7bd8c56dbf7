"""The refusals of the flows, with the status and text (or ``{code, message}``) they answer."""

from __future__ import annotations

from typing import Any

INVALID_STATE = "Invalid or expired OAuth state"
PROVIDER_UNAVAILABLE = "Requested OAuth provider is not available"
EXCHANGE_FAILED = "Failed to exchange authorization code"
USERINFO_FAILED = "Failed to fetch user information from provider"
NOT_FOR_LOGIN = "OAuth state was not initiated for login"
NOT_FOR_LINKING = "OAuth state was not initiated for account linking"
OTHER_USER_STATE = "OAuth state was initiated by a different user"
PROVIDER_MISMATCH = "Provider does not match OAuth state"
USER_INACTIVE = "User account is not active"
USER_NOT_FOUND = "User not found"
ALREADY_LINKED = "Provider is already linked to your account"
NOT_LINKED = "Provider is not linked to your account"
LAST_METHOD = "Cannot unlink last authentication method"
JUST_LINKED = "This provider account was just linked to another user"
MESSENGER_ALREADY_LINKED = "Messenger is already linked to your account"
MESSENGER_JUST_LINKED = "This messenger account was just linked to another user"
MERGE_NOT_FOUND = "Merge token is invalid or expired"
MERGE_CONSUMED = "Merge token is invalid, expired, or already consumed"
MERGE_USERS_MISSING = "One or both users not found"
MERGE_KEEP_INVALID = "keep_subscription_from must be one of the two user IDs being merged"
MERGE_IMPOSSIBLE = "Account merge cannot be completed. The accounts may have already been merged or deleted."
EMAIL_UNVERIFIED_LOCAL = "email_unverified_local"


def slot_taken(display_name: str) -> str:
    return (
        f"A {display_name} account is already linked to your account. "
        "Unlink it first to link a different one."
    )


def email_owner_has_provider(display_name: str) -> str:
    return (
        f"The account with this e-mail already has another {display_name} account linked; "
        "log in to it another way and unlink that one first"
    )


class FlowError(Exception):
    """A refused step: ``status`` and ``detail`` are the answer."""

    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def email_unverified_local() -> FlowError:
    return FlowError(
        409,
        {
            "code": EMAIL_UNVERIFIED_LOCAL,
            "message": "An account with this e-mail exists but its e-mail is not verified. "
            "Log in to it and verify the e-mail first, then link this provider.",
        },
    )
