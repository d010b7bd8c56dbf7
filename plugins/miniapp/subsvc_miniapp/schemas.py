"""The mini app's wire models shared by its operations: the init data every request carries
(``initData``, or its alias ``init_data``), and the maintenance notice."""

from __future__ import annotations

from typing import Annotated

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

INIT_DATA_LENGTH = 4096

InitData = Annotated[
    str,
    Field(
        max_length=INIT_DATA_LENGTH,
        validation_alias=AliasChoices("initData", "init_data"),
        description="The mini app's signed init data (`initData` or `init_data`).",
    ),
]
InitDataSnake = Annotated[
    str,
    Field(
        max_length=INIT_DATA_LENGTH,
        validation_alias=AliasChoices("init_data", "initData"),
        description="The mini app's signed init data (`init_data` or `initData`).",
    ),
]


class MiniAppRequest(BaseModel):
    """A request that carries only the signed init data."""

    model_config = ConfigDict(populate_by_name=True)

    initData: InitData


class MiniAppSnakeRequest(BaseModel):
    """The base of the requests whose field is spelt ``init_data`` in the contract."""

    model_config = ConfigDict(populate_by_name=True)

    init_data: InitDataSnake


class MiniAppSubscriptionRequest(MiniAppRequest):
    """The init data only."""


class MiniAppMaintenanceStatusResponse(BaseModel):
    isActive: bool
    message: str | None = None
    reason: str | None = None
