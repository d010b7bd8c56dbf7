"""The Bot API client against the loopback fake: what each call sends, what each answer becomes."""

from __future__ import annotations

import asyncio
import itertools
import socket
import time
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import pytest
from starlette.requests import Request

from subsvc.api import Router
from subsvc.default_plugins.messenger import MESSENGER_FAILURES
from subsvc.hookspecs import hookimpl
from subsvc.messenger import (
    Delivery,
    InlineButton,
    Media,
    Messenger,
    MessengerBlocked,
    MessengerError,
    MessengerNotConfigured,
    MessengerRateLimited,
    MessengerTimeout,
    MessengerUnavailable,
)
from subsvc.testing_messenger import BLOCKED, FakeBotAPI

CHAT = 900_000_123
KEYBOARD = [
    [InlineButton("Open", url="https://example.org/offer"), InlineButton("Claim", callback_data="claim:7")],
    [InlineButton("Later", callback_data="later")],
]


@pytest.fixture
async def messenger(fake_bot_api: FakeBotAPI) -> AsyncIterator[Messenger]:
    """A client for the fake with the limits off (the limit tests build their own)."""
    client = Messenger(fake_bot_api.token, fake_bot_api.url, per_second=0, chat_interval=0, timeout=5)
    yield client
    await client.aclose()


def make(fake: FakeBotAPI, **options: Any) -> Messenger:
    return Messenger(fake.token, fake.url, **{"per_second": 0, "chat_interval": 0, **options})


async def test_send_message_sends_text_html_and_inline_keyboard(
    messenger: Messenger, fake_bot_api: FakeBotAPI
):
    message = await messenger.send_message(CHAT, "<b>Hello</b>", keyboard=KEYBOARD, disable_notification=True)

    (call,) = fake_bot_api.calls
    assert call.method == "sendMessage"
    assert call.params == {
        "chat_id": CHAT,
        "text": "<b>Hello</b>",
        "parse_mode": "HTML",
        "disable_notification": True,
        "reply_markup": {
            "inline_keyboard": [
                [
                    {"text": "Open", "url": "https://example.org/offer"},
                    {"text": "Claim", "callback_data": "claim:7"},
                ],
                [{"text": "Later", "callback_data": "later"}],
            ]
        },
    }
    assert message["chat"] == {"id": CHAT, "type": "private", "first_name": f"User {CHAT}"}
    assert message["text"] == "<b>Hello</b>"
    assert fake_bot_api.sent_to(CHAT) == [message]


async def test_plain_message_has_no_keyboard_and_no_parse_mode_when_asked(
    messenger: Messenger, fake_bot_api: FakeBotAPI
):
    await messenger.send_message(CHAT, "plain", parse_mode=None, disable_web_page_preview=True)

    assert fake_bot_api.calls[0].params == {
        "chat_id": CHAT,
        "text": "plain",
        "link_preview_options": {"is_disabled": True},
    }


@pytest.mark.parametrize(
    ("kind", "method"), [("photo", "sendPhoto"), ("video", "sendVideo"), ("document", "sendDocument")]
)
async def test_media_by_url_or_file_id_with_caption_and_keyboard(
    messenger: Messenger, fake_bot_api: FakeBotAPI, kind: str, method: str
):
    by_url = await messenger.send_media(
        CHAT, Media(kind, f"https://cdn.example.org/{kind}.bin"), caption="<i>see</i>", keyboard=KEYBOARD
    )
    await messenger.send_media(CHAT, Media(kind, "AgACAgIAAxkBAAIBZ2Y"))

    first, second = fake_bot_api.calls
    assert (first.method, second.method) == (method, method)
    assert first.params["chat_id"] == CHAT
    assert first.params[kind] == f"https://cdn.example.org/{kind}.bin"
    assert first.params["caption"] == "<i>see</i>"
    assert first.params["parse_mode"] == "HTML"
    assert first.params["reply_markup"]["inline_keyboard"][0][1] == {
        "text": "Claim",
        "callback_data": "claim:7",
    }
    assert second.params == {"chat_id": CHAT, kind: "AgACAgIAAxkBAAIBZ2Y"}  # no caption, no parse mode
    assert kind in by_url and by_url["caption"] == "<i>see</i>"


