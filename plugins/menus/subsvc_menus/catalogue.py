# ruff: noqa: E501 (tables of data, one entry a line)
"""What the bot offers the layout constructor: its builtin buttons, the default layout, the
callbacks a custom button may send and the placeholders a button text may hold.

Plain data; :mod:`subsvc_menus.layout` turns it into documents."""

from __future__ import annotations

from typing import Any

Conditions = dict[str, Any] | None

SUBSCRIBED = {"has_active_subscription": True, "subscription_is_active": True}
TOPUP = {"has_traffic_limit": True, "traffic_topup_enabled": True}

# id: (callback_data, ru, en, visibility, conditions on the button, conditions listed as its
#      default in /builtin-buttons, dynamic text, may open a Mini App directly)
BUILTIN: dict[str, tuple[str, str, str, str, Conditions, Conditions, bool, bool]] = {
    "connect": ("subscription_connect", "🔗 Подключиться", "🔗 Connect", "subscribers", SUBSCRIBED, SUBSCRIBED, False, True),
    "happ_download": ("subscription_happ_download", "⬇️ Скачать Happ", "⬇️ Download Happ", "subscribers", None, {"happ_enabled": True}, False, False),
    "subscription": ("menu_subscription", "📊 Подписка", "📊 Subscription", "subscribers", None, {"has_active_subscription": True}, False, False),
    "buy_traffic": ("buy_traffic", "📈 Докупить трафик", "📈 Buy traffic", "subscribers", TOPUP, TOPUP, False, False),
    "balance": ("menu_balance", "💰 Баланс: {balance}", "💰 Balance: {balance}", "all", None, None, True, False),
    "trial": ("menu_trial", "🎁 Пробный период", "🎁 Free trial", "all", {"show_trial": True}, {"show_trial": True}, False, False),
    "buy_subscription": ("menu_buy", "🛒 Купить подписку", "🛒 Buy subscription", "all", {"show_buy": True}, {"show_buy": True}, False, False),
    "simple_subscription": ("simple_subscription_purchase", "💳 Простая подписка", "💳 Simple subscription", "all", None, {"simple_subscription_enabled": True}, False, False),
    "resume_checkout": ("return_to_saved_cart", "↩️ Вернуться к оформлению", "↩️ Resume checkout", "all", None, {"has_saved_cart": True}, False, False),
    "promocode": ("menu_promocode", "🎟️ Промокод", "🎟️ Promo code", "all", None, None, False, False),
    "referrals": ("menu_referrals", "👥 Рефералы", "👥 Referrals", "all", {"referral_enabled": True}, {"referral_enabled": True}, False, False),
    "contests": ("contests_menu", "🎲 Конкурсы", "🎲 Contests", "all", None, {"contests_visible": True}, False, False),
    "support": ("menu_support", "💬 Поддержка", "💬 Support", "all", {"support_enabled": True}, {"support_enabled": True}, False, False),
    "info": ("menu_info", "ℹ️ Инфо", "ℹ️ Info", "all", None, None, False, False),
    "language": ("menu_language", "🌐 Язык", "🌐 Language", "all", None, {"language_selection_enabled": True}, False, False),
    "admin_panel": ("admin_panel", "⚙️ Админ панель", "⚙️ Admin panel", "admins", None, {"is_admin": True}, False, False),
    "moderator_panel": ("moderator_panel", "🧑‍⚖️ Модерация", "🧑‍⚖️ Moderation", "moderators", None, {"is_moderator": True}, False, False),
}  # fmt: skip

# (row id, buttons, conditions of the row, buttons per keyboard line)
DEFAULT_ROWS: list[tuple[str, list[str], Conditions, int]] = [
    ("connect_row", ["connect"], SUBSCRIBED, 1),
    ("happ_row", ["happ_download"], {"has_active_subscription": True, "happ_enabled": True}, 1),
    ("subscription_traffic_row", ["subscription", "buy_traffic"], {"has_active_subscription": True}, 2),
    ("balance_row", ["balance"], None, 1),
    ("trial_buy_row", ["trial", "buy_subscription"], None, 2),
    ("simple_subscription_row", ["simple_subscription"], {"simple_subscription_enabled": True}, 1),
    ("resume_row", ["resume_checkout"], {"has_saved_cart": True}, 1),
    ("promo_referral_row", ["promocode", "referrals"], None, 2),
    ("contests_row", ["contests"], {"contests_visible": True}, 2),
    ("support_info_row", ["support", "info"], None, 2),
    ("language_row", ["language"], {"language_selection_enabled": True}, 2),
    ("admin_row", ["admin_panel"], {"is_admin": True}, 1),
    ("moderator_row", ["moderator_panel"], {"is_moderator": True}, 1),
]

