"""Configuration of the local MCP server: the three environment values the specification names.

This is the project's second reader of the environment (the service's is platform.config):
the local server is a separate program that a desktop AI client starts with exactly
SERVICE_API_KEY and DATABASE_URL (plus SERVICE_URL) in its environment, names fixed by the
interface specification, so they carry no INSUREOPS_ prefix.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, EnvSettingsSource, SettingsConfigDict

DEFAULT_SERVICE_URL = "http://127.0.0.1:8080"


class LocalServerSettings(BaseSettings):
    """SERVICE_API_KEY, DATABASE_URL and SERVICE_URL; missing values are reported, not raised."""

    model_config = SettingsConfigDict(frozen=True, extra="ignore")

    service_api_key: SecretStr | None = Field(None, description="The workspace API key (iops_...).")
    database_url: SecretStr | None = Field(None, description="The tenant database, URI form.")
    service_url: str = Field(DEFAULT_SERVICE_URL, description="Base URL of the insureops service.")

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings,
                                   dotenv_settings, file_secret_settings):
        """Only explicit arguments; `from_env` adds the environment."""
        return (init_settings,)

    @classmethod
    def from_env(cls, **overrides: Any) -> LocalServerSettings:
        """The three variables from the environment (no prefix); overrides win."""
        values = EnvSettingsSource(cls, case_sensitive=False)()
        return cls(**{**values, **{k: v for k, v in overrides.items() if v is not None}})

    @property
    def api_key(self) -> str:
        return self.service_api_key.get_secret_value() if self.service_api_key else ""

    @property
    def database(self) -> str:
        return self.database_url.get_secret_value() if self.database_url else ""
