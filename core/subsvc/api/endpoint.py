"""One declaration per endpoint: routing, authentication, validation, serialisation, OpenAPI.

    router = Router(area="web", tag="pages")

    @router.get("/pages/faq/status", permission="pages:read")
    async def get_faq_status(session: AsyncSession) -> FaqStatusResponse: ...

    @router.get("/pages/service-rules", response_model=ServiceRulesResponse)
    async def get_service_rules(
        session: AsyncSession,
        language: Annotated[str, Query(min_length=2, max_length=10)] = "ru",
        fallback: bool = True,
    ) -> ServiceRule: ...

The handler's parameters say what it needs. By type: ``Request``, ``AsyncSession`` (a
session for this request: committed when the handler returns, rolled back when it
raises), ``Principal`` (the authenticated caller). Every other parameter is an input: path
(named in the template), body (a pydantic model), header, query, or a form's field or file
(see :mod:`subsvc.api.params` and :mod:`subsvc.api.forms`); ``Annotated[SomeDataclass,
Query()]`` is a group of query parameters, its fields, declared once for the handlers that
share them (the handler receives the dataclass). All inputs are validated together; the
return value is serialised through ``response_model``. A GET handler's session is read-only
(see :class:`subsvc.db.Database`): it is never committed.

``response_model`` is the handler's return annotation unless given (as in FastAPI); none when
it returns ``None`` or a ``Response`` (which is sent as it is). Give it when the handler returns
something else to serialise through it, e.g. a table row answered as a schema (above).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo
from pydantic_core import CoreSchema, SchemaValidator
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from subsvc.api.errors import (
    HTTPError,
    RequestValidationError,
    body_missing,
    json_invalid,
    validation_errors,
)
from subsvc.api.forms import MULTIPART, URLENCODED, FormInvalid, form_invalid, holds_file, read_form
from subsvc.api.inputs import MAX_JSON_DEPTH, bounded, too_deep
from subsvc.api.params import Location, Param, Query
from subsvc.auth.permissions import check_permission
from subsvc.auth.principal import Principal

Area = Literal["web", "cabinet", "cabinet-admin"]
Handler = Callable[..., Awaitable[Any]]
_PATH_PARAM = re.compile(r"{([^}:]+)(?::[^}]*)?}")
RETURNED: Any = object()  # Endpoint.response_model when not given: the handler's return annotation


@dataclass
class Input:
    """One input parameter of a handler."""

    name: str
    location: Location
    annotation: Any
    field: FieldInfo
    wire_name: str
    is_list: bool = False


@dataclass
class Endpoint:
    """A declared endpoint; ``route()`` makes the Starlette route, :mod:`subsvc.api.openapi`
    its operation."""

    method: str
    path: str
    handler: Handler
    area: Area
    tag: str
    response_model: Any = RETURNED  # the handler's return annotation (see returned_model)
    status_code: int = 200
    summary: str | None = None
    description: str | None = None
    public: bool = False
    permission: str | None = None
    include_in_schema: bool = True
    responses: dict[int, str] = field(default_factory=dict)
    name: str | None = None  # the operation's name (id, default summary); else the handler's
    # The name of a setting of the endpoint's plugin that, when set, is the path instead (e.g.
    # a payment provider's notification URL): ``create_app`` serves a copy at that path.
    path_setting: str | None = None
    # A larger body than ``MAX_BODY_BYTES`` this endpoint accepts (an upload); the limit is
    # still enforced while the body streams in (413 beyond it).
    max_body_bytes: int | None = None
    # Another media type the success answer may come as (a ``Response`` the handler returns,
    # e.g. ``text/event-stream``), documented beside the JSON one.
    also_media_type: str | None = None
    answers: dict[int, str] = field(init=False)
    inputs: list[Input] = field(init=False)
    injected: dict[str, str] = field(init=False)
    models: dict[Location, type[BaseModel]] = field(init=False)
    input_schemas: dict[Location, CoreSchema] = field(init=False)
    body: Input | None = field(init=False)

    def __post_init__(self) -> None:
        self.method = self.method.upper()
        if self.response_model is RETURNED:
            self.response_model = returned_model(self.handler)
        self.summary = self.summary or (self.name or self.handler.__name__).replace("_", " ").title()
        if self.description is None and self.handler.__doc__:
            self.description = inspect.cleandoc(self.handler.__doc__)
        path_names = set(_PATH_PARAM.findall(self.path))
        self.inputs, self.injected, self._groups = _read_signature(self.handler, path_names)
        self.body = next((i for i in self.inputs if i.location == "body"), None)
        self.models = {}
        for location in ("path", "query", "header", "form"):
            fields = {i.name: (i.annotation, i.field) for i in self.inputs if i.location == location}
            if fields:
                name = (
                    f"Body_{self.operation_id}" if location == "form" else f"{self.operation_id}_{location}"
                )
                self.models[location] = create_model(name, **fields)  # type: ignore[call-overload]
        form = [i for i in self.inputs if i.location == "form"]
        self._form_fields = [(i.wire_name, i.is_list) for i in form]
        self.form_media_type = MULTIPART if any(holds_file(i.annotation) for i in form) else URLENCODED
        by_kind = {kind: name for name, kind in self.injected.items()}
        self._session_name = by_kind.get("session")
        self._passed = [(name, kind) for name, kind in self.injected.items() if kind != "session"]
        self._checks_permission = self.area == "cabinet-admin" or self.permission is not None
        # Every input validated with the rules of subsvc.api.inputs (bounds, clean text).
        self.input_schemas = {}
        self._validators: dict[Location, SchemaValidator] = {}
        sources = {location: model.__pydantic_core_schema__ for location, model in self.models.items()}
        if self.body is not None:
            sources["body"] = TypeAdapter(self.body.annotation).core_schema
        for location, schema in sources.items():
            self.input_schemas[location], self._validators[location] = bounded(schema)
        self._response_adapter = TypeAdapter(self.response_model) if self.response_model is not None else None
        self._ready_type = _ready_type(self.response_model)
        self.document()

    def document(self, authentication: Mapping[int, str] | None = None) -> None:
        """Set :attr:`answers`, every status this endpoint answers with its description: the
        success, what its credential (plus ``authentication``, what the area's authenticating
        plugin adds), permission, inputs and session can answer, then what it declares in
        ``responses`` (the statuses of its own rules, or a text of its own)."""
        answers = {self.status_code: "Successful Response"}
        if not self.public:
            answers[401] = "Missing, invalid or expired credentials"
            answers.update(authentication or {})
        if self._checks_permission:
            answers[403] = "The caller may not do this"
        if any(i.location == "path" for i in self.inputs):
            answers[404] = "Not found"
        if self.body is not None or "form" in self.models:
            answers[413] = "Request body too large"
        if self.inputs:
            answers[422] = "Validation Error"
        if self._session_name is not None:
            answers[503] = "Database unavailable"
        self.answers = {**answers, **self.responses}

    @property
    def operation_id(self) -> str:
        cleaned = re.sub(r"\W", "_", self.path)
        return f"{self.name or self.handler.__name__}{cleaned}_{self.method.lower()}"

    def route(self) -> Route:
        return Route(self.path, self.__call__, methods=[self.method], name=self.operation_id)

    async def __call__(self, request: Request) -> Response:
        if self.body is not None and too_deep(await request.body()):
            raise RequestValidationError([json_invalid(0, f"nested deeper than {MAX_JSON_DEPTH} levels")])
        principal = None
        if not self.public:
            principal = await _authenticate(request, self.area)
            if self._checks_permission:
                await check_permission(request, principal, self.permission)
        kwargs = await self._read_inputs(request) if self.inputs else {}
        for name, kind in self._passed:
            kwargs[name] = request if kind == "request" else principal
        if self._session_name is None:
            result = await self.handler(**kwargs)
        else:
            read_only = self.method == "GET"
            async with request.app.state.db.session(read_only=read_only) as session:
                kwargs[self._session_name] = session
                result = await self.handler(**kwargs)
                if not read_only:
                    await session.commit()
        return self.render(result)

    async def _read_inputs(self, request: Request) -> dict[str, Any]:
        values: dict[str, Any] = {}
        errors: list[dict[str, Any]] = []
        for location in self.models:
            if location == "form":
                try:
                    raw = await read_form(request, self._form_fields)
                except FormInvalid as exc:
                    errors.append(form_invalid(str(exc)))
                    continue
            else:
                raw = self._raw(request, location)
            try:
                values.update(self._validators[location].validate_python(raw).__dict__)
            except ValidationError as exc:
                prefix = "body" if location == "form" else location
                errors.extend(validation_errors(exc, (prefix,), missing_input_none=True))
        if self.body is not None:
            errors.extend(await self._read_body(request, values))
        if errors:
            raise RequestValidationError(errors)
        for name, group in self._groups.items():
            values[name] = group(**{f.name: values.pop(f.name) for f in dataclasses.fields(group) if f.init})
        return values

    def _raw(self, request: Request, location: Location) -> dict[str, Any]:
        source: Any
        if location == "path":
            return dict(request.path_params)
        source = request.query_params if location == "query" else request.headers
        raw: dict[str, Any] = {}
        for item in self.inputs:
            if item.location != location or item.wire_name not in source:
                continue
            raw[item.wire_name] = source.getlist(item.wire_name) if item.is_list else source[item.wire_name]
        return raw

    async def _read_body(self, request: Request, values: dict[str, Any]) -> list[dict[str, Any]]:
        assert self.body is not None
        raw = await request.body()
        if not raw.strip():
            if self.body.field.is_required():
                return [body_missing()]
            values[self.body.name] = self.body.field.get_default(call_default_factory=True)
            return []
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            position = exc.pos if isinstance(exc, json.JSONDecodeError) else 0
            message = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            return [json_invalid(position, message)]
        try:
            values[self.body.name] = self._validators["body"].validate_python(data)
        except ValidationError as exc:
            return validation_errors(exc, ("body",))
        return []

    def render(self, result: Any) -> Response:
        """Serialise a handler's return value through the response model."""
        if isinstance(result, Response):
            return result
        if self.status_code == 204 or self._response_adapter is None:
            return Response(status_code=self.status_code if result is None else 200)
        if not self._is_ready(result):
            result = self._response_adapter.validate_python(result, from_attributes=True)
        body = self._response_adapter.serializer.to_json(result, by_alias=True)
        return Response(body, status_code=self.status_code, media_type="application/json")

    def _is_ready(self, result: Any) -> bool:
        """Is the value already the response model (or a list of it)? Then it needs no
        validation before serialising; anything else (ORM rows, dicts) is validated."""
        ready, many = self._ready_type
        if ready is None:
            return False
        if not many:
            return isinstance(result, ready)
        return isinstance(result, list) and all(isinstance(item, ready) for item in result)


