"""Wire models of the certificate screens (release 4.1.0's shapes)."""

from __future__ import annotations

from pydantic import BaseModel


class OverpayCertificateStatusResponse(BaseModel):
    """The certificate in use: whether one is uploaded, whether it opens and is still valid,
    where its file is, what it says of itself, and what the settings fix."""

    uploaded: bool
    valid: bool
    path: str
    subject: str | None = None
    not_valid_after: str | None = None
    has_chain: bool | None = None
    env_locked_path: bool
    env_locked_passphrase: bool


class OverpayCertificateUploadResponse(BaseModel):
    """The certificate just uploaded, and what an administrator should know about it."""

    subject: str
    not_valid_after: str
    has_chain: bool
    path: str
    env_locked_path: bool
    env_locked_passphrase: bool
    warning: str | None = None
