"""The layout's rules as pure functions: visibility, conditions, texts, checks."""

from __future__ import annotations

from subsvc_menus import layout as rules
from subsvc_menus.schemas.layout import ButtonConditions, MenuButtonConfig
from subsvc_menus.visibility import MenuContext, button_text, conditions_hold, visible_to

from subsvc.api import price_label


def test_visibility():
    guest, admin = MenuContext(), MenuContext(is_admin=True, is_moderator=True)
    moderator = MenuContext(is_moderator=True)
    subscriber = MenuContext(has_active_subscription=True, subscription_is_active=True)
    suspended = MenuContext(has_active_subscription=True)
    assert visible_to("all", guest)
    assert visible_to("admins", admin) and not visible_to("admins", moderator)
    assert visible_to("moderators", moderator) and not visible_to("moderators", admin)
    assert visible_to("subscribers", subscriber) and not visible_to("subscribers", suspended)


def test_conditions():
    user = MenuContext(
        balance_kopeks=500,
        registration_days=10,
        referral_count=2,
        promo_group_id="7",
        has_active_subscription=True,
        is_trial=True,
        has_traffic_limit=True,
    )
    holds = [
        ButtonConditions(min_balance_kopeks=500, max_balance_kopeks=500),
        ButtonConditions(min_registration_days=10, has_referrals=True, min_referrals=2),
        ButtonConditions(promo_group_ids=["7", "8"], exclude_promo_group_ids=["9"]),
        ButtonConditions(is_trial_user=True, has_active_subscription=True, support_enabled=True),
        ButtonConditions(is_admin=False),  # a flag set to false asks nothing
    ]
    fails = [
        ButtonConditions(min_balance_kopeks=501),
        ButtonConditions(max_registration_days=9),
        ButtonConditions(exclude_promo_group_ids=["7"]),
        ButtonConditions(show_trial=True),  # has a subscription
        ButtonConditions(has_traffic_limit=True),  # trials have no traffic limit of their own
        ButtonConditions(has_autopay=True),
    ]
    assert all(conditions_hold(c, user) for c in holds)
    assert not any(conditions_hold(c, user) for c in fails)
    assert not conditions_hold(ButtonConditions(referral_enabled=True), MenuContext(features_on=False))
    assert not conditions_hold(ButtonConditions(traffic_topup_enabled=True), MenuContext(features_on=False))


def test_texts():
    button = MenuButtonConfig(
        type="url",
        text={"ru": "Баланс {balance}", "de": "x"},
        action="https://x",
        icon="💰",
        dynamic_text=True,
    )
    assert (
        button_text(button, MenuContext(language="ru", balance_kopeks=123456789))
        == "💰 Баланс 1 234 567.89 ₽"
    )
    assert button_text(button, MenuContext(language="fa")) == "💰 Баланс 0 ₽"  # no en: the first text
    assert price_label(100) == "1 ₽"


def test_checks_name_range_errors_and_warn_about_direct_open_without_url():
    layout = rules.default_layout()
    layout.buttons["connect"].open_mode = "direct"
    layout.buttons["info"].conditions = ButtonConditions(min_balance_kopeks=5, max_balance_kopeks=1)
    errors, warnings = rules.check(layout)
    assert [message for _, _, message in errors] == [
        "Button 'info': min_balance_kopeks is above max_balance_kopeks"
    ]
    assert any(kind == "no_direct_url" for _, kind, _ in warnings)
    assert rules.load({"rows": "broken"}).rows == rules.default_layout().rows
