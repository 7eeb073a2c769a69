"""A real SMTP server for tests: aiosmtpd on a free local port, optionally STARTTLS and AUTH.

Imported by the conftests of tests/platform/email and tests/platform/accounts (and later areas
that send mail) as `tests.platform.email.smtp_server`; pytest's importlib mode resolves it.
"""

from __future__ import annotations

import datetime
import email
import email.message
import email.policy
import gc
import ipaddress
import socket
import ssl
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from insureops.platform.email import SmtpOptions

HOST = "127.0.0.1"


@dataclass(frozen=True)
class ReceivedMessage:
    """One message as the server received it, with how the session was secured."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    message: email.message.EmailMessage
    over_tls: bool
    authenticated_as: str | None

    def text_body(self) -> str:
        """The text/plain part."""
        return self.message.get_body(preferencelist=("plain",)).get_content()

    def html_body(self) -> str:
        """The text/html part."""
        return self.message.get_body(preferencelist=("html",)).get_content()


@dataclass
class CollectingHandler:
    """aiosmtpd handler keeping every accepted message (the server runs in its own thread)."""

    received: list[ReceivedMessage] = field(default_factory=list)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    async def handle_DATA(self, server, session, envelope) -> str:
        parsed = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        login = session.auth_data.login.decode() if session.authenticated else None
        with self.arrived:
            self.received.append(ReceivedMessage(
                envelope.mail_from, tuple(envelope.rcpt_tos), parsed,
                session.ssl is not None, login))
            self.arrived.notify_all()
        return "250 Message accepted for delivery"


@dataclass
class SmtpTestServer:
    """Where the test server listens, what it trusts and what it has received."""

    host: str
    port: int
    handler: CollectingHandler
    ca_file: str | None = None
    username: str | None = None
    password: str | None = None

    @property
    def messages(self) -> list[ReceivedMessage]:
        return list(self.handler.received)

    def reset(self) -> None:
        """Forget what was received: a server shared by a worker's tests starts each one empty
        (the service sends within the request, so nothing of an earlier test arrives late)."""
        with self.handler.arrived:
            self.handler.received.clear()

    def options(self, **overrides) -> SmtpOptions:
        """SmtpOptions that reach this server as configured (TLS and credentials included)."""
        values = {"host": self.host, "port": self.port, "username": self.username,
                      "password": self.password, "starttls": self.ca_file is not None,
                      "timeout": 5.0, "from_address": "insureops <no-reply@insureops.test>",
                      "ca_file": self.ca_file}
        values.update(overrides)
        return SmtpOptions(**values)

    def wait_for(self, count: int, timeout: float = 5.0) -> list[ReceivedMessage]:
        """Block until at least `count` messages arrived; fail the test otherwise."""
        deadline = time.monotonic() + timeout
        with self.handler.arrived:
            while len(self.handler.received) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"expected {count} messages, got {self.messages}")
                self.handler.arrived.wait(remaining)
        return self.messages


def free_port() -> int:
    """A currently free TCP port on the loopback (aiosmtpd cannot take port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def write_self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1/localhost, usable as its own trust anchor."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "insureops test SMTP")])
    now = datetime.datetime.now(datetime.UTC)
    public = key.public_key()
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address(HOST))]),
            critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
            key_encipherment=False, data_encipherment=False, key_agreement=False,
            encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(public),
                       critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "smtp-cert.pem", directory / "smtp-key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    return cert_path, key_path


def _authenticator(username: str, password: str):
    def authenticate(server, session, envelope, mechanism, auth_data) -> AuthResult:
        ok = (isinstance(auth_data, LoginPassword) and auth_data.login.decode() == username
              and auth_data.password.decode() == password)
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)
    return authenticate


@contextmanager
def running_smtp_server(*, secure_in: Path | None = None, username: str = "mailer",
                        password: str = "s3cret-pass",
                        failed_handshakes: bool = False) -> Iterator[SmtpTestServer]:
    """Run a server; with `secure_in` (a directory for the certificate) it requires STARTTLS
    and AUTH with `username`/`password`, otherwise it is plain and open. A test that makes
    STARTTLS fail on purpose says `failed_handshakes=True`: the server then collects the
    sockets aiosmtpd leaves behind when it stops."""
    handler = CollectingHandler()
    port = free_port()
    parameters: dict = {}
    server = SmtpTestServer(HOST, port, handler)
    if secure_in is not None:
        cert_path, key_path = write_self_signed_certificate(secure_in)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert_path, key_path)
        parameters = {"tls_context": context, "require_starttls": True, "auth_required": True,
                          "auth_require_tls": True, "authenticator": _authenticator(username, password)}
        server = SmtpTestServer(HOST, port, handler, str(cert_path), username, password)
    controller = Controller(handler, hostname=HOST, port=port, **parameters)
    controller.start()
    try:
        yield server
    finally:
        controller.stop()
        if failed_handshakes:
            _collect_sockets_left_by_failed_handshakes()


def _collect_sockets_left_by_failed_handshakes() -> None:
    # aiosmtpd does not close its side of a connection whose STARTTLS handshake failed (the
    # untrusted-certificate test); collect it here, where the warning is known and expected,
    # instead of in whichever later test the garbage collector happens to run. Only there: a
    # full collection after every test cost more than the tests themselves.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()
