"""The wire contract of the Cabinet Admin Users tag: requests, answers and event payloads."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field
from subsvc_billing.api import TransactionSummary
from subsvc_subscriptions.api import MAX_DEVICES, MAX_TRAFFIC_GB
from subsvc_users.api import UserStatus

MAX_BALANCE_CHANGE = 2_000_000_000
MAX_TRAFFIC_USED_GB = 1_000_000_000.0
DEFAULT_BALANCE_DESCRIPTION = "Admin balance adjustment"

Reason = Annotated[str | None, Field(default=None, max_length=500)]


def as_utc(value: datetime) -> datetime:
    """A date-time without an offset is taken as UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


UTCDate = Annotated[datetime, AfterValidator(as_utc)]


class SortBy(StrEnum):
    """Orders of the users list (largest or newest first)."""

    CREATED_AT = "created_at"
    BALANCE = "balance"
    TRAFFIC = "traffic"
    LAST_ACTIVITY = "last_activity"
    TOTAL_SPENT = "total_spent"
    PURCHASE_COUNT = "purchase_count"


# --- shared field sets ---------------------------------------------------------------------------


class UserIdentity(BaseModel):
    """Who the user is: the fields every user answer starts with."""

    id: int
    messenger_id: int | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    full_name: str
    status: str


class ActionResponse(BaseModel):
    """The answer of a change: whether it succeeded and what happened."""

    success: bool
    message: str


# --- reads ---------------------------------------------------------------------------------------


class SubscriptionListItem(BaseModel):
    """One of a user's subscriptions in the users list."""

    id: int
    tariff_id: int | None = None
    tariff_name: str | None = None
    status: str
    is_trial: bool = False
    end_date: datetime | None = None
    days_remaining: int = 0
    traffic_used_gb: float = 0
    traffic_limit_gb: int = 0
    device_limit: int = 0


class UserListItem(UserIdentity):
    balance_kopeks: int
    balance_rubles: float
    created_at: datetime
    last_activity: datetime | None = None
    has_subscription: bool = False
    subscription_status: str | None = None
    subscription_is_trial: bool = False
    subscription_end_date: datetime | None = None
    tariff_id: int | None = None
    tariff_name: str | None = None
    traffic_used_gb: float = 0
    traffic_limit_gb: int = 0
    device_limit: int = 0
    days_remaining: int = 0
    subscriptions: list[SubscriptionListItem] = Field(default_factory=list)
    promo_group_id: int | None = None
    promo_group_name: str | None = None
    total_spent_kopeks: int = 0
    purchase_count: int = 0
    has_restrictions: bool = False
    restriction_topup: bool = False
    restriction_subscription: bool = False


class UsersListResponse(BaseModel):
    users: list[UserListItem]
    total: int
    offset: int = 0
    limit: int = 50


class UsersStatsResponse(BaseModel):
    total_users: int = 0
    active_users: int = 0
    blocked_users: int = 0
    deleted_users: int = 0
    new_today: int = 0
    new_week: int = 0
    new_month: int = 0
    users_with_subscription: int = 0
    users_with_active_subscription: int = 0
    users_with_trial: int = 0
    users_with_expired_subscription: int = 0
    total_balance_kopeks: int = 0
    total_balance_rubles: float = 0.0
    avg_balance_kopeks: int = 0
    active_today: int = 0
    active_week: int = 0
    active_month: int = 0


class TrafficPurchaseItem(BaseModel):
    id: int
    traffic_gb: int
    expires_at: datetime
    created_at: datetime
    days_remaining: int
    is_expired: bool


class UserSubscriptionInfo(BaseModel):
    id: int
    status: str
    is_trial: bool
    start_date: datetime | None = None
    end_date: datetime | None = None
    traffic_limit_gb: int = 0
    traffic_used_gb: float = 0.0
    device_limit: int = 1
    tariff_id: int | None = None
    tariff_name: str | None = None
    autopay_enabled: bool = False
    is_active: bool = False
    days_remaining: int = 0
    purchased_traffic_gb: int = 0
    traffic_purchases: list[TrafficPurchaseItem] = Field(default_factory=list)
    sbp_recurring_status: str | None = Field(
        None, description="The provider's recurring SBP payment of the subscription (none here: null)."
    )
    sbp_recurring_id: int | None = None


