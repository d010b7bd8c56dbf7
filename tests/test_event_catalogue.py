"""The event catalogue (`GET /events/types`): every declared event type with its plugin and
payload schema; and, over every installed plugin, that each event published in their code is
declared, with a payload schema that is valid JSON Schema."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from openapi_spec_validator import validate
from pydantic import BaseModel
from sqlmodel import select

import subsvc
from subsvc.app import create_app
from subsvc.default_plugins.events import catalogue_of
from subsvc.events import OutboxEvent
from subsvc.plugins import discover

PROBE_TYPE = "probe.note_created"


# --- the endpoint (core with the probe plugin) ----------------------------------------------


async def test_the_catalogue_lists_each_declared_type_with_its_plugin_and_schema(client, anon_client):
    response = await client.get("/events/types")
    assert response.status_code == 200
    (entry,) = response.json()
    assert (entry["event_type"], entry["plugin"], entry["description"]) == (PROBE_TYPE, "probe", None)
    schema = entry["payload_schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    assert {name: field["type"] for name, field in schema["properties"].items()} == {
        "note_id": "integer",
        "text": "string",
    }
    assert sorted(schema["required"]) == ["note_id", "text"]
    assert (await anon_client.get("/events/types")).status_code == 401


async def test_one_type_by_name_and_404_for_an_unknown_one(client, anon_client):
    listed = (await client.get("/events/types")).json()
    one = await client.get(f"/events/types/{PROBE_TYPE}")
    assert one.status_code == 200
    assert one.json() == listed[0]
    missing = await client.get("/events/types/probe.nothing")
    assert (missing.status_code, missing.json()) == (404, {"detail": "Event type not found"})
    assert (await client.get("/events/types/*")).status_code == 404  # a subscription pattern, not a type
    assert (await anon_client.get(f"/events/types/{PROBE_TYPE}")).status_code == 401


async def test_the_schema_describes_the_payload_subscribers_receive(client, db):
    created = await client.post("/probe/events", json={"text": "hello", "amount": 1})
    assert created.status_code == 201
    async with db.session() as session:
        (row,) = (await session.exec(select(OutboxEvent))).all()
    schema = (await client.get(f"/events/types/{row.event_type}")).json()["payload_schema"]
    jsonschema.validate(row.payload, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"note_id": "one"}, schema)


@pytest.mark.parametrize("subsvc_settings_overrides", [{"IS_DOCS_ENABLED": True}])
async def test_the_catalogue_is_in_the_openapi_document(anon_client):
    document = (await anon_client.get("/openapi.json")).json()
    validate(document)
    for path in ("/events/types", "/events/types/{event_type}"):
        operation = document["paths"][path]["get"]
        assert (operation["tags"], operation["security"]) == (["events"], [{"APIKeyHeader": []}])
    assert "events" in {tag["name"] for tag in document["tags"]}


# --- every installed plugin -----------------------------------------------------------------


@pytest.fixture
def every_plugin(subsvc_settings):
    """An app of every installed plugin (built, not started: no database needed)."""
    return create_app(subsvc_settings, plugins=None)


def test_every_declared_type_of_every_installed_plugin_is_in_the_catalogue(every_plugin):
    declared = {
        event_type: (info.name, model)
        for info, types in every_plugin.state.plugins.each("register_events")
        for event_type, model in (types or {}).items()
    }
    catalogue = catalogue_of(every_plugin)
    assert set(catalogue) == set(declared)
    for event_type, entry in catalogue.items():
        plugin, model = declared[event_type]
        assert isinstance(model, type) and issubclass(model, BaseModel), event_type
        assert entry.plugin == plugin
        jsonschema.Draft202012Validator.check_schema(entry.payload_schema)
        assert entry.payload_schema.get("type") == "object", event_type
        assert entry.payload_schema.get("properties"), f"{event_type} has an empty payload schema"


def _modules(package: ModuleType) -> Iterator[ModuleType]:
    """The package's modules, migrations, tests and ``__main__`` left out (a plain module: itself)."""
    if not hasattr(package, "__path__"):
        yield package
        return
    for found in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if ".migrations" in found.name or ".tests" in found.name or found.name.endswith(".__main__"):
            continue
        yield importlib.import_module(found.name)


@dataclass(frozen=True)
class Published:
    """A place in the code that publishes an event: the type as given there, and the payload
    expression (``None`` where a wrapper passes it on)."""

    where: str
    event_type: ast.expr
    payload: ast.expr | None


def _publish_calls(tree: ast.Module) -> Iterator[ast.Call]:
    """``EventBus.publish(session, type, payload)`` calls: ``.publish`` with three arguments
    (the bus's and Redis's ``publish(channel, message)`` have two)."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "publish"
            and len(node.args) + len(node.keywords) == 3
        ):
            yield node


def _argument(call: ast.Call, names: Sequence[str], name: str) -> ast.expr | None:
    """The expression ``call`` passes for parameter ``name`` of a function with ``names``."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    index = names.index(name)
    return call.args[index] if index < len(call.args) else None


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    names = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    return names[1:] if names[:1] in (["self"], ["cls"]) else names


