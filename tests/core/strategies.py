"""Hypothesis strategies for the GSAR core: claims, partitions, weight maps, rho."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st

from gsar_otel.core.model import Claim, EvidenceType, Partition

EVIDENCE_TYPES = list(EvidenceType)

PROPERTY_SETTINGS = settings(max_examples=200, deadline=None)
"""Enough examples to find boundary cases, few enough to keep the suite fast."""

unit_floats = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_infinity=False)
"""Any float in [0, 1], including 0, 1 and subnormals."""

coarse_unit = st.integers(min_value=0, max_value=100).map(lambda i: i / 100)
"""Floats in [0, 1] on a 0.01 grid: used where a property is strict and needs a visible margin."""

rhos = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), unit_floats)
coarse_rhos = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), coarse_unit)
"""Rho on a 0.01 grid, for strict properties (a rho of 1e-218 changes S by less than an ulp)."""

evidence_types = st.sampled_from(EVIDENCE_TYPES)

# Unknown type strings a judge might invent; they are kept and weighted as default_unknown.
UNKNOWN_TYPES = ["hunch", "vibes", "observation", "log_line"]
unknown_types = st.sampled_from(UNKNOWN_TYPES)


_CLAIM_POOL = {
    allow_unknown: [Claim(f"claim {i}", kind) for i in range(3)
                    for kind in [*EVIDENCE_TYPES, *(UNKNOWN_TYPES if allow_unknown else [])]]
    for allow_unknown in (True, False)
}


def claims(*, allow_unknown: bool = True) -> st.SearchStrategy[Claim]:
    """One claim of a random (mostly known, sometimes unknown) evidence type.

    Drawn from a prebuilt pool: the score depends on types only, and sampling is much cheaper
    than building a pydantic model per example.
    """
    return st.sampled_from(_CLAIM_POOL[allow_unknown])


def claim_lists(max_size: int = 4) -> st.SearchStrategy[list[Claim]]:
    return st.lists(claims(), max_size=max_size)


def partitions(*, min_claims: int = 0) -> st.SearchStrategy[Partition]:
    """Random claims of random types in the four buckets."""
    return st.builds(
        Partition,
        grounded=claim_lists(),
        ungrounded=claim_lists(),
        contradicted=claim_lists(),
        complementary=claim_lists(),
    ).filter(lambda p: p.total_claims >= min_claims)


def weight_maps(values: st.SearchStrategy[float] = unit_floats) -> st.SearchStrategy[
        dict[str, float] | None]:
    """None (the defaults) or a partial map of evidence type -> weight in [0, 1]."""
    return st.one_of(
        st.none(),
        st.dictionaries(st.sampled_from([t.value for t in EVIDENCE_TYPES]), values, max_size=8),
    )
