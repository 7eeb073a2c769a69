"""Rule reachability warnings: contradictory conditions (W200) and rules shadowed by a `stop` (W201).

Sound but incomplete on purpose. A condition is read as a conjunction (`a and b and ...`);
conjuncts that compare one subject expression with literals (`x > 10`, `x in {"A"}`,
`x between 1 and 5`, `x is null`) give the subject a Domain, and an empty Domain means the rule
can never fire. A rule S is shadowed by an earlier-running enabled rule R with `stop` when every
conjunct of R is either also a conjunct of S or is implied by S's domain for its subject (so S
true implies R true), R's effective window covers S's, and R reads no `outputs` (which change
between R and S).
"""

from __future__ import annotations

from insureops.dsl import domains as dm
from insureops.dsl.diagnostics import Diagnostic, warning
from insureops.engine import ir
from insureops.engine.ir.printer import format_expr
from insureops.engine.ir.tree import conjuncts

_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def check_reachability(ruleset: ir.Ruleset, consts: dict[str, object],
                       diagnostics: list[Diagnostic]) -> None:
    """Append W200 and W201 warnings for the rules of `ruleset`."""
    order = sorted(enumerate(ruleset.items), key=lambda pair: (-pair[1].priority, pair[0]))
    earlier_stops: list[ir.Rule] = []
    for _, item in order:
        if not isinstance(item, ir.Rule) or not item.enabled:
            continue
        conjuncts = split_and(item.condition)
        subjects = _subject_domains(conjuncts, consts)
        contradiction = _contradiction(conjuncts, subjects, consts)
        if contradiction is not None:
            diagnostics.append(warning(
                "W200", item.name_span or item.span,
                f"rule `{item.name}` can never fire: {contradiction}",
                "check the comparison operators and the literals in its condition"))
            continue
        shadow = next((rule for rule in earlier_stops
                       if _implies(conjuncts, subjects, rule, consts) and _covers(rule, item)),
                      None)
        if shadow is not None:
            diagnostics.append(warning(
                "W201", item.name_span or item.span,
                f"rule `{item.name}` never fires: rule `{shadow.name}` runs before it and "
                f"stops the evaluation whenever its condition holds",
                f"give `{item.name}` a higher priority than `{shadow.name}`, or narrow "
                f"`{shadow.name}`"))
        if any(isinstance(action, ir.StopAction) for action in item.actions) and not _reads_outputs(
                item.condition):
            earlier_stops.append(item)


def split_and(expr: ir.Expr) -> list[ir.Expr]:
    """The conjuncts of `a and b and c` (the engine's one definition, `ir/tree.py`)."""
    return conjuncts(expr)


def atom(expr: ir.Expr, consts: dict[str, object]) -> tuple[ir.Expr, dm.Domain] | None:
    """(subject, domain) when `expr` compares one subject with literals, else None."""
    if isinstance(expr, ir.IsNull):
        return expr.value, dm.Domain(cofinite=True) if expr.negated else dm.NULL_ONLY
    if isinstance(expr, ir.Between):
        low, high = dm.literal_value(expr.low, consts), dm.literal_value(expr.high, consts)
        domain = dm.between(low, high) if dm.is_known(low) and dm.is_known(high) else None
        return (expr.value, domain) if domain is not None and _is_subject(expr.value, consts) \
            else None
    if not isinstance(expr, ir.Binary) or expr.op not in (*_FLIPPED, "in", "not in"):
        return None
    subject, other, op = expr.left, expr.right, expr.op
    value = dm.literal_value(other, consts)
    if not dm.is_known(value) and op in _FLIPPED:
        subject, other, op = expr.right, expr.left, _FLIPPED[op]
        value = dm.literal_value(other, consts)
    if not dm.is_known(value) or not _is_subject(subject, consts):
        return None
    domain = dm.compare(op, value)
    return (subject, domain) if domain is not None else None


def _is_subject(expr: ir.Expr, consts: dict[str, object]) -> bool:
    return not dm.is_known(dm.literal_value(expr, consts))


def _subject_domains(conjuncts: list[ir.Expr], consts: dict[str, object]
                     ) -> dict[ir.Expr, dm.Domain | None]:
    subjects: dict[ir.Expr, dm.Domain | None] = {}
    for conjunct in conjuncts:
        found = atom(conjunct, consts)
        if found is None:
            continue
        subject, domain = found
        if subject in subjects:
            current = subjects[subject]
            subjects[subject] = current.intersect(domain) if current is not None else None
        else:
            subjects[subject] = domain
    return subjects


def _contradiction(conjuncts: list[ir.Expr], subjects: dict[ir.Expr, dm.Domain | None],
                   consts: dict[str, object]) -> str | None:
    for conjunct in conjuncts:
        if isinstance(conjunct, ir.Literal) and conjunct.value in (False, None):
            return f"its condition contains `{format_expr(conjunct)}`"
    for subject, domain in subjects.items():
        if domain is not None and domain.is_empty():
            parts = [c for c in conjuncts if (found := atom(c, consts)) and found[0] == subject]
            shown = " and ".join(f"`{format_expr(p)}`" for p in parts)
            return f"{shown} cannot all be true"
    return None


def _implies(conjuncts: list[ir.Expr], subjects: dict[ir.Expr, dm.Domain | None],
             earlier: ir.Rule, consts: dict[str, object]) -> bool:
    for needed in split_and(earlier.condition):
        if needed in conjuncts or (isinstance(needed, ir.Literal) and needed.value is True):
            continue
        found = atom(needed, consts)
        if found is None:
            return False
        subject, domain = found
        known = subjects.get(subject)
        if known is None or not known.within(domain):
            return False
    return True


def _covers(earlier: ir.Rule, later: ir.Rule) -> bool:
    if earlier.effective is None:
        return True
    if later.effective is None:
        return False
    return (earlier.effective.start <= later.effective.start
            and later.effective.end <= earlier.effective.end)


def _reads_outputs(expr: object) -> bool:
    if isinstance(expr, ir.Name):
        return expr.name == "outputs"
    if isinstance(expr, tuple):
        return any(_reads_outputs(item) for item in expr)
    if hasattr(expr, "__dataclass_fields__"):
        return any(_reads_outputs(getattr(expr, name)) for name in expr.__dataclass_fields__
                   if name != "span")
    return False
