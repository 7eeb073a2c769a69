"""The 13 enumerations of data model 2.2.0: name -> allowed values, in the specification's order."""

from __future__ import annotations

from types import MappingProxyType

ENUMS: MappingProxyType[str, tuple[str, ...]] = MappingProxyType({
    "lob": ("property", "auto", "liability", "workers_comp", "travel", "life", "health", "marine",
            "cyber", "other"),
    "claim_status": ("open", "pending_info", "under_review", "approved", "denied", "litigated",
                     "closed"),
    "claim_type": ("first_party", "third_party", "liability", "workers_comp", "health",
                   "property_auto", "other"),
    "cause_of_loss": ("fire", "water", "collision", "theft", "wind", "liability", "hail", "flood",
                      "earthquake", "hurricane", "vandalism", "cyber", "other"),
    "priority": ("low", "normal", "high"),
    "payment_type": ("indemnity", "expense"),
    "payment_method": ("check", "eft", "ach", "wire", "card", "other"),
    "recovery_type": ("subrogation", "salvage", "contribution", "other"),
    "policy_status": ("quote", "bound", "active", "expired", "cancelled", "declined", "pending",
                      "unpaid", "completed"),
    "endorsement_action": ("add", "remove", "modify", "correct", "cancel", "reinstate"),
    "billing_status": ("draft", "invoiced", "part_paid", "paid", "void", "refunded", "chargeback"),
    "receivable_type": ("premium", "fee", "tax", "installment", "endorsement_delta"),
    "party_role": ("insured", "additional_insured", "loss_payee", "mortgagee", "broker", "producer",
                   "beneficiary", "dependent", "claimant", "witness", "attorney", "vendor"),
})


def enum_values(name: str) -> tuple[str, ...]:
    """The allowed values of enumeration `name` (KeyError when there is no such enumeration)."""
    return ENUMS[name]