class UserPromoGroupInfo(BaseModel):
    id: int
    name: str
    is_default: bool = False


class UserReferralInfo(BaseModel):
    referral_code: str
    referrals_count: int = 0
    total_earnings_kopeks: int = 0
    commission_percent: int | None = None
    referred_by_id: int | None = None
    referred_by_username: str | None = None


class UserTransactionItem(TransactionSummary):
    """A transaction as administrators see it: money going out is negative."""

    is_completed: bool = True
    created_at: datetime


class UserTransactionsResponse(BaseModel):
    transactions: list[UserTransactionItem]
    total: int
    offset: int
    limit: int


class UserDetailResponse(UserIdentity):
    language: str
    balance_kopeks: int
    balance_rubles: float
    email: str | None = None
    email_verified: bool = False
    created_at: datetime
    updated_at: datetime | None = None
    last_activity: datetime | None = None
    cabinet_last_login: datetime | None = None
    subscription: UserSubscriptionInfo | None = None
    subscriptions: list[UserSubscriptionInfo] = Field(default_factory=list)
    promo_group: UserPromoGroupInfo | None = None
    referral: UserReferralInfo
    total_spent_kopeks: int = 0
    purchase_count: int = 0
    used_promocodes: int = 0
    has_had_paid_subscription: bool = False
    lifetime_used_traffic_bytes: int = 0
    restriction_topup: bool = False
    restriction_subscription: bool = False
    restriction_reason: str | None = None
    promo_offer_discount_percent: int = 0
    promo_offer_discount_source: str | None = None
    promo_offer_discount_expires_at: datetime | None = None
    campaign_name: str | None = None
    campaign_id: int | None = None
    recent_transactions: list[UserTransactionItem] = Field(default_factory=list)
    panel_uuid: str | None = None
    panel_id: int | None = Field(
        None, description="The panel's numeric user id; the panel spoken here names accounts by uuid: null."
    )


class PeriodPriceInfo(BaseModel):
    days: int
    price_kopeks: int
    price_rubles: float


class UserAvailableTariffItem(BaseModel):
    id: int
    name: str
    description: str | None = None
    is_active: bool = True
    is_trial_available: bool = False
    traffic_limit_gb: int = 0
    device_limit: int = 1
    tier_level: int = 1
    display_order: int = 0
    period_prices: list[PeriodPriceInfo] = Field(default_factory=list)
    is_daily: bool = False
    daily_price_kopeks: int = 0
    custom_days_enabled: bool = False
    price_per_day_kopeks: int = 0
    min_days: int = 1
    max_days: int = 365
    device_price_kopeks: int | None = None
    max_device_limit: int | None = None
    traffic_topup_enabled: bool = False
    traffic_topup_packages: dict[str, int] = Field(default_factory=dict)
    max_topup_traffic_gb: int = 0
    is_available: bool = True
    requires_promo_group: bool = False


class UserAvailableTariffsResponse(BaseModel):
    user_id: int
    promo_group_id: int | None = None
    promo_group_name: str | None = None
    tariffs: list[UserAvailableTariffItem] = Field(default_factory=list)
    total: int = 0
    current_tariff_id: int | None = None
    current_tariff_name: str | None = None


class AdminUserGiftItem(BaseModel):
    id: int
    token: str
    status: str
    tariff_name: str | None = None
    period_days: int
    device_limit: int = 1
    amount_kopeks: int
    payment_method: str | None = None
    gift_recipient_type: str | None = None
    gift_recipient_value: str | None = None
    gift_message: str | None = None
    buyer_user_id: int | None = None
    buyer_username: str | None = None
    buyer_full_name: str | None = None
    receiver_user_id: int | None = None
    receiver_username: str | None = None
    receiver_full_name: str | None = None
    created_at: datetime | None = None
    paid_at: datetime | None = None
    delivered_at: datetime | None = None


