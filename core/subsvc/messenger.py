"""The messenger's Bot API client: the calls the service makes to its bot's chats.

``app.state.messenger`` is a :class:`Messenger` built from the settings (``BOT_TOKEN``,
``MESSENGER_API_URL``, ``MESSENGER_*``). Every call is ``POST <base>/bot<token>/<method>``
with a JSON body; the answer's ``{"ok": false, "error_code", "description", "parameters"}``
becomes a typed exception:

- :class:`MessengerBlocked` — the user's chat refuses the bot (403: blocked, deactivated, never
  started); listeners registered with :meth:`Messenger.on_blocked` are told, so the user can
  be marked.
- :class:`MessengerRateLimited` — 429 with ``parameters.retry_after`` that could not be waited
  out (more than ``MESSENGER_MAX_RETRY_AFTER_SECONDS``, or retries exhausted).
- :class:`MessengerUnavailable` / :class:`MessengerTimeout` — transport errors, 5xx, timeouts.
- :class:`MessengerNotConfigured` — no ``BOT_TOKEN``.
- :class:`MessengerError` — the base of all of them, and every other refusal (400 ...).

Rate limits: about 30 messages a second overall and one a second per chat. The client spaces
its own calls (:class:`RateLimiter`: in-process) and honours ``retry_after`` by holding every
call of this process, then retrying. :meth:`Messenger.deliver` never raises a messenger error:
it answers ``sent``, ``blocked`` or ``failed``, for broadcasts that count them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, Unpack

import httpx2

log = logging.getLogger("subsvc.messenger")

MediaKind = Literal["photo", "video", "document"]
DeliveryStatus = Literal["sent", "blocked", "failed"]
ChatListener = Callable[[int], Awaitable[None]]

CAPTION_LIMIT = 1024
TEXT_LIMIT = 4096
SEND_METHODS = frozenset({"sendMessage", "sendPhoto", "sendVideo", "sendDocument"})
# calls on a user's own chat: a 403 there means the user refuses the bot
CHAT_METHODS = SEND_METHODS | {"pinChatMessage", "unpinChatMessage", "unpinAllChatMessages"}
# reads are not messages: the messaging limits do not count them; nor do a payment's calls,
# which a payer waits for (a pre-checkout query must be answered within 10 seconds), so they
# never queue behind a broadcast
UNLIMITED_METHODS = frozenset(
    {"getMe", "getChatMember", "getFile", "createInvoiceLink", "answerPreCheckoutQuery"}
)
# calls that may be repeated after a timeout without a second effect
IDEMPOTENT_METHODS = frozenset(CHAT_METHODS - SEND_METHODS) | UNLIMITED_METHODS | {"deleteMessage"}
_MEDIA_METHODS: dict[str, str] = {"photo": "sendPhoto", "video": "sendVideo", "document": "sendDocument"}


# --- errors --------------------------------------------------------------------------------------


class MessengerError(Exception):
    """The Bot API refused or could not answer a call."""

    def __init__(
        self,
        description: str,
        *,
        method: str = "",
        error_code: int | None = None,
        chat_id: int | str | None = None,
    ) -> None:
        super().__init__(description)
        self.description = description
        self.method = method
        self.error_code = error_code
        self.chat_id = chat_id


class MessengerNotConfigured(MessengerError):
    """``BOT_TOKEN`` is not set: nothing can be sent."""


class MessengerBlocked(MessengerError):
    """The user's chat refuses the bot (403: blocked by the user, deactivated, never started)."""


class MessengerRateLimited(MessengerError):
    """429 that this client did not wait out; ``retry_after`` is the platform's seconds."""

    def __init__(self, description: str, *, retry_after: float, **kwargs: Any) -> None:
        super().__init__(description, **kwargs)
        self.retry_after = retry_after


class MessengerUnavailable(MessengerError):
    """The Bot API could not be reached, failed (5xx) or answered something that is not its JSON.

    ``retryable``: repeating the call cannot send a message twice (the connection failed, or
    the server answered 5xx).
    """

    def __init__(self, description: str, *, retryable: bool = False, **kwargs: Any) -> None:
        super().__init__(description, **kwargs)
        self.retryable = retryable


class MessengerTimeout(MessengerUnavailable):
    """No answer within ``MESSENGER_TIMEOUT_SECONDS``."""


