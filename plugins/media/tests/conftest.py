"""Run media (and the users it requires) against the loopback fake Bot API, with users 1
(the administrator) and 2 (the member) existing; files of each kind to upload."""

from __future__ import annotations

from typing import Any

import pytest

from subsvc.testing_messenger import FakeBotAPI

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(200))
GIF = b"GIF89a" + bytes(100)
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + bytes(100)
MP4 = b"\x00\x00\x00\x18ftypmp42" + bytes(300)
PDF = b"%PDF-1.4\n" + b"plain document bytes\n" * 50
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["subsvc_media.plugin"]


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    return fake_bot_api.settings(
        MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0, MESSENGER_MAX_RETRIES=0
    )


@pytest.fixture(autouse=True)
async def users(admin_user: Any, member_user: Any) -> None:
    """Users 1 and 2 exist (uploads refer to them)."""
