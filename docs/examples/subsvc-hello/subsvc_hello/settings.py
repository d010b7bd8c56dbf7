from pydantic import Field

from subsvc.settings import PluginSettings


class HelloSettings(PluginSettings):
    HELLO_DEFAULT_LANGUAGE: str = Field("en", description="Language answered when none is asked for.")
