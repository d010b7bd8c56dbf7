"""A loopback fake of the messenger's Bot API, for tests (and local trials).

It speaks the real protocol: ``POST /bot<token>/<method>`` with a JSON, form or query-string
body, answered ``{"ok": true, "result": ...}`` or ``{"ok": false, "error_code",
"description", "parameters"?}`` with the real statuses and texts. It keeps the messages it
"sent" per chat (so pins refer to real message ids) and records every call it received, with
the time it arrived (``time.monotonic()``).

Tests choose its behaviour:

- ``fake.block(chat_id, ...)``: 403 ``Forbidden: bot was blocked by the user`` for those chats;
- ``fake.rate_limit(times, retry_after)``: the next ``times`` calls answer 429 with
  ``parameters.retry_after``;
- ``fake.fail(method, status, description, times)``: the next calls of a method fail so;
- ``fake.fail_chat(chat_id, ..., status=, description=)``: those chats answer so on every chat
  method (a description is sent as given: one with a NUL character tests what stores it);
- ``fake.delay`` / ``fake.delays[method]``: seconds before answering (slow answers);
- ``fake.set_member(chat_id, user_id, status)``: what ``getChatMember`` answers.

Files: a file uploaded with ``sendPhoto`` / ``sendVideo`` / ``sendDocument`` (multipart) gets a
new file id; ``getFile`` answers ``{file_id, file_unique_id, file_size, file_path}`` and the
bytes are served at ``GET /file/bot<token>/<file_path>`` (``fake.files``; ``fake.add_file``
stores one directly; ``fake.fail("file", status, description)``: the next downloads fail so).
``deleteMessage`` removes a message the fake sent.

Payments (Stars, currency ``XTR``): ``createInvoiceLink`` answers a link ``https://t.me/$...``
and keeps the invoice (``fake.invoices``); the payer's side is ``fake.pre_checkout(link,
payer_id)`` and ``fake.pay(link, payer_id)``, each answering the Update the messenger then
sends the bot (a ``pre_checkout_query``, a message with ``successful_payment``);
``answerPreCheckoutQuery`` answers a query of the first (``fake.pre_checkout_answers``).

The ``fake_bot_api`` fixture serves one on uvicorn on a free loopback port for one test;
``fake.settings()`` are the settings overrides that point an app at it, e.g.::

    @pytest.fixture
    def subsvc_settings_overrides(fake_bot_api):
        return fake_bot_api.settings()
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from subsvc.testing_server import LoopbackServer

BOT_ID = 7_000_000_001
BOT_TOKEN = f"{BOT_ID}:AAFakeBotApiTokenForTests0123456789"
BLOCKED = "Forbidden: bot was blocked by the user"
SEND_METHODS = ("sendMessage", "sendPhoto", "sendVideo", "sendDocument")
CHAT_METHODS = (*SEND_METHODS, "pinChatMessage", "unpinChatMessage", "unpinAllChatMessages")
PARSE_MODES = ("HTML", "Markdown", "MarkdownV2")
MEMBER_STATUSES = ("creator", "administrator", "member", "restricted", "left", "kicked")


class BotApiError(Exception):
    """An answer ``{"ok": false}`` with this status and description."""

    def __init__(self, status: int, description: str, parameters: dict[str, Any] | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters


@dataclass(frozen=True)
class BotCall:
    """One request the fake received (whatever it answered)."""

    method: str
    params: dict[str, Any]
    received_at: float
    token: str


@dataclass(frozen=True)
class StoredFile:
    """A file the fake holds: what ``getFile`` tells and what its download serves."""

    file_id: str
    file_unique_id: str
    file_path: str
    content: bytes


_FILE_PREFIXES = {"photo": "AgAC", "video": "BAAC", "document": "BQAC"}
_FILE_FOLDERS = {"photo": "photos", "video": "videos", "document": "documents"}


@dataclass
class FakeBotAPI:
    """The fake's state and behaviour; :meth:`app` is its ASGI application."""

    token: str = BOT_TOKEN
    url: str = ""
    calls: list[BotCall] = field(default_factory=list)
    blocked: dict[int | str, str] = field(default_factory=dict)
    failing_chats: dict[int | str, tuple[int, str]] = field(default_factory=dict)
    delay: float = 0.0
    delays: dict[str, float] = field(default_factory=dict)
    members: dict[tuple[int | str, int], str] = field(default_factory=dict)
    messages: dict[int | str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    pinned: dict[int | str, list[int]] = field(default_factory=dict)
    invoices: dict[str, dict[str, Any]] = field(default_factory=dict)
    pre_checkout_answers: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    files: dict[str, StoredFile] = field(default_factory=dict)
    _rate_limits: deque[float] = field(default_factory=deque)
    _failures: dict[str, deque[tuple[int, str]]] = field(default_factory=dict)
    _next_message_id: int = 1
    _next_update_id: int = 1
    _arrived: asyncio.Event | None = None

    # --- behaviour ---------------------------------------------------------------------------

    def block(self, *chat_ids: int | str, description: str = BLOCKED) -> None:
        """These chats refuse the bot (403 with ``description``) on every chat method."""
        for chat_id in chat_ids:
            self.blocked[chat_id] = description

    def unblock(self, *chat_ids: int | str) -> None:
        for chat_id in chat_ids:
            self.blocked.pop(chat_id, None)

    def fail_chat(
        self, *chat_ids: int | str, status: int = 400, description: str = "Bad Request: chat not found"
    ) -> None:
        """These chats answer ``status`` with ``description`` on every chat method."""
        for chat_id in chat_ids:
            self.failing_chats[chat_id] = (status, description)

    def rate_limit(self, times: int = 1, retry_after: float = 1) -> None:
        """The next ``times`` calls answer 429 ``Too Many Requests: retry after N``."""
        self._rate_limits.extend([retry_after] * times)

    def fail(self, method: str, status: int, description: str, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` answer ``status`` with ``description``."""
        self._failures.setdefault(method, deque()).extend([(status, description)] * times)

    def set_member(self, chat_id: int | str, user_id: int, status: str) -> None:
        """``getChatMember(chat_id, user_id)`` answers this status (default ``left``)."""
        assert status in MEMBER_STATUSES
        self.members[(chat_id, user_id)] = status

    def add_file(self, content: bytes, filename: str = "file.bin", kind: str = "document") -> str:
        """Store a file as if it had been uploaded; its new file id."""
        file_id = f"{_FILE_PREFIXES.get(kind, 'BQAC')}{secrets.token_urlsafe(24)}"
        suffix = filename.rpartition(".")[2] if "." in filename else "bin"
        path = f"{_FILE_FOLDERS.get(kind, 'documents')}/file_{len(self.files)}.{suffix}"
        self.files[file_id] = StoredFile(file_id, f"AQAD{secrets.token_urlsafe(9)}", path, content)
        return file_id

    def settings(self, **extra: Any) -> dict[str, Any]:
        """Settings overrides pointing an app's messenger client at this fake."""
        return {"BOT_TOKEN": self.token, "MESSENGER_API_URL": self.url, **extra}

    # --- what it saw -------------------------------------------------------------------------

    def calls_of(self, method: str) -> list[BotCall]:
        return [call for call in self.calls if call.method == method]

    def sent_to(self, chat_id: int | str) -> list[dict[str, Any]]:
        """The messages the fake accepted for a chat, in order."""
        return list(self.messages.get(chat_id, {}).values())

    async def wait_for_calls(self, count: int, method: str | None = None, seconds: float = 10.0) -> None:
        """Wait until at least ``count`` calls (of ``method``) have arrived."""

        def seen() -> int:
            return len(self.calls) if method is None else len(self.calls_of(method))

        async def until() -> None:
            while seen() < count:
                self._arrived = self._arrived or asyncio.Event()
                await self._arrived.wait()
                self._arrived.clear()

        try:
            await asyncio.wait_for(until(), seconds)
        except TimeoutError:
            raise AssertionError(f"{seen()} calls of {method or 'any method'} arrived, not {count}") from None

    def reset(self) -> None:
        self.calls.clear()
        self.blocked.clear()
        self.failing_chats.clear()
        self.delays.clear()
        self.members.clear()
        self.messages.clear()
        self.pinned.clear()
        self.invoices.clear()
        self.pre_checkout_answers.clear()
        self.files.clear()
        self._rate_limits.clear()
        self._failures.clear()
        self.delay = 0.0

    # --- the protocol ------------------------------------------------------------------------

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/bot{token}/{method}", self._endpoint, methods=["GET", "POST"]),
                Route("/file/bot{token}/{path:path}", self._download, methods=["GET"]),
            ]
        )

    async def _download(self, request: Request) -> Response:
        if request.path_params["token"] != self.token:
            return _error(BotApiError(401, "Unauthorized"))
        failures = self._failures.get("file")
        if failures:
            return _error(BotApiError(*failures.popleft()))
        path = request.path_params["path"]
        found = next((f for f in self.files.values() if f.file_path == path), None)
        if found is None:
            return _error(BotApiError(404, "Not Found"))
        return Response(found.content, media_type="application/octet-stream")

    async def _endpoint(self, request: Request) -> JSONResponse:
        token, method = request.path_params["token"], request.path_params["method"]
        if token != self.token:
            return _error(BotApiError(401, "Unauthorized"))
        params = await _params(request)
        self.calls.append(BotCall(method, params, time.monotonic(), token))
        if self._arrived is not None:
            self._arrived.set()
        handler = getattr(self, f"_{method}", None)
        if handler is None:
            return _error(BotApiError(404, "Not Found"))
        wait = self.delays.get(method, self.delay)
        if wait > 0:
            await asyncio.sleep(wait)
        try:
            if self._rate_limits:
                seconds = self._rate_limits.popleft()
                raise BotApiError(
                    429, f"Too Many Requests: retry after {seconds:g}", {"retry_after": seconds}
                )
            failures = self._failures.get(method)
            if failures:
                raise BotApiError(*failures.popleft())
            if method in CHAT_METHODS:
                chat_id = _chat_id(params)
                if chat_id in self.blocked:
                    raise BotApiError(403, self.blocked[chat_id])
                if chat_id in self.failing_chats:
                    raise BotApiError(*self.failing_chats[chat_id])
            result = handler(params)
        except BotApiError as exc:
            return _error(exc)
        return JSONResponse({"ok": True, "result": result})

    def _sendMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        text = params.get("text")
        if not isinstance(text, str) or not text.strip():
            raise BotApiError(400, "Bad Request: message text is empty")
        if len(text) > 4096:
            raise BotApiError(400, "Bad Request: message is too long")
        return self._message(params, {"text": text})

    def _sendPhoto(self, params: dict[str, Any]) -> dict[str, Any]:
        file_id = self._media(params, "photo")
        if file_id.startswith("attach://"):  # an upload: smaller copies, the original last
            stored = self.files[self._stored(params, "photo")]
            thumbs = [self.files[self.add_file(stored.content[:64], "thumb.jpg", "photo")] for _ in (90, 320)]
            return self._message(
                params,
                {"photo": [{**_file(f.file_id, f), "width": 320, "height": 320} for f in [*thumbs, stored]]},
            )
        sizes = [{"width": w, "height": w, "file_size": w * 100} for w in (90, 320, 800)]
        return self._message(params, {"photo": [{**_file(file_id), **size} for size in sizes]})

    def _sendVideo(self, params: dict[str, Any]) -> dict[str, Any]:
        file_id = self._media(params, "video")
        stored = self.files[self._stored(params, "video")] if file_id.startswith("attach://") else None
        return self._message(
            params, {"video": {**_file(file_id, stored), "width": 640, "height": 360, "duration": 5}}
        )

    def _sendDocument(self, params: dict[str, Any]) -> dict[str, Any]:
        file_id = self._media(params, "document")
        upload = params.get("_uploads", {}).get("document")
        name = upload["filename"] if upload else "document"
        stored = self.files[self._stored(params, "document")] if upload else None
        return self._message(params, {"document": {**_file(file_id, stored), "file_name": name}})

    def _getFile(self, params: dict[str, Any]) -> dict[str, Any]:
        stored = self.files.get(str(params.get("file_id") or ""))
        if stored is None:
            raise BotApiError(400, "Bad Request: invalid file_id")
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(stored.content),
            "file_path": stored.file_path,
        }

    def _deleteMessage(self, params: dict[str, Any]) -> bool:
        chat_id = _chat_id(params)
        message_id = _int(params, "message_id")
        if self.messages.get(chat_id, {}).pop(message_id, None) is None:
            raise BotApiError(400, "Bad Request: message to delete not found")
        return True

    def _pinChatMessage(self, params: dict[str, Any]) -> bool:
        chat_id = _chat_id(params)
        message_id = _int(params, "message_id")
        if message_id not in self.messages.get(chat_id, {}):
            raise BotApiError(400, "Bad Request: message to pin not found")
        pins = self.pinned.setdefault(chat_id, [])
        if message_id in pins:
            pins.remove(message_id)
        pins.append(message_id)
        return True

    def _unpinChatMessage(self, params: dict[str, Any]) -> bool:
        chat_id = _chat_id(params)
        pins = self.pinned.get(chat_id, [])
        if params.get("message_id") is None:
            if pins:
                pins.pop()
            return True
        message_id = _int(params, "message_id")
        if message_id not in self.messages.get(chat_id, {}):
            raise BotApiError(400, "Bad Request: message to unpin not found")
        if message_id in pins:
            pins.remove(message_id)
        return True

    def _unpinAllChatMessages(self, params: dict[str, Any]) -> bool:
        self.pinned.pop(_chat_id(params), None)
        return True

    def _getChatMember(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = _chat_id(params)
        user_id = _int(params, "user_id")
        status = self.members.get((chat_id, user_id), "left")
        member: dict[str, Any] = {
            "status": status,
            "user": {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"},
        }
        if status == "restricted":
            member.update(is_member=True, until_date=0)
        if status == "kicked":
            member["until_date"] = 0
        return member

    def _getMe(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Test Bot",
            "username": "subsvc_test_bot",
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    def _createInvoiceLink(self, params: dict[str, Any]) -> str:
        for name, limit in (("title", 32), ("description", 255)):
            text = params.get(name)
            if not isinstance(text, str) or not 1 <= len(text) <= limit:
                raise BotApiError(400, f"Bad Request: invoice {name} must be 1-{limit} characters")
        payload = params.get("payload")
        if not isinstance(payload, str) or not 1 <= len(payload.encode()) <= 128:
            raise BotApiError(400, "Bad Request: invoice payload must be 1-128 bytes")
        prices = params.get("prices")
        if not isinstance(prices, list) or not prices or not all(_price(p) for p in prices):
            raise BotApiError(400, "Bad Request: can't parse prices JSON object")
        if params.get("currency") != "XTR":
            raise BotApiError(400, "Bad Request: PAYMENT_PROVIDER_INVALID")  # no provider token here
        if params.get("provider_token") or len(prices) != 1:
            raise BotApiError(400, "Bad Request: STARS_INVOICE_INVALID")
        if prices[0]["amount"] <= 0:
            raise BotApiError(400, "Bad Request: CURRENCY_TOTAL_AMOUNT_INVALID")
        link = f"https://t.me/${secrets.token_urlsafe(12)}"
        self.invoices[link] = {**params, "total_amount": prices[0]["amount"]}
        return link

    def _answerPreCheckoutQuery(self, params: dict[str, Any]) -> bool:
        query_id = str(params.get("pre_checkout_query_id"))
        if query_id not in self.pre_checkout_answers or self.pre_checkout_answers[query_id] is not None:
            raise BotApiError(400, "Bad Request: QUERY_ID_INVALID")  # unknown, or answered
        if not isinstance(params.get("ok"), bool):
            raise BotApiError(400, "Bad Request: ok must be a boolean")
        if not params["ok"] and not params.get("error_message"):
            raise BotApiError(400, "Bad Request: error_message must be non-empty")
        answer = {"ok": params["ok"], "error_message": params.get("error_message")}
        self.pre_checkout_answers[query_id] = answer
        return True

    # --- the payer's side --------------------------------------------------------------------

    def pre_checkout(self, link: str, payer_id: int) -> dict[str, Any]:
        """The payer confirms the invoice ``link``: the Update with its ``pre_checkout_query``
        (answered, or not, by ``answerPreCheckoutQuery``)."""
        invoice = self.invoices[link]
        query_id = str(self._next_update_id * 1_000_003)
        self.pre_checkout_answers[query_id] = None
        query = {
            "id": query_id,
            "from": _user(payer_id),
            "currency": invoice["currency"],
            "total_amount": invoice["total_amount"],
            "invoice_payload": invoice["payload"],
        }
        return self._update(pre_checkout_query=query)

    def pay(self, link: str, payer_id: int, *, total_amount: int | None = None) -> dict[str, Any]:
        """The payer has paid the invoice ``link`` (``total_amount``: another total than the
        invoice's, as a forwarded or doctored update may say): the Update with the message
        carrying ``successful_payment``."""
        invoice = self.invoices[link]
        update = self._update()
        payment = {
            "currency": invoice["currency"],
            "total_amount": invoice["total_amount"] if total_amount is None else total_amount,
            "invoice_payload": invoice["payload"],
            "telegram_payment_charge_id": f"stxFake{secrets.token_hex(12)}",
            "provider_payment_charge_id": f"{payer_id}_{update['update_id']}",
        }
        update["message"] = {
            "message_id": self._next_message_id,
            "from": _user(payer_id),
            "chat": _chat(payer_id),
            "date": int(time.time()),
            "successful_payment": payment,
        }
        self._next_message_id += 1
        return update

    def _update(self, **content: Any) -> dict[str, Any]:
        update = {"update_id": self._next_update_id, **content}
        self._next_update_id += 1
        return update

    # --- helpers -----------------------------------------------------------------------------

    def _media(self, params: dict[str, Any], kind: str) -> str:
        value = params.get(kind)
        if not isinstance(value, str) or not value:
            raise BotApiError(400, f"Bad Request: there is no {kind} in the request")
        caption = params.get("caption")
        if caption is not None and len(str(caption)) > 1024:
            raise BotApiError(400, "Bad Request: message caption is too long")
        return value

    def _stored(self, params: dict[str, Any], kind: str) -> str:
        """Keep the file uploaded as ``kind``; its new file id."""
        upload = params.get("_uploads", {}).get(kind)
        if upload is None:
            raise BotApiError(400, f"Bad Request: there is no {kind} in the request")
        return self.add_file(upload["content"], upload["filename"], kind)

    def _message(self, params: dict[str, Any], content: dict[str, Any]) -> dict[str, Any]:
        chat_id = _chat_id(params)
        parse_mode = params.get("parse_mode")
        if parse_mode not in (None, "", *PARSE_MODES):
            raise BotApiError(400, f"Bad Request: unsupported parse_mode {parse_mode!r}")
        message: dict[str, Any] = {
            "message_id": self._next_message_id,
            "from": {"id": BOT_ID, "is_bot": True, "first_name": "Test Bot", "username": "subsvc_test_bot"},
            "chat": _chat(chat_id),
            "date": int(time.time()),
            **content,
        }
        if params.get("caption"):
            message["caption"] = params["caption"]
        if "reply_markup" in params:
            message["reply_markup"] = _inline_keyboard(params["reply_markup"])
        self._next_message_id += 1
        self.messages.setdefault(chat_id, {})[message["message_id"]] = message
        return message


async def _params(request: Request) -> dict[str, Any]:
    params: dict[str, Any] = dict(request.query_params)
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("application/json"):
        try:
            body = await request.json()
        except ValueError:
            body = None
        if isinstance(body, dict):
            params.update(body)
    elif content_type.startswith("multipart/form-data"):
        params.update(_multipart(content_type, await request.body()))
        if isinstance(params.get("reply_markup"), str):
            with contextlib.suppress(ValueError):
                params["reply_markup"] = json.loads(params["reply_markup"])
    elif content_type.startswith("application/x-www-form-urlencoded"):
        form = await request.form()
        params.update({key: value for key, value in form.items() if isinstance(value, str)})
        if isinstance(params.get("reply_markup"), str):
            with contextlib.suppress(ValueError):  # left a string: answered "can't parse"
                params["reply_markup"] = json.loads(params["reply_markup"])
    return params


def _multipart(content_type: str, body: bytes) -> dict[str, Any]:
    """The fields of a multipart form (parsed with the standard library); an uploaded file's
    field is ``attach://<filename>`` and its bytes are under ``_uploads``."""
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    params: dict[str, Any] = {}
    uploads: dict[str, dict[str, Any]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        content = payload if isinstance(payload, bytes) else b""
        filename = part.get_filename()
        if filename is None:
            params[name] = content.decode()
        else:
            params[name] = f"attach://{filename}"
            uploads[name] = {"filename": filename, "content": content}
    if uploads:
        params["_uploads"] = uploads
    return params


def _chat_id(params: dict[str, Any]) -> int | str:
    value = params.get("chat_id")
    if value is None or value == "":
        raise BotApiError(400, "Bad Request: chat_id is empty")
    if isinstance(value, bool):
        raise BotApiError(400, "Bad Request: chat not found")
    if isinstance(value, int):
        return value
    text = str(value)
    if text.lstrip("-").isdigit():
        return int(text)
    if text.startswith("@"):
        return text
    raise BotApiError(400, "Bad Request: chat not found")


def _int(params: dict[str, Any], name: str) -> int:
    value = params.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    if value is None:
        raise BotApiError(400, f"Bad Request: {name} is empty")
    raise BotApiError(400, f"Bad Request: invalid {name} specified")


def _price(price: Any) -> bool:
    """A LabeledPrice: a label and an integer amount."""
    return (
        isinstance(price, dict)
        and isinstance(price.get("label"), str)
        and isinstance(price.get("amount"), int)
        and not isinstance(price.get("amount"), bool)
    )


def _user(user_id: int) -> dict[str, Any]:
    return {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"}


def _chat(chat_id: int | str) -> dict[str, Any]:
    if isinstance(chat_id, int) and chat_id > 0:
        return {"id": chat_id, "type": "private", "first_name": f"User {chat_id}"}
    return {"id": chat_id if isinstance(chat_id, int) else -1001, "type": "supergroup", "title": str(chat_id)}


def _file(file: str, stored: StoredFile | None = None) -> dict[str, Any]:
    if stored is not None:
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(stored.content),
        }
    short = str(abs(hash(file)))[:12]
    return {
        "file_id": file if not file.startswith("http") else f"AgAC{short}",
        "file_unique_id": f"AQAD{short}",
    }


def _inline_keyboard(markup: Any) -> dict[str, Any]:
    """Validate ``reply_markup`` as the Bot API does for an inline keyboard."""
    rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise BotApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
    for row in rows:
        for button in row:
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise BotApiError(
                    400, "Bad Request: can't parse inline keyboard button: Text must be a String"
                )
            actions = [key for key in ("url", "callback_data", "web_app", "login_url") if key in button]
            if len(actions) != 1:
                raise BotApiError(
                    400,
                    "Bad Request: can't parse inline keyboard button: exactly one of the optional fields "
                    "must be used",
                )
            data = button.get("callback_data")
            if data is not None and not 1 <= len(str(data).encode()) <= 64:
                raise BotApiError(400, "Bad Request: BUTTON_DATA_INVALID")
    return {"inline_keyboard": rows}


def _error(exc: BotApiError) -> JSONResponse:
    body: dict[str, Any] = {"ok": False, "error_code": exc.status, "description": exc.description}
    if exc.parameters:
        body["parameters"] = exc.parameters
    return JSONResponse(body, status_code=exc.status)


@asynccontextmanager
async def serve_fake_bot_api(fake: FakeBotAPI | None = None) -> AsyncIterator[FakeBotAPI]:
    """Serve a fake Bot API with uvicorn on a free loopback port (``fake.url`` is its base)."""
    fake = fake or FakeBotAPI()
    async with LoopbackServer(fake.app()) as server:
        fake.url = server.url
        yield fake


@pytest.fixture
async def fake_bot_api() -> AsyncIterator[FakeBotAPI]:
    """A loopback fake Bot API for one test (see the module's documentation)."""
    async with serve_fake_bot_api() as fake:
        yield fake