class AdminUserGiftsResponse(BaseModel):
    sent: list[AdminUserGiftItem] = Field(default_factory=list)
    received: list[AdminUserGiftItem] = Field(default_factory=list)
    sent_total: int = 0
    received_total: int = 0


# --- changes -------------------------------------------------------------------------------------


class UpdateBalanceRequest(BaseModel):
    amount_kopeks: int = Field(
        ge=-MAX_BALANCE_CHANGE,
        le=MAX_BALANCE_CHANGE,
        description="Amount in kopeks (positive to add, negative to subtract)",
    )
    description: str = Field(DEFAULT_BALANCE_DESCRIPTION, max_length=500)
    create_transaction: bool = Field(True, description="Create transaction record")


class UpdateBalanceResponse(BaseModel):
    success: bool
    old_balance_kopeks: int
    new_balance_kopeks: int
    message: str


class UpdateSubscriptionRequest(BaseModel):
    """One action on the user's current subscription, or the one ``subscription_id`` names
    (or ``create`` one)."""

    action: str = Field(
        description="Action: create, extend, shorten, set_end_date, change_tariff, set_traffic, "
        "toggle_autopay, cancel, activate, add_traffic, remove_traffic, set_device_limit"
    )
    days: int | None = Field(None, ge=1, le=3650, description="Days to extend")
    end_date: UTCDate | None = Field(None, description="New end date")
    tariff_id: int | None = Field(None, description="New tariff ID")
    traffic_limit_gb: int | None = Field(None, ge=0, le=MAX_TRAFFIC_GB, description="New traffic limit in GB")
    traffic_used_gb: float | None = Field(
        None, ge=0, le=MAX_TRAFFIC_USED_GB, description="Set traffic used in GB"
    )
    autopay_enabled: bool | None = Field(None, description="Enable/disable autopay")
    traffic_gb: int | None = Field(None, ge=1, le=MAX_TRAFFIC_GB, description="Traffic GB to add")
    traffic_purchase_id: int | None = Field(None, description="Traffic purchase ID to remove")
    is_trial: bool | None = Field(None, description="Is trial subscription")
    device_limit: int | None = Field(None, ge=1, le=MAX_DEVICES, description="Device limit")
    subscription_id: int | None = Field(None, description="Subscription ID to target (multi-tariff)")


class UpdateSubscriptionResponse(ActionResponse):
    subscription: UserSubscriptionInfo | None = None


class UpdateUserStatusRequest(BaseModel):
    status: UserStatus
    reason: Reason = Field(None, description="Reason for status change")


class UpdateUserStatusResponse(BaseModel):
    success: bool
    old_status: str
    new_status: str
    message: str


class UpdateRestrictionsRequest(BaseModel):
    """The restrictions to change; absent or null ones stay as they are."""

    restriction_topup: bool | None = Field(None, description="Block balance top-up")
    restriction_subscription: bool | None = Field(None, description="Block subscription purchase/renewal")
    restriction_reason: Reason = Field(None, description="Reason for restrictions")


class UpdateRestrictionsResponse(BaseModel):
    success: bool
    restriction_topup: bool
    restriction_subscription: bool
    restriction_reason: str | None = None
    message: str


class UpdatePromoGroupRequest(BaseModel):
    promo_group_id: int | None = Field(None, description="New promo group ID (null to remove)")


class UpdatePromoGroupResponse(BaseModel):
    success: bool
    old_promo_group_id: int | None = None
    new_promo_group_id: int | None = None
    promo_group_name: str | None = None
    message: str


class UpdateReferralCommissionRequest(BaseModel):
    commission_percent: int | None = Field(
        None, ge=0, le=100, description="Referral commission percent (null for default)"
    )


class UpdateReferralCommissionResponse(BaseModel):
    success: bool
    old_commission_percent: int | None = None
    new_commission_percent: int | None = None
    message: str


