"""Every core setting, read from the environment (and an optional `.env` file).

Each field's description is the documentation: `subsvc settings` prints the table and the
README's settings table is generated from it.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

if TYPE_CHECKING:
    from starlette.applications import Starlette

CommaList = Annotated[list[str], NoDecode]
CommaIntList = Annotated[list[int], NoDecode]


def _split_commas(value: object) -> object:
    """Accept `a,b , c` (and an empty string) for list settings, as well as real lists."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    """Core settings. Plugins add their own through the `register_settings` hook."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    HOST: str = Field("0.0.0.0", description="Interface the HTTP server binds to.")  # noqa: S104
    PORT: int = Field(8080, ge=1, le=65535, description="Port of the HTTP server.")
    ENVIRONMENT: Literal["development", "production", "test"] = Field(
        "production", description="`development` relaxes secret checks; `test` is set by the test suite."
    )
    DATABASE_URL: str = Field(
        "sqlite+aiosqlite:///./subsvc.db",
        description="SQLAlchemy async URL: `sqlite+aiosqlite:///path` or `postgresql+asyncpg://user:pw@host/db`.",
    )
    DATABASE_POOL_SIZE: int = Field(
        10,
        ge=1,
        description="Database connections one process keeps open; a request finding them all in use "
        "waits for one, in turn. Every process of every instance has a pool: together, plus "
        "headroom, they must fit in PostgreSQL's `max_connections` (README: Sizing the pool).",
    )
    DATABASE_MAX_OVERFLOW: int = Field(
        0,
        ge=0,
        description="Extra connections a process may open above the pool size when all are in use, "
        "closed after use; 0 = requests wait instead (above 0 a full server refuses them).",
    )
    DATABASE_TIMEOUT: float = Field(
        5.0,
        gt=0,
        description="Seconds a request waits for a database connection (in turn for the pool's, or "
        "again after PostgreSQL refused one for want of slots) before answering 503.",
    )
    DATABASE_STATEMENT_CACHE_SIZE: int = Field(
        100, ge=0, description="asyncpg prepared-statement cache; 0 behind PgBouncer in transaction mode."
    )
    DATABASE_RANDOM_PAGE_COST: float | None = Field(
        1.1,
        gt=0,
        description="PostgreSQL planner's random_page_cost for our connections (1.1 suits SSDs; "
        "unset = the server's). Lets trigram searches use their indexes.",
    )
    WORKERS: int = Field(
        1,
        ge=1,
        le=64,
        description="Processes of `subsvc serve` sharing the port (about one per core). Above 1 "
        "needs `REDIS_URL`: through it the processes drop each other's stale caches and share events.",
    )
    MIGRATE_ON_START: bool = Field(True, description="`subsvc serve` upgrades the database before serving.")
    IS_DOCS_ENABLED: bool = Field(False, description="Serve `/docs`, `/redoc` and `/openapi.json`.")
    API_TITLE: str = Field("Subscription Service Admin API", description="Title in the OpenAPI document.")
    API_VERSION: str = Field("1.0.0", description="Version in the OpenAPI document and `GET /health`.")
    WEB_API_DEFAULT_TOKEN: str | None = Field(
        None, description="Bootstrap API token: ensured active at start, usable as `X-API-Key`."
    )
    WEB_API_DEFAULT_TOKEN_NAME: str = Field("Bootstrap Token", description="Name of the bootstrap token.")
    WEB_API_TOKEN_HMAC_SECRET: str | None = Field(
        None, description="When set, API tokens are stored as HMAC-SHA256 with this secret, else SHA-256."
    )
    TOKEN_CACHE_SECONDS: float = Field(
        30.0, ge=0, description="How long a verified API token is trusted without reading the database."
    )
    TOKEN_USAGE_WRITE_SECONDS: float = Field(
        60.0, ge=0, description="At most one `last_used_at` write per token per this many seconds."
    )
    CABINET_JWT_SECRET: str | None = Field(
        None,
        description="HS256 secret for cabinet JWTs, at least 32 bytes outside development. "
        "Unset: a random secret per process (tokens die with it).",
    )
    CABINET_ACCESS_TOKEN_MINUTES: int = Field(15, ge=1, description="Lifetime of a cabinet access token.")
    CABINET_REFRESH_TOKEN_DAYS: int = Field(7, ge=1, description="Lifetime of a cabinet refresh token.")
    BOT_TOKEN: str | None = Field(
        None, description="The messenger bot's token (Bot API and login signatures)."
    )
    BOT_VERSION: str | None = Field(None, description="Bot version reported by `GET /health`.")
    MESSENGER_API_URL: str = Field(
        "https://api.telegram.org",
        description="Base URL of the messenger's Bot API (calls go to `<url>/bot<BOT_TOKEN>/<method>`).",
    )
    MESSENGER_TIMEOUT_SECONDS: float = Field(
        10.0, gt=0, description="Seconds to wait for a Bot API answer before the call fails."
    )
    MESSENGER_MESSAGES_PER_SECOND: int = Field(
        30, ge=0, description="Bot API calls started per second at most, per process (0 = no limit)."
    )
    MESSENGER_CHAT_INTERVAL_SECONDS: float = Field(
        1.0, ge=0, description="Seconds between two messages to one chat at least (0 = no spacing)."
    )
    MESSENGER_MAX_RETRIES: int = Field(
        3, ge=0, description="Retries of a Bot API call after a 429, a 5xx or a failed connection."
    )
    MESSENGER_MAX_RETRY_AFTER_SECONDS: float = Field(
        60.0,
        ge=0,
        description="A 429 asking to wait longer than this fails the call instead of waiting.",
    )
    ADMIN_IDS: CommaIntList = Field(
        default_factory=list, description="Comma list of messenger ids that are administrators."
    )
    ADMIN_EMAILS: CommaList = Field(
        default_factory=list, description="Comma list of verified e-mails that are administrators."
    )
    ADMIN_NOTIFICATIONS_CHAT_ID: str | None = Field(
        None,
        description="Messenger chat (id or @channel) for administrators' alerts, e.g. support "
        "tickets, and for staging uploaded media; unset: the first of `ADMIN_IDS`.",
    )
    ADMIN_NOTIFICATIONS_TOPIC_ID: int | None = Field(
        None, ge=1, description="Forum topic (thread) of that chat for support alerts; unset: none."
    )
    REDIS_URL: str | None = Field(
        None,
        description="Redis for cross-instance cache invalidation, fan-out and the job broker; "
        "unset = in-process. Its database number also names the pub/sub channels, so "
        "deployments on different numbers stay apart.",
    )
    OUTBOX_RETENTION_DAYS: int = Field(
        7,
        ge=0,
        description="Dispatched events are deleted from the outbox after this many days "
        "(hourly); 0 = kept. Webhook deliveries keep their own copy.",
    )
    OUTBOX_RETRY_BASE_SECONDS: float = Field(
        10.0,
        gt=0,
        description="An event subscriber that failed is called again this long after the first failure, "
        "each wait `OUTBOX_RETRY_FACTOR` times the one before.",
    )
    OUTBOX_RETRY_FACTOR: float = Field(
        2.0, ge=1, description="Growth of the wait between two retries of a failed event subscriber."
    )
    OUTBOX_RETRY_MAX_SECONDS: float = Field(
        3600.0, gt=0, description="Longest wait between two retries of a failed event subscriber."
    )
    OUTBOX_RETRY_MAX_ATTEMPTS: int = Field(
        20,
        ge=1,
        description="Calls of an event subscriber for one event, the first included; after the last "
        "failure it is logged as an error and stays recorded (`outbox_failures`), not retried.",
    )
    JOBS_WORKER: bool = Field(
        True,
        description="`subsvc serve` also runs the background-job worker; false when separate "
        "`subsvc worker` processes do the work (with Redis).",
    )
    JOBS_CONCURRENCY: int = Field(
        50, ge=1, description="Background jobs one worker process runs at once (Redis broker)."
    )
    JOBS_QUEUE: str = Field(
        "subsvc:jobs",
        min_length=1,
        description="Redis list the job broker uses (with `REDIS_URL`); one per deployment.",
    )
    TRUSTED_PROXIES: CommaList = Field(
        default_factory=list,
        description="Comma list of proxy IPs or CIDRs whose `X-Forwarded-For` / `X-Real-IP` name the "
        "client; empty = the socket peer is the client.",
    )
    RATE_LIMIT_ENABLED: bool = Field(
        True, description="Rate-limit the login endpoints per client IP (429 with `Retry-After`)."
    )
    RATE_LIMITS: CommaList = Field(
        default_factory=list,
        description="Comma list of `action=limit` overriding an endpoint's default, e.g. "
        "`messenger_login=20/minute`; limits as in the `limits` library (`10/minute`, `100/hour`).",
    )
    SUBSVC_PLUGINS: CommaList | None = Field(
        None, description="Comma list: run only these plugins (default: every installed plugin)."
    )
    SUBSVC_PLUGINS_DISABLED: CommaList = Field(
        default_factory=list, description="Comma list of installed plugins not to run."
    )
    CORS_ORIGINS: CommaList = Field(
        default_factory=list,
        description="Comma list of allowed browser origins; `*` for any; empty = no CORS.",
    )
    MAX_BODY_BYTES: int = Field(
        1_048_576, ge=1, description="Request bodies above this size are refused with 413."
    )
    LOG_LEVEL: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        "INFO", description="Logging level of the service."
    )

    _split = field_validator(
        "ADMIN_IDS",
        "ADMIN_EMAILS",
        "SUBSVC_PLUGINS",
        "SUBSVC_PLUGINS_DISABLED",
        "CORS_ORIGINS",
        "TRUSTED_PROXIES",
        "RATE_LIMITS",
        mode="before",
    )(_split_commas)

    @field_validator("LOG_LEVEL", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("ADMIN_EMAILS")
    @classmethod
    def _lower_emails(cls, value: list[str]) -> list[str]:
        return [email.strip().lower() for email in value]

    @field_validator("ADMIN_IDS")
    @classmethod
    def _positive_ids(cls, value: list[int]) -> list[int]:
        return [messenger_id for messenger_id in value if messenger_id > 0]

    @field_validator("TRUSTED_PROXIES")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for item in value:
            ipaddress.ip_network(item, strict=False)  # ValueError names the bad entry
        return value

    @field_validator("RATE_LIMITS")
    @classmethod
    def _rate_limits(cls, value: list[str]) -> list[str]:
        from limits import parse_many

        for item in value:
            action, sep, limit = item.partition("=")
            if not sep or not action.strip():
                raise ValueError(f"{item!r} is not `action=limit`")
            parse_many(limit.strip())  # ValueError names the bad limit
        return value

    @property
    def admin_chat_id(self) -> int | str | None:
        """Where administrators' alerts go: `ADMIN_NOTIFICATIONS_CHAT_ID`, else the first
        administrator's private chat, else nowhere (None)."""
        chat = (self.ADMIN_NOTIFICATIONS_CHAT_ID or "").strip()
        if chat:
            return int(chat) if chat.lstrip("-").isdigit() else chat
        return self.ADMIN_IDS[0] if self.ADMIN_IDS else None

    @property
    def is_sqlite(self) -> bool:
        return self.DATABASE_URL.startswith("sqlite")


class SettingsError(RuntimeError):
    """A setting has an invalid value; the message names the variable."""


def describe_errors(error: ValidationError) -> str:
    """One line per invalid setting: `NAME: problem (got 'value')`."""
    lines = []
    for item in error.errors(include_url=False):
        name = ".".join(str(part) for part in item["loc"]) or "settings"
        lines.append(f"{name}: {item['msg']} (got {item['input']!r})")
    return "invalid settings:\n  " + "\n  ".join(lines)


class PluginSettings(BaseSettings):
    """Base of a plugin's settings: read from the environment (and ``.env``) like core's,
    unknown variables ignored, frozen. ``MySettings.of(app)`` is the running app's instance."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    @classmethod
    def of(cls, app: Starlette) -> Self:
        """This class's instance in ``app`` (read at start, ``app.state.settings_of`` by
        plugin name), typed."""
        name = app.state.settings_names.get(cls)
        if name is None:
            raise LookupError(f"{cls.__name__} is not the settings class of an enabled plugin")
        return app.state.settings_of[name]  # type: ignore[no-any-return]


def load_settings(cls: type[BaseSettings] = Settings, **overrides: Any) -> BaseSettings:
    """Instantiate a settings class, turning validation errors into a readable `SettingsError`."""
    try:
        return cls(**overrides)
    except ValidationError as error:
        raise SettingsError(describe_errors(error)) from None
