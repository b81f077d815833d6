"""A value is read as what its record says it measures:

- a Prometheus series' sample is of the metric its ``__name__`` label names, so a ratio
  (``http_requests_error_ratio`` 0.2314) is a share a claim may state as 23.14%, and a
  ``..._seconds`` series a duration a claim may state in milliseconds; another series' value
  is never the named instance's;
- statistics written as slash-joined keys (ping's ``rtt min/avg/max/mdev = ...``) are named
  in words ("the average round-trip time", "the maximum", "the mean"), and one statistic's
  value is never another's.

Restating the value in another unit is grounded; swapping it for another record's or another
statistic's is not."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


RATIOS = [("http_requests_error_ratio", "error ratio"), ("cache_hit_ratio", "cache hit ratio"),
          ("disk_used_fraction", "disk used fraction")]


def series(metric: str, samples: list[tuple[str, str]], ranged: bool) -> str:
    """A Prometheus query response: one series per (instance, value), as an instant vector or
    as a range (a matrix whose one sample carries the value)."""
    at = 1718028180.123
    return json.dumps({"status": "success", "data": {
        "resultType": "matrix" if ranged else "vector", "result": [
            {"metric": {"__name__": metric, "instance": f"{ip}:9100"},
             **({"values": [[at, value]]} if ranged else {"value": [at, value]})}
            for ip, value in samples]}})


@settings(max_examples=40, deadline=None)
@given(hosts=st.lists(st.integers(2, 250), min_size=2, max_size=4, unique=True),
       shares=st.lists(st.integers(1, 9999), min_size=4, max_size=4, unique=True),
       metric=st.sampled_from(RATIOS), pick=st.integers(0, 3), other=st.integers(1, 3),
       ranged=st.booleans())
def test_a_ratio_series_is_a_share_of_its_own_instance(
        hosts: list[int], shares: list[int], metric: tuple[str, str], pick: int, other: int,
        ranged: bool) -> None:
    samples = [(f"10.0.4.{h}", f"0.{shares[at]:04d}") for at, h in enumerate(hosts)]
    text = series(metric[0], samples, ranged)
    at = pick % len(samples)
    ip, own = samples[at]
    _, theirs = samples[(at + 1 + other % (len(samples) - 1)) % len(samples)]

    def percent(value: str) -> str:
        return f"{float(value) * 100:.2f}%"

    words = metric[1]
    assert bucket(f"Instance {ip}:9100 has a {percent(own)} {words}.", [text]) == "grounded"
    assert bucket(f"Instance {ip}:9100 has a {words} of {own}.", [text]) == "grounded"
    assert bucket(f"Instance {ip}:9100 has a {percent(theirs)} {words}.", [text]) != "grounded"


@settings(max_examples=40, deadline=None)
@given(hosts=st.lists(st.integers(2, 250), min_size=2, max_size=3, unique=True),
       millis=st.lists(st.integers(1, 9999), min_size=3, max_size=3, unique=True),
       pick=st.integers(0, 2))
def test_a_seconds_series_is_a_duration(hosts: list[int], millis: list[int],
                                        pick: int) -> None:
    samples = [(f"10.0.4.{h}", f"{millis[at] / 1000:.3f}") for at, h in enumerate(hosts)]
    text = series("http_request_duration_seconds", samples, ranged=False)
    at = pick % len(samples)
    ip, _ = samples[at]
    theirs = millis[(at + 1) % len(samples)]
    assert bucket(f"The request duration of {ip}:9100 was {millis[at]} ms.", [text]) \
        == "grounded"
    assert bucket(f"The request duration of {ip}:9100 was {theirs} ms.", [text]) != "grounded"


STATISTICS = {"min": ("minimum", "lowest"), "avg": ("average", "mean"),
              "max": ("maximum", "highest")}
"""A statistic's key as tools print it, and words a claim names it by."""


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(1, 99999), min_size=4, max_size=4, unique=True),
       stat=st.sampled_from(sorted(STATISTICS)), word=st.integers(0, 1),
       other=st.integers(1, 3), unit=st.sampled_from(["ms", "s"]))
def test_a_statistic_named_in_words_is_its_own_column(
        values: list[int], stat: str, word: int, other: int, unit: str) -> None:
    numbers = [f"{v / 1000:.3f}" for v in values]
    text = ("--- db-primary.internal ping statistics ---\n"
            "20 packets transmitted, 20 received, 0% packet loss, time 19027ms\n"
            f"rtt min/avg/max/mdev = {'/'.join(numbers)} {unit}")
    keys = ["min", "avg", "max", "mdev"]
    own = numbers[keys.index(stat)]
    theirs = numbers[(keys.index(stat) + other) % len(keys)]
    said = STATISTICS[stat][word]
    assert bucket(f"The {said} round-trip time was {own} {unit}.", [text]) == "grounded", text
    assert bucket(f"The {said} round-trip time was {theirs} {unit}.", [text]) != "grounded", \
        text


@settings(max_examples=40, deadline=None)
@given(hosts=st.lists(st.sampled_from(["db-primary.internal", "10.0.3.17", "cache-2",
                                       "api.example.com"]), min_size=2, max_size=2, unique=True),
       losses=st.lists(st.integers(0, 100), min_size=2, max_size=2, unique=True))
def test_pings_summary_is_of_the_host_its_head_names(hosts: list[str],
                                                       losses: list[int]) -> None:
    """``--- db-1 ping statistics ---`` heads the counts of db-1: "packet loss to db-1 was 0%"
    reads them; another host's figure is not db-1's."""
    blocks = [f"--- {host} ping statistics ---\n"
              f"20 packets transmitted, {20 - loss // 5} received, {loss}% packet loss, "
              f"time 19027ms\nrtt min/avg/max/mdev = 0.412/0.538/1.907/0.322 ms"
              for host, loss in zip(hosts, losses, strict=True)]
    own, other = hosts
    assert bucket(f"Packet loss to {own} was {losses[0]}%.", blocks) == "grounded", blocks
    assert bucket(f"Packet loss to {own} was {losses[1]}%.", blocks) != "grounded", blocks
    assert bucket(f"Packet loss to {other} was {losses[1]}%.", blocks) == "grounded", blocks
