"""A test plugin declared with `Plugin(...)`: settings, a route, a runtime hook, and an
implementation of an extension point whose plugin is absent."""

from __future__ import annotations

from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request

from subsvc.api import Router, operation
from subsvc.hookspecs import hookimpl
from subsvc.manifest import Plugin
from subsvc.settings import PluginSettings

router = Router(area="web", tag="declared")
admin = Router(area="cabinet-admin", tag="declared", prefix="/cabinet/admin")


class DeclaredSettings(PluginSettings):
    DECLARED_GREETING: str = "hi"


class Greeting(BaseModel):
    greeting: str


@router.get("/declared/greeting")
async def greeting(request: Request) -> Greeting:
    """The greeting from this plugin's settings, read typed."""
    return Greeting(greeting=DeclaredSettings.of(request.app).DECLARED_GREETING)


class Echo(BaseModel):
    number: int


@operation("GET", "/declared/echo/{number}")
async def echo(number: int) -> Echo:
    """The number given: one operation served in two areas."""
    return Echo(number=number)


router.mount(echo)
admin.mount(echo, name="admin_echo", permission="declared:read", summary="Echo For Admins")


@hookimpl
def startup(app: Starlette) -> None:
    app.state.declared_started = True


@hookimpl(optionalhook=True)
def some_absent_plugins_extension_point() -> None:
    """Implements a hook of a plugin that is not installed: allowed, since it says so."""


plugin = Plugin(
    endpoints=[router, admin],
    permissions={"declared": ["read"]},
    tags={"declared": "A declared test plugin."},
    settings=DeclaredSettings,
    hooks=[startup, some_absent_plugins_extension_point],
)
