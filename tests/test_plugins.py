"""The plugin system: every hook documented and exercised, selection, dependencies."""

from __future__ import annotations

import asyncio
import inspect
import types

import pytest
import subsvc_probe

from subsvc import hookspecs
from subsvc.app import create_app
from subsvc.auth.principal import Grants
from subsvc.hookspecs import hookimpl
from subsvc.manifest import Plugin
from subsvc.plugins import PluginError, from_modules, load, select
from subsvc.settings import Settings

HOOKS = sorted(name for name, fn in vars(hookspecs).items() if hasattr(fn, "subsvc_spec"))


def test_every_hookspec_has_a_docstring_and_is_exercised_by_the_probe_plugin():
    assert HOOKS  # the list is not empty by accident
    for name in HOOKS:
        doc = inspect.getdoc(getattr(hookspecs, name))
        assert doc and len(doc) > 40, f"hook {name} needs documentation"
        assert hasattr(getattr(subsvc_probe, name, None), "subsvc_impl"), (
            f"probe plugin does not exercise {name}"
        )


async def test_declarative_and_runtime_hooks_are_called(app, client, user_token):
    calls = subsvc_probe.CALLS
    for name in [
        "register_settings",
        "register_models",
        "register_migrations",
        "register_routes",
        "register_permissions",
        "register_openapi_tags",
        "register_auth_responses",
        "startup",
    ]:
        assert name in calls, name
    me = next(e for e in app.state.endpoints if e.path == "/cabinet/probe/me")
    assert me.answers[418] == "The probe's cabinet teapot"  # documented for the cabinet area
    assert app.state.probe_started is True
    assert app.state.permissions["probe"] == ["read", "write"]
    assert (await client.get("/probe/settings")).json() == {"greeting": "hello", "limit": 5}
    r = await client.get("/probe/teapot")
    assert (r.status_code, r.json()) == (418, {"detail": "I am a teapot"})
    assert "handle_exception" in calls
    r = await client.get("/cabinet/probe/me", headers={"X-Probe-User": "77"})
    assert r.json() == {"id": 77, "kind": "user", "is_admin": False}
    assert "authenticate" in calls
    r = await client.get("/cabinet/admin/probe/notes", headers={"Authorization": f"Bearer {user_token}"})
    assert r.status_code == 403
    assert "permission_allowed" in calls


async def test_user_grants_come_from_the_hook_or_are_empty(app, db):
    from subsvc.auth.permissions import user_grants

    async with db.session() as session:
        assert await user_grants(app, session, 4242) == Grants(("Prober",), ("probe:read",), 10)
        assert await user_grants(app, session, 1) == Grants()
    assert "user_grants" in subsvc_probe.CALLS


async def test_shutdown_hook_runs_when_the_app_stops(subsvc_settings):
    app = create_app(subsvc_settings, plugins=["subsvc_probe"])
    subsvc_probe.CALLS.clear()
    async with app.router.lifespan_context(app):
        pass
    assert subsvc_probe.CALLS[-1] == "shutdown"


def test_plugin_settings_come_from_the_environment(monkeypatch, subsvc_settings):
    monkeypatch.setenv("PROBE_LIMIT", "9")
    app = create_app(subsvc_settings, plugins=["subsvc_probe"])
    assert app.state.settings_of["probe"].LIMIT == 9
    monkeypatch.setenv("PROBE_LIMIT", "many")
    with pytest.raises(Exception, match="LIMIT"):
        create_app(subsvc_settings, plugins=["subsvc_probe"])


def test_register_commands_adds_a_subcommand(capsys, monkeypatch):
    from subsvc.cli import build_parser

    parser, commands = build_parser()
    load(modules=["subsvc_probe"]).hook.register_commands(cli=commands)
    args = parser.parse_args(["probe"])
    assert args.handler(args) == 0
    assert "probe says hello" in capsys.readouterr().out


def test_missing_dependency_is_refused_with_a_clear_message(subsvc_settings):
    with pytest.raises(PluginError, match="plugin 'needy' requires plugin 'ghost', which is not installed"):
        create_app(subsvc_settings, plugins=["subsvc_needy"])