def returned_model(handler: Handler) -> Any:
    """The response model a handler's return annotation declares: the annotation, or ``None``
    for ``None``, no annotation, or a ``Response`` (sent as it is). A union with a ``Response``
    says no model: the endpoint gives ``response_model``."""
    annotation = typing.get_type_hints(handler).get("return")
    if annotation is None or annotation is type(None) or _is_response(annotation):
        return None
    if get_origin(annotation) in (Union, types.UnionType) and any(map(_is_response, get_args(annotation))):
        raise TypeError(f"{handler.__qualname__} may return a Response: give its response_model")
    return annotation


def _is_response(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, Response)


async def _authenticate(request: Request, area: Area) -> Principal:
    result = await request.app.state.plugins.first_result("authenticate", connection=request, area=area)
    if result is None:
        raise HTTPError(401, "Not authenticated")
    request.scope.setdefault("state", {})["principal"] = result  # request.state.principal
    return typing.cast(Principal, result)


def _ready_type(model: Any) -> tuple[type[BaseModel] | None, bool]:
    """``(Model, False)`` for a model, ``(Model, True)`` for ``list[Model]``, else ``(None, False)``."""
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model, False
    if get_origin(model) is list:
        (item,) = get_args(model)
        if isinstance(item, type) and issubclass(item, BaseModel):
            return item, True
    return None, False


