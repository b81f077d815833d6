"""`gsar bench` matches each labelled claim to its best judged claim, not its worst neighbour."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gsar_otel.measure.claims import match_claims

BUCKETS = st.sampled_from(["grounded", "ungrounded", "contradicted", "complementary"])
WORD = st.text(alphabet="abcdefghijklmnop", min_size=3, max_size=8)


@given(claim=st.lists(WORD, min_size=4, max_size=10, unique=True),
       extra=st.lists(WORD, min_size=1, max_size=6, unique=True),
       bucket=BUCKETS, neighbour_bucket=BUCKETS, neighbour_first=st.booleans())
def test_a_claim_judged_verbatim_keeps_its_bucket_whatever_its_neighbour(
        claim: list[str], extra: list[str], bucket: str, neighbour_bucket: str,
        neighbour_first: bool) -> None:
    # The neighbour shares half the labelled claim's words plus words of its own, so it
    # overlaps less than the verbatim judged claim: it must not decide the match.
    extra = [w for w in extra if w not in claim] or ["zzzz"]
    text = " ".join(claim)
    neighbour = " ".join(claim[: (len(claim) + 1) // 2] + extra + ["qqqq", "rrrr", "ssss"])
    own = (text, bucket)
    other = (neighbour, neighbour_bucket)
    predicted = [other, own] if neighbour_first else [own, other]
    assert match_claims([text], predicted) == [bucket]


@given(first=BUCKETS, second=BUCKETS)
def test_equal_overlaps_go_to_the_earlier_judged_claim(first: str, second: str) -> None:
    labelled = "CPU on db-prod-1 reached 97% and request rate held steady at 4500 RPS."
    predicted = [("CPU on db-prod-1 reached 97%", first),
                 ("request rate held steady at 4500 RPS", second)]
    assert match_claims([labelled], predicted) == [first]


def test_a_claim_no_judged_claim_overlaps_by_half_is_unmatched() -> None:
    assert match_claims(["The database restarted twice."],
                        [("an unrelated remark about lunch", "ungrounded")]) == [None]
