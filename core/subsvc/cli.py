"""The ``subsvc`` command: serve, worker, migrate, tokens create, plugins, openapi, settings."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from subsvc.settings import Settings, SettingsError, load_settings

if TYPE_CHECKING:
    from starlette.applications import Starlette


def _settings() -> Settings:
    return load_settings(Settings)  # type: ignore[return-value]


def _configure_logging(settings: Settings) -> None:
    logging.basicConfig(level=settings.LOG_LEVEL, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if settings.LOG_LEVEL != "DEBUG":  # taskiq and httpx log every job and request at INFO
        for name in ("taskiq", "httpx2"):
            logging.getLogger(name).setLevel(logging.WARNING)


_CREDENTIAL_IN_QUERY = re.compile(r"([?&](?:token|api_key)=)[^&\s\"]*")


class RedactCredentials(logging.Filter):
    """Hide ``token=`` and ``api_key=`` query values (WebSocket credentials) in log lines;
    uvicorn logs every WebSocket's path with its query string."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args and isinstance(record.args, tuple):
            record.args = tuple(
                _CREDENTIAL_IN_QUERY.sub(r"\1***", arg) if isinstance(arg, str) else arg
                for arg in record.args
            )
        elif isinstance(record.msg, str):
            record.msg = _CREDENTIAL_IN_QUERY.sub(r"\1***", record.msg)
        return True


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the HTTP server (migrating first when ``MIGRATE_ON_START`` is true); ``--workers``
    (``WORKERS``) processes share the port."""
    import uvicorn

    from subsvc.app import create_app
    from subsvc.db import migrate

    settings = _settings()
    workers = args.workers or settings.WORKERS
    if workers > 1 and not settings.REDIS_URL:
        raise SettingsError(
            f"invalid settings:\n  WORKERS: {workers} processes need REDIS_URL "
            "(they drop each other's stale caches and share events through it)"
        )
    _configure_logging(settings)
    options: dict[str, Any] = {
        "host": args.host or settings.HOST,
        "port": args.port or settings.PORT,
        "log_level": settings.LOG_LEVEL.lower(),
        "access_log": False,
        "proxy_headers": False,
        "server_header": False,
    }
    if workers == 1:
        config = uvicorn.Config(create_app(settings, migrate=settings.MIGRATE_ON_START), **options)
        _redact_server_log()
        uvicorn.Server(config).run()
        return 0
    if settings.MIGRATE_ON_START:  # once, here, before the processes start
        migrate.upgrade(settings.DATABASE_URL, create_app(settings).state.migration_dirs)
    uvicorn.run("subsvc.cli:worker_process_app", factory=True, workers=workers, **options)
    return 0


def worker_process_app() -> Starlette:
    """The app of one ``subsvc serve --workers N`` process (uvicorn calls this in each; the
    database is already migrated)."""
    from subsvc.app import create_app

    settings = _settings()
    _configure_logging(settings)
    _redact_server_log()
    return create_app(settings, migrate=False)


def _redact_server_log() -> None:
    for name in ("uvicorn.error", "uvicorn.access"):  # after uvicorn configured its loggers
        logging.getLogger(name).addFilter(RedactCredentials())


def cmd_worker(args: argparse.Namespace) -> int:
    """Run background work without serving HTTP: the job worker (with ``REDIS_URL`` it takes
    jobs from Redis), periodic jobs and the event dispatcher. Stops on SIGINT/SIGTERM."""
    import signal

    from subsvc.app import create_app

    settings = _settings().model_copy(update={"JOBS_WORKER": True})
    _configure_logging(settings)
    app = create_app(settings)

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        async with app.router.lifespan_context(app):
            logging.getLogger("subsvc").info("worker running (jobs: %s)", ", ".join(app.state.jobs.declared))
            await stop.wait()

    asyncio.run(run())
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    """Upgrade the database: core and every enabled plugin's branch."""
    from subsvc.app import create_app
    from subsvc.db import migrate

    settings = _settings()
    _configure_logging(settings)
    app = create_app(settings)
    migrate.upgrade(settings.DATABASE_URL, app.state.migration_dirs)
    heads = migrate.heads(settings.DATABASE_URL, app.state.migration_dirs)
    print(f"database at head: {', '.join(sorted(heads))}")
    return 0