# --- message parts -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InlineButton:
    """A button under a message: opens ``url`` or sends ``callback_data`` (1-64 bytes) to the bot;
    ``icon_custom_emoji_id`` shows a custom emoji on it (Bot API 9.4)."""

    text: str
    url: str | None = None
    callback_data: str | None = None
    icon_custom_emoji_id: str | None = None

    def __post_init__(self) -> None:
        if (self.url is None) == (self.callback_data is None):
            raise ValueError("an inline button has exactly one of url and callback_data")
        if self.callback_data is not None and not 1 <= len(self.callback_data.encode()) <= 64:
            raise ValueError("callback_data must be 1-64 bytes")

    def to_json(self) -> dict[str, str]:
        action = {"url": self.url} if self.url is not None else {"callback_data": self.callback_data}
        icon = {"icon_custom_emoji_id": self.icon_custom_emoji_id} if self.icon_custom_emoji_id else {}
        return {"text": self.text, **action, **icon}  # type: ignore[dict-item]


Keyboard = Sequence[Sequence[InlineButton]]


def inline_keyboard(rows: Keyboard) -> dict[str, Any]:
    """The ``reply_markup`` of an inline keyboard: rows of buttons."""
    return {"inline_keyboard": [[button.to_json() for button in row] for row in rows]}


@dataclass(frozen=True, slots=True)
class Media:
    """A photo, video or document given by URL or by the platform's file id."""

    kind: MediaKind
    file: str

    def __post_init__(self) -> None:
        if self.kind not in _MEDIA_METHODS:
            raise ValueError(f"media kind must be one of {', '.join(_MEDIA_METHODS)}")
        if not self.file:
            raise ValueError("media needs a URL or a file id")


@dataclass(frozen=True, slots=True)
class Delivery:
    """What :meth:`Messenger.deliver` did: ``sent`` (with the message id), ``blocked`` or ``failed``."""

    status: DeliveryStatus
    message_id: int | None = None
    error: str | None = None


class SendOptions(TypedDict, total=False):
    """The options of :meth:`Messenger.send`, passed on unchanged by :meth:`Messenger.deliver`."""

    media: Media | None
    keyboard: Keyboard | None
    parse_mode: str | None
    disable_notification: bool


class FileDownload:
    """A file being downloaded from the Bot API (:meth:`Messenger.open_file`)."""

    def __init__(self, response: httpx2.Response) -> None:
        self._response = response

    @property
    def size(self) -> int | None:
        """The length the server announced, if it did."""
        length = self._response.headers.get("content-length", "")
        return int(length) if length.isdigit() else None

    async def chunks(self, chunk_size: int = 64 * 1024) -> AsyncIterator[bytes]:
        """The body, chunk by chunk; closed at the end (or when the consumer stops). A
        transport failure midway raises :class:`MessengerUnavailable`."""
        try:
            async for chunk in self._response.aiter_bytes(chunk_size):
                yield chunk
        except httpx2.TransportError as exc:
            raise MessengerUnavailable(f"{type(exc).__name__}: {exc}", method="file") from None
        finally:
            await self._response.aclose()

    async def aclose(self) -> None:
        await self._response.aclose()

    async def __aenter__(self) -> FileDownload:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


# --- rate limits ---------------------------------------------------------------------------------