class DeleteUserRequest(BaseModel):
    soft_delete: bool = Field(True, description="Soft delete (mark as deleted) or hard delete")
    reason: Reason = Field(None, description="Reason for deletion")


class DeleteUserResponse(ActionResponse):
    pass


class FullDeleteUserRequest(BaseModel):
    delete_from_panel: bool = Field(True, description="Also delete user from the VPN panel")
    reason: Reason = Field(None, description="Reason for deletion")


class FullDeleteUserResponse(ActionResponse):
    deleted_from_bot: bool = False
    deleted_from_panel: bool = False
    panel_error: str | None = None


class ResetTrialRequest(BaseModel):
    reason: Reason = Field(None, description="Reason for trial reset")


class ResetTrialResponse(ActionResponse):
    subscription_deleted: bool = False
    has_used_trial_reset: bool = False


class ResetSubscriptionRequest(BaseModel):
    deactivate_in_panel: bool = Field(True, description="Also deactivate in the VPN panel")
    reason: Reason = Field(None, description="Reason for subscription reset")


class ResetSubscriptionResponse(ActionResponse):
    subscription_deleted: bool = False
    panel_deactivated: bool = False
    panel_error: str | None = None


class DisableUserRequest(BaseModel):
    reason: Reason = Field(None, description="Reason for disabling")


class DisableUserResponse(ActionResponse):
    subscription_deactivated: bool = False
    panel_deactivated: bool = False
    user_blocked: bool = False
    panel_error: str | None = None


# --- the VPN panel -------------------------------------------------------------------------------


class DeviceInfo(BaseModel):
    hwid: str
    platform: str = ""
    device_model: str = ""
    created_at: str | None = None
    local_name: str | None = None


class UserDevicesResponse(BaseModel):
    devices: list[DeviceInfo] = Field(default_factory=list)
    total: int = 0
    device_limit: int = 0


class DeleteDeviceResponse(ActionResponse):
    deleted_hwid: str | None = None


class ResetDevicesResponse(ActionResponse):
    deleted_count: int = 0


class UserNodeUsageItem(BaseModel):
    node_uuid: str
    node_name: str
    country_code: str = ""
    total_bytes: int
    daily_bytes: list[int] = Field(default_factory=list)


class UserNodeUsageResponse(BaseModel):
    items: list[UserNodeUsageItem]
    categories: list[str] = Field(default_factory=list)
    period_days: int = 30


class UserPanelInfoResponse(BaseModel):
    found: bool = False
    trojan_password: str | None = None
    vless_uuid: str | None = None
    ss_password: str | None = None
    subscription_url: str | None = None
    happ_link: str | None = None
    used_traffic_bytes: int = 0
    lifetime_used_traffic_bytes: int = 0
    traffic_limit_bytes: int = 0
    first_connected_at: datetime | None = None
    online_at: datetime | None = None
    last_connected_node_uuid: str | None = None
    last_connected_node_name: str | None = None


class PanelSyncStatusResponse(BaseModel):
    user_id: int
    messenger_id: int | None = None
    panel_uuid: str | None = None
    panel_id: int | None = None
    subscription_id: int | None = None
    subscription_tariff_name: str | None = None
    last_sync: datetime | None = None
    bot_subscription_status: str | None = None
    bot_subscription_end_date: datetime | None = None
    bot_traffic_limit_gb: int = 0
    bot_traffic_used_gb: float = 0
    bot_device_limit: int = 0
    bot_squads: list[str] = Field(default_factory=list)
    panel_found: bool = False
    panel_status: str | None = None
    panel_expire_at: datetime | None = None
    panel_traffic_limit_gb: float = 0
    panel_traffic_used_gb: float = 0
    panel_device_limit: int = 0
    panel_squads: list[str] = Field(default_factory=list)
    has_differences: bool = False
    differences: list[str] = Field(default_factory=list)


class SyncFromPanelRequest(BaseModel):
    update_subscription: bool = Field(True, description="Update subscription data")
    update_traffic: bool = Field(True, description="Update traffic usage")
    create_if_missing: bool = Field(
        False, description="Create subscription if user exists in panel but not in bot"
    )


