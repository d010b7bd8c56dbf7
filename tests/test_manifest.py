"""Plugins declared with `Plugin(...)`: what the loader finds by itself, and what it refuses."""

from __future__ import annotations

import types
from importlib.metadata import version
from pathlib import Path

import pytest
import subsvc_declared
import subsvc_pages

from subsvc.app import create_app
from subsvc.hookspecs import hookimpl
from subsvc.manifest import Plugin
from subsvc.plugins import PluginError, from_modules
from subsvc.settings import PluginSettings


def test_an_installed_plugins_name_version_and_migrations_are_found():
    info = from_modules(["pages"])["pages"]
    assert info.version == version("subsvc-pages")
    assert info.migrations == Path(subsvc_pages.__file__).parent / "migrations" / "versions"
    assert info.package == "subsvc_pages"
    assert from_modules(["subsvc_pages.plugin"]) == from_modules(["pages"]) == from_modules(["subsvc_pages"])


def test_requirements_come_from_the_distribution_and_are_added():
    dependencies = {
        "subsvc-users": "users",
        "subsvc-billing": "billing",
        "subsvc-subscriptions": "subscriptions",
    }
    found = from_modules(["cabinet"])
    assert set(dependencies.values()) <= set(found["cabinet"].requires)
    assert set(dependencies.values()) <= set(found)  # added though not asked for
    assert "promo_groups" in found  # and what they require in turn (users requires it)


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["subsvc_declared"]


@pytest.fixture(autouse=True)
def greeting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DECLARED_GREETING", "hello there")


async def test_a_declared_plugin_serves_its_routes_settings_and_hooks(app, client, anon_client):
    assert app.state.permissions["declared"] == ["read"]
    assert {"name": "declared", "description": "A declared test plugin."} in app.state.openapi_tags
    assert app.state.declared_started is True
    assert (await client.get("/declared/greeting")).json() == {"greeting": "hello there"}
    assert (await anon_client.get("/declared/greeting")).status_code == 401


async def test_an_operation_mounted_in_two_areas_answers_in_each_with_its_credential(
    app, client, admin, member
):
    assert (await client.get("/declared/echo/7")).json() == {"number": 7}
    assert (await admin.get("/cabinet/admin/declared/echo/8")).json() == {"number": 8}
    assert (await member.get("/cabinet/admin/declared/echo/8")).status_code == 403
    assert (await client.get("/cabinet/admin/declared/echo/8")).status_code == 401  # an API key is no JWT
    by_path = {e.path: e for e in app.state.endpoints}
    web, cabinet_admin = by_path["/declared/echo/{number}"], by_path["/cabinet/admin/declared/echo/{number}"]
    assert (web.operation_id, web.summary, web.permission) == (
        "echo_declared_echo__number__get",
        "Echo",
        None,
    )
    assert (cabinet_admin.operation_id, cabinet_admin.summary, cabinet_admin.permission) == (
        "admin_echo_cabinet_admin_declared_echo__number__get",
        "Echo For Admins",
        "declared:read",
    )
    assert (
        web.description == cabinet_admin.description == "The number given: one operation served in two areas."
    )


def test_typed_settings_of_an_app(subsvc_settings):
    app = create_app(subsvc_settings, plugins=["subsvc_declared"])
    settings = subsvc_declared.DeclaredSettings.of(app)
    assert isinstance(settings, subsvc_declared.DeclaredSettings)
    assert settings.DECLARED_GREETING == "hello there"

    class Elsewhere(PluginSettings):
        pass

    with pytest.raises(LookupError, match="Elsewhere is not the settings class of an enabled plugin"):
        Elsewhere.of(app)


def _declared(**fields: object) -> types.ModuleType:
    module = types.ModuleType("subsvc_made")
    module.plugin = Plugin(**fields)  # type: ignore[attr-defined, arg-type]
    return module


def test_a_misspelt_hook_implementation_is_refused_at_start(subsvc_settings):
    @hookimpl
    def startpu(app: object) -> None:
        """A misspelt startup."""

    with pytest.raises(
        PluginError, match="plugin 'made' implements 'startpu', which no enabled plugin declares"
    ):
        create_app(subsvc_settings, plugins=[_declared(hooks=[startpu])])


def test_a_declarative_hook_among_the_hooks_is_refused_with_what_to_declare(subsvc_settings):
    @hookimpl
    def register_models() -> list[type]:
        return []

    with pytest.raises(PluginError, match="implements register_models in its hooks: declare models"):
        create_app(subsvc_settings, plugins=[_declared(hooks=[register_models])])


def test_one_hook_implemented_twice_is_refused(subsvc_settings):
    first = types.ModuleType("first")
    second = types.ModuleType("second")

    @hookimpl
    def startup(app: object) -> None:
        """One."""

    @hookimpl
    def startup_again(app: object) -> None:
        """Two, under the same name in another module."""

    first.startup = startup  # type: ignore[attr-defined]
    second.startup = startup_again  # type: ignore[attr-defined]
    with pytest.raises(PluginError, match="plugin 'made' implements startup twice"):
        create_app(subsvc_settings, plugins=[_declared(hooks=[first, second])])


def test_an_entry_point_naming_something_else_is_refused_with_what_to_name():
    from subsvc.plugins import _entry_info

    class FakeEntryPoint:
        name = "odd"
        value = "subsvc_odd:something"
        module = "subsvc_odd"
        dist = None

        def load(self) -> object:
            return 42

    with pytest.raises(
        PluginError, match=r"must name a subsvc\.manifest\.Plugin instance .*'subsvc_odd\.plugin:plugin'"
    ):
        _entry_info(FakeEntryPoint())  # type: ignore[arg-type]


def test_a_domain_error_declared_by_two_plugins_is_refused(subsvc_settings):
    class Refused(Exception):
        pass

    first, second = _declared(errors={Refused: 409}), _declared(errors={Refused: 400})
    second.PLUGIN_NAME = "other"  # type: ignore[attr-defined]
    with pytest.raises(
        ValueError, match="Refused is declared as a domain error twice \\(by 'made' and 'other'\\)"
    ):
        create_app(subsvc_settings, plugins=[first, second])


def test_an_endpoint_needing_a_permission_nobody_registers_stops_the_start(subsvc_settings):
    from subsvc.api import Router

    router = Router(area="cabinet-admin", tag="made", permission="made:raed")

    @router.get("/cabinet/admin/made")
    async def made() -> None:
        """Needs a misspelt permission."""

    module = _declared(endpoints=[router], permissions={"made": ["read"]})
    with pytest.raises(
        PluginError, match="GET /cabinet/admin/made needs permission 'made:raed', which no enabled"
    ):
        create_app(subsvc_settings, plugins=[module])
