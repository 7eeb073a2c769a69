"""`from insureops.dsl import compile_ruleset` as a callable, although dsl/ has no __init__.py.

dsl/ is a namespace portion, so the name imports this module; the module makes itself callable
by switching its class to a ModuleType subclass with __call__. The function itself is
insureops.dsl.api.compile_ruleset.
"""

from __future__ import annotations

import sys
import types

from insureops.dsl.api import compile_ruleset as _compile_ruleset


class _CallableModule(types.ModuleType):
    def __call__(self, source: str, **options):
        return _compile_ruleset(source, **options)


compile_ruleset = _compile_ruleset
sys.modules[__name__].__class__ = _CallableModule
