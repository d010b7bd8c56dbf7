"""What one computation of the statistics costs, uncached (issue 17): the overview's (and the
full statistics') queries run in turn on one read session, as the service runs them.

Usage: python bench/stats_compute.py --database-url postgresql+asyncpg://... [--runs 20]

The revision measured is the one importable as ``subsvc_stats`` (put another tree's
packages first on PYTHONPATH to measure it: see bench/README.md).
"""

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Sequence

from subsvc_stats import service

from subsvc.db import Database
from subsvc.settings import Settings


async def measure(url: str, runs: int, which: str) -> list[float]:
    db = Database(Settings(DATABASE_URL=url, ENVIRONMENT="development"))
    compute = getattr(service, which)
    timings = []
    try:
        for _ in range(runs + 1):  # the first one warms the connection and the caches up
            started = time.perf_counter()
            async with db.session(read_only=True) as session:
                await compute(session)
            timings.append((time.perf_counter() - started) * 1000)
    finally:
        await db.dispose()
    return timings[1:]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--database-url", required=True)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--which", choices=("overview", "full"), default="overview")
    args = p.parse_args(argv)
    timings = sorted(asyncio.run(measure(args.database_url, args.runs, args.which)))
    print(
        f"{args.which} ({service.__file__}): {args.runs} runs, median {statistics.median(timings):.1f} ms,"
        f" min {timings[0]:.1f} ms, max {timings[-1]:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