@dataclass
class _ChatGate:
    """One chat's messages wait here in turn; ``callers`` hold or wait for the lock."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    callers: int = 0


class RateLimiter:
    """At most ``per_second`` calls started in any one-second window, evenly spaced (0 = no
    limit), and at least ``chat_interval`` seconds between two messages to one chat (0 = none).

    Waiters are served in arrival order (one lock for the overall window, one per chat while a
    message to it waits). :meth:`pause` holds every call until a ``retry_after`` has passed.
    In-process only: several processes sharing one bot share the platform's limit.
    """

    def __init__(
        self,
        per_second: int,
        chat_interval: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_second = per_second
        self.chat_interval = chat_interval
        self.clock = clock
        self._starts: deque[float] = deque(maxlen=per_second or 1)
        self._gate = asyncio.Lock()
        self._chat_gates: dict[int | str, _ChatGate] = {}
        self._chat_next: dict[int | str, float] = {}
        self.paused_until = float("-inf")

    def pause(self, seconds: float) -> None:
        """Start nothing for ``seconds`` (a 429's ``retry_after``)."""
        self.paused_until = max(self.paused_until, self.clock() + seconds)

    async def acquire(self, chat_id: int | str | None = None) -> None:
        """Wait until a call (a message to ``chat_id`` when given) may start, and count it."""
        if chat_id is None or self.chat_interval <= 0:
            await self._global()
            return
        gate = self._chat_gates.get(chat_id)
        if gate is None:
            gate = self._chat_gates[chat_id] = _ChatGate()
        gate.callers += 1
        try:
            async with gate.lock:
                await self._sleep_until(self._chat_next.get(chat_id, float("-inf")))
                started = await self._global()
                self._chat_next[chat_id] = started + self.chat_interval
        finally:
            gate.callers -= 1
            if gate.callers == 0:
                del self._chat_gates[chat_id]
            self._forget_old_chats()

    async def _global(self) -> float:
        async with self._gate:
            while True:
                now = self.clock()
                wait = self.paused_until - now
                if self.per_second and self._starts:
                    # evenly spaced, and never more than per_second in a window of one second
                    wait = max(wait, self._starts[-1] + 1.0 / self.per_second - now)
                    if len(self._starts) == self.per_second:
                        wait = max(wait, self._starts[0] + 1.0 - now)
                if wait <= 0:
                    self._starts.append(now)
                    return now
                await asyncio.sleep(wait)

    async def _sleep_until(self, moment: float) -> None:
        # a loop, not one sleep: a 429 meanwhile moves ``paused_until`` later
        while (delay := max(moment, self.paused_until) - self.clock()) > 0:  # noqa: ASYNC110
            await asyncio.sleep(delay)

    def _forget_old_chats(self) -> None:
        if len(self._chat_next) < 10_000:
            return
        now = self.clock()
        self._chat_next = {chat: t for chat, t in self._chat_next.items() if t > now}


# --- the client ----------------------------------------------------------------------------------


class Messenger:
    """The Bot API client of one bot (one ``httpx2.AsyncClient``, opened on first use)."""

    def __init__(
        self,
        token: str | None,
        base_url: str = "https://api.telegram.org",
        *,
        timeout: float = 10.0,
        per_second: int = 30,
        chat_interval: float = 1.0,
        max_retries: int = 3,
        max_retry_after: float = 60.0,
    ) -> None:
        self.token = token
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_after = max_retry_after
        self.limiter = RateLimiter(per_second, chat_interval)
        self._http: httpx2.AsyncClient | None = None
        self._blocked_listeners: list[ChatListener] = []
        self._delivered_listeners: list[ChatListener] = []

    @classmethod
    def from_settings(cls, settings: Any) -> Messenger:
        """Built from core's settings (``BOT_TOKEN`` and the ``MESSENGER_*`` values)."""
        return cls(
            settings.BOT_TOKEN,
            settings.MESSENGER_API_URL,
            timeout=settings.MESSENGER_TIMEOUT_SECONDS,
            per_second=settings.MESSENGER_MESSAGES_PER_SECOND,
            chat_interval=settings.MESSENGER_CHAT_INTERVAL_SECONDS,
            max_retries=settings.MESSENGER_MAX_RETRIES,
            max_retry_after=settings.MESSENGER_MAX_RETRY_AFTER_SECONDS,
        )

    @property
    def configured(self) -> bool:
        return bool(self.token)

    def on_blocked(self, listener: ChatListener) -> None:
        """Call ``await listener(chat_id)`` whenever a user's chat refuses the bot."""
        self._blocked_listeners.append(listener)

    def on_delivered(self, listener: ChatListener) -> None:
        """Call ``await listener(chat_id)`` after every message delivered to a chat."""
        self._delivered_listeners.append(listener)

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    # --- the calls -------------------------------------------------------------------------------

    async def send_message(
        self,
        chat_id: int | str,
        text: str,
        *,
        keyboard: Keyboard | None = None,
        parse_mode: str | None = "HTML",
        disable_notification: bool = False,
        disable_web_page_preview: bool = False,
    ) -> dict[str, Any]:
        """``sendMessage``; the sent Message."""
        params: dict[str, Any] = {"chat_id": chat_id, "text": text}
        if disable_web_page_preview:
            params["link_preview_options"] = {"is_disabled": True}
        result: dict[str, Any] = await self.call(
            "sendMessage", _message_params(params, keyboard, parse_mode, disable_notification)
        )
        return result

    async def send_media(
        self,
        chat_id: int | str,
        media: Media,
        *,
        caption: str | None = None,
        keyboard: Keyboard | None = None,
        parse_mode: str | None = "HTML",
        disable_notification: bool = False,
    ) -> dict[str, Any]:
        """``sendPhoto`` / ``sendVideo`` / ``sendDocument`` by URL or file id; the sent Message."""
        params: dict[str, Any] = {"chat_id": chat_id, media.kind: media.file}
        if caption:
            params["caption"] = caption
        result: dict[str, Any] = await self.call(
            _MEDIA_METHODS[media.kind],
            _message_params(params, keyboard, parse_mode if caption else None, disable_notification),
        )
        return result

    async def send_photo(self, chat_id: int | str, photo: str, **options: Any) -> dict[str, Any]:
        return await self.send_media(chat_id, Media("photo", photo), **options)

    async def send_video(self, chat_id: int | str, video: str, **options: Any) -> dict[str, Any]:
        return await self.send_media(chat_id, Media("video", video), **options)

    async def send_document(self, chat_id: int | str, document: str, **options: Any) -> dict[str, Any]:
        return await self.send_media(chat_id, Media("document", document), **options)

    async def send_document_file(
        self,
        chat_id: int | str,
        filename: str,
        content: bytes,
        *,
        caption: str | None = None,
        parse_mode: str | None = "HTML",
    ) -> dict[str, Any]:
        """``sendDocument`` uploading ``content`` as a file named ``filename`` (a report, an
        export); the sent Message."""
        return await self.send_media_file(
            chat_id, "document", filename, content, caption=caption, parse_mode=parse_mode
        )

    async def send_media_file(
        self,
        chat_id: int | str,
        kind: MediaKind,
        filename: str,
        content: bytes,
        *,
        caption: str | None = None,
        parse_mode: str | None = None,
        disable_notification: bool = False,
    ) -> dict[str, Any]:
        """``sendPhoto`` / ``sendVideo`` / ``sendDocument`` uploading ``content`` as a file named
        ``filename``; the sent Message (its ``photo`` sizes, ``video`` or ``document`` carry
        the platform's file id)."""
        if kind not in _MEDIA_METHODS:
            raise ValueError(f"media kind must be one of {', '.join(_MEDIA_METHODS)}")
        params: dict[str, Any] = {"chat_id": chat_id}
        if caption:
            params["caption"] = caption[:CAPTION_LIMIT]
        params = _message_params(params, None, parse_mode if caption else None, disable_notification)
        result: dict[str, Any] = await self.call(
            _MEDIA_METHODS[kind], params, files={kind: (filename, content)}
        )
        return result

    async def delete_message(self, chat_id: int | str, message_id: int) -> bool:
        """``deleteMessage``."""
        return bool(await self.call("deleteMessage", {"chat_id": chat_id, "message_id": message_id}))

    async def get_file(self, file_id: str) -> dict[str, Any]:
        """``getFile``: the File (``file_id``, ``file_unique_id``, ``file_size``, and
        ``file_path`` while the file can be downloaded, see :meth:`open_file`)."""
        result: dict[str, Any] = await self.call("getFile", {"file_id": file_id})
        return result

    async def open_file(self, file_path: str) -> FileDownload:
        """Start downloading ``<base>/file/bot<token>/<file_path>`` (a :meth:`get_file` path):
        the answer's headers are read, its body is streamed by :meth:`FileDownload.chunks`
        (never held whole); close it (``aclose``, or ``async with``). Raises a
        :class:`MessengerError` (``error_code`` 404: no such file)."""
        if not self.token:
            raise MessengerNotConfigured("BOT_TOKEN is not set", method="file")
        http = self._client()
        url = f"{self.base_url}/file/bot{self.token}/{file_path.lstrip('/')}"
        try:
            response = await http.send(http.build_request("GET", url), stream=True)
        except httpx2.TimeoutException:
            raise MessengerTimeout(f"no answer within {self.timeout}s", method="file") from None
        except httpx2.TransportError as exc:
            raise MessengerUnavailable(f"{type(exc).__name__}: {exc}", method="file") from None
        if response.status_code != 200:
            await response.aclose()
            error = MessengerUnavailable if response.status_code >= 500 else MessengerError
            raise error(f"HTTP {response.status_code}", method="file", error_code=response.status_code)
        return FileDownload(response)

    async def send(
        self,
        chat_id: int | str,
        text: str,
        *,
        media: Media | None = None,
        keyboard: Keyboard | None = None,
        parse_mode: str | None = "HTML",
        disable_notification: bool = False,
    ) -> dict[str, Any]:
        """A text, or media captioned with it. A text longer than a caption may be
        (1024) goes as its own message after the media, carrying the keyboard. The last Message."""
        if media is None:
            return await self.send_message(
                chat_id,
                text,
                keyboard=keyboard,
                parse_mode=parse_mode,
                disable_notification=disable_notification,
            )
        if len(text) <= CAPTION_LIMIT:
            return await self.send_media(
                chat_id,
                media,
                caption=text or None,
                keyboard=keyboard,
                parse_mode=parse_mode,
                disable_notification=disable_notification,
            )
        await self.send_media(chat_id, media, disable_notification=disable_notification)
        return await self.send_message(
            chat_id, text, keyboard=keyboard, parse_mode=parse_mode, disable_notification=disable_notification
        )

    async def deliver(self, chat_id: int | str, text: str, **options: Unpack[SendOptions]) -> Delivery:
        """:meth:`send` (same options) that answers instead of raising: for broadcasts that
        count outcomes."""
        try:
            message = await self.send(chat_id, text, **options)
        except MessengerBlocked as exc:
            return Delivery("blocked", error=exc.description)
        except MessengerError as exc:
            return Delivery("failed", error=exc.description)
        message_id = message.get("message_id") if isinstance(message, dict) else None
        return Delivery("sent", message_id=message_id if isinstance(message_id, int) else None)

    async def pin_chat_message(
        self, chat_id: int | str, message_id: int, *, disable_notification: bool = True
    ) -> bool:
        """``pinChatMessage`` (silently by default)."""
        params = {"chat_id": chat_id, "message_id": message_id, "disable_notification": disable_notification}
        return bool(await self.call("pinChatMessage", params))

    async def unpin_chat_message(self, chat_id: int | str, message_id: int | None = None) -> bool:
        """``unpinChatMessage``: the given message, or the most recent pinned one."""
        params: dict[str, Any] = {"chat_id": chat_id}
        if message_id is not None:
            params["message_id"] = message_id
        return bool(await self.call("unpinChatMessage", params))

    async def unpin_all_chat_messages(self, chat_id: int | str) -> bool:
        return bool(await self.call("unpinAllChatMessages", {"chat_id": chat_id}))

    async def get_chat_member(self, chat_id: int | str, user_id: int) -> dict[str, Any]:
        """``getChatMember``: the ChatMember (``status``: creator, administrator, member,
        restricted, left, kicked)."""
        result: dict[str, Any] = await self.call("getChatMember", {"chat_id": chat_id, "user_id": user_id})
        return result

    async def get_me(self) -> dict[str, Any]:
        """``getMe``: the bot's own User."""
        result: dict[str, Any] = await self.call("getMe", {})
        return result

    # --- the transport ---------------------------------------------------------------------------

    async def call(
        self, method: str, params: Mapping[str, Any], *, files: Mapping[str, tuple[str, bytes]] | None = None
    ) -> Any:
        """``POST /bot<token>/<method>`` with ``params`` as JSON (as a multipart form when
        ``files`` are uploaded: ``{field: (filename, content)}``); the answer's ``result``.

        Waits for the rate limits, then retries a 429 (after ``retry_after``), a 5xx, a failed
        connection and, for calls that may be repeated, a timeout — at most ``max_retries``
        times. Raises a :class:`MessengerError`.
        """
        if not self.token:
            raise MessengerNotConfigured("BOT_TOKEN is not set", method=method)
        chat_id = params.get("chat_id") if method in CHAT_METHODS else None
        http = self._client()  # built before the limiter counts the call as started
        attempt = 0
        while True:
            if method not in UNLIMITED_METHODS:
                await self.limiter.acquire(chat_id if method in SEND_METHODS else None)
            try:
                result = await self._post(http, method, params, chat_id, files)
            except MessengerRateLimited as exc:
                self.limiter.pause(exc.retry_after)
                if attempt >= self.max_retries or exc.retry_after > self.max_retry_after:
                    raise
                log.warning("messenger: %s rate limited, retrying after %ss", method, exc.retry_after)
            except MessengerTimeout as exc:
                if attempt >= self.max_retries or not (exc.retryable or method in IDEMPOTENT_METHODS):
                    raise
                await asyncio.sleep(_backoff(attempt))
            except MessengerUnavailable as exc:
                if attempt >= self.max_retries or not exc.retryable:
                    raise
                await asyncio.sleep(_backoff(attempt))
            except MessengerBlocked:
                if isinstance(chat_id, int):
                    await self._tell(self._blocked_listeners, chat_id)
                raise
            else:
                if method in SEND_METHODS and isinstance(chat_id, int):
                    await self._tell(self._delivered_listeners, chat_id)
                return result
            attempt += 1

    async def _post(
        self,
        http: httpx2.AsyncClient,
        method: str,
        params: Mapping[str, Any],
        chat_id: int | str | None,
        files: Mapping[str, tuple[str, bytes]] | None = None,
    ) -> Any:
        url = f"{self.base_url}/bot{self.token}/{method}"
        try:
            if files:
                form = {
                    key: value if isinstance(value, str) else json.dumps(value)
                    for key, value in params.items()
                }
                response = await http.post(url, data=form, files=dict(files))
            else:
                response = await http.post(url, json=dict(params))
        except httpx2.TimeoutException as exc:
            raise MessengerTimeout(
                f"no answer within {self.timeout}s",
                # no connection (or none free in our pool): nothing reached the server
                retryable=isinstance(exc, httpx2.ConnectTimeout | httpx2.PoolTimeout),
                method=method,
                chat_id=chat_id,
            ) from None
        except httpx2.TransportError as exc:
            raise MessengerUnavailable(
                f"{type(exc).__name__}: {exc}",
                retryable=isinstance(exc, httpx2.ConnectError),  # nothing reached the server
                method=method,
                chat_id=chat_id,
            ) from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or "ok" not in body:
            raise MessengerUnavailable(
                f"HTTP {response.status_code} without a Bot API answer",
                retryable=response.status_code >= 500,
                method=method,
                error_code=response.status_code,
                chat_id=chat_id,
            )
        if body["ok"] is True:
            return body.get("result")
        raise _error_of(body, response.status_code, method, chat_id)

    def _client(self) -> httpx2.AsyncClient:
        if self._http is None:
            self._http = httpx2.AsyncClient(
                timeout=self.timeout,
                limits=httpx2.Limits(max_connections=100, max_keepalive_connections=20),
            )
        return self._http

    async def _tell(self, listeners: list[ChatListener], chat_id: int) -> None:
        for listener in listeners:
            try:
                await listener(chat_id)
            except Exception:
                log.exception("messenger: a chat listener failed for chat %s", chat_id)


def _message_params(
    params: dict[str, Any], keyboard: Keyboard | None, parse_mode: str | None, disable_notification: bool
) -> dict[str, Any]:
    if parse_mode:
        params["parse_mode"] = parse_mode
    if keyboard:
        params["reply_markup"] = inline_keyboard(keyboard)
    if disable_notification:
        params["disable_notification"] = True
    return params


def _error_of(body: dict[str, Any], status: int, method: str, chat_id: int | str | None) -> MessengerError:
    code = body.get("error_code")
    code = code if isinstance(code, int) else status
    description = str(body.get("description") or f"error {code}")
    found = body.get("parameters")
    parameters: dict[str, Any] = found if isinstance(found, dict) else {}
    if code == 429:
        retry_after = parameters.get("retry_after")
        seconds = float(retry_after) if isinstance(retry_after, int | float) and retry_after >= 0 else 1.0
        return MessengerRateLimited(
            description, retry_after=seconds, method=method, error_code=code, chat_id=chat_id
        )
    if code == 403 and method in CHAT_METHODS:
        return MessengerBlocked(description, method=method, error_code=code, chat_id=chat_id)
    if code >= 500:
        return MessengerUnavailable(
            description, retryable=True, method=method, error_code=code, chat_id=chat_id
        )
    return MessengerError(description, method=method, error_code=code, chat_id=chat_id)


def _backoff(attempt: int) -> float:
    return float(min(0.5 * 2**attempt, 5.0))
