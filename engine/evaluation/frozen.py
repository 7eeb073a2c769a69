"""A compiled ruleset as bytes and back without generating its code again, for a shell's signed
cache: the generated functions' code objects (marshal) with their constants (pickle).

Restoring one is a fraction of compiling it: no IR is read, no Python generated, no code
compiled. The engine's shared helpers, operations and default limits are written by name, so
the restored code sees the very objects compiled code sees; what is keyed by identity (the
float filter's constants table, the input converters' plans) is keyed again. The traced form
and the IR come from a compile of the IR on first use. Loading runs code: only `thaw` bytes
this user wrote and signed (platform/carrier_finder/market/appetite_cache.py checks an HMAC).
"""

from __future__ import annotations

import io
import marshal
import pickle
import types
from collections.abc import Callable

from insureops.engine.evaluation.compiler import CompiledRuleset
from insureops.engine.evaluation.float_filter import constant_floats
from insureops.engine.evaluation.generator import FLOATS, GENERATED
from insureops.engine.evaluation.runtime import HELPERS, OPERATIONS
from insureops.engine.inputs.conversion import InputConverter
from insureops.engine.ir.data import node_fields
from insureops.engine.ir.limits import DEFAULT_LIMITS

FORMAT = 1
_SHARED: dict[tuple, object] = {("helper", name): value for name, value in HELPERS.items()}
_SHARED.update({("operation", op): run for op, (run, _) in OPERATIONS.items()})
_SHARED[("limits",)] = DEFAULT_LIMITS
_SHARED_IDS = {id(value): key for key, value in _SHARED.items()}
_NOT_KEPT = frozenset(HELPERS) | {"__builtins__", "__source__"}
_MODULES = frozenset({"decimal", "datetime", "re", "copyreg", "collections"})
_BUILTINS = frozenset({"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set",
                       "frozenset", "type", "slice", "complex", "range"})


def freeze(compiled: CompiledRuleset) -> bytes | None:
    """`compiled` as bytes `thaw` reads back; None when something in it cannot be kept."""
    buffer = io.BytesIO()
    try:
        _Pickler(buffer, compiled).dump(
            (FORMAT, compiled.name, compiled.consts, compiled._run, compiled.evaluate))
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return None
    return buffer.getvalue()


def thaw(data: bytes, compile_full: Callable[[], CompiledRuleset],
         source: str | None = None) -> CompiledRuleset:
    """The compiled ruleset `freeze` wrote as `data` (only data this user signed: loading runs
    code). `compile_full` compiles it from its IR, called only for the traced form or the IR.
    ValueError when `data` is not one."""
    thawed = _Thawed(compile_full, source)
    unpickler = _Unpickler(io.BytesIO(data), thawed)
    try:
        found = unpickler.load()
    except (pickle.UnpicklingError, EOFError, TypeError, AttributeError, ValueError,
            ImportError, IndexError, KeyError) as exc:
        raise ValueError("not a frozen ruleset") from exc
    if not (type(found) is tuple and len(found) == 5 and found[0] == FORMAT
            and all(type(f) is types.FunctionType for f in found[3:])):
        raise ValueError("not a frozen ruleset")
    _, thawed.name, thawed.consts, thawed._run, thawed.evaluate = found
    for namespace in unpickler.namespaces:
        floats = namespace.get(FLOATS)
        if type(floats) is dict:  # keyed by the identity of the constants: these ones
            floats.clear()
            floats.update(constant_floats(namespace))
        namespace.update(HELPERS)
    return thawed


class _Thawed(CompiledRuleset):
    """A CompiledRuleset restored by `thaw`: the plain evaluation at once, the rest (IR,
    traced form, generated text) from a full compile when first asked for."""

    def __init__(self, compile_full: Callable[[], CompiledRuleset], source: str | None) -> None:
        self._compile_full = compile_full
        self._full: CompiledRuleset | None = None
        self.source = source
        self._traced = None
        self._regexes: dict = {}

    def _whole(self) -> CompiledRuleset:
        if self._full is None:
            self._full = self._compile_full()  # a race compiles twice, harmlessly
        return self._full

    @property
    def ir(self):
        return self._whole().ir

    @property
    def _code(self):
        return self._whole()._code

    @property
    def generated_source(self) -> str:
        return self._whole().generated_source


