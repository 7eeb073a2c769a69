"""Imports every module that declares a model on Base.metadata, so that the migration
environment (autogenerate) and the schema test see the platform database's whole schema."""

from insureops.platform.accounts import models as accounts_models  # noqa: F401
from insureops.platform.carrier_finder.market import models as carrier_finder_models  # noqa: F401
from insureops.platform.carrier_finder.own import models as carrier_finder_own_models  # noqa: F401
from insureops.platform.email import log as email_log  # noqa: F401
from insureops.platform.http import ratelimit  # noqa: F401
from insureops.platform.identity import models as identity_models  # noqa: F401
from insureops.platform.prospects import models as prospects_models  # noqa: F401
from insureops.platform.records import (  # noqa: F401
    api_keys,
    llm_keys,
    prospects,
    signing_keys,
    usage,
)
from insureops.platform.rules_studio import models as rules_studio_models  # noqa: F401
from insureops.platform.rules_studio.work import models as rules_work_models  # noqa: F401
from insureops.platform.team import models as team_models  # noqa: F401
from insureops.platform.tenancy import databases as tenant_databases  # noqa: F401
from insureops.platform.webhooks import models as webhook_models  # noqa: F401