def test_disabling_a_needed_plugin_is_refused(subsvc_settings):
    settings = subsvc_settings.model_copy(update={"SUBSVC_PLUGINS_DISABLED": ["probe"]})
    with pytest.raises(PluginError, match="requires plugin 'probe', which is disabled by settings"):
        create_app(settings, plugins=["subsvc_probe", "subsvc_child"])


def test_unknown_plugin_names_in_settings_are_refused():
    available = from_modules(["subsvc_probe"])
    with pytest.raises(PluginError, match="SUBSVC_PLUGINS names unknown plugin\\(s\\): nope"):
        select(available, ["nope"], [])
    with pytest.raises(PluginError, match="SUBSVC_PLUGINS_DISABLED names unknown"):
        select(available, None, ["nope"])


def test_dependencies_come_first_and_cycles_are_refused():
    available = from_modules(["subsvc_child", "subsvc_probe"])
    assert [p.name for p in select(available, None, [])] == ["probe", "child"]
    import types

    a = types.ModuleType("subsvc_a")
    a.REQUIRES = ("b",)
    b = types.ModuleType("subsvc_b")
    b.REQUIRES = ("a",)
    with pytest.raises(PluginError, match="cycle"):
        select(from_modules([a, b]), None, [])


@pytest.mark.parametrize("subsvc_settings_overrides", [{"SUBSVC_PLUGINS_DISABLED": ["probe"]}])
async def test_a_subset_runs_and_lists_the_rest_as_disabled(client):
    assert (await client.get("/probe/notes")).status_code == 404
    plugins = {p["name"]: p for p in (await client.get("/plugins")).json()}
    assert plugins["probe"] == {
        "name": "probe",
        "version": "9.9.9",
        "enabled": False,
        "internal": False,
        "requires": [],
    }
    assert plugins["core.tokens"]["enabled"] is True


async def test_get_plugins_lists_name_version_enabled_requires(client, anon_client):
    assert (await anon_client.get("/plugins")).status_code == 401
    names = [p["name"] for p in (await client.get("/plugins")).json()]
    assert names == [
        "core.tokens",
        "core.cabinet_jwt",
        "core.health",
        "core.plugins",
        "core.events",
        "core.docs",
        "core.messenger",
        "probe",
    ]


def test_installed_plugins_are_discovered_through_entry_points():
    from importlib.metadata import entry_points

    installed = {ep.name for ep in entry_points(group="subsvc.plugins")}
    manager = load()
    assert {p.name for p in manager.infos if not p.internal} == installed


def test_unknown_setting_value_stops_start_with_the_variable_named(monkeypatch):
    from subsvc.settings import SettingsError, load_settings

    monkeypatch.setenv("PORT", "eighty")
    with pytest.raises(SettingsError, match="PORT"):
        load_settings(Settings)


def test_a_plugin_offers_extension_points_to_the_plugins_that_build_on_it(subsvc_settings):
    app = create_app(subsvc_settings, plugins=["subsvc_probe", "subsvc_child"])
    assert "register_hookspecs" in subsvc_probe.CALLS
    assert app.state.plugins.hook.probe_extra_fields() == [{"child": True}]


async def test_call_all_awaits_each_implementation_before_calling_the_next(subsvc_settings):
    calls: list[str] = []

    @hookimpl(specname="probe_extra_fields")
    async def slow() -> dict[str, object]:
        calls.append("slow started")
        await asyncio.sleep(0)
        calls.append("slow done")
        return {"slow": True}

    @hookimpl(specname="probe_extra_fields")
    def silent() -> None:
        calls.append("silent")

    declared = types.ModuleType("subsvc_awaiting")
    declared.plugin = Plugin(hooks=[slow, silent])  # type: ignore[attr-defined]
    app = create_app(subsvc_settings, plugins=["subsvc_probe", "subsvc_child", declared])
    answers = await app.state.plugins.call_all("probe_extra_fields")
    assert {"child": True} in answers and {"slow": True} in answers and len(answers) == 2  # None left out
    assert calls.index("slow done") == calls.index("slow started") + 1  # nothing ran in between