async def test_send_document_file_uploads_the_bytes(messenger: Messenger, fake_bot_api: FakeBotAPI):
    message = await messenger.send_document_file(CHAT, "report.csv", b"a,b\n1,2\n", caption="Report")

    (call,) = fake_bot_api.calls
    assert call.method == "sendDocument"
    assert call.params["chat_id"] == str(CHAT)  # a multipart form carries text
    assert call.params["caption"] == "Report"
    assert call.params["_uploads"]["document"] == {"filename": "report.csv", "content": b"a,b\n1,2\n"}
    assert message["document"]["file_name"] == "report.csv"
    assert fake_bot_api.sent_to(CHAT)[0]["caption"] == "Report"


async def test_uploaded_files_are_found_streamed_and_their_messages_deleted(
    messenger: Messenger, fake_bot_api: FakeBotAPI
):
    content = bytes(range(256)) * 1024  # 256 KiB: several chunks
    message = await messenger.send_media_file(
        CHAT, "video", "clip.mp4", content, caption="Clip", disable_notification=True
    )
    (call,) = fake_bot_api.calls
    assert call.method == "sendVideo" and call.params["disable_notification"] == "true"
    assert "parse_mode" not in call.params  # a plain caption unless asked
    found = await messenger.get_file(message["video"]["file_id"])
    assert (
        found["file_size"] == len(content) and found["file_unique_id"] == message["video"]["file_unique_id"]
    )
    async with await messenger.open_file(found["file_path"]) as download:
        assert download.size == len(content)
        chunks = [chunk async for chunk in download.chunks(64 * 1024)]
    assert len(chunks) >= 4 and b"".join(chunks) == content
    assert await messenger.delete_message(CHAT, message["message_id"]) is True
    assert fake_bot_api.sent_to(CHAT) == []


async def test_unknown_files_and_failed_downloads_are_messenger_errors(
    messenger: Messenger, fake_bot_api: FakeBotAPI
):
    with pytest.raises(MessengerError) as refused:
        await messenger.get_file("AgACunknown")
    assert refused.value.error_code == 400 and "invalid file_id" in refused.value.description
    with pytest.raises(MessengerError) as missing:
        await messenger.open_file("documents/none.pdf")
    assert missing.value.error_code == 404 and not isinstance(missing.value, MessengerUnavailable)
    fake_bot_api.fail("file", 502, "Bad Gateway")
    with pytest.raises(MessengerUnavailable):
        await messenger.open_file("documents/none.pdf")
    with pytest.raises(MessengerError):
        await messenger.delete_message(CHAT, 12345)


async def test_send_puts_a_long_text_after_the_media(messenger: Messenger, fake_bot_api: FakeBotAPI):
    text = "x" * 1500
    last = await messenger.send(CHAT, text, media=Media("photo", "file-1"), keyboard=KEYBOARD)

    media, message = fake_bot_api.calls
    assert (
        media.method == "sendPhoto" and "caption" not in media.params and "reply_markup" not in media.params
    )
    assert message.method == "sendMessage" and message.params["text"] == text
    assert "reply_markup" in message.params
    assert last["text"] == text


async def test_send_captions_a_short_text(messenger: Messenger, fake_bot_api: FakeBotAPI):
    await messenger.send(CHAT, "short", media=Media("video", "file-2"))

    (call,) = fake_bot_api.calls
    assert call.method == "sendVideo" and call.params["caption"] == "short"


async def test_pin_and_unpin(messenger: Messenger, fake_bot_api: FakeBotAPI):
    first = await messenger.send_message(CHAT, "one")
    second = await messenger.send_message(CHAT, "two")

    assert await messenger.pin_chat_message(CHAT, first["message_id"]) is True
    assert await messenger.pin_chat_message(CHAT, second["message_id"], disable_notification=False) is True
    assert fake_bot_api.pinned[CHAT] == [first["message_id"], second["message_id"]]
    assert fake_bot_api.calls_of("pinChatMessage")[0].params == {
        "chat_id": CHAT,
        "message_id": first["message_id"],
        "disable_notification": True,
    }

    assert await messenger.unpin_chat_message(CHAT) is True  # the most recent one
    assert fake_bot_api.pinned[CHAT] == [first["message_id"]]
    assert await messenger.unpin_chat_message(CHAT, first["message_id"]) is True
    assert fake_bot_api.calls_of("unpinChatMessage")[1].params == {
        "chat_id": CHAT,
        "message_id": first["message_id"],
    }
    await messenger.pin_chat_message(CHAT, second["message_id"])
    assert await messenger.unpin_all_chat_messages(CHAT) is True
    assert CHAT not in fake_bot_api.pinned
    assert fake_bot_api.calls_of("unpinAllChatMessages")[0].params == {"chat_id": CHAT}