class PanelUserInfo(BaseModel):
    id: int | None = Field(
        None, description="The panel's numeric user id (null: the panel names accounts by uuid)."
    )
    uuid: str | None = None
    short_uuid: str | None = None
    username: str | None = None
    status: str | None = None
    expire_at: datetime | None = None
    traffic_limit_gb: float = 0
    traffic_used_gb: float = 0
    device_limit: int = 1
    subscription_url: str | None = None
    active_squads: list[str] = Field(default_factory=list)


class SyncFromPanelResponse(ActionResponse):
    panel_user: PanelUserInfo | None = None
    changes: dict[str, Any] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)


class SyncToPanelRequest(BaseModel):
    create_if_missing: bool = Field(True, description="Create user in panel if not exists")
    update_status: bool = Field(True, description="Update user status in panel")
    update_traffic_limit: bool = Field(True, description="Update traffic limit in panel")
    update_expire_date: bool = Field(True, description="Update expire date in panel")
    update_squads: bool = Field(True, description="Update connected squads in panel")


class SyncToPanelResponse(ActionResponse):
    action: str = ""
    panel_uuid: str | None = None
    panel_user_id: int | None = None
    changes: dict[str, Any] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)


# --- activity, referrer, messages, devices, lookups ----------------------------------------------


class UserActivityItem(BaseModel):
    """One entry of the user's timeline: ``type`` its source, ``subtype`` its kind there."""

    type: str
    subtype: str | None = None
    source: str | None = None
    title: str | None = None
    amount_kopeks: int | None = None
    timestamp: datetime
    meta: dict[str, Any] | None = None


class UserActivityResponse(BaseModel):
    items: list[UserActivityItem]
    total: int
    offset: int = 0
    limit: int = 50


class AssignReferrerRequest(BaseModel):
    referrer_id: int = Field(gt=0, description="ID of the referrer user")


class AssignReferrerResponse(ActionResponse):
    old_referrer_id: int | None = None
    new_referrer_id: int | None = None


class RemoveReferrerResponse(ActionResponse):
    old_referrer_id: int | None = None


class RemoveReferralResponse(ActionResponse):
    removed_user_id: int


class RenameDeviceRequest(BaseModel):
    name: str | None = Field(None, max_length=64, description="The alias; empty or null clears it")


class RenameDeviceResponse(BaseModel):
    hwid: str
    local_name: str | None = None


class SendUserMessageRequest(BaseModel):
    text: str = Field(min_length=1, max_length=4096, description="Message text (HTML)")


class SendUserMessageResponse(ActionResponse):
    pass


class UserByPanelResponse(BaseModel):
    user_id: int
    subscription_id: int
    matched_panel_id: int | None = None


class DeleteUserSubscriptionResponse(ActionResponse):
    subscription_id: int


class CancelRecurringResponse(ActionResponse):
    cancelled: bool = False


class SubscriptionRequestItem(BaseModel):
    """One request of the subscription link, as the panel logged it."""

    id: int
    request_ip: str | None = None
    user_agent: str | None = None
    request_at: datetime | None = None


class SubscriptionRequestHistoryResponse(BaseModel):
    items: list[SubscriptionRequestItem] = Field(default_factory=list)
    total: int = 0
    offset: int = 0
    limit: int = 20


# --- events --------------------------------------------------------------------------------------


class UserStatusChanged(BaseModel):
    """Payload of ``user.status_changed``: an administrator blocked, unblocked, disabled or
    (soft) deleted a user."""

    user_id: int
    messenger_id: int | None = None
    old_status: str
    new_status: str
    reason: str | None = None
    changed_by: int


class UserDeleted(BaseModel):
    """Payload of ``user.deleted``: a user row was removed for good (with its subscriptions
    and transactions). ``delete_from_panel`` says whether the panel account should go too."""

    user_id: int
    messenger_id: int | None = None
    email: str | None = None
    short_ids: list[str] = Field(default_factory=list)
    delete_from_panel: bool
    reason: str | None = None
    deleted_by: int
