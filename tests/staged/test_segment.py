"""Segmentation of answers (stage 1): how an answer is cut into sentences and claims, and what
each claim is said of.

Its sections cover sentences, clauses, framing and what does not end a sentence; which full
stops end a sentence by the kind of token before them; relative clauses said of the subject
just before them; and coordinated subjects read as a claim about each.

Its tables: ``SPLITS`` (answers and the sentences and clauses they are cut into),
``SENTENCE_COUNTS`` (answers and how many sentences they hold), and ``ENDINGS`` and ``INNER``
(the kinds of token that end a sentence, and the dots that end nothing).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.segment import (
    claim_sentences,
    clause_spans,
    is_framing,
    segment,
    sentence_spans,
)

# ================================================================================================
# Stage 1: sentences, clauses, framing, and what does not end a sentence.
# ================================================================================================

def texts(answer: str) -> list[str]:
    return [span.text for span in segment(answer)]


# (answer, the texts segment cuts it into)
SPLITS = [
    # sentences split at full stops before capitals, and where they are glued
    pytest.param("CPU rose to 97%. Memory stayed flat.",
                 ["CPU rose to 97%.", "Memory stayed flat."], id="full-stop-before-a-capital"),
    pytest.param("He co-founded the band.Jimmie joined in 1990.",
                 ["He co-founded the band.", "Jimmie joined in 1990."], id="glued-sentences"),
    # abbreviations, initials, decimals, versions and IPs do not end sentences
    pytest.param("Dr. J. Smith deployed v1.2.3 to 10.0.0.1 at 41.2% load, e.g. on Mon. "
                 "Then it held.",
                 ["Dr. J. Smith deployed v1.2.3 to 10.0.0.1 at 41.2% load, e.g. on Mon.",
                  "Then it held."], id="abbreviations-initials-decimals-versions-ips"),
    # clauses split where each side is a fact; a list of nouns is one claim
    pytest.param("CPU on db-1 reached 97% and request rate dropped to 12 RPS.",
                 ["CPU on db-1 reached 97%", "request rate dropped to 12 RPS."],
                 id="clauses-each-a-fact"),
    pytest.param("The team included Alice and Bob.", ["The team included Alice and Bob."],
                 id="a-list-of-nouns"),
    # the reported sentences split: a time with a zone ends the first
    pytest.param("The pod was evicted at 14:02:01Z. At 14:01:30 the pod restarted.",
                 ["The pod was evicted at 14:02:01Z.", "At 14:01:30 the pod restarted."],
                 id="reported-evicted-then-restarted"),
]


@pytest.mark.parametrize(("answer", "expected"), SPLITS)
def test_an_answer_is_cut_into_its_sentences_and_clauses(answer: str,
                                                         expected: list[str]) -> None:
    assert texts(answer) == expected


def test_conclusion_clause_keeps_its_marker() -> None:
    assert texts("The push landed at 10:14, so the root cause is the push.")[1].startswith("so ")


def test_framing_sentence_is_no_claim_but_leads_the_next() -> None:
    answer = "Here is what I found:\n- CPU rose to 97%."
    spans = segment(answer)
    assert [s.text for s in spans] == ["CPU rose to 97%."]
    assert answer[spans[0].lead_start:spans[0].end] == answer
    assert is_framing("Here is what I found:")
    assert not is_framing("CPU rose to 97% at 14:02:")


def test_inline_framing_before_a_colon() -> None:
    spans = segment("Here is what I found: CPU rose to 97%.")
    assert [s.text for s in spans] == ["CPU rose to 97%."]
    assert spans[0].lead_start == 0


def test_clause_spans_without_joiner_is_the_sentence() -> None:
    assert clause_spans("CPU rose.", 0, 9) == [(0, 9)]


@given(st.text(alphabet="Ab1. \n,-:%", max_size=80))
def test_spans_point_into_the_answer(answer: str) -> None:
    for span in segment(answer):
        assert answer[span.start:span.end] == span.text
        assert 0 <= span.lead_start <= span.start < span.end <= len(answer)


def test_claim_sentences_count_sentences_not_clauses() -> None:
    one = "CPU on db-1 reached 97%, memory held at 60% and request rate dropped to 12 RPS."
    assert len(segment(one)) >= 2
    assert claim_sentences(one, segment(one)) == 1
    two = "CPU rose to 97%. Memory stayed flat."
    assert claim_sentences(two, segment(two)) == 2
    framed = "Here is what I found:\n- CPU rose to 97% and memory stayed flat."
    assert claim_sentences(framed, segment(framed)) == 1  # the framing line holds no claim
    assert claim_sentences("", segment("")) == 0


@given(st.lists(st.sampled_from(["CPU rose to 97%", "memory held at 60%", "the rate fell to 12 RPS",
                                 "db-1 restarted at 10:14"]), min_size=1, max_size=4),
       st.integers(min_value=1, max_value=4))
def test_claim_sentences_equal_the_sentences_written(clauses: list[str], sentences: int) -> None:
    # each sentence joins its clauses with "and": splitting clauses never adds a sentence
    body = " and ".join(clauses)
    answer = " ".join(body[0].upper() + body[1:] + "." for _ in range(sentences))
    assert claim_sentences(answer, segment(answer)) == sentences


# ================================================================================================
# Stage 1: which full stops end a sentence, by the kind of token before them.
#
# Every kind of token that can end a sentence (times with a zone, durations, percentages,
# numbers, units, versions, addresses, ids, host and file names, acronyms) ends it before ". ";
# abbreviations, initials and the dots inside decimals, versions, addresses and names never do.
# Each kind is covered on every run: the tests are parametrized over the kinds, and the mixed
# tests carry an explicit example per kind.
# ================================================================================================

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


# (answer, how many sentences sentence_spans finds in it)
SENTENCE_COUNTS = [
    # bullets and lines are sentences
    pytest.param("- a fact here\n* another fact\n1. third fact", 3, id="bullets-and-lines"),
    # the reported answer: every kind of token before its full stops ends a sentence
    pytest.param("The p99 latency was 250 ms. Errors rose. CPU reached 97%. CPU fell. It began at "
                 "09:13 UTC. Then we shipped version v2.3.1. The rollout stalled on host "
                 "api-prod-3. It was dep-5521. The deploy failed.", 9, id="reported-nine"),
    # a unit after a number ends where the abbreviation would not
    pytest.param("It took 250 ms. The rest was fine.", 2, id="a-unit-ends-it"),
    pytest.param("Ms. Lee was right.", 1, id="a-title-does-not"),
    pytest.param("It was 5 vs. 6 at the end.", 1, id="vs-does-not"),
    pytest.param("It failed on 14 Mar. The fix came later.", 2, id="a-month-after-a-day-ends-it"),
]


@pytest.mark.parametrize(("answer", "count"), SENTENCE_COUNTS)
def test_an_answer_has_this_many_sentences(answer: str, count: int) -> None:
    assert len(sentence_spans(answer)) == count, answer


def test_abbreviations_initials_and_dotted_names_keep_one_sentence() -> None:
    answer = ("Dr. J. Smith of the U.S. team saw approx. 97.2 vs. 96.1, e.g. on "
              "ip-10-0-3-17.ec2.internal, i.e. In config.yaml at 10.0.0.1 with v2.3.1 on 14 Mar. "
              "2026.")
    assert sentence_spans(answer) == [(0, len(answer))]


# ================================================================================================
# A relative clause is said of the subject just before it: "..., but cart-worker, which was
# at 26.4%, had p99 604ms" is read against cart-worker's row, never another's.
# ================================================================================================

judge = StagedJudge()
SERVICES = ["search-api", "cart-worker", "payments-api", "orders-worker"]


@settings(max_examples=60)
@given(p99=st.lists(st.integers(100, 3000), min_size=2, max_size=2, unique=True),
       errors=st.lists(st.integers(1, 300), min_size=2, max_size=2, unique=True),
       pair=st.sampled_from([(0, 1), (1, 0), (2, 3), (3, 2)]), own=st.booleans())
def test_a_relative_clause_is_said_of_its_antecedent(p99: list[int], errors: list[int],
                                                     pair: tuple[int, int], own: bool) -> None:
    first, second = SERVICES[pair[0]], SERVICES[pair[1]]
    items = [f"service={first} p99_ms={p99[0]} error_rate_pct={errors[0] / 10}",
             f"service={second} p99_ms={p99[1]} error_rate_pct={errors[1] / 10}"]
    said = p99[1] if own else p99[0]
    claim = (f"{first} was at {errors[0] / 10}% errors, but {second}, which was at "
             f"{errors[1] / 10}%, had p99 {said}ms.")
    verdicts = judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    grounded = all(v.bucket == "grounded" for v in verdicts)
    assert grounded == own, (claim, [(v.text, v.bucket, v.reason) for v in verdicts])


# ================================================================================================
# A claim about several subjects at once is the claim about each: a value or category that
# holds of one listed subject and not of another is never grounded, whatever the list's form.
# ================================================================================================

FORMS = ("{a} and {b}", "{a}, {b}", "{a}, and {b}", "{a} & {b}", "Both {a} and {b}")


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


def listed(hosts: list[str], form: str) -> str:
    head = ", ".join(hosts[:-1]) if "," in form else " and ".join(hosts[:-1])
    return form.format(a=head, b=hosts[-1])


@settings(max_examples=80)
@given(count=st.integers(2, 4), form=st.sampled_from(FORMS), cpu=st.integers(50, 99),
       odd=st.integers(0, 3), other=st.integers(1, 45), shuffle=st.randoms(use_true_random=False))
def test_a_value_said_of_a_list_holds_of_each_subject(count: int, form: str, cpu: int, odd: int,
                                                      other: int, shuffle) -> None:
    hosts = [f"api-{n}" for n in range(1, count + 1)]
    rows = [f"host={h} cpu_pct={cpu}" for h in hosts]
    claim = f"{listed(hosts, form)} had {cpu}% CPU."
    shuffle.shuffle(rows)
    assert bucket(claim, rows) == "grounded", (claim, rows)
    # one of them at another value: the claim is not of every subject it lists
    wrong = [r.replace(f"={cpu}", f"={cpu - other}") if r.startswith(f"host={hosts[odd % count]} ")
             else r for r in rows]
    assert bucket(claim, wrong) == "contradicted", (claim, wrong)
    # and a subject found nowhere is not carried by the others
    assert bucket(claim, [r for r in rows if not r.startswith(f"host={hosts[odd % count]} ")]) \
        != "grounded"


@settings(max_examples=60)
@given(count=st.integers(2, 4), form=st.sampled_from(FORMS), odd=st.integers(0, 3),
       outcome=st.sampled_from([("succeeded", "failed"), ("failed", "succeeded"),
                                ("rolled back", "succeeded")]))
def test_a_category_said_of_a_list_holds_of_each_subject(
        count: int, form: str, odd: int, outcome: tuple[str, str]) -> None:
    said, other = outcome
    deploys = [f"dep-{n}{n}" for n in range(1, count + 1)]
    status = said.replace(" ", "_")
    records = [f'{{"deploy_id": "{d}", "status": "{status}"}}' for d in deploys]
    claim = f"Deploys {listed(deploys, form)} {said}."
    assert bucket(claim, records) == "grounded", (claim, records)
    records[odd % count] = f'{{"deploy_id": "{deploys[odd % count]}", "status": "{other}"}}'
    assert bucket(claim, records) == "contradicted", (claim, records)


def test_a_relation_of_the_subjects_is_not_said_of_each() -> None:
    rows = EvidenceSet.coerce(["host=api-1 cpu_pct=60", "host=api-2 cpu_pct=35"])
    for claim in ("CPU was split between api-1 and api-2.",
                  "api-1 and api-2 had a combined CPU of 95%.",
                  "api-1 and api-2 had 60% and 35% CPU respectively."):
        checks = [c for v in judge.explain(synthesis=claim, evidence=rows) for c in v.checks]
        assert not [c for c in checks if c.reason.startswith("of api-")], claim