def _function(code: bytes, namespace: dict, name: str, defaults, keywords, attributes: dict):
    function = types.FunctionType(marshal.loads(code), namespace, name, defaults)  # noqa: S302
    function.__kwdefaults__ = keywords
    function.__dict__.update(attributes)
    return function


def _converter(root: dict | None, plans: list) -> InputConverter:
    """An input converter with the plans it had, keyed by the identity of these schema parts."""
    converter = InputConverter(root)
    converter._plans.update((id(schema), plan) for schema, plan in plans)
    return converter


def _schema_parts(root: object) -> dict[int, object]:
    """id -> part for every dict in the schema `root` (and None, a schema too)."""
    found: dict[int, object] = {id(None): None}
    stack = [root]
    while stack:
        part = stack.pop()
        if isinstance(part, dict):
            if id(part) in found:
                continue
            found[id(part)] = part
            stack.extend(part.values())
        elif isinstance(part, list | tuple):
            stack.extend(part)
    return found


class _Pickler(pickle.Pickler):
    def __init__(self, file, compiled: CompiledRuleset) -> None:
        super().__init__(file, protocol=5)
        self._compiled = compiled
        self._namespaces: dict[int, dict] = {}

    def persistent_id(self, obj):
        key = _SHARED_IDS.get(id(obj))
        if key is not None and _SHARED[key] is obj:
            return key
        if obj is self._compiled._regexes:
            return ("regexes",)
        if type(obj) is types.MethodType and obj.__self__ is self._compiled:
            return ("general",)
        return None

    def reducer_override(self, obj):
        kind = type(obj)
        if kind is types.FunctionType and obj.__code__.co_filename in GENERATED:
            code = obj.__code__
            if obj.__closure__:
                raise pickle.PicklingError(f"a generated closure: {obj.__qualname__}")
            held = obj.__globals__
            kept = self._namespaces.get(id(held))
            if kept is None:
                kept = self._namespaces[id(held)] = {
                    key: value for key, value in held.items() if key not in _NOT_KEPT}
            attributes = {key: value for key, value in obj.__dict__.items() if key != "source"}
            return (_function, (marshal.dumps(code), kept, obj.__name__, obj.__defaults__,
                                obj.__kwdefaults__, attributes))
        if kind is InputConverter:  # its plans are keyed by the identity of schema parts
            parts = _schema_parts(obj.root)
            return (_converter, (obj.root, [(parts[key], plan) for key, plan
                                            in obj._plans.items() if key in parts]))
        fields = node_fields(kind)
        if fields is not None:  # IR nodes by their fields, not dataclasses' slower state
            return (kind, tuple(getattr(obj, name) for name in fields))
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, thawed: _Thawed) -> None:
        super().__init__(file)
        self._thawed = thawed
        self.namespaces: list[dict] = []
        self._seen: set[int] = set()

    def persistent_load(self, pid):
        if type(pid) is not tuple:
            raise pickle.UnpicklingError("unknown reference")
        if pid in _SHARED:
            return _SHARED[pid]
        if pid == ("regexes",):
            return self._thawed._regexes
        if pid == ("general",):
            return self._thawed._evaluate
        raise pickle.UnpicklingError("unknown reference")

    def find_class(self, module: str, name: str):
        if module == __name__ and name == "_function":
            return self._function
        if module == "builtins" and name in _BUILTINS:
            return super().find_class(module, name)
        if module in _MODULES or module.startswith(("insureops.engine.", "insureops.schema.")):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a compiled ruleset")

    def _function(self, code, namespace, name, defaults, keywords, attributes):
        if id(namespace) not in self._seen:
            self._seen.add(id(namespace))
            self.namespaces.append(namespace)
        return _function(code, namespace, name, defaults, keywords, attributes)

