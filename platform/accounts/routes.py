"""HTTP routes of the accounts area: thin handlers over the service's use cases."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.accounts import service, throttle
from insureops.platform.accounts.errors import (
    EmailNotVerifiedError,
    InvalidCodeError,
    InvalidCredentialsError,
    WeakPasswordError,
)
from insureops.platform.accounts.payloads import (
    LoginRequest,
    ProfileResponse,
    ResendCodeRequest,
    ResendCodeResponse,
    SignupRequest,
    SignupResponse,
    TokenResponse,
    VerifyRequest,
    VerifyResponse,
)
from insureops.platform.accounts.session_auth import (
    clear_session_cookie,
    session_cookie,
    set_session_cookie,
)
from insureops.platform.auth.requirements import Auth
from insureops.platform.auth.service_tokens import JWKS_PATH, issue_token
from insureops.platform.email import TemplateRenderer
from insureops.platform.http.errors import ApiError
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.identity import Passwords
from insureops.platform.keys import CLOCK, EMAIL_BACKEND, PASSWORDS, SECRET_KEYS, TEMPLATES

SUCCESSOR_LINK = '</api/auth/signup/>; rel="successor-version"'

routes = RouteTable(
    "accounts",
    "Sign-up with e-mail verification, login sessions, logout and the profile.",
)
routes.map_error(WeakPasswordError, 400, "validation_error", message="The request body is invalid.",
                 details=lambda e: [{"field": "password", "message": e.message}])
routes.map_error(InvalidCodeError, 400, "invalid_code")
routes.map_error(InvalidCredentialsError, 401, "invalid_credentials")
routes.map_error(EmailNotVerifiedError, 403, "email_not_verified")


def _deps(call: Call) -> service.AccountsDeps:
    config = call.request.config_dict
    return service.AccountsDeps(config[EMAIL_BACKEND], config[TEMPLATES], config[PASSWORDS],
                                config[SECRET_KEYS].secret_key, config[CLOCK])


def _code_sent(email: str) -> SignupResponse:
    return SignupResponse(email=email.strip(), message=(
        "Check your inbox: we sent a message to this address with the next step. A "
        "verification code is valid for 15 minutes."))


@routes.post("/signup/", body=SignupRequest, response=SignupResponse, status=202,
             auth=Auth.NONE, rate_limit=throttle.SIGNUP, errors=(400,),
             summary="Register a user; triggers e-mail verification",
             description="Creates an unverified user and their workspace and e-mails a 6-digit "
             "code. A taken address gets the same answer (its owner gets a notice by e-mail).")
async def signup(call: Call[SignupRequest, None]) -> SignupResponse:
    command = service.SignupCommand(call.body.email, call.body.password, call.body.name)
    async with call.unit_of_work() as uow:
        await service.signup(uow, _deps(call), command)
    return _code_sent(call.body.email)


@routes.post("/register/", body=SignupRequest, response=SignupResponse, status=202,
             auth=Auth.NONE, rate_limit=throttle.SIGNUP, errors=(400,), deprecated=True,
             summary="Register a user (deprecated: use /api/auth/signup/)",
             description="The deprecated alias of POST /api/auth/signup/: the same behaviour, "
             "plus `Deprecation: true` and a `Link` to the successor on every answer.")
async def register(call: Call[SignupRequest, None]) -> SignupResponse:
    return await signup(call)


@routes.post("/verify/", body=VerifyRequest, response=VerifyResponse, auth=Auth.NONE,
             errors=(400,), summary="Verify e-mail with a code",
             description="Codes last 15 minutes; after 5 wrong tries only a new code works.")
async def verify(call: Call[VerifyRequest, None]) -> VerifyResponse:
    async with call.unit_of_work() as uow:
        await service.verify(uow, _deps(call), service.VerifyCommand(call.body.email,
                                                                     call.body.code))
    return VerifyResponse(email=call.body.email.strip(), email_verified=True)


@routes.post("/resend-code/", body=ResendCodeRequest, response=ResendCodeResponse,
             status=202, auth=Auth.NONE, rate_limit=throttle.RESEND_PER_EMAIL,
             summary="Resend the verification code",
             description="3 per hour per e-mail and 3 per hour per client address. The answer "
             "is the same whether or not the address has a pending verification.")
async def resend_code(call: Call[ResendCodeRequest, None]) -> ResendCodeResponse:
    await throttle.count_client_address(call.request, throttle.RESEND_PER_ADDRESS)
    async with call.unit_of_work() as uow:
        await service.resend_code(uow, _deps(call), call.body.email)
    return ResendCodeResponse(**_code_sent(call.body.email).model_dump())


@routes.post("/login/", body=LoginRequest, response=ProfileResponse, auth=Auth.NONE,
             errors=(401, 403, 429), summary="E-mail and password login; establishes a session",
             description="Sets the `sessionid` cookie (a new id at every login). Failed logins "
             "are limited to 10 per 15 minutes per e-mail.")
async def login(call: Call[LoginRequest, None]) -> web.StreamResponse:
    command = service.LoginCommand(call.body.email, call.body.password,
                                   session_cookie(call.request))
    async with throttle.login_attempt(call.request, call.body.email), \
            call.unit_of_work() as uow:
        result = await service.login(uow, _deps(call), command)
    response = web.json_response(
        ProfileResponse.from_principal(result.principal).model_dump(mode="json"))
    set_session_cookie(call.request, response, result.session_id)
    return response


@routes.post("/logout/", response=None, status=204, auth=Auth.SESSION,
             summary="Log out; invalidates the session")
async def logout(call: Call[None, None]) -> web.StreamResponse:
    async with call.unit_of_work() as uow:
        await service.logout(uow, call.principal.subject)
    response = web.Response(status=204)
    clear_session_cookie(call.request, response)
    return response


@routes.get("/profile/", response=ProfileResponse, auth=Auth.SESSION,
            summary="Current user profile",
            description="The user, their workspaces with roles, and the active workspace.")
async def profile(call: Call[None, None]) -> ProfileResponse:
    return ProfileResponse.from_principal(call.principal)


@routes.post("/token/", response=TokenResponse, auth=Auth.SESSION, status=200,
             rate_limit=throttle.SERVICE_TOKEN, errors=(409, 429),
             summary="A short-lived token for the browser extension (the service as identity "
             "provider)",
             description="When no external identity provider is configured, the service signs "
             "the logged-in user a token (ES256, 10 minutes by default) the prospect routes "
             "accept; its keys are published at /.well-known/jwks.json. 60 per hour per user. "
             "409 identity_provider_external when an external provider is configured.")
async def token(call: Call[None, None]) -> web.StreamResponse:
    settings, config, user = call.settings, call.request.config_dict, call.principal.user
    if settings.jwt_configured:
        raise ApiError(409, "identity_provider_external", "This service trusts an external "
                       "identity provider: the extension signs in there (docs/prospects.md).")
    async with call.unit_of_work() as uow:
        issued = await issue_token(uow, settings, config[SECRET_KEYS].fernet, user_id=user.id,
                                   email=user.email, now=config[CLOCK]())
    answer = TokenResponse(access_token=issued.token, expires_in=issued.expires_in,
                           expires_at=issued.expires_at, issuer=issued.issuer,
                           audience=issued.audience, jwks_uri=issued.issuer + JWKS_PATH)
    return web.json_response(answer.model_dump(mode="json"), headers={"Cache-Control": "no-store"})


async def _mark_deprecated(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: the deprecated alias says so on every answer, errors included."""
    if request.path.rstrip("/").endswith("/register"):
        response.headers["Deprecation"] = "true"
        response.headers["Link"] = SUCCESSOR_LINK


async def _close_passwords(app: web.Application) -> None:
    app[PASSWORDS].close()


def create_app(passwords: Passwords | None = None) -> web.Application:
    """The area's sub-application, mounted at /api/auth by insureops.platform.app.create_app.

    `passwords` defaults to argon2id with argon2-cffi's parameters; tests pass cheaper ones.
    """
    app = routes.build_app()
    app[PASSWORDS] = passwords or Passwords()
    app.on_cleanup.append(_close_passwords)
    app[TEMPLATES] = TemplateRenderer()
    app.on_response_prepare.append(_mark_deprecated)
    return app