async def test_a_refusal_becomes_a_messenger_error_with_the_platform_text(
    messenger: Messenger, fake_bot_api: FakeBotAPI
):
    with pytest.raises(MessengerError) as caught:
        await messenger.pin_chat_message(CHAT, 999)

    assert type(caught.value) is MessengerError
    assert caught.value.error_code == 400
    assert caught.value.description == "Bad Request: message to pin not found"
    assert caught.value.method == "pinChatMessage"
    assert len(fake_bot_api.calls) == 1  # a 400 is not retried


async def test_get_chat_member_and_get_me(messenger: Messenger, fake_bot_api: FakeBotAPI):
    fake_bot_api.set_member(-100123, CHAT, "member")

    member = await messenger.get_chat_member(-100123, CHAT)
    stranger = await messenger.get_chat_member(-100123, CHAT + 1)
    me = await messenger.get_me()

    assert member["status"] == "member" and member["user"]["id"] == CHAT
    assert stranger["status"] == "left"
    assert fake_bot_api.calls_of("getChatMember")[0].params == {"chat_id": -100123, "user_id": CHAT}
    assert me["is_bot"] is True and me["id"] == int(fake_bot_api.token.split(":")[0])


STARS_INVOICE = {
    "title": "Top-up",
    "description": "Balance top-up",
    "payload": "order-1",
    "provider_token": "",
    "currency": "XTR",
    "prices": [{"label": "Top-up", "amount": 50}],
}


async def test_a_stars_invoice_link_is_paid_by_the_payer(messenger: Messenger, fake_bot_api: FakeBotAPI):
    link = await messenger.call("createInvoiceLink", STARS_INVOICE)
    query = fake_bot_api.pre_checkout(link, CHAT)["pre_checkout_query"]
    answer = {"pre_checkout_query_id": query["id"], "ok": True}
    answered = await messenger.call("answerPreCheckoutQuery", answer)
    update = fake_bot_api.pay(link, CHAT)

    assert link.startswith("https://t.me/$") and answered is True
    assert (query["from"]["id"], query["total_amount"], query["invoice_payload"]) == (CHAT, 50, "order-1")
    assert fake_bot_api.pre_checkout_answers[query["id"]] == {"ok": True, "error_message": None}
    paid = update["message"]["successful_payment"]
    assert (update["message"]["from"]["id"], paid["currency"], paid["total_amount"]) == (CHAT, "XTR", 50)
    assert paid["invoice_payload"] == "order-1" and paid["telegram_payment_charge_id"]
    with pytest.raises(MessengerError, match="QUERY_ID_INVALID"):  # answered once only
        await messenger.call("answerPreCheckoutQuery", answer)


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        ({"provider_token": "284685063:TEST"}, "STARS_INVOICE_INVALID"),
        ({"prices": [{"label": "a", "amount": 1}, {"label": "b", "amount": 1}]}, "STARS_INVOICE_INVALID"),
        ({"prices": [{"label": "a", "amount": 0}]}, "CURRENCY_TOTAL_AMOUNT_INVALID"),
        ({"prices": [{"label": "a", "amount": "5"}]}, "can't parse prices"),
        ({"currency": "RUB"}, "PAYMENT_PROVIDER_INVALID"),
        ({"title": "t" * 33}, "title must be 1-32"),
        ({"payload": "p" * 129}, "payload must be 1-128 bytes"),
    ],
)
async def test_an_invalid_stars_invoice_is_refused(
    messenger: Messenger, fake_bot_api: FakeBotAPI, change: dict[str, Any], refusal: str
):
    with pytest.raises(MessengerError, match=refusal) as refused:
        await messenger.call("createInvoiceLink", {**STARS_INVOICE, **change})
    assert refused.value.error_code == 400 and fake_bot_api.invoices == {}


