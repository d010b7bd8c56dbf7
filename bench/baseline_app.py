"""Bare Starlette "hello world": the throughput ceiling for the benchmarks.

Served by uvicorn with the same options as ``subsvc serve``: httptools,
uvloop, access log off, a single worker, on HOST/PORT from the environment.
"""

import os

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def root(request: Request) -> JSONResponse:
    """Return a constant JSON body."""
    return JSONResponse({"status": "ok"})


app = Starlette(routes=[Route("/", root, methods=["GET"])])


def main() -> None:
    """Serve the app on HOST/PORT (default 127.0.0.1:8000)."""
    uvicorn.run(
        app,
        host=os.environ.get("HOST", "127.0.0.1"),
        port=int(os.environ.get("PORT", "8000")),
        http="httptools",
        loop="uvloop",
        access_log=False,
        workers=1,
    )


if __name__ == "__main__":
    main()