def cmd_tokens_create(args: argparse.Namespace) -> int:
    """Create an API token and print it once."""
    from subsvc.db import Database
    from subsvc.tokens.service import create_token

    settings = _settings()

    async def run() -> str:
        db = Database(settings)
        try:
            async with db.session() as session:
                _, plain = await create_token(
                    session, settings, args.name, description=args.description, created_by="cli"
                )
                await session.commit()
        finally:
            await db.dispose()
        return plain

    print(asyncio.run(run()))
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    """List plugins: name, version, enabled, requires."""
    from subsvc import plugins

    settings = _settings()
    manager = plugins.load(settings.SUBSVC_PLUGINS, settings.SUBSVC_PLUGINS_DISABLED)
    rows = [
        (p.name, p.version, "yes" if p.enabled else "no", ", ".join(p.requires) or "-") for p in manager.infos
    ]
    header = ("name", "version", "enabled", "requires")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    return 0


def cmd_openapi(args: argparse.Namespace) -> int:
    """Print the OpenAPI document (whatever ``IS_DOCS_ENABLED`` says)."""
    from subsvc.api.openapi import build_document
    from subsvc.app import create_app

    settings = _settings()
    app = create_app(settings)
    state: Any = app.state
    document = build_document(
        state.endpoints, title=settings.API_TITLE, version=settings.API_VERSION, tags=state.openapi_tags
    )
    print(json.dumps(document, indent=2, ensure_ascii=False))
    return 0


def cmd_settings(args: argparse.Namespace) -> int:
    """Print every core setting as a Markdown table (name, default, meaning)."""
    print("| Setting | Default | Meaning |\n|---|---|---|")
    for name, field in Settings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        shown = (
            "unset"
            if default is None
            else (", ".join(default) or "empty")
            if isinstance(default, list)
            else default
        )
        print(f"| `{name}` | `{shown}` | {field.description} |")
    return 0


def build_parser() -> tuple[argparse.ArgumentParser, Any]:
    """The parser and its sub-command group (which plugins extend through ``register_commands``)."""
    parser = argparse.ArgumentParser(prog="subsvc", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help=cmd_serve.__doc__)
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--workers", type=int, help="processes sharing the port (default: WORKERS)")
    serve.set_defaults(handler=cmd_serve)
    commands.add_parser("worker", help=cmd_worker.__doc__).set_defaults(handler=cmd_worker)
    commands.add_parser("migrate", help=cmd_migrate.__doc__).set_defaults(handler=cmd_migrate)
    tokens = commands.add_parser("tokens", help="manage API tokens").add_subparsers(
        dest="action", required=True
    )
    create = tokens.add_parser("create", help=cmd_tokens_create.__doc__)
    create.add_argument("name")
    create.add_argument("--description")
    create.set_defaults(handler=cmd_tokens_create)
    commands.add_parser("plugins", help=cmd_plugins.__doc__).set_defaults(handler=cmd_plugins)
    commands.add_parser("openapi", help=cmd_openapi.__doc__).set_defaults(handler=cmd_openapi)
    commands.add_parser("settings", help=cmd_settings.__doc__).set_defaults(handler=cmd_settings)
    return parser, commands


def main(argv: Sequence[str] | None = None) -> int:
    from subsvc.auth.jwt import WeakSecretError
    from subsvc.plugins import PluginError, load

    parser, commands = build_parser()
    try:
        settings = _settings()
        load(settings.SUBSVC_PLUGINS, settings.SUBSVC_PLUGINS_DISABLED).hook.register_commands(cli=commands)
        args = parser.parse_args(argv)
        return int(args.handler(args))
    except (SettingsError, PluginError, WeakSecretError) as exc:
        print(f"subsvc: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
