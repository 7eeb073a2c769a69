"""The check's cost grows with the ruleset, not with its square (issue 29: 500 constants and
500 misspelt references froze the service for 18.5 s; a comparison with every known name)."""

from __future__ import annotations

import difflib

from insureops.dsl import check_source, expressions


def _misspelt(count: int) -> str:
    consts = "\n".join(f"const LIMIT_NUMBER_{i} = {i}" for i in range(count))
    rules = "\n".join(f'rule r{i} "r"\nwhen LIMT_NUMBER_{i} > 0\nthen\n    refer "x"\nend\n'
                      for i in range(count))
    return f'ruleset many.names "x"\ninput c: Any\ndefault decision accept\n{consts}\n\n{rules}'


def test_each_hint_compares_a_bounded_shortlist_when_hundreds_of_names_are_misspelt(
        monkeypatch):
    compared: list[int] = []
    real = difflib.get_close_matches

    def counting(word, possibilities, *args, **kwargs):
        compared.append(len(possibilities))
        return real(word, possibilities, *args, **kwargs)
    monkeypatch.setattr(expressions.difflib, "get_close_matches", counting)
    report = check_source(_misspelt(500), filename="many.rules")
    unknown = [d for d in report.diagnostics if d.code == "E100"]
    assert len(unknown) == 500
    # every misspelling still gets its hint, each from at most SHORTLIST full comparisons
    assert all(d.hint == f"did you mean `LIMIT_NUMBER_{d.message.split('_')[-1][:-1]}`?"
               for d in unknown)
    assert len(compared) == 500 and max(compared) <= expressions.SHORTLIST


def test_hint_finds_the_close_name_when_it_is_one_of_thousands():
    names = [f"field_{i}" for i in range(5000)] + ["annual_revenue"]
    assert expressions.suggest("anual_revenue", names) == "did you mean `annual_revenue`?"
    assert expressions.suggest("zzzzzz", names) is None


def _unique_table(rows: list[str]) -> str:
    body = "\n".join(f"    | {row} |" for row in rows)
    return ('ruleset big.rates "x"\ninput business: Business\ndefault decision accept\n\n'
            "table rates hit unique\n    | business.employee_count | business.state | => factor |\n"
            f"{body}\nend\n")


def _overlap_errors(source: str) -> list:
    return [d for d in check_source(source, filename="t.rules").diagnostics
            if d.code in ("E301", "W301")]


def test_thousands_of_exclusive_rows_are_checked_without_comparing_every_pair(monkeypatch):
    from insureops.dsl import tablecheck
    compared = []
    real = tablecheck._provably_overlap

    def counting(a, b):
        compared.append(1)
        return real(a, b)
    monkeypatch.setattr(tablecheck, "_provably_overlap", counting)
    rows = [f"between {i * 10} and {i * 10 + 9} | - | {i}" for i in range(1500)]
    assert _overlap_errors(_unique_table(rows)) == []
    assert len(compared) < 1500  # all pairs would be 1.1 million


def test_overlaps_are_found_in_row_order_when_the_rows_are_many():
    rows = [f"between {i * 10} and {i * 10 + 9} | - | {i}" for i in range(1200)]
    rows[1000] = 'between 100 and 119 | "CA" | 9'  # meets rows 11 and 12
    found = _overlap_errors(_unique_table(rows))
    assert [d.message.split(" of ")[0] for d in found] == ["rows 11 and 1001",
                                                           "rows 12 and 1001"]


def test_the_overlap_check_stops_after_ten_overlaps_when_every_row_meets_every_other():
    rows = [f"- | in {{\"S{i}\", \"ALL\"}} | {i}" if i % 2 else f"- | not in {{\"X\"}} | {i}"
            for i in range(600)]
    found = _overlap_errors(_unique_table(rows))
    assert len([d for d in found if d.code == "E301"]) == 10


def test_the_overlap_check_warns_when_it_stops_at_its_bound_of_row_pairs():
    # every row shares "ALL" in the state column; the counts, the column that tells the rows
    # apart, cannot split them (the last row's `!= 5` is two intervals)
    rows = [f"between {i * 10} and {i * 10 + 9} | in {{\"S{i}\", \"ALL\"}} | {i}"
            for i in range(400)] + ['!= 5 | "S0" | 0']
    found = _overlap_errors(_unique_table(rows))
    warned = [d for d in found if d.code == "W301"]  # the last row's overlap comes first
    assert sorted(d.code for d in found) == ["E301", "W301"]
    assert "stopped after 50,000 pairs" in warned[0].message