_INJECTED: dict[type, str] = {Request: "request", Principal: "principal"}


def _read_signature(
    handler: Handler, path_names: set[str]
) -> tuple[list[Input], dict[str, str], dict[str, type]]:
    """The handler's inputs, its injected parameters (name: kind) and its query groups
    (name: dataclass)."""
    hints = typing.get_type_hints(handler, include_extras=True)
    inputs: list[Input] = []
    injected: dict[str, str] = {}
    groups: dict[str, type] = {}
    for name, parameter in inspect.signature(handler).parameters.items():
        base, marker = _split_annotated(hints.get(name, Any))
        kind = _injected_kind(base)
        if kind is not None:
            injected[name] = kind
        elif isinstance(marker, Query) and isinstance(base, type) and dataclasses.is_dataclass(base):
            groups[name] = base
            inputs.extend(_group_inputs(base))
        else:
            default = parameter.default if parameter.default is not inspect.Parameter.empty else ...
            inputs.append(_input(name, base, marker, default, path_names))
    names = [i.name for i in inputs]
    if len(set(names)) < len(names):
        raise TypeError(f"{handler.__qualname__}: a query group's field has the name of another input")
    return inputs, injected, groups


def _group_inputs(group: type) -> list[Input]:
    """The query parameters a dataclass declares: its fields, in order, with their defaults."""
    hints = typing.get_type_hints(group, include_extras=True)
    inputs = []
    for item in dataclasses.fields(group):
        if item.init:
            base, marker = _split_annotated(hints[item.name])
            default = ... if item.default is dataclasses.MISSING else item.default
            inputs.append(_input(item.name, base, marker or Query(), default, set()))
    return inputs


