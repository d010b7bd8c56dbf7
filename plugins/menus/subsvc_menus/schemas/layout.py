"""The bot's menu layout constructor (`/menu-layout`): the layout document and the requests
that change it. The document's own models (rows, buttons, conditions) are what is stored."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from subsvc.api import BigInt

ButtonType = Literal["builtin", "url", "mini_app", "callback"]
ButtonVisibility = Literal["all", "admins", "moderators", "subscribers"]
ButtonOpenMode = Literal["callback", "direct"]
Id = Annotated[str, StringConstraints(min_length=1, max_length=50)]
EMOJI_ID_DESCRIPTION = "The messenger's custom emoji shown on the button (Bot API 9.4+)"


class ButtonConditions(BaseModel):
    """When a button or a row is shown; unset conditions do not count."""

    model_config = ConfigDict(extra="forbid")

    has_active_subscription: bool | None = Field(None, description="Requires an active subscription")
    subscription_is_active: bool | None = Field(None, description="The subscription is not suspended")
    has_traffic_limit: bool | None = Field(None, description="A subscription with a traffic limit")
    is_admin: bool | None = Field(None, description="The user is an administrator")
    is_moderator: bool | None = Field(None, description="The user is a moderator")
    referral_enabled: bool | None = Field(None, description="The referral programme is on")
    contests_visible: bool | None = Field(None, description="Contests are visible")
    support_enabled: bool | None = Field(None, description="Support is on")
    language_selection_enabled: bool | None = Field(None, description="Language selection is on")
    happ_enabled: bool | None = Field(None, description="The app download button is on")
    simple_subscription_enabled: bool | None = Field(None, description="Simple subscription is on")
    show_trial: bool | None = Field(None, description="Show the trial (never subscribed)")
    show_buy: bool | None = Field(None, description="Show the buy button (no active subscription)")
    has_saved_cart: bool | None = Field(None, description="A saved cart exists")
    min_balance_kopeks: BigInt | None = Field(None, ge=0, description="Minimum balance, kopeks")
    max_balance_kopeks: BigInt | None = Field(None, ge=0, description="Maximum balance, kopeks")
    min_registration_days: int | None = Field(None, ge=0, description="Minimum days since registration")
    max_registration_days: int | None = Field(None, ge=0, description="Maximum days since registration")
    min_referrals: int | None = Field(None, ge=0, description="Minimum number of referrals")
    has_referrals: bool | None = Field(None, description="Has referrals")
    promo_group_ids: list[str] | None = Field(None, description="The user is in one of these promo groups")
    exclude_promo_group_ids: list[str] | None = Field(None, description="The user is in none of these")
    has_subscription_days_left: int | None = Field(None, ge=0, description="Minimum subscription days left")
    max_subscription_days_left: int | None = Field(None, ge=0, description="Maximum subscription days left")
    is_trial_user: bool | None = Field(None, description="The user is on a trial")
    has_autopay: bool | None = Field(None, description="Autopay is on")
    traffic_topup_enabled: bool | None = Field(None, description="Traffic top-up is on")


class MenuButtonConfig(BaseModel):
    """One button of the layout."""

    type: ButtonType = Field(description="Button type")
    builtin_id: str | None = Field(None, description="The builtin button (type builtin)")
    text: dict[str, str] = Field(description="Texts by language: {lang_code: text}")
    icon: str | None = Field(None, max_length=10, description="Emoji shown before the text")
    icon_custom_emoji_id: str | None = Field(None, max_length=100, description=EMOJI_ID_DESCRIPTION)
    action: str = Field(description="callback_data or URL, by type")
    enabled: bool = Field(True, description="The button is shown")
    visibility: ButtonVisibility = Field("all", description="Who sees the button")
    conditions: ButtonConditions | None = Field(None, description="Further conditions")
    dynamic_text: bool = Field(False, description="The text holds placeholders ({balance}, ...)")
    open_mode: ButtonOpenMode = Field(
        "callback", description="callback (through the bot) or direct (Mini App)"
    )
    webapp_url: str | None = Field(None, description="Mini App URL for open_mode=direct")
    description: str | None = Field(None, max_length=200, description="Note for administrators")
    sort_order: int | None = Field(None, description="Order in the admin panel")


class MenuRowConfig(BaseModel):
    """One row of the layout: its buttons, in order."""

    id: Id = Field(description="Unique row id")
    buttons: list[str] = Field(description="Button ids in the row")
    conditions: ButtonConditions | None = Field(None, description="When the whole row is shown")
    max_per_row: int = Field(2, ge=1, le=4, description="Buttons per keyboard line at most")


class MenuLayout(BaseModel):
    """The stored layout document."""

    version: int = 1
    rows: list[MenuRowConfig] = Field(default_factory=list)
    buttons: dict[Id, MenuButtonConfig] = Field(default_factory=dict)


class MenuLayoutResponse(MenuLayout):
    is_enabled: bool = Field(description="The bot builds its menu from this layout")
    updated_at: datetime | None = None


class MenuLayoutUpdateRequest(BaseModel):
    """The whole layout: rows, buttons, or both (what is left out stays)."""

    rows: list[MenuRowConfig] | None = Field(None, description="The new rows")
    buttons: dict[Id, MenuButtonConfig] | None = Field(None, description="The new buttons")


class BuiltinButtonInfo(BaseModel):
    id: str
    default_text: dict[str, str]
    callback_data: str
    default_conditions: ButtonConditions | None = None
    supports_dynamic_text: bool = False
    supports_direct_open: bool = False


class BuiltinButtonsListResponse(BaseModel):
    items: list[BuiltinButtonInfo]
    total: int


class ButtonUpdateRequest(BaseModel):
    """Fields to change; ``text``, ``enabled``, ``visibility``, ``action``, ``dynamic_text`` and
    ``open_mode`` given as null stay; the other nullable ones are cleared by null."""

    text: dict[str, str] | None = None
    icon: str | None = Field(None, max_length=10)
    icon_custom_emoji_id: str | None = Field(None, max_length=100, description=EMOJI_ID_DESCRIPTION)
    enabled: bool | None = None
    visibility: ButtonVisibility | None = None
    conditions: ButtonConditions | None = None
    action: str | None = None
    dynamic_text: bool | None = None
    open_mode: ButtonOpenMode | None = None
    webapp_url: str | None = None
    description: str | None = Field(None, max_length=200)
    sort_order: int | None = None


class RowsReorderRequest(BaseModel):
    ordered_ids: list[str] = Field(description="Row ids in the new order (rows left out follow)")


class AddRowRequest(BaseModel):
    id: Id = Field(description="The new row's id")
    buttons: list[str] = Field(description="Button ids")
    conditions: ButtonConditions | None = None
    max_per_row: int = Field(2, ge=1, le=4)
    position: int | None = Field(None, ge=0, description="Where to insert (default: at the end)")


class AddCustomButtonRequest(BaseModel):
    id: Id = Field(description="Button id (unique)")
    type: ButtonType = Field(description="url, mini_app or callback")
    text: dict[str, str] = Field(description="Texts by language")
    icon: str | None = Field(None, max_length=10)
    icon_custom_emoji_id: str | None = Field(None, max_length=100, description=EMOJI_ID_DESCRIPTION)
    action: str = Field(min_length=1, description="URL or callback_data")
    visibility: ButtonVisibility = "all"
    conditions: ButtonConditions | None = None
    dynamic_text: bool = False
    row_id: str | None = Field(None, description="Row to append the button to")
    description: str | None = Field(None, max_length=200)


class MenuPreviewRequest(BaseModel):
    language: str = Field("ru", max_length=10)
    is_admin: bool = False
    is_moderator: bool = False
    has_active_subscription: bool = False
    subscription_is_active: bool = False
    balance_kopeks: BigInt = Field(0, ge=0)


class MenuPreviewButton(BaseModel):
    text: str
    action: str
    type: ButtonType


class MenuPreviewRow(BaseModel):
    buttons: list[MenuPreviewButton]


class MenuPreviewResponse(BaseModel):
    rows: list[MenuPreviewRow]
    total_buttons: int


class MoveButtonResponse(BaseModel):
    button_id: str
    new_row_index: int | None = None
    target_row_id: str | None = None
    position: int | None = None


class MoveButtonToRowRequest(BaseModel):
    target_row_id: str
    position: int | None = Field(None, ge=0, description="Position in the row (default: the end)")


class ReorderButtonsInRowRequest(BaseModel):
    ordered_button_ids: list[str]


class ReorderButtonsResponse(BaseModel):
    row_id: str
    buttons: list[str]


class SwapButtonsRequest(BaseModel):
    button_id_1: str
    button_id_2: str


class SwappedButton(BaseModel):
    id: str
    new_row: int
    new_position: int


class SwapButtonsResponse(BaseModel):
    button_1: SwappedButton
    button_2: SwappedButton


class AvailableCallback(BaseModel):
    callback_data: str
    name: str
    description: str | None = None
    category: str
    default_text: dict[str, str] | None = None
    default_icon: str | None = None
    requires_subscription: bool = False
    is_in_menu: bool = False


class AvailableCallbacksResponse(BaseModel):
    items: list[AvailableCallback]
    total: int
    categories: list[str]


class DynamicPlaceholder(BaseModel):
    placeholder: str
    description: str
    example: str
    category: str


class DynamicPlaceholdersResponse(BaseModel):
    items: list[DynamicPlaceholder]
    total: int


class MenuLayoutExportResponse(MenuLayout):
    exported_at: datetime
    bot_version: str | None = None


class MenuLayoutImportRequest(BaseModel):
    version: int
    rows: list[MenuRowConfig]
    buttons: dict[Id, MenuButtonConfig]
    merge_mode: Literal["replace", "merge"] = Field(
        "replace", description="replace (everything) or merge (add what is new)"
    )


class MenuLayoutImportResponse(BaseModel):
    success: bool
    imported_rows: int
    imported_buttons: int
    warnings: list[str] = Field(default_factory=list)


class MenuLayoutValidateRequest(BaseModel):
    """A layout to check; neither rows nor buttons: the saved layout is checked."""

    rows: list[MenuRowConfig] | None = None
    buttons: dict[Id, MenuButtonConfig] | None = None


class LayoutIssue(BaseModel):
    """One finding about a layout, shaped like a validation error (``loc``, ``msg``, ``type``)
    and like the reference's (``field``, ``message``, ``severity``)."""

    loc: list[str | int]
    msg: str
    type: str
    input: Any = None
    ctx: dict[str, Any] | None = None
    field: str
    message: str
    severity: Literal["error", "warning"]


class MenuLayoutValidateResponse(BaseModel):
    is_valid: bool
    errors: list[LayoutIssue] = Field(default_factory=list)
    warnings: list[LayoutIssue] = Field(default_factory=list)


class MenuLayoutHistoryEntry(BaseModel):
    id: int
    created_at: datetime
    action: str = Field(description="update, reset, import, rollback")
    changes_summary: str
    user_info: str | None = None


class MenuLayoutHistoryResponse(BaseModel):
    items: list[MenuLayoutHistoryEntry]
    total: int


class MenuLayoutHistoryDetail(MenuLayoutHistoryEntry):
    config: dict[str, Any]