async def test_blocked_chat_raises_blocked_and_tells_the_listeners(
    messenger: Messenger, fake_bot_api: FakeBotAPI
):
    fake_bot_api.block(CHAT)
    told: list[int] = []
    delivered: list[int] = []

    async def listener(chat_id: int) -> None:
        told.append(chat_id)

    async def on_delivered(chat_id: int) -> None:
        delivered.append(chat_id)

    messenger.on_blocked(listener)
    messenger.on_delivered(on_delivered)
    with pytest.raises(MessengerBlocked) as caught:
        await messenger.send_message(CHAT, "hi")
    assert caught.value.description == BLOCKED
    assert caught.value.chat_id == CHAT and caught.value.error_code == 403
    assert told == [CHAT]
    assert len(fake_bot_api.calls) == 1  # never retried

    assert await messenger.deliver(CHAT, "again") == Delivery("blocked", error=BLOCKED)
    assert (await messenger.deliver(CHAT + 1, "x")).status == "sent"
    assert told == [CHAT, CHAT]
    assert delivered == [CHAT + 1]


async def test_a_failing_listener_does_not_fail_the_call(messenger: Messenger, fake_bot_api: FakeBotAPI):
    async def broken(chat_id: int) -> None:
        raise RuntimeError("database down")

    messenger.on_delivered(broken)
    message = await messenger.send_message(CHAT, "hi")
    assert message["text"] == "hi"


async def test_deliver_answers_sent_or_failed(messenger: Messenger, fake_bot_api: FakeBotAPI):
    sent = await messenger.deliver(CHAT, "hello", keyboard=KEYBOARD)
    fake_bot_api.fail("sendMessage", 400, "Bad Request: chat not found")
    failed = await messenger.deliver(CHAT + 5, "hello")

    assert sent.status == "sent" and sent.message_id == fake_bot_api.sent_to(CHAT)[0]["message_id"]
    assert (failed.status, failed.error) == ("failed", "Bad Request: chat not found")


async def test_rate_limited_call_waits_retry_after_and_succeeds(fake_bot_api: FakeBotAPI):
    messenger = make(fake_bot_api)
    fake_bot_api.rate_limit(times=1, retry_after=1)
    try:
        message = await messenger.send_message(CHAT, "hi")
    finally:
        await messenger.aclose()

    first, retry = fake_bot_api.calls
    assert retry.received_at - first.received_at >= 1.0
    assert message["text"] == "hi"


async def test_rate_limit_holds_every_call_of_the_process(fake_bot_api: FakeBotAPI):
    messenger = make(fake_bot_api)
    fake_bot_api.rate_limit(times=1, retry_after=1)
    try:
        first = asyncio.create_task(messenger.send_message(CHAT, "one"))
        await fake_bot_api.wait_for_calls(1)
        await asyncio.sleep(0.1)  # the 429 has been answered
        await messenger.send_message(CHAT + 1, "two")
        await first
    finally:
        await messenger.aclose()

    limited = fake_bot_api.calls[0]
    later = fake_bot_api.calls[1:]
    assert len(later) == 2
    assert all(call.received_at - limited.received_at >= 1.0 for call in later)


async def test_a_long_retry_after_fails_at_once(fake_bot_api: FakeBotAPI):
    messenger = make(fake_bot_api, max_retry_after=5)
    fake_bot_api.rate_limit(times=1, retry_after=30)
    try:
        with pytest.raises(MessengerRateLimited) as caught:
            await messenger.send_message(CHAT, "hi")
    finally:
        await messenger.aclose()
    assert caught.value.retry_after == 30
    assert caught.value.description == "Too Many Requests: retry after 30"
    assert len(fake_bot_api.calls) == 1
    assert messenger.limiter.paused_until > time.monotonic() + 25  # the process holds anyway