def _input(name: str, base: Any, marker: Param | None, default: Any, path_names: set[str]) -> Input:
    location = marker.location if marker else _default_location(name, base, path_names)
    constraints = dict(marker.constraints) if marker else {}
    wire_name = (marker.alias if marker else None) or (
        name.replace("_", "-") if location == "header" else name
    )
    if location == "header":
        wire_name = wire_name.lower()
    if location in ("query", "header") and wire_name != name:
        constraints["alias"] = wire_name
    annotated = typing.Annotated[base, Field(**constraints)] if constraints else base
    info = FieldInfo.from_annotated_attribute(annotated, default)  # type: ignore[arg-type]
    return Input(name, location, base, info, wire_name, is_list=_is_list(base))


def _split_annotated(annotation: Any) -> tuple[Any, Param | None]:
    if get_origin(annotation) is typing.Annotated:
        base, *extras = get_args(annotation)
        marker = next((e for e in extras if isinstance(e, Param)), None)
        rest = [e for e in extras if not isinstance(e, Param)]
        return (typing.Annotated[base, *rest] if rest else base), marker
    return annotation, None


def _injected_kind(annotation: Any) -> str | None:
    if isinstance(annotation, type):
        if issubclass(annotation, AsyncSession):
            return "session"
        for cls, kind in _INJECTED.items():
            if issubclass(annotation, cls):
                return kind
    return None


def _default_location(name: str, annotation: Any, path_names: set[str]) -> Location:
    if name in path_names:
        return "path"
    if holds_file(annotation):
        return "form"
    return "body" if _is_model(annotation) else "query"


def _is_model(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_is_model(arg) for arg in get_args(annotation) if arg is not type(None))
    return False


def _is_list(annotation: Any) -> bool:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return any(_is_list(arg) for arg in get_args(annotation) if arg is not type(None))
    return origin in (list, set, tuple, frozenset)


@dataclass(frozen=True)
class Operation:
    """One operation served in several areas, declared once (:func:`operation`) and mounted on
    each area's router (:meth:`Router.mount`) with that area's credential, permission, prefix
    and wording."""

    method: str
    path: str
    handler: Handler
    options: dict[str, Any]


def operation(method: str, path: str, **options: Any) -> Callable[[Handler], Operation]:
    """Declare an operation to mount in several areas; options are :class:`Endpoint` fields
    that every area shares (each mount may override them)."""

    def declare(handler: Handler) -> Operation:
        return Operation(method.upper(), path, handler, options)

    return declare


class Router:
    """Collects a plugin's endpoints for one area and tag."""

    def __init__(self, area: Area, tag: str, *, prefix: str = "", permission: str | None = None) -> None:
        self.area = area
        self.tag = tag
        self.prefix = prefix
        self.permission = permission
        self.endpoints: list[Endpoint] = []

    def route(self, method: str, path: str, **options: Any) -> Callable[[Handler], Handler]:
        """Declare an endpoint; options are :class:`Endpoint` fields (``response_model``,
        ``status_code``, ``summary``, ``public``, ``permission``, ``tag``...)."""

        def decorate(handler: Handler) -> Handler:
            options.setdefault("area", self.area)
            options.setdefault("tag", self.tag)
            options.setdefault("permission", self.permission)
            self.endpoints.append(Endpoint(method, self.prefix + path, handler, **options))
            return handler

        return decorate

    def mount(self, shared: Operation, *, path: str | None = None, **overrides: Any) -> Endpoint:
        """Serve ``shared`` in this router's area (at ``path`` when it differs, under the
        router's prefix); ``overrides`` (``name``, ``permission``, ``summary``, ``responses``...)
        replace the shared options for this area only."""
        options: dict[str, Any] = {"area": self.area, "tag": self.tag, "permission": self.permission}
        options |= shared.options | overrides
        endpoint = Endpoint(shared.method, self.prefix + (path or shared.path), shared.handler, **options)
        self.endpoints.append(endpoint)
        return endpoint

    def get(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("GET", path, **options)

    def post(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("POST", path, **options)

    def put(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("PUT", path, **options)

    def patch(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("PATCH", path, **options)

    def delete(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("DELETE", path, **options)
