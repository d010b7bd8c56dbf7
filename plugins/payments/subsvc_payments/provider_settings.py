"""The base of a provider plugin's settings."""

from __future__ import annotations

from typing import Self

from pydantic import model_validator

from subsvc.settings import PluginSettings

MIN_SUFFIX, MAX_SUFFIX = "_MIN_AMOUNT_KOPEKS", "_MAX_AMOUNT_KOPEKS"


class ProviderSettings(PluginSettings):
    """A provider plugin's settings: each ``<P>_MIN_AMOUNT_KOPEKS`` may not be above its
    ``<P>_MAX_AMOUNT_KOPEKS`` (the start stops, naming both)."""

    @model_validator(mode="after")
    def _limits_in_order(self) -> Self:
        fields = type(self).model_fields
        for low in fields:
            high = low.removesuffix(MIN_SUFFIX) + MAX_SUFFIX
            if low.endswith(MIN_SUFFIX) and high in fields and getattr(self, low) > getattr(self, high):
                raise ValueError(f"{low} is above {high}")
        return self