async def test_retries_are_bounded(fake_bot_api: FakeBotAPI):
    messenger = make(fake_bot_api, max_retries=2)
    fake_bot_api.rate_limit(times=5, retry_after=0)
    try:
        with pytest.raises(MessengerRateLimited):
            await messenger.send_message(CHAT, "hi")
    finally:
        await messenger.aclose()
    assert len(fake_bot_api.calls) == 3


async def test_server_errors_are_retried(messenger: Messenger, fake_bot_api: FakeBotAPI):
    fake_bot_api.fail("sendMessage", 502, "Bad Gateway")

    message = await messenger.send_message(CHAT, "hi")

    assert [call.method for call in fake_bot_api.calls] == ["sendMessage", "sendMessage"]
    assert message["text"] == "hi"


async def test_a_send_that_times_out_is_not_repeated(fake_bot_api: FakeBotAPI):
    messenger = make(fake_bot_api, timeout=0.2)
    fake_bot_api.delays["sendMessage"] = 1.0
    try:
        with pytest.raises(MessengerTimeout) as caught:
            await messenger.send_message(CHAT, "slow")
        assert isinstance(caught.value, MessengerUnavailable)
        assert len(fake_bot_api.calls) == 1  # it may have been delivered: never sent twice
    finally:
        await messenger.aclose()


async def test_a_read_that_times_out_is_repeated(fake_bot_api: FakeBotAPI):
    messenger = make(fake_bot_api, timeout=0.2, max_retries=1)
    fake_bot_api.delays["getMe"] = 1.0
    try:
        with pytest.raises(MessengerTimeout):
            await messenger.get_me()
    finally:
        await messenger.aclose()
    assert len(fake_bot_api.calls_of("getMe")) == 2


async def test_unreachable_api_is_unavailable():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there
    messenger = Messenger("1:x", f"http://127.0.0.1:{port}", per_second=0, chat_interval=0, max_retries=1)
    try:
        with pytest.raises(MessengerUnavailable) as caught:
            await messenger.send_message(CHAT, "hi")
    finally:
        await messenger.aclose()
    assert caught.value.retryable is True
    assert "ConnectError" in caught.value.description


async def test_wrong_token_and_no_token(fake_bot_api: FakeBotAPI):
    wrong = Messenger("1:wrong", fake_bot_api.url, per_second=0)
    none = Messenger(None, fake_bot_api.url)
    try:
        with pytest.raises(MessengerError) as caught:
            await wrong.get_me()
        with pytest.raises(MessengerNotConfigured):
            await none.send_message(CHAT, "hi")
    finally:
        await wrong.aclose()
    assert (caught.value.error_code, caught.value.description) == (401, "Unauthorized")
    assert fake_bot_api.calls == []  # a wrong token is refused before it is recorded
    assert none.configured is False


async def test_at_most_30_calls_start_in_any_second(fake_bot_api: FakeBotAPI):
    messenger = make(fake_bot_api, per_second=30, chat_interval=1.0)
    try:
        await asyncio.gather(*(messenger.send_message(CHAT + i, "hi") for i in range(61)))
    finally:
        await messenger.aclose()

    times = sorted(call.received_at for call in fake_bot_api.calls)
    assert len(times) == 61
    # the 31st call after any call arrives a second later (less loopback jitter)
    assert min(times[i + 30] - times[i] for i in range(len(times) - 30)) >= 0.95


async def test_one_message_per_second_to_a_chat(fake_bot_api: FakeBotAPI):
    messenger = make(fake_bot_api, per_second=30, chat_interval=1.0)

    async def late(text: str) -> None:  # arrives while the others of its chat wait
        await asyncio.sleep(0.2)
        await messenger.send_message(CHAT, text)

    try:
        await asyncio.gather(
            *(messenger.send_message(CHAT, f"n{i}") for i in range(3)),
            *(messenger.send_message(CHAT + 1, "other") for _ in range(2)),
            late("n3"),
        )
    finally:
        await messenger.aclose()

    to_chat = [call.received_at for call in fake_bot_api.calls if call.params["chat_id"] == CHAT]
    to_other = [call.received_at for call in fake_bot_api.calls if call.params["chat_id"] == CHAT + 1]
    assert [call.params["text"] for call in fake_bot_api.calls if call.params["chat_id"] == CHAT] == [
        "n0",
        "n1",
        "n2",
        "n3",
    ]
    assert min(b - a for a, b in itertools.pairwise(to_chat)) >= 0.95
    assert to_other[1] - to_other[0] >= 0.95
    # other chats are not held behind the busy one
    assert to_other[0] - to_chat[0] < 0.5