# (callback_data, name, category, icon, ru, en, requires an active subscription)
CALLBACKS: list[tuple[str, str, str, str, str, str, bool]] = [
    ("back_to_menu", "Назад в меню", "menu", "⬅️", "Назад", "Back", False),
    ("menu_faq", "FAQ", "menu", "❓", "FAQ", "FAQ", False),
    ("menu_info_promo_groups", "Промо-группы", "menu", "👥", "Промо-группы", "Promo groups", False),
    ("menu_privacy_policy", "Политика конфиденциальности", "menu", "🔒", "Политика конфиденциальности", "Privacy Policy", False),
    ("menu_public_offer", "Публичная оферта", "menu", "📜", "Публичная оферта", "Public Offer", False),
    ("menu_rules", "Правила", "menu", "📋", "Правила", "Rules", False),
    ("menu_server_status", "Статус серверов", "menu", "🖥️", "Статус серверов", "Server Status", False),
    ("balance_history", "История баланса", "balance", "📜", "История", "History", False),
    ("balance_topup", "Пополнить баланс", "balance", "💳", "Пополнить", "Top up", False),
    ("subscription_extend", "Продлить подписку", "subscription", "📅", "Продлить", "Extend", True),
    ("subscription_autopay", "Автоплатёж", "subscription", "🔄", "Автоплатёж", "Autopay", True),
    ("subscription_settings", "Настройки подписки", "subscription", "⚙️", "Настройки", "Settings", True),
    ("open_subscription_link", "Показать ссылку подписки", "subscription", "🔗", "Показать ссылку", "Show link", True),
    ("subscription_add_countries", "Добавить страны", "subscription", "🌍", "Добавить страны", "Add countries", True),
    ("subscription_reset_traffic", "Сбросить трафик", "subscription", "🔄", "Сбросить трафик", "Reset traffic", True),
    ("subscription_switch_traffic", "Переключить трафик", "subscription", "🔀", "Переключить трафик", "Switch traffic", True),
    ("subscription_change_devices", "Изменить устройства", "subscription", "📱", "Изменить устройства", "Change devices", True),
    ("subscription_manage_devices", "Управление устройствами", "subscription", "📲", "Управление устройствами", "Manage devices", True),
    ("subscription_upgrade", "Улучшить подписку", "subscription", "⬆️", "Улучшить", "Upgrade", True),
    ("device_guide_ios", "Инструкция iOS", "devices", "📱", "iOS", "iOS", True),
    ("device_guide_android", "Инструкция Android", "devices", "🤖", "Android", "Android", True),
    ("device_guide_windows", "Инструкция Windows", "devices", "💻", "Windows", "Windows", True),
    ("device_guide_mac", "Инструкция macOS", "devices", "🎯", "macOS", "macOS", True),
    ("device_guide_tv", "Инструкция Android TV", "devices", "📺", "Android TV", "Android TV", True),
    ("device_guide_appletv", "Инструкция Apple TV", "devices", "📺", "Apple TV", "Apple TV", True),
    ("happ_download_ios", "Скачать Happ iOS", "happ", "🍎", "iOS", "iOS", False),
    ("happ_download_android", "Скачать Happ Android", "happ", "🤖", "Android", "Android", False),
    ("happ_download_macos", "Скачать Happ macOS", "happ", "🖥️", "macOS", "macOS", False),
    ("happ_download_windows", "Скачать Happ Windows", "happ", "💻", "Windows", "Windows", False),
    ("referral_create_invite", "Создать инвайт", "referral", "✉️", "Создать инвайт", "Create invite", False),
    ("referral_show_qr", "QR код реферала", "referral", "📱", "QR код", "QR code", False),
    ("referral_list", "Список рефералов", "referral", "👥", "Мои рефералы", "My referrals", False),
    ("referral_analytics", "Аналитика рефералов", "referral", "📊", "Аналитика", "Analytics", False),
    ("create_ticket", "Создать тикет", "support", "✏️", "Создать тикет", "Create ticket", False),
    ("my_tickets", "Мои тикеты", "support", "📋", "Мои тикеты", "My tickets", False),
    ("trial_activate", "Активировать триал", "trial", "🎁", "Активировать", "Activate", False),
    ("clear_saved_cart", "Очистить корзину", "purchase", "🗑️", "Очистить корзину", "Clear cart", False),
    ("subscription_confirm", "Подтвердить покупку", "purchase", "✅", "Подтвердить", "Confirm", False),
    ("subscription_cancel", "Отменить покупку", "purchase", "❌", "Отменить", "Cancel", False),
]  # fmt: skip

# (placeholder, description, example, category)
PLACEHOLDERS: list[tuple[str, str, str, str]] = [
    ("{balance}", "Баланс пользователя", "1 500 ₽", "user"),
    ("{username}", "Имя пользователя", "John", "user"),
    ("{subscription_days}", "Дней до окончания подписки", "14", "subscription"),
    ("{traffic_used}", "Использованный трафик", "5.2 GB", "subscription"),
    ("{traffic_left}", "Оставшийся трафик", "94.8 GB", "subscription"),
    ("{referral_count}", "Количество рефералов", "12", "referral"),
    ("{referral_earnings}", "Заработок с рефералов", "500 ₽", "referral"),
]
PLACEHOLDER_NAMES = tuple(p[0] for p in PLACEHOLDERS)

# The cabinet's menu: its builtin sections, which of them have a style of their own, the
# styles a button may take, and the default rows.
CABINET_SECTIONS = ("home", "subscription", "balance", "referral", "support", "info", "admin", "language")
STYLE_DEFAULTS: dict[str, str] = {
    "home": "primary",
    "subscription": "success",
    "balance": "primary",
    "referral": "success",
    "support": "primary",
    "info": "primary",
    "admin": "danger",
}
STYLES = ("danger", "default", "primary", "success")
CABINET_ROWS: list[tuple[list[str], int]] = [
    (["home"], 1),
    (["subscription", "balance"], 2),
    (["referral", "support"], 2),
    (["info", "language"], 2),
    (["admin"], 1),
]
