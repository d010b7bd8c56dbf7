"""The OpenAPI 3.1 document, generated from the endpoint declarations."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode

from subsvc.api.endpoint import Endpoint

REF = "#/components/schemas/{model}"
SECURITY_SCHEMES = {
    "APIKeyHeader": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
    "HTTPBearer": {"type": "http", "scheme": "bearer"},
}
VALIDATION_SCHEMAS: dict[str, Any] = {
    "ValidationError": {
        "type": "object",
        "title": "ValidationError",
        "required": ["loc", "msg", "type"],
        "properties": {
            "loc": {
                "type": "array",
                "title": "Location",
                "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            },
            "msg": {"type": "string", "title": "Message"},
            "type": {"type": "string", "title": "Error Type"},
            "input": {"title": "Input"},
            "ctx": {"type": "object", "title": "Context"},
        },
    },
    "HTTPValidationError": {
        "type": "object",
        "title": "HTTPValidationError",
        "properties": {
            "detail": {
                "type": "array",
                "title": "Detail",
                "items": {"$ref": REF.format(model="ValidationError")},
            }
        },
    },
    "HTTPError": {
        "type": "object",
        "title": "HTTPError",
        "required": ["detail"],
        "properties": {"detail": {"title": "Detail"}},
    },
}


def build_document(
    endpoints: Iterable[Endpoint], *, title: str, version: str, tags: Iterable[Mapping[str, str]] = ()
) -> dict[str, Any]:
    """Paths, components and tags for every endpoint that is included in the schema."""
    endpoints = [e for e in endpoints if e.include_in_schema]
    inputs: list[tuple[tuple[int, str], JsonSchemaMode, Any]] = []
    for index, endpoint in enumerate(endpoints):
        for location, schema in endpoint.input_schemas.items():
            inputs.append(((index, location), "validation", schema))
        if endpoint.response_model is not None:
            inputs.append(
                ((index, "response"), "serialization", TypeAdapter(endpoint.response_model).core_schema)
            )
    generator = GenerateJsonSchema(ref_template=REF)
    schemas, definitions = generator.generate_definitions(inputs)
    components: dict[str, Any] = {str(name): schema for name, schema in definitions.items()}

    paths: dict[str, dict[str, Any]] = {}
    for index, endpoint in enumerate(endpoints):
        resolved = {kind: schemas[(i, kind), mode] for (i, kind), mode, _ in inputs if i == index}
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = _operation(
            endpoint, resolved, components
        )
    for endpoint in endpoints:
        for location in endpoint.models:
            components.pop(f"{endpoint.operation_id}_{location}", None)
    components.update(VALIDATION_SCHEMAS)
    used_tags = sorted({e.tag for e in endpoints})
    declared = {t["name"]: dict(t) for t in tags}
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version},
        "paths": paths,
        "components": {"schemas": dict(sorted(components.items())), "securitySchemes": SECURITY_SCHEMES},
        "tags": [declared.get(name, {"name": name}) for name in used_tags],
    }


def _deref(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _operation(endpoint: Endpoint, schemas: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "tags": [endpoint.tag],
        "summary": endpoint.summary,
        "operationId": endpoint.operation_id,
    }
    if endpoint.description:
        operation["description"] = endpoint.description
    if not endpoint.public:
        operation["security"] = [{"APIKeyHeader": []} if endpoint.area == "web" else {"HTTPBearer": []}]
    parameters = []
    for location in ("path", "query", "header"):
        if location not in schemas:
            continue
        model_schema = _deref(schemas[location], components)
        required = set(model_schema.get("required", []))
        for name, schema in model_schema.get("properties", {}).items():
            parameters.append({"name": name, "in": location, "required": name in required, "schema": schema})
    if parameters:
        operation["parameters"] = parameters
    if endpoint.body is not None:
        operation["requestBody"] = {
            "required": endpoint.body.field.is_required(),
            "content": {"application/json": {"schema": schemas["body"]}},
        }
    elif "form" in schemas:
        form = _deref(schemas["form"], components)
        operation["requestBody"] = {
            "required": bool(form.get("required")),
            "content": {endpoint.form_media_type: {"schema": schemas["form"]}},
        }
    responses: dict[str, Any] = {}
    for status, text in sorted(endpoint.answers.items()):
        answer: dict[str, Any] = {"description": text}
        if status == endpoint.status_code:
            if "response" in schemas and status != 204:
                answer["content"] = {"application/json": {"schema": schemas["response"]}}
            if endpoint.also_media_type is not None:
                answer.setdefault("content", {})[endpoint.also_media_type] = {"schema": {"type": "string"}}
        else:
            answer["content"] = {"application/json": {"schema": _error_schema(status, endpoint)}}
        responses[str(status)] = answer
    operation["responses"] = responses
    return operation


def _error_schema(status: int, endpoint: Endpoint) -> dict[str, Any]:
    """`{"detail": ...}`; a 422 is the validation body, or either when the endpoint's own
    rules answer 422 too."""
    error = {"$ref": REF.format(model="HTTPError")}
    if status != 422:
        return error
    validation = {"$ref": REF.format(model="HTTPValidationError")}
    return {"anyOf": [validation, error]} if 422 in endpoint.responses else validation
