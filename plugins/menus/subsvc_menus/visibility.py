"""Who sees which button: a user's context, the visibility and condition rules, and the menu
as that user would see it (what `POST /menu-layout/preview` answers)."""

from __future__ import annotations

from dataclasses import dataclass

from subsvc.api import price_label
from subsvc_menus.schemas.layout import (
    ButtonConditions,
    MenuButtonConfig,
    MenuLayout,
    MenuPreviewButton,
    MenuPreviewRow,
)

# Conditions that are switches of the bot's deployment, not facts about the user: a preview
# assumes them on.
FEATURE_SWITCHES = (
    "referral_enabled",
    "contests_visible",
    "support_enabled",
    "language_selection_enabled",
    "happ_enabled",
    "simple_subscription_enabled",
    "traffic_topup_enabled",
)


@dataclass(frozen=True)
class MenuContext:
    """What the rules know about the user; unknown facts are the defaults (none, zero)."""

    language: str = "ru"
    is_admin: bool = False
    is_moderator: bool = False
    has_active_subscription: bool = False
    subscription_is_active: bool = False
    balance_kopeks: int = 0
    username: str | None = None
    has_traffic_limit: bool = False
    is_trial: bool = False
    had_paid_subscription: bool = False
    has_saved_cart: bool = False
    registration_days: int = 0
    referral_count: int = 0
    referral_earnings_kopeks: int = 0
    promo_group_id: str | None = None
    subscription_days: int = 0
    traffic_used_gb: float = 0.0
    traffic_left_gb: float = 0.0
    has_autopay: bool = False
    features_on: bool = True


def visible_to(visibility: str, ctx: MenuContext) -> bool:
    """``all``; ``admins``; ``moderators`` (not administrators: they have their own panel);
    ``subscribers`` (an active, not suspended subscription)."""
    if visibility == "admins":
        return ctx.is_admin
    if visibility == "moderators":
        return ctx.is_moderator and not ctx.is_admin
    if visibility == "subscribers":
        return ctx.has_active_subscription and ctx.subscription_is_active
    return True


def _flags_hold(c: ButtonConditions, ctx: MenuContext) -> bool:
    required = {
        "has_active_subscription": ctx.has_active_subscription,
        "subscription_is_active": ctx.subscription_is_active,
        "has_traffic_limit": ctx.has_traffic_limit and not ctx.is_trial,
        "is_admin": ctx.is_admin,
        "is_moderator": ctx.is_moderator and not ctx.is_admin,
        "show_trial": not (ctx.had_paid_subscription or ctx.has_active_subscription),
        "show_buy": not (ctx.has_active_subscription and ctx.subscription_is_active),
        "has_saved_cart": ctx.has_saved_cart,
        "has_referrals": ctx.referral_count > 0,
        "is_trial_user": ctx.is_trial,
        "has_autopay": ctx.has_autopay,
        **{name: ctx.features_on for name in FEATURE_SWITCHES},
    }
    return all(holds for name, holds in required.items() if getattr(c, name) is True)


def _bounds_hold(c: ButtonConditions, ctx: MenuContext) -> bool:
    bounds = (
        (c.min_balance_kopeks, c.max_balance_kopeks, ctx.balance_kopeks),
        (c.min_registration_days, c.max_registration_days, ctx.registration_days),
        (c.has_subscription_days_left, c.max_subscription_days_left, ctx.subscription_days),
        (c.min_referrals, None, ctx.referral_count),
    )
    return all(
        (low is None or value >= low) and (high is None or value <= high) for low, high, value in bounds
    )


def conditions_hold(conditions: ButtonConditions | None, ctx: MenuContext) -> bool:
    """Every condition that is set holds (a flag set to false asks nothing)."""
    if conditions is None:
        return True
    if conditions.promo_group_ids and ctx.promo_group_id not in conditions.promo_group_ids:
        return False
    if conditions.exclude_promo_group_ids and ctx.promo_group_id in conditions.exclude_promo_group_ids:
        return False
    return _flags_hold(conditions, ctx) and _bounds_hold(conditions, ctx)


def localized(text: dict[str, str], language: str) -> str:
    """The text in ``language``, else English, else the first there is."""
    return text.get(language) or text.get("en") or next(iter(text.values()), "")


def fill_placeholders(text: str, ctx: MenuContext) -> str:
    values = {
        "{balance}": price_label(ctx.balance_kopeks),
        "{username}": ctx.username or "User",
        "{subscription_days}": str(ctx.subscription_days),
        "{traffic_used}": f"{ctx.traffic_used_gb:.1f} GB",
        "{traffic_left}": f"{ctx.traffic_left_gb:.1f} GB",
        "{referral_count}": str(ctx.referral_count),
        "{referral_earnings}": price_label(ctx.referral_earnings_kopeks),
    }
    for name, value in values.items():
        text = text.replace(name, value)
    return text


def button_text(button: MenuButtonConfig, ctx: MenuContext) -> str:
    text = localized(button.text, ctx.language)
    if button.dynamic_text:
        text = fill_placeholders(text, ctx)
    if text and button.icon and not text.startswith(button.icon):
        text = f"{button.icon} {text}"
    return text


def shown(button: MenuButtonConfig, ctx: MenuContext) -> bool:
    return button.enabled and visible_to(button.visibility, ctx) and conditions_hold(button.conditions, ctx)


def keyboard(layout: MenuLayout, ctx: MenuContext) -> list[MenuPreviewRow]:
    """The menu this user sees: rows whose conditions hold, their buttons that are shown,
    split into lines of ``max_per_row``."""
    lines: list[MenuPreviewRow] = []
    for row in layout.rows:
        if not conditions_hold(row.conditions, ctx):
            continue
        buttons = []
        for key in row.buttons:
            button = layout.buttons.get(key)
            if button is None or not shown(button, ctx):
                continue
            text = button_text(button, ctx)
            if text:
                buttons.append(MenuPreviewButton(text=text, action=button.action, type=button.type))
        for start in range(0, len(buttons), row.max_per_row):
            lines.append(MenuPreviewRow(buttons=buttons[start : start + row.max_per_row]))
    return lines
