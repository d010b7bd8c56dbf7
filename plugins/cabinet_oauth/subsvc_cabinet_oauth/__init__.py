"""subsvc plugin `cabinet_oauth`: OAuth 2.0 login, account linking and account merge."""

__version__ = "0.1.0"
