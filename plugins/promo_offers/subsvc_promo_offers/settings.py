"""Settings of the promo_offers plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class PromoOffersSettings(PluginSettings):
    """How broadcasts are sent and how often the plugin's upkeep runs."""

    PROMO_OFFERS_BUTTON_TEXT: str = Field(
        "🎁 Получить",
        min_length=1,
        max_length=64,
        description="Text of the claim button under a broadcast message when the request gives none.",
    )
    PROMO_OFFERS_SEND_BATCH: int = Field(
        100,
        ge=1,
        le=1000,
        description="Messages a broadcast sender takes from the database at a time (progress is "
        "saved per batch).",
    )
    PROMO_OFFERS_SEND_CONCURRENCY: int = Field(
        20,
        ge=1,
        le=200,
        description="Messages of one broadcast in flight at once (the messenger client still keeps "
        "its rate limits).",
    )
    PROMO_OFFERS_SEND_LEASE_SECONDS: float = Field(
        120.0,
        gt=0,
        description="A sender holds its broadcast this long per batch; after a crash another worker "
        "takes the broadcast over once the lease has run out.",
    )
    PROMO_OFFERS_UPKEEP_SECONDS: float = Field(
        60.0,
        ge=0,
        description="How often the upkeep job resumes unfinished broadcasts, ends test server access "
        "that ran out and deactivates expired offers (0 = never).",
    )
    PROMO_OFFERS_CABINET_OFFERS_LIMIT: int = Field(
        100,
        ge=1,
        le=1000,
        description="Most offers `GET /cabinet/promo/offers` lists (the newest unexpired ones).",
    )
