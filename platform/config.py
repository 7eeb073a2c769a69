"""Service settings: one frozen object; `Settings.from_env()` is the only reader of os.environ."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from cryptography.hazmat.primitives.serialization import load_pem_public_key
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, SettingsConfigDict

MIB = 1024 * 1024
DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./insureops.db"

# Plain driver names a user may type, and the async driver the service runs them with.
_ASYNC_DRIVERS = {
    "sqlite://": "sqlite+aiosqlite://",
    "postgresql://": "postgresql+psycopg://",
    "postgres://": "postgresql+psycopg://",
}


class Settings(BaseSettings):
    """Everything the service can be configured with (environment prefix `INSUREOPS_`).

    Built directly (`Settings(database_url=...)`) it reads nothing but its arguments, which is what
    tests do; `Settings.from_env()` adds the environment on top of the defaults.
    """

    model_config = SettingsConfigDict(env_prefix="INSUREOPS_", frozen=True, extra="forbid")

    database_url: str = Field(DEFAULT_DATABASE_URL, description="Platform database (async URL).")
    database_timeout_seconds: float = Field(
        15.0, gt=0, description="PostgreSQL platform database: longest wait to connect and for "
        "each answer of the server; then the request is 503 and the connection discarded.")
    host: str = Field("127.0.0.1", description="Address `insureops serve` listens on.")
    port: int = Field(8080, ge=0, le=65535, description="Port `insureops serve` listens on.")
    allowed_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Origins (scheme://host[:port]) allowed to send cookie-authenticated "
        "unsafe requests, comma-separated.")
    secure_cookies: bool = Field(False, description="Mark the session cookie Secure (HTTPS).")
    max_body_bytes: int = Field(MIB, gt=0, description="Largest JSON request body.")
    simulation_max_body_bytes: int = Field(10 * MIB, gt=0,
                                           description="Largest body of simulation routes.")
    max_body_values: int = Field(10_000, gt=0, description="Most values (objects, arrays, "
                                 "scalars) in a decoded JSON request body.")
    simulation_max_body_values: int = Field(1_000_000, gt=0, description="Most values in the "
                                            "body of a simulation route.")
    header_timeout_seconds: float = Field(
        10.0, gt=0, description="`insureops serve` closes a connection whose request line and "
        "headers have not all arrived this long after it opened (or after its previous request).")
    body_timeout_seconds: float = Field(
        60.0, gt=0, description="Longest time to receive a JSON request body; then 408.")
    keepalive_timeout_seconds: float = Field(
        75.0, gt=0, description="An idle kept-alive connection is closed after this long.")
    max_connections: int = Field(
        1000, gt=0, description="Open connections one `insureops serve` process accepts; "
        "further ones get 503 and are closed.")
    secret_key: SecretStr | None = Field(None, description="Key for hashing tokens (HMAC).")
    fernet_keys: Annotated[tuple[SecretStr, ...], NoDecode] = Field(
        (), description="Fernet keys for secrets at rest, comma-separated, newest first.")
    trusted_proxy: bool = Field(False, description="Take the client address from the last "
                                "X-Forwarded-For entry (only behind a proxy that sets it).")
    log_format: Literal["text", "json"] = Field("text", description="Log line format.")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field("INFO")
    migrate_on_start: bool = Field(True, description="Apply platform migrations on start.")
    email_backend: Literal["outbox", "smtp"] = Field(
        "outbox", description="outbox: keep e-mails in the e-mail log and print them; smtp: send.")
    email_from: str = Field("insureops <no-reply@localhost>", description="From address.")
    smtp_host: str | None = Field(None, description="SMTP server (email_backend=smtp).")
    smtp_port: int = Field(587, ge=1, le=65535, description="SMTP port (587 STARTTLS, 465 TLS).")
    smtp_username: str | None = Field(None, description="SMTP AUTH user; none: no AUTH.")
    smtp_password: SecretStr | None = Field(None, description="SMTP AUTH password.")
    smtp_starttls: bool = Field(True, description="Upgrade the SMTP connection with STARTTLS.")
    smtp_implicit_tls: bool = Field(False, description="Connect with TLS from the start (465).")
    smtp_timeout_seconds: float = Field(10.0, gt=0, description="Timeout of each SMTP step.")
    smtp_ca_file: str | None = Field(None, description="Extra CA bundle to trust for SMTP TLS.")
    public_url: str | None = Field(None, description="Base URL of the web app used in e-mailed "
                                   "links (invitations); default http://HOST:PORT.")
    tenant_sqlite_directory: Path | None = Field(
        None, description="Directory of SQLite tenant databases, each workspace's files in its "
        "own subdirectory <tenant_id>/; default: <platform database file>-tenants next to a "
        "SQLite platform database (unless embedded_tenant_databases is false), none with "
        "PostgreSQL.")
    embedded_tenant_databases: bool | None = Field(
        None, description="Give each workspace without a saved connection its own SQLite "
        "tenant database, prepared with the data model; default: on whenever there is a SQLite "
        "tenant directory (explicit or default). false: a workspace must save a connection.")
    tenant_database_allowed_networks: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Private, loopback or link-local networks (CIDR, comma-separated) a "
        "tenant database may be on; by default such addresses are refused.")
    load_example_market: bool = Field(
        True, description="On an embedded (SQLite) platform database without a carrier market, "
        "load examples/market on start.")
    api_key_cache_seconds: float = Field(
        1.0, ge=0, le=60, description="How long an instance answers an API key from its memory "
        "of the key's row (scopes, expiry, revocation, the workspace's saved database "
        "connection): a key revoked or a connection saved through another instance is seen "
        "within this many seconds, through the same instance at once. 0: read every request.")
    tenant_database_timeout_seconds: float = Field(
        5.0, gt=0, description="Timeout of a tenant database connection test.")
    tenant_database_connect_timeout_seconds: float = Field(
        3.0, gt=0, description="Longest wait for a new connection to a tenant database.")
    tenant_database_operation_timeout_seconds: float = Field(
        15.0, gt=0, description="Longest time one request's work on its tenant database may "
        "take (a database that stopped answering); then 503 tenant_database_unavailable.")
    scan_allowed_networks: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Private, loopback or link-local networks (CIDR, comma-separated) a "
        "website scan may fetch from; by default such addresses are refused.")
    scan_timeout_seconds: float = Field(10.0, gt=0, description="Total time a website scan "
                                        "may take, redirects included.")
    scan_max_bytes: int = Field(2 * MIB, gt=0, description="Largest page a website scan reads.")
    email_send_per_hour: int = Field(
        100, gt=0, description="E-mails one workspace may send per hour through "
        "POST /api/v1/connectors/email/send/; then 429.")
    llm_allowed_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        ("api.openai.com", "api.anthropic.com"), description="Host names an LLM provider "
        "base_url may name (comma-separated); add those of OpenAI-compatible servers.")
    llm_allowed_networks: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Private, loopback or link-local networks (CIDR, comma-separated) an "
        "LLM provider base_url may be on (plain http is accepted there); by default such "
        "addresses are refused.")
    llm_timeout_seconds: float = Field(10.0, gt=0, description="Timeout of an LLM connection "
                                       "test or classifier completion, connecting and reading "
                                       "included.")
    webhook_allowed_networks: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Private, loopback or link-local networks (CIDR, comma-separated) a "
        "webhook endpoint may be on (plain http is accepted there); by default such addresses "
        "are refused, and a cloud metadata address always is.")
    webhook_timeout_seconds: float = Field(
        10.0, gt=0, le=60, description="Longest time one webhook delivery attempt may take, "
        "connecting, sending and reading the answer included; then the attempt failed.")
    webhook_max_response_bytes: int = Field(
        64 * 1024, gt=0, description="Most bytes of a receiver's answer read per delivery "
        "attempt; the rest is not read (the attempt is judged by its status code).")
    webhook_max_pending_per_endpoint: int = Field(
        10_000, ge=1, le=1_000_000, description="Most deliveries one webhook endpoint may "
        "have waiting (pending); an event published beyond it is recorded for that endpoint "
        "as failed with error queue_full (redeliver it later), so one slow endpoint cannot "
        "fill the queue.")
    webhooks_per_workspace: int = Field(
        20, gt=0, le=1000, description="Webhook endpoints one workspace may register; the "
        "next is 409 webhook_limit_reached.")
    jwt_jwks_url: str | None = Field(None, description="URL of the identity provider's JWKS "
                                     "document the prospect routes verify tokens against.")
    jwt_public_key: str | None = Field(None, description="Instead of a JWKS: the provider's "
                                       "public key (PEM).")
    jwt_issuer: str | None = Field(None, description="Required `iss` of identity-provider JWTs.")
    jwt_audience: str | None = Field(None, description="Required `aud` of identity-provider "
                                     "JWTs.")
    jwt_algorithms: Annotated[tuple[str, ...], NoDecode] = Field(
        ("RS256", "ES256"), description="Signature algorithms accepted (comma-separated; "
        "asymmetric only).")
    jwt_leeway_seconds: float = Field(30.0, ge=0, le=300, description="Clock skew allowed on "
                                      "`exp` and `nbf`.")
    jwt_jwks_timeout_seconds: float = Field(5.0, gt=0, description="Timeout of a JWKS fetch.")
    jwt_jwks_refetch_seconds: float = Field(60.0, ge=0, description="Least time between two "
                                            "JWKS fetches caused by an unknown `kid`.")
    service_token_seconds: int = Field(
        600, ge=60, le=3600, description="Lifetime of a token the service signs itself for the "
        "browser extension (POST /api/auth/token/) when no external identity provider is "
        "configured.")
    service_token_audience: str = Field(
        "insureops-extension", min_length=1, max_length=200, description="`aud` of the "
        "service's own tokens.")
    service_token_issuer: str | None = Field(
        None, min_length=1, max_length=2048, description="`iss` of the service's own tokens; "
        "default: public_url, else http://HOST:PORT.")
    signing_key_overlap_seconds: float = Field(
        3600.0, gt=0, description="How long `insureops rotate-keys` keeps the previous signing "
        "key published (its tokens keep verifying); at least the token lifetime plus the "
        "leeway.")
    rules_workers: int = Field(
        default_factory=lambda: os.cpu_count() or 1, gt=0, le=64,
        description="Worker processes that check, compile, test, simulate and execute "
        "rulesets (and so the most such jobs running at once); default: one per core.")
    rules_worker_memory_mb: int = Field(
        1024, ge=0, description="Address space one rules worker may use (MB); a job past it "
        "is 422 work_budget_exceeded. 0: unbounded.")
    rules_jobs_per_workspace: int = Field(
        2, gt=0, description="Rule and matching jobs one workspace may have running or "
        "waiting at once; the next is 429 workspace_busy.")
    rules_jobs_waiting: int = Field(
        32, ge=0, description="Jobs that may wait for a rules worker, all workspaces together; "
        "the next is 503 service_busy.")
    rules_check_seconds: float = Field(
        10.0, gt=0, description="Longest check of a ruleset, and check, compile and embedded "
        "tests of a saved version; then 422 work_budget_exceeded.")
    rules_execute_seconds: float = Field(
        5.0, gt=0, description="Longest execution of a published ruleset on one input; then "
        "422 work_budget_exceeded.")
    jobs_in_serve: bool | None = Field(
        None, description="Whether `insureops serve` runs background jobs (rule bindings, book "
        "runs, deliveries) itself; default: yes on an embedded SQLite platform database, no on "
        "PostgreSQL (run `insureops worker` processes there).")
    jobs_concurrency: int = Field(
        4, gt=0, le=64, description="Jobs one process (a worker, or serve running jobs) runs "
        "at once.")
    jobs_stalled_seconds: float = Field(
        30.0, ge=1, description="A worker silent (no heartbeat) this long is taken for dead: "
        "the other workers retry the jobs it held.")
    rules_dispatch_seconds: float = Field(
        0.5, gt=0, le=10, description="How often the bindings' dispatcher looks for records "
        "written in the workspaces' tenant databases.")
    rules_run_batch_size: int = Field(
        2000, ge=10, le=50_000, description="Records a book run reads, evaluates and writes "
        "per batch (and per checkpoint).")
    rules_run_max_records: int = Field(
        5_000_000, gt=0, description="Most records one book run may cover; a larger book is "
        "422 run_too_large (narrow it with `where`).")
    rules_run_active_per_workspace: int = Field(
        10, gt=0, description="Book runs one workspace may have queued or running; the next "
        "is 429 workspace_busy.")
    prospects_terms_version: str = Field("2026-11-01", min_length=1, max_length=64,
                                         description="Current version of the prospect terms "
                                         "and conditions users must accept.")

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings,
                                   dotenv_settings, file_secret_settings):
        """Only explicit arguments: the environment is read by `from_env` alone."""
        return (init_settings,)

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        """Settings from `INSUREOPS_*` variables; keyword overrides win (e.g. CLI options)."""
        values = EnvSettingsSource(cls, env_prefix="INSUREOPS_")()
        return cls(**{**values, **overrides})

    @field_validator("database_url")
    @classmethod
    def _use_async_driver(cls, url: str) -> str:
        for plain, async_ in _ASYNC_DRIVERS.items():
            if url.startswith(plain):
                return async_ + url[len(plain):]
        if not url.startswith(("sqlite+aiosqlite://", "postgresql+psycopg://")):
            raise ValueError("use a sqlite+aiosqlite:// or postgresql+psycopg:// URL")
        return url

    @field_validator("allowed_origins", "fernet_keys", "tenant_database_allowed_networks",
                     "scan_allowed_networks", "jwt_algorithms", "llm_allowed_hosts",
                     "llm_allowed_networks", "webhook_allowed_networks", mode="before")
    @classmethod
    def _split_commas(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("tenant_database_allowed_networks", "scan_allowed_networks",
                     "llm_allowed_networks", "webhook_allowed_networks")
    @classmethod
    def _check_networks(cls, networks: tuple[str, ...]) -> tuple[str, ...]:
        for network in networks:
            ipaddress.ip_network(network, strict=False)  # ValueError names the bad entry
        return networks

    @field_validator("llm_allowed_hosts")
    @classmethod
    def _lower_hosts(cls, hosts: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(host.lower().rstrip(".") for host in hosts)

    @field_validator("jwt_public_key")
    @classmethod
    def _check_public_key(cls, pem: str | None) -> str | None:
        if pem is not None:
            try:
                load_pem_public_key(pem.encode())
            except (ValueError, TypeError):
                raise ValueError("not a PEM public key (-----BEGIN PUBLIC KEY-----)") from None
        return pem

    @field_validator("jwt_algorithms")
    @classmethod
    def _asymmetric_only(cls, algorithms: tuple[str, ...]) -> tuple[str, ...]:
        allowed = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384",
                   "ES512", "EdDSA"}
        refused = [name for name in algorithms if name not in allowed]
        if refused or not algorithms:
            raise ValueError(f"use asymmetric algorithms among {sorted(allowed)}; refused: "
                             f"{refused}")
        return algorithms

    @model_validator(mode="after")
    def _overlap_covers_a_token(self) -> Settings:
        if self.signing_key_overlap_seconds < self.service_token_seconds + self.jwt_leeway_seconds:
            raise ValueError("signing_key_overlap_seconds must be at least service_token_seconds "
                             "plus jwt_leeway_seconds, or tokens signed just before a rotation "
                             "stop verifying before they expire")
        return self

    @property
    def token_issuer(self) -> str:
        """`iss` of the service's own tokens: the setting, the public URL, or http://HOST:PORT."""
        if self.service_token_issuer:
            return self.service_token_issuer
        return (self.public_url or f"http://{self.host}:{self.port}").rstrip("/")

    @property
    def jwt_configured(self) -> bool:
        """An identity provider is configured: a key source, an issuer and an audience."""
        return bool((self.jwt_jwks_url or self.jwt_public_key) and self.jwt_issuer
                    and self.jwt_audience)

    @field_validator("allowed_origins")
    @classmethod
    def _strip_trailing_slash(cls, origins: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(origin.rstrip("/") for origin in origins)

    @model_validator(mode="after")
    def _embedded_needs_a_directory(self) -> Settings:
        if self.embedded_tenant_databases and self.tenant_sqlite_root is None:
            raise ValueError("embedded_tenant_databases needs a SQLite tenant directory: set "
                             "INSUREOPS_TENANT_SQLITE_DIRECTORY (the platform database is not a "
                             "SQLite file)")
        return self

    @property
    def tenant_sqlite_root(self) -> Path | None:
        """Where SQLite tenant databases live (None: they are off): the configured directory, or
        `<platform database file>-tenants` next to a SQLite platform database unless the
        embedded default is turned off."""
        if self.tenant_sqlite_directory is not None:
            return self.tenant_sqlite_directory
        platform_file = self.sqlite_path
        if self.embedded_tenant_databases is False or platform_file is None:
            return None
        return platform_file.with_name(f"{platform_file.name}-tenants")

    @property
    def embedded_tenants_on(self) -> bool:
        """A workspace without a saved connection gets its own SQLite tenant database."""
        return self.embedded_tenant_databases is not False and self.tenant_sqlite_root is not None

    @property
    def runs_jobs_in_serve(self) -> bool:
        """`insureops serve` runs the background jobs itself (see jobs_in_serve)."""
        return self.is_sqlite if self.jobs_in_serve is None else self.jobs_in_serve

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def sqlite_path(self) -> Path | None:
        """The SQLite database file, or None for PostgreSQL or an in-memory database."""
        if not self.is_sqlite:
            return None
        _, _, rest = self.database_url.partition(":///")
        path = rest.split("?", 1)[0]
        return Path(path) if path and path != ":memory:" else None


class RulesClientSettings(BaseSettings):
    """Where `insureops rules pull` / `push` find the workspace: `INSUREOPS_URL` (the service,
    e.g. https://insureops.example) and `INSUREOPS_API_KEY` (a workspace's API key: read to
    pull, write to push). Options given on the command line win (`from_env(url=...)`)."""

    model_config = SettingsConfigDict(env_prefix="INSUREOPS_", frozen=True, extra="ignore")

    url: str | None = Field(None, description="The service's base URL.")
    api_key: SecretStr | None = Field(None, description="An API key of the workspace.")

    @classmethod
    def from_env(cls, **overrides: Any) -> RulesClientSettings:
        values = EnvSettingsSource(cls, env_prefix="INSUREOPS_")()
        given = {name: value for name, value in overrides.items() if value is not None}
        return cls(**{**values, **given})