def test_buttons_and_media_are_checked():
    with pytest.raises(ValueError, match="exactly one"):
        InlineButton("x")
    with pytest.raises(ValueError, match="exactly one"):
        InlineButton("x", url="https://a", callback_data="b")
    with pytest.raises(ValueError, match="1-64 bytes"):
        InlineButton("x", callback_data="y" * 65)
    with pytest.raises(ValueError, match="media kind"):
        Media("audio", "file")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="URL or a file id"):
        Media("photo", "")


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    return fake_bot_api.settings(MESSENGER_CHAT_INTERVAL_SECONDS=0.5, MESSENGER_MAX_RETRIES=1)


async def test_the_app_has_a_client_built_from_the_settings(app, fake_bot_api: FakeBotAPI):
    messenger: Messenger = app.state.messenger

    message = await messenger.send_message(CHAT, "from the app")

    assert (messenger.token, messenger.base_url) == (fake_bot_api.token, fake_bot_api.url)
    assert (messenger.limiter.per_second, messenger.limiter.chat_interval) == (30, 0.5)
    assert messenger.max_retries == 1
    assert fake_bot_api.sent_to(CHAT) == [message]


# --- a messenger error escaping an endpoint ----------------------------------------------------


def _sender_plugin() -> ModuleType:
    """A plugin with one endpoint that sends a message and lets any messenger error escape."""
    router = Router(area="web", tag="messenger-probe")

    @router.post("/messenger-probe/{chat_id}", responses=MESSENGER_FAILURES)
    async def send(request: Request, chat_id: int) -> dict[str, Any]:
        message: dict[str, Any] = await request.app.state.messenger.send_message(chat_id, "hi")
        return message

    module = ModuleType("messenger_probe")
    module.register_routes = hookimpl(lambda: router.endpoints)  # type: ignore[attr-defined]
    return module


class TestErrorsOfEndpoints:
    @pytest.fixture
    def subsvc_plugins(self) -> list[Any]:
        return [_sender_plugin()]

    @pytest.fixture
    def subsvc_settings_overrides(self, fake_bot_api: FakeBotAPI) -> dict[str, Any]:
        return fake_bot_api.settings(
            MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_MAX_RETRIES=0, MESSENGER_TIMEOUT_SECONDS=0.3
        )

    async def test_answers_instead_of_500(self, client, fake_bot_api: FakeBotAPI):
        assert (await client.post(f"/messenger-probe/{CHAT}")).status_code == 200

        fake_bot_api.fail("sendMessage", 400, "Bad Request: chat not found")
        refused = await client.post(f"/messenger-probe/{CHAT}")
        assert (refused.status_code, refused.json()) == (
            502,
            {"detail": "Messenger API refused the request: Bad Request: chat not found"},
        )

        fake_bot_api.block(CHAT + 1)
        blocked = await client.post(f"/messenger-probe/{CHAT + 1}")
        assert blocked.status_code == 502 and BLOCKED in blocked.json()["detail"]

        fake_bot_api.rate_limit(1, retry_after=7)
        limited = await client.post(f"/messenger-probe/{CHAT + 2}")
        assert (limited.status_code, limited.headers["retry-after"]) == (503, "7")

        fake_bot_api.fail("sendMessage", 500, "Internal Server Error")
        down = await client.post(f"/messenger-probe/{CHAT + 3}")
        assert (down.status_code, down.json()) == (502, {"detail": "Messenger API unavailable"})

        fake_bot_api.delays["sendMessage"] = 1.0
        slow = await client.post(f"/messenger-probe/{CHAT + 4}")
        assert (slow.status_code, slow.json()) == (504, {"detail": "Messenger API did not answer in time"})

    async def test_no_token_is_503(self, app, client):
        app.state.messenger.token = None

        response = await client.post(f"/messenger-probe/{CHAT}")

        assert (response.status_code, response.json()) == (503, {"detail": "Messenger bot is not configured"})
