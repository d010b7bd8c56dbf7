"""The cabinet's wire contract for the documents (`/cabinet/info`, `/cabinet/admin/legal-pages`):
field names and types as the reference has them."""

from __future__ import annotations

from pydantic import BaseModel, Field

MODE_PATTERN = "^(bot|web|both)$"


# --- /cabinet/info ---------------------------------------------------------------------------


class InfoFaqPageResponse(BaseModel):
    """FAQ page."""

    id: int
    title: str
    content: str
    order: int


class DocumentResponse(BaseModel):
    """A document's text and when it was last saved (ISO, null for a built-in text)."""

    content: str
    updated_at: str | None = None


class ServiceInfoResponse(BaseModel):
    """General service info."""

    name: str
    description: str | None = None
    support_email: str | None = None
    support_messenger: str | None = None
    website: str | None = None


class LanguageItem(BaseModel):
    code: str
    name: str
    flag: str


class LanguagesResponse(BaseModel):
    languages: list[LanguageItem]
    default: str


class UserLanguageResponse(BaseModel):
    language: str


class LegalConsentConfigResponse(BaseModel):
    """Что показать на экране первой авторизации нового пользователя."""

    required: bool
    prechecked: bool
    documents: list[str]


class InfoVisibilityResponse(BaseModel):
    faq: bool
    rules: bool
    privacy: bool
    offer: bool
    recurrent: bool


# --- /cabinet/admin/legal-pages ----------------------------------------------------------------


class LegalDocumentItem(BaseModel):
    language: str
    content: str
    is_enabled: bool
    updated_at: str | None = None


class LegalDocumentResponse(BaseModel):
    display_mode: str
    display_mode_env_locked: bool
    items: list[LegalDocumentItem]


class LegalDocumentItemUpdate(BaseModel):
    language: str = Field(min_length=2, max_length=10)
    content: str = ""
    is_enabled: bool = True


class LegalDocumentUpdateRequest(BaseModel):
    display_mode: str | None = Field(default=None, pattern=MODE_PATTERN)
    items: list[LegalDocumentItemUpdate] | None = None


class RulesItem(BaseModel):
    language: str
    content: str
    updated_at: str | None = None


class LegalRulesResponse(BaseModel):
    display_mode: str
    display_mode_env_locked: bool
    items: list[RulesItem]


class RulesItemUpdate(BaseModel):
    language: str = Field(min_length=2, max_length=10)
    content: str = ""


class RulesUpdateRequest(BaseModel):
    display_mode: str | None = Field(default=None, pattern=MODE_PATTERN)
    items: list[RulesItemUpdate] | None = None


class FaqSettingItem(BaseModel):
    language: str
    is_enabled: bool


class FaqPageItem(BaseModel):
    id: int
    language: str
    title: str
    content: str
    display_order: int
    is_active: bool
    updated_at: str | None = None


class FaqResponse(BaseModel):
    display_mode: str
    display_mode_env_locked: bool
    settings: list[FaqSettingItem]
    pages: list[FaqPageItem]


class FaqUpdateRequest(BaseModel):
    display_mode: str | None = Field(default=None, pattern=MODE_PATTERN)
    settings: list[FaqSettingItem] | None = None


class LegalFaqPageCreateRequest(BaseModel):
    language: str = Field(min_length=2, max_length=10)
    title: str = Field(min_length=1, max_length=255)
    content: str = ""
    display_order: int | None = Field(default=None, ge=0)
    is_active: bool = True
