from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Query, Router
from subsvc_hello.models import Greeting
from subsvc_hello.settings import HelloSettings

router = Router(area="web", tag="hello")  # X-API-Key; "cabinet", "cabinet-admin" are the others


class GreetingRequest(BaseModel):
    language: str = Field(min_length=2, max_length=10)
    text: str = Field(min_length=1, max_length=500)


class GreetingResponse(BaseModel):
    language: str
    text: str


@router.get(
    "/hello", response_model=GreetingResponse, permission="hello:read", responses={404: "No greeting"}
)
async def get_greeting(
    request: Request,
    session: AsyncSession,
    language: Annotated[str | None, Query(min_length=2, max_length=10)] = None,
) -> Greeting:
    """The greeting of a language (the default language when none is given)."""
    wanted = language or HelloSettings.of(request.app).HELLO_DEFAULT_LANGUAGE
    greeting = (await session.exec(select(Greeting).where(Greeting.language == wanted))).first()
    if greeting is None:
        raise HTTPError(404, "No greeting")
    return greeting


@router.put("/hello", response_model=GreetingResponse, permission="hello:edit")
async def put_greeting(body: GreetingRequest, session: AsyncSession) -> Greeting:
    """Create or replace the greeting of a language."""
    greeting = (await session.exec(select(Greeting).where(Greeting.language == body.language))).first()
    greeting = greeting or Greeting(language=body.language, text=body.text)
    greeting.text = body.text
    session.add(greeting)
    return greeting  # the session commits when the handler returns (GET sessions are read-only)
