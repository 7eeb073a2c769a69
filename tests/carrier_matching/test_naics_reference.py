"""NAICS 2022 reference data (carrier_matching/naics_reference.py)."""

from __future__ import annotations

import json
from pathlib import Path

from insureops.carrier_matching import naics_reference

EVAL_SET = Path(__file__).with_name("classifier_eval.jsonl")


def test_reference_holds_the_1012_national_industries_when_loaded():
    industries = naics_reference.national_industries()
    assert len(industries) == 1012
    assert all(len(code) == 6 and code.isdigit() for code in industries)


def test_reference_has_2022_codes_when_the_2017_codes_were_replaced():
    # 2022 moved retail to 449-459, software publishers to 513210 and coal mining to 212114/5.
    assert naics_reference.title("455110") == "Department Stores"
    assert naics_reference.title("513210") == "Software Publishers"
    assert naics_reference.title("212115") == "Underground Coal Mining"
    for retired_2017_code in ["452210", "454110", "511210", "212111", "443142"]:
        assert not naics_reference.is_national_industry(retired_2017_code)


def test_hierarchy_runs_from_sector_to_code_when_the_code_is_known():
    rungs = naics_reference.hierarchy("238220")
    assert [(r.level, r.code) for r in rungs] == [
        ("sector", "23"), ("subsector", "238"), ("industry group", "2382"),
        ("industry", "23822"), ("national industry", "238220"),
    ]
    assert rungs[-1].title == "Plumbing, Heating, and Air-Conditioning Contractors"


def test_hierarchy_names_the_ranged_sector_when_the_code_is_in_manufacturing():
    rungs = naics_reference.hierarchy("312120")
    assert rungs[0] == naics_reference.NaicsLevel("sector", "31-33", "Manufacturing")
    assert naics_reference.sector_code("493110") == "48-49"
    assert naics_reference.title("44-45") == "Retail Trade"


def test_hierarchy_is_empty_when_the_code_is_unknown():
    assert naics_reference.hierarchy("999999") == ()
    assert naics_reference.hierarchy("abc") == ()
    assert naics_reference.title("999999") is None


def test_evaluation_set_expects_only_real_2022_codes_across_all_sectors_when_read():
    rows = [json.loads(line) for line in EVAL_SET.read_text().splitlines()]
    assert len(rows) >= 150
    codes = [code for row in rows for code in row["expected"]]
    assert all(naics_reference.is_national_industry(code) for code in codes)
    sectors = {naics_reference.sector_code(row["expected"][0]) for row in rows}
    assert len(sectors) == 20
    splits = [row["split"] for row in rows]
    assert splits == ["held-out" if n % 3 == 0 else "tuning" for n in range(1, len(rows) + 1)]
    assert {row.get("written", "before-index") for row in rows} == {"before-index", "after-index"}
