"""4.1.0: a broadcast's `category` (kept and answered) and its `custom_buttons`, sent under
every message after the chosen standard buttons, each on its own row."""

from __future__ import annotations

ADMIN = "/cabinet/admin/broadcasts"
EMOJI = "5368324170671202286"
CUSTOM = [
    {
        "label": "Site",
        "action_type": "url",
        "action_value": "https://example.com",
        "icon_custom_emoji_id": EMOJI,
    },
    {"label": "Tariffs", "action_value": "menu_buy"},
]


async def test_custom_buttons_go_with_every_message(admin, users, finished, fake_bot_api):
    await users(2)
    body = {
        "target": "all",
        "message_text": "hi",
        "selected_buttons": ["home"],
        "custom_buttons": CUSTOM,
        "category": "news",
    }
    created = await admin.post(ADMIN, json=body)
    assert created.status_code == 201, created.text
    assert created.json()["category"] == "news"
    await finished(created.json()["id"])
    calls = fake_bot_api.calls_of("sendMessage")
    assert len(calls) == 3  # the two users and the administrator
    for call in calls:
        assert call.params["reply_markup"]["inline_keyboard"] == [
            [{"text": "🏠 На главную", "callback_data": "back_to_menu"}],
            [{"text": "Site", "url": "https://example.com", "icon_custom_emoji_id": EMOJI}],
            [{"text": "Tariffs", "callback_data": "menu_buy"}],
        ]
    detail = (await admin.get(f"{ADMIN}/{created.json()['id']}")).json()
    assert detail["category"] == "news"
    assert (await admin.get(ADMIN)).json()["items"][0]["category"] == "news"


async def test_the_send_endpoint_takes_them_too_and_category_defaults_to_system(
    admin, users, finished, fake_bot_api
):
    await users(1)
    body = {"channel": "telegram", "target": "all", "message_text": "two", "custom_buttons": CUSTOM[1:]}
    sent = await admin.post(f"{ADMIN}/send", json=body)
    assert sent.status_code == 201 and sent.json()["category"] == "system"
    await finished(sent.json()["id"])
    keyboard = fake_bot_api.calls_of("sendMessage")[0].params["reply_markup"]["inline_keyboard"]
    assert keyboard[-1] == [{"text": "Tariffs", "callback_data": "menu_buy"}]
    promo = await admin.post(f"{ADMIN}/send", json={**body, "category": "promo", "custom_buttons": []})
    assert promo.json()["category"] == "promo"


async def test_bad_buttons_and_categories_are_422(admin):
    base = {"target": "all", "message_text": "hi"}
    cases = [
        {"category": "ads"},
        {"custom_buttons": [{"label": "x", "action_value": "y" * 65}]},
        {"custom_buttons": [{"label": "x", "action_type": "url", "action_value": "javascript:1"}]},
        {"custom_buttons": [{"label": "x", "action_value": "y", "icon_custom_emoji_id": "smile"}]},
        {"custom_buttons": [{"label": "", "action_value": "y"}]},
        {"custom_buttons": [{"label": "x", "action_value": "y"}] * 11},
    ]
    for extra in cases:
        response = await admin.post(ADMIN, json={**base, **extra})
        assert response.status_code == 422, extra
