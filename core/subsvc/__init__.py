"""subsvc: administration API of a subscription-selling bot (Starlette core + pluggy plugins)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("subsvc")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"