def _published(module: ModuleType) -> Iterator[Published]:
    """Every publishing place in the module. A call inside a wrapper that takes the type as a
    parameter (``def _publish(request, session, kind, ...)``) stands for the wrapper's call
    sites in the module, each with the type it passes; a wrapper without any is reported."""
    path = Path(module.__file__ or "")
    tree = ast.parse(path.read_text(), str(path))
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for call in _publish_calls(tree):
        event_type = _argument(call, ["session", "event_type", "payload"], "event_type")
        payload = _argument(call, ["session", "event_type", "payload"], "payload")
        assert event_type is not None, f"{path}:{call.lineno}: publish() without an event type"
        around = [f for f in functions if f.lineno <= call.lineno <= (f.end_lineno or f.lineno)]
        wrapper = max(around, key=lambda f: f.lineno) if around else None
        if not (isinstance(event_type, ast.Name) and wrapper and event_type.id in _parameters(wrapper)):
            yield Published(f"{module.__name__}:{call.lineno}", event_type, payload)
            continue
        sites = [
            site
            for site in ast.walk(tree)
            if isinstance(site, ast.Call)
            and (getattr(site.func, "id", None) or getattr(site.func, "attr", None)) == wrapper.name
        ]
        if not sites:
            yield Published(f"{module.__name__}:{call.lineno}", event_type, payload)  # unresolvable
        for site in sites:
            given = _argument(site, _parameters(wrapper), event_type.id)
            assert given is not None, f"{path}:{site.lineno}: {wrapper.name}() without an event type"
            yield Published(f"{module.__name__}:{site.lineno}", given, None)


def _resolve(expression: ast.expr, module: ModuleType) -> Any:
    """The value of a constant, a module-level name or an attribute of one; else a LookupError."""
    if isinstance(expression, ast.Constant):
        return expression.value
    if isinstance(expression, ast.Name) and expression.id in vars(module):
        return vars(module)[expression.id]
    if isinstance(expression, ast.Attribute):
        return getattr(_resolve(expression.value, module), expression.attr)
    raise LookupError(ast.unparse(expression))


def _packages() -> list[ModuleType]:
    names = {info.package for info in discover().values()}
    return [subsvc, *(importlib.import_module(name) for name in sorted(names))]


def test_every_event_published_in_the_code_is_declared_with_its_model(every_plugin):
    catalogue = every_plugin.state.events.catalogue
    places, problems = [], []
    for package in _packages():
        for module in _modules(package):
            for place in _published(module):
                places.append(place)
                try:
                    event_type = _resolve(place.event_type, module)
                except (LookupError, AttributeError):
                    problems.append(
                        f"{place.where}: event type {ast.unparse(place.event_type)} is not a constant"
                    )
                    continue
                if event_type not in catalogue:
                    problems.append(f"{place.where}: {event_type!r} is published but no plugin declares it")
                    continue
                if isinstance(place.payload, ast.Call):  # publish(session, TYPE, Model(...))
                    try:
                        model = _resolve(place.payload.func, module)
                    except (LookupError, AttributeError):
                        continue  # a function building the payload: publish() validates it
                    if isinstance(model, type) and not issubclass(model, catalogue[event_type]):
                        problems.append(
                            f"{place.where}: {event_type!r} is published with {model.__name__}, "
                            f"declared with {catalogue[event_type].__name__}"
                        )
    assert problems == []
    assert any(place.where.startswith("subsvc_users.") for place in places)  # the walk sees plugins


def test_the_walk_finds_publish_calls_and_sees_through_wrappers(tmp_path, monkeypatch):
    """The source walk sees the probe's publish call, and the call sites of a wrapper."""
    probe = importlib.import_module("subsvc_probe")
    assert [_resolve(p.event_type, probe) for p in _published(probe)] == [PROBE_TYPE]
    (tmp_path / "wrapped_events.py").write_text(
        "KIND = 'a.b'\n"
        "def _publish(app, session, kind, payload):\n"
        "    app.state.events.publish(session, kind, payload)\n"
        "def one(app, s):\n"
        "    _publish(app, s, KIND, {})\n"
        "def two(app, s):\n"
        "    _publish(app, s, kind='c.d', payload={})\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        wrapped = importlib.import_module("wrapped_events")
        assert [(p.where, _resolve(p.event_type, wrapped)) for p in _published(wrapped)] == [
            ("wrapped_events:5", "a.b"),
            ("wrapped_events:7", "c.d"),
        ]
    finally:
        sys.modules.pop("wrapped_events", None)
