"""A model carrying another object's fields of the same names, the rest given.

An answer or an event often shows a row's fields under the row's own names, plus a few
worked out. ``from_attributes`` says that once instead of copying each field by hand::

    return from_attributes(
        TransactionItem, row, amount_rubles=rubles(row.amount_kopeks)
    )  # id, type, amount_kopeks, ... read from the row

The object is read as pydantic reads it for ``model_validate(obj, from_attributes=True)``
(and as an endpoint reads a row it returns): each field from the attribute of its name (its
validation alias where it has one), a field the object lacks taking its default. Each keyword
replaces that field's attribute; they are validated with the rest. A keyword naming no field
is refused (a misspelling would otherwise be dropped without a word).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


class _Overlay:
    """``source``'s attributes, with ``values`` in front."""

    __slots__ = ("_source", "_values")

    def __init__(self, source: object, values: dict[str, Any]) -> None:
        self._source = source
        self._values = values

    def __getattr__(self, name: str) -> Any:
        if name in self._values:
            return self._values[name]
        return getattr(self._source, name)


def from_attributes(model: type[M], source: object, /, **values: Any) -> M:
    """``model`` with ``source``'s attributes of its fields' names, ``values`` replacing some."""
    fields = model.model_fields
    unknown = values.keys() - fields.keys()
    if unknown:
        raise TypeError(f"{model.__name__} has no field {', '.join(sorted(unknown))}")
    read = {_read_as(name, model): value for name, value in values.items()}
    return model.model_validate(_Overlay(source, read), from_attributes=True)


def _read_as(name: str, model: type[BaseModel]) -> str:
    """The attribute pydantic reads for field ``name`` (its validation alias, if a name)."""
    field = model.model_fields[name]
    alias = field.validation_alias if field.validation_alias is not None else field.alias
    return alias if isinstance(alias, str) else name
