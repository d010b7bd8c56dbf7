import pytest


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["hello"]
