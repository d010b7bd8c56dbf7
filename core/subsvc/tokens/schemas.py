"""The `/tokens` wire contract."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from subsvc.api.types import UTCDatetime


class TokenResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True, populate_by_name=True)

    id: int
    name: str
    prefix: str = Field(
        validation_alias="token_prefix", description="First characters of the token, to recognise it"
    )
    description: str | None = None
    is_active: bool
    created_at: datetime
    updated_at: datetime | None = None
    expires_at: datetime | None = None
    last_used_at: datetime | None = None
    last_used_ip: str | None = None
    created_by: str | None = None


class TokenCreateResponse(TokenResponse):
    token: str = Field(description="The whole token; shown only in this response")


class TokenCreateRequest(BaseModel):
    name: str = Field(min_length=1, max_length=255)
    description: str | None = None
    expires_at: UTCDatetime | None = None

    @field_validator("name")
    @classmethod
    def _strip(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("name must not be blank")
        return value
