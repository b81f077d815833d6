"""Words written joined and lines of well-known protocols:

- a hyphenated word of a claim is held by a record holding all its parts, written apart or
  joined in a CamelCase value ("crash-looping" by ``CrashLoopBackOff``, "round-trip" by
  "round trip"), never by a record holding only some of them;
- an HTTP response's status line (``HTTP/2 503``, ``HTTP/1.1 404 Not Found``) is the
  response's protocol, status and reason: "returned HTTP 503" is grounded, another status is
  contradicted."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
SAFE = "bcdfghjklmnpqrstvwxz2456789"


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


JOINED = [("crash-looping", "CrashLoopBackOff", "ImagePullBackOff"),
          ("out-of-memory", "OutOfMemory", "OutOfDisk"),
          ("image-pull", "ImagePullBackOff", "CrashLoopBackOff")]


@settings(max_examples=40, deadline=None)
@given(case=st.sampled_from(JOINED), suffix=st.text(SAFE, min_size=5, max_size=5),
       restarts=st.integers(0, 40))
def test_a_hyphenated_word_is_held_by_all_its_parts(case: tuple[str, str, str], suffix: str,
                                                     restarts: int) -> None:
    said, held, other = case
    pod = f"payments-worker-{suffix}"
    listing = ("NAME                          READY   STATUS             RESTARTS   AGE\n"
               f"{pod}        0/1     {held:<18} {restarts:<10} 41m")
    assert bucket(f"{pod} is {said}.", [listing]) == "grounded", listing
    elsewhere = listing.replace(held, other)
    assert bucket(f"{pod} is {said}.", [elsewhere]) != "grounded", elsewhere


STATUSES = [(200, "OK"), (301, "Moved Permanently"), (404, "Not Found"), (429, ""),
            (502, "Bad Gateway"), (503, "")]


@settings(max_examples=40, deadline=None)
@given(status=st.sampled_from(STATUSES), other=st.integers(1, 5),
       protocol=st.sampled_from(["HTTP/2", "HTTP/1.1", "HTTP/1.0"]))
def test_a_status_line_is_the_responses_status(status: tuple[int, str], other: int,
                                               protocol: str) -> None:
    code, reason = status
    wrong = STATUSES[(STATUSES.index(status) + other) % len(STATUSES)][0]
    response = (f"{protocol} {code}{' ' + reason if reason else ''}\n"
                "server: envoy\ncontent-type: text/plain\nretry-after: 30")
    assert bucket(f"The endpoint returned HTTP {code}.", [response]) == "grounded", response
    assert bucket(f"The endpoint returned HTTP {wrong}.", [response]) == "contradicted", response
