"""``subsvc admin create --email E [--password-stdin]``: the first administrator's e-mail
login, for an operator with shell access (see :mod:`.admins`)."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from typing import Any

from subsvc_cabinet_email.admins import AdminAccount, AdminRefused, check_password, create_admin


def _password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Repeat the password: ") != first:
        raise AdminRefused("the passwords differ")
    return first


async def _run(email: str, password: str) -> AdminAccount:
    from subsvc.app import create_app
    from subsvc.settings import Settings, load_settings

    settings: Settings = load_settings(Settings)  # type: ignore[assignment]
    app = create_app(settings.model_copy(update={"JOBS_WORKER": False}))
    async with app.router.lifespan_context(app), app.state.db.session() as session:
        account = await create_admin(app, session, email, password)
        await session.commit()
    return account


def cmd_admin_create(args: argparse.Namespace) -> int:
    """Give an ADMIN_EMAILS address an account with a password (address verified)."""
    try:
        password = _password(args)
        check_password(password)
        account = asyncio.run(_run(args.email, password))
    except AdminRefused as exc:
        print(f"subsvc admin create: {exc}", file=sys.stderr)
        return 1
    done = "created" if account.created else "updated"
    print(
        f"administrator {account.email}: account {account.user_id} {done}, e-mail verified; "
        "log in with POST /cabinet/auth/email/login"
    )
    return 0


def register(cli: Any) -> None:
    admin = cli.add_parser("admin", help="manage administrators").add_subparsers(dest="action", required=True)
    create = admin.add_parser("create", help=cmd_admin_create.__doc__)
    create.add_argument("--email", required=True, help="an address listed in ADMIN_EMAILS")
    create.add_argument(
        "--password-stdin", action="store_true", help="read the password from the first line of stdin"
    )
    create.set_defaults(handler=cmd_admin_create)
