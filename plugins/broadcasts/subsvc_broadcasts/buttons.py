"""The buttons a broadcast may carry (the reference's keys, texts and bot callbacks)."""

from __future__ import annotations

from collections.abc import Sequence

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


def keyboard(keys: Sequence[str]) -> Keyboard | None:
    """The chosen buttons laid out in the bot's rows (``None`` when there are none)."""
    chosen = set(keys)
    rows = [
        [InlineButton(BUTTONS[key][0], callback_data=BUTTONS[key][1]) for key in row if key in chosen]
        for row in ROWS
    ]
    return [row for row in rows if row] or None
