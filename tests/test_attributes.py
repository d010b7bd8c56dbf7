"""from_attributes: a model from another object's fields of the same names, some given."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from types import SimpleNamespace

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from subsvc.api import from_attributes

AT = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)


class Status(StrEnum):
    ACTIVE = "active"


class Item(BaseModel):
    id: int
    status: str
    amount_kopeks: int
    amount_rubles: float
    note: str | None = None
    label: str = "default"
    created_at: datetime


# any object with attributes: a table row, a dataclass, another model
ROW = SimpleNamespace(id=7, status=Status.ACTIVE, amount_kopeks=12345, created_at=AT, internal="not shown")


def test_the_fields_of_the_same_names_come_from_the_object_the_rest_from_the_keywords():
    item = from_attributes(Item, ROW, amount_rubles=123.45)
    assert item == Item(
        id=7, status=Status.ACTIVE, amount_kopeks=12345, amount_rubles=123.45, note=None, created_at=AT
    )
    # in the model's order, defaults where the object has no such attribute
    assert item.model_dump_json() == (
        '{"id":7,"status":"active","amount_kopeks":12345,"amount_rubles":123.45,"note":null,'
        '"label":"default","created_at":"2024-05-01T12:30:00Z"}'
    )


def test_a_keyword_replaces_the_attribute_and_is_validated_with_the_rest():
    item = from_attributes(Item, ROW, amount_kopeks=-5, amount_rubles=-0.05, label="given")
    assert (item.amount_kopeks, item.label, ROW.amount_kopeks) == (-5, "given", 12345)
    with pytest.raises(ValidationError, match="amount_rubles"):
        from_attributes(Item, ROW, amount_rubles="many")


def test_a_required_field_neither_object_nor_keywords_give_is_refused():
    with pytest.raises(ValidationError, match="amount_rubles"):
        from_attributes(Item, ROW)


def test_a_keyword_naming_no_field_is_refused():
    with pytest.raises(TypeError, match="Item has no field amount_roubles"):
        from_attributes(Item, ROW, amount_roubles=1.0)


class Holder(BaseModel):
    name: str
    item: Item | None = None


def test_an_object_given_for_a_nested_model_is_read_from_its_attributes_too():
    held = from_attributes(
        Holder, SimpleNamespace(name="n"), item=SimpleNamespace(**vars(ROW), amount_rubles=1.5)
    )
    assert held.item == from_attributes(Item, ROW, amount_rubles=1.5)


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    id: int
    prefix: str = Field(validation_alias="token_prefix")


def test_a_field_with_a_validation_alias_reads_that_attribute_and_takes_its_keyword_by_name():
    assert from_attributes(Aliased, SimpleNamespace(id=1, token_prefix="abc")).prefix == "abc"
    assert from_attributes(Aliased, SimpleNamespace(id=1, token_prefix="abc"), prefix="xyz").prefix == "xyz"
