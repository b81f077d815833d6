"""Stage 1: which full stops end a sentence, by the kind of token before them.

Every kind of token that can end a sentence (times with a zone, durations, percentages,
numbers, units, versions, addresses, ids, host and file names, acronyms) ends it before ". ";
abbreviations, initials and the dots inside decimals, versions, addresses and names never do.
Each kind is covered on every run: the tests are parametrized over the kinds, and the mixed
tests carry an explicit example per kind.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gsar_otel.judges.staged.segment import segment, sentence_spans

_ints = st.integers


def _clock(seconds: bool) -> st.SearchStrategy[str]:
    return st.builds(lambda h, m, s: f"{h:02d}:{m:02d}" + (f":{s:02d}" if seconds else ""),
                     _ints(0, 23), _ints(0, 59), _ints(0, 59))


def _formats(*forms: str) -> Callable[[st.SearchStrategy[str]], st.SearchStrategy[str]]:
    return lambda values: st.builds(str.format, st.sampled_from(forms), values)


_hash = st.text(alphabet="bcdfghjklmnpqrstvwxz2456789", min_size=5, max_size=10)
_word = st.sampled_from(["api", "checkout", "db", "cache", "edge", "web", "auth", "payments"])

ENDINGS: dict[str, st.SearchStrategy[str]] = {
    "time_z": _formats("{}Z", "{} Z")(_clock(True)),
    "time_utc": _formats("{} UTC", "{} GMT", "{} EST", "{} PDT", "{}+02:00")(_clock(False)),
    "timestamp": st.builds(lambda d, c: f"2026-03-{d:02d}T{c}Z", _ints(1, 28), _clock(True)),
    "duration_ms": _formats("{} ms", "{}ms", "{} msec")(st.builds(str, _ints(1, 99999))),
    "duration_s": _formats("{} s", "{}s", "{} sec", "{} seconds", "{} min", "{}m", "{}h")(
        st.builds(str, _ints(1, 999))),
    "duration_compound": st.builds(lambda m, s: f"{m}m{s}s", _ints(1, 59), _ints(0, 59)),
    "percent": _formats("{}%", "{} %", "{} percent", "{} pct")(
        st.builds(lambda w, f: f"{w}.{f}" if f else str(w), _ints(0, 100), _ints(0, 9))),
    "number": st.one_of(st.builds(str, _ints(0, 10**6)),
                        st.builds(lambda w, f: f"{w}.{f}", _ints(0, 999), _ints(0, 99)),
                        st.builds(lambda t: f"{t:,}", _ints(1000, 10**7))),
    "unit": _formats("{} GB", "{} MB", "{} RPS", "{} C", "{} pp", "{} b", "{} ft")(
        st.builds(str, _ints(1, 9999))),
    "version": st.builds(lambda a, b, c, s: f"v{a}.{b}.{c}{s}", _ints(0, 20), _ints(0, 40),
                         _ints(0, 99), st.sampled_from(["", "-rc1", "-beta2"])),
    "ip": st.builds(lambda a, b, c: f"10.{a}.{b}.{c}", _ints(0, 255), _ints(0, 255),
                    _ints(0, 255)),
    "id": st.one_of(
        st.builds(lambda p, n: f"{p}-{n}", st.sampled_from(["dep", "INC", "cfg", "req"]),
                  _ints(1, 99999)),
        st.text(alphabet="0123456789abcdef", min_size=7, max_size=12).filter(
            lambda h: any(c.isdigit() for c in h) and any(c.isalpha() for c in h))),
    "host": st.one_of(
        st.builds(lambda w, n: f"{w}-prod-{n}", _word, _ints(0, 99)),
        st.builds(lambda a, b, c, d: f"ip-{a}-{b}-{c}-{d}.ec2.internal", _ints(0, 255),
                  _ints(0, 255), _ints(0, 255), _ints(0, 255)),
        st.builds(lambda w, ns: f"{w}.{ns}.svc.cluster.local", _word,
                  st.sampled_from(["prod", "default", "kube-system"])),
        st.builds(lambda w, n: f"{w}-{n}.example.com", _word, _ints(0, 9)),
        st.builds(lambda w, h: f"{w}-{h}", _word, _hash)),
    "file": st.builds(lambda w, ext: f"{w}.{ext}", _word, st.sampled_from(["yaml", "json",
                                                                          "conf", "py"])),
    "acronym": st.sampled_from(["CPU", "OOM", "UTC", "DNS", "TLS", "NO", "ST"]),
}
"""A token of each kind that may end a sentence, as written."""

INNER: dict[str, st.SearchStrategy[str]] = {
    "abbreviation": st.sampled_from(["e.g. CPU", "i.e. The", "Dr. Smith", "U.S. Army",
                                     "approx. 97", "approx. The", "etc. Then", "Mr. Jones",
                                     "St. Louis", "Inc. Said", "a.m. The", "p.m. Then"]),
    "initial": st.builds(lambda a, name: f"{a}. {name}", st.sampled_from("ABCJKMZ"),
                         st.sampled_from(["Smith", "Doe", "Lee"])),
    "number_joiner": st.builds(lambda a, b, vs: f"{a} {vs}. {b}", _ints(0, 999), _ints(0, 999),
                               st.sampled_from(["vs", "v", "VS"])),
    "date": st.builds(lambda d, m, y: f"{d} {m}. {y}", _ints(1, 28),
                      st.sampled_from(["Jan", "Mar", "Sept", "Dec"]), _ints(1990, 2030)),
    "decimal": st.builds(lambda w, f: f"{w}.{f} Then", _ints(0, 999), _ints(0, 999)),
    "version": ENDINGS["version"].map(lambda v: f"{v} On"),
    "ip": ENDINGS["ip"].map(lambda ip: f"{ip} Then"),
    "dotted_host": st.one_of(ENDINGS["host"], ENDINGS["file"]).map(lambda h: f"{h} Then"),
}
"""Dots inside a sentence that end nothing, each followed by a capitalised word or a number."""

OPENERS = ["The pod restarted at", "Latency was", "CPU reached", "It ran on", "At 14:01:30 it hit",
           "We deployed", "12 pods reported", "(The node) saw", "\"Errors\" rose to",
           "Memory stayed at"]


def _sentences(openers: list[str], endings: list[str]) -> str:
    return ". ".join(f"{o} {e}" for o, e in zip(openers, endings, strict=True)) + "."


@pytest.mark.parametrize("kind", sorted(ENDINGS))
def test_each_kind_of_token_ends_a_sentence(kind: str) -> None:
    @given(st.lists(st.tuples(st.sampled_from(OPENERS), ENDINGS[kind]), min_size=1, max_size=5))
    def check(pairs: list[tuple[str, str]]) -> None:
        answer = _sentences([o for o, _ in pairs], [e for _, e in pairs])
        assert len(sentence_spans(answer)) == len(pairs), answer

    check()


@given(st.lists(st.tuples(st.sampled_from(OPENERS), st.one_of(*ENDINGS.values())), min_size=1,
                max_size=8))
@example([("The pod crashed at", "14:02:01Z"), ("At 14:01:30", "the pod restarted")])
@example([("Latency was", "250 ms"), ("Errors rose to", "97%"), ("CPU fell to", "12")])
@example([("It started at", "09:13 UTC"), ("Then it reached", "2026-03-14T09:13:42Z")])
@example([("We deployed version", "v2.3.1"), ("The rollout hit", "ip-10-0-3-17.ec2.internal")])
@example([("It failed on host", "api-prod-3"), ("The change was", "dep-5521"),
          ("It read", "config.yaml"), ("It went to", "10.0.0.1"), ("It lasted", "3m12s")])
@example([("It reached", "40 C"), ("It was at", "09:13 EST"), ("It hit", "CPU")])
def test_sentences_of_mixed_endings_are_counted(pairs: list[tuple[str, str]]) -> None:
    answer = _sentences([o for o, _ in pairs], [e for _, e in pairs])
    spans = sentence_spans(answer)
    assert len(spans) == len(pairs), answer
    assert [answer[s:e] for s, e in spans] == [f"{o} {e}." for o, e in pairs]


@pytest.mark.parametrize("kind", sorted(INNER))
def test_dots_inside_a_sentence_end_nothing(kind: str) -> None:
    @given(st.lists(st.tuples(st.sampled_from(OPENERS), INNER[kind], ENDINGS["number"]),
                    min_size=1, max_size=4))
    def check(parts: list[tuple[str, str, str]]) -> None:
        answer = _sentences([o for o, _, _ in parts], [f"{i} at {e}" for _, i, e in parts])
        assert len(sentence_spans(answer)) == len(parts), answer

    check()


def test_the_reported_sentences_split() -> None:
    assert [s.text for s in segment("The pod was evicted at 14:02:01Z. At 14:01:30 the pod "
                                    "restarted.")] == ["The pod was evicted at 14:02:01Z.",
                                                       "At 14:01:30 the pod restarted."]
    answer = ("The p99 latency was 250 ms. Errors rose. CPU reached 97%. CPU fell. It began at "
              "09:13 UTC. Then we shipped version v2.3.1. The rollout stalled on host api-prod-3. "
              "It was dep-5521. The deploy failed.")
    assert len(sentence_spans(answer)) == 9


def test_abbreviations_initials_and_dotted_names_keep_one_sentence() -> None:
    answer = ("Dr. J. Smith of the U.S. team saw approx. 97.2 vs. 96.1, e.g. on "
              "ip-10-0-3-17.ec2.internal, i.e. In config.yaml at 10.0.0.1 with v2.3.1 on 14 Mar. "
              "2026.")
    assert sentence_spans(answer) == [(0, len(answer))]


def test_a_unit_after_a_number_ends_where_the_abbreviation_would_not() -> None:
    assert len(sentence_spans("It took 250 ms. The rest was fine.")) == 2
    assert len(sentence_spans("Ms. Lee was right.")) == 1
    assert len(sentence_spans("It was 5 vs. 6 at the end.")) == 1
    assert len(sentence_spans("It failed on 14 Mar. The fix came later.")) == 2
