"""The buttons a broadcast may carry: the reference's standard ones (keys, texts and bot
callbacks) and the administrator's own (``custom_buttons``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from subsvc.messenger import InlineButton, Keyboard

DEFAULT_BUTTONS = ("home",)
# key: (text, callback_data the bot answers)
BUTTONS: dict[str, tuple[str, str]] = {
    "balance": ("💰 Пополнить баланс", "balance_topup"),
    "referrals": ("🤝 Партнерка", "menu_referrals"),
    "promocode": ("🎫 Промокод", "menu_promocode"),
    "connect": ("🔗 Подключиться", "subscription_connect"),
    "subscription": ("📱 Подписка", "menu_subscription"),
    "support": ("🛠️ Техподдержка", "menu_support"),
    "home": ("🏠 На главную", "back_to_menu"),
}
ROWS = (("balance", "referrals"), ("promocode", "connect"), ("subscription", "support"), ("home",))


def unknown_buttons(keys: Sequence[str]) -> list[str]:
    return [key for key in keys if key not in BUTTONS]


def custom_button(stored: dict[str, Any]) -> InlineButton:
    """A stored custom button (``{label, action_type, action_value, icon_custom_emoji_id}``)."""
    value, icon = stored["action_value"], stored.get("icon_custom_emoji_id")
    if stored.get("action_type") == "url":
        return InlineButton(stored["label"], url=value, icon_custom_emoji_id=icon)
    return InlineButton(stored["label"], callback_data=value, icon_custom_emoji_id=icon)


def keyboard(keys: Sequence[str], custom: Sequence[dict[str, Any]] = ()) -> Keyboard | None:
    """The chosen buttons laid out in the bot's rows, then each custom button on a row of its
    own (``None`` when there are none)."""
    chosen = set(keys)
    rows = [
        [InlineButton(BUTTONS[key][0], callback_data=BUTTONS[key][1]) for key in row if key in chosen]
        for row in ROWS
    ]
    rows += [[custom_button(stored)] for stored in custom]
    return [row for row in rows if row] or None
