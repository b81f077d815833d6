"""Counts, aggregates, quantifiers, scope and differences: what a claim says of several records
at once is read off all of them, never off one record that agrees.

Its sections cover totals, counts, "only X" and first/last lines; "all" and "no" read against
every record of a kind; claims of scope ("only", "always", "the busiest"); and differences
between two rows or two samples of one subject.

Its table ``GAPS`` holds claims of a gap between two rows, with the bucket each must get.
"""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision
from gsar_otel.judges.staged import StagedJudge

# ================================================================================================
# What a claim says of several records or lines at once is read off all of them: a total is
# their sum, a count of lines their number, "only X" excludes every other record, the first and
# the last are the earliest and the latest line. One record or line agreeing is never the claim.
# ================================================================================================

judge = StagedJudge()
RECORDS = {
    "logfmt": "pod=api-7d9f-{i} restarts={n} node=ip-10-0-3-{i}",
    "json": '{{"pod": "api-7d9f-{i}", "restarts": {n}, "node": "ip-10-0-3-{i}"}}',
    "colon": "pod: api-7d9f-{i}, restarts: {n}, node: ip-10-0-3-{i}",
}
TOTALS = ("There were {t} restarts in total.", "The pods had a total of {t} restarts.",
          "{t} restarts were recorded in all.")
OTHER = ["host=db-9 cpu_pct=12.5 status=ok", "2024-05-01T09:00:00Z INFO cache-1 flushed 42 keys"]


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


counts = st.lists(st.integers(0, 9), min_size=2, max_size=6)


@settings(max_examples=100)
@given(restarts=counts, shape=st.sampled_from(sorted(RECORDS)), form=st.sampled_from(TOTALS),
       off=st.sampled_from([0, 0, -1, 1, 3]), others=st.lists(st.sampled_from(OTHER),
                                                              unique=True, max_size=2))
@example(restarts=[3, 0, 5, 0], shape="logfmt", form=TOTALS[0], off=-5, others=[])
def test_a_total_is_the_sum_over_the_records(restarts: list[int], shape: str, form: str,
                                             off: int, others: list[str]) -> None:
    total = sum(restarts) + off
    if total < 0:
        return
    items = [RECORDS[shape].format(i=i, n=n) for i, n in enumerate(restarts)]
    expected = ["grounded"] if off == 0 else ["contradicted"]
    claim = form.format(t=total)
    assert buckets(claim, [*items, *others]) == expected, (claim, items)
    assert buckets(claim, [*others, *reversed(items)]) == expected, (claim, items)


WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
LINE = "2024-05-01T10:{m:02d}:00Z ERROR api-7d9f-0 connection reset by peer"
UNRELATED = ["2024-05-01T10:30:00Z INFO api-7d9f-0 request served in 40ms",
             "2024-05-01T10:31:00Z ERROR api-7d9f-1 connection reset by peer"]


@settings(max_examples=80)
@given(lines=st.integers(2, 5), said=st.integers(1, 5), in_words=st.booleans(),
       others=st.lists(st.sampled_from(UNRELATED), unique=True, max_size=2))
def test_a_count_of_lines_is_their_number(lines: int, said: int, in_words: bool,
                                          others: list[str]) -> None:
    items = [LINE.format(m=m) for m in range(lines)]
    number = WORDS[said] if in_words else str(said)
    noun = "connection reset" if said == 1 else "connection resets"
    claim = f"api-7d9f-0 logged {number} {noun}."
    expected = ["grounded"] if said == lines else ["contradicted"]
    assert buckets(claim, [*items, *others]) == expected, (claim, lines)


@settings(max_examples=60)
@given(restarts=counts, pick=st.integers(0, 5), shape=st.sampled_from(sorted(RECORDS)))
@example(restarts=[3, 0, 5, 0], pick=0, shape="logfmt")
def test_only_one_record_excludes_every_other(restarts: list[int], pick: int,
                                              shape: str) -> None:
    did = [i for i, n in enumerate(restarts) if n > 0]
    if not did:
        return
    chosen = did[pick % len(did)]
    items = [RECORDS[shape].format(i=i, n=n) for i, n in enumerate(restarts)]
    claim = f"Only api-7d9f-{chosen} restarted."
    expected = ["grounded"] if len(did) == 1 else ["contradicted"]
    assert buckets(claim, items) == expected, (claim, items)


@settings(max_examples=80)
@given(minutes=st.lists(st.integers(0, 59), min_size=2, max_size=5, unique=True),
       which=st.sampled_from(["first", "earliest", "last", "latest"]), pick=st.integers(0, 4),
       order=st.permutations(range(5)))
@example(minutes=[0, 1, 2], which="first", pick=2, order=[0, 1, 2, 3, 4])
def test_the_first_and_the_last_are_the_earliest_and_the_latest_line(
        minutes: list[int], which: str, pick: int, order: list[int]) -> None:
    shuffled = [minutes[i] for i in order if i < len(minutes)]
    items = [LINE.format(m=m) for m in shuffled]
    said = minutes[pick % len(minutes)]
    wanted = min(minutes) if which in ("first", "earliest") else max(minutes)
    claim = f"The {which} connection reset on api-7d9f-0 was at 10:{said:02d} UTC."
    expected = ["grounded"] if said == wanted else ["contradicted"]
    assert buckets(claim, items) == expected, (claim, items)


@settings(max_examples=80)
@given(cpus=st.lists(st.integers(1, 99), min_size=2, max_size=5, unique=True),
       pick=st.integers(0, 4), word=st.sampled_from(["highest", "lowest", "largest", "least"]),
       shape=st.sampled_from(["node=node-{i} cpu_pct={c}",
                              '{{"node": "node-{i}", "cpu_pct": {c}}}']))
@example(cpus=[32, 88], pick=0, word="highest", shape="node=node-{i} cpu_pct={c}")
def test_the_highest_and_the_lowest_are_over_every_record(cpus: list[int], pick: int, word: str,
                                                         shape: str) -> None:
    items = [shape.format(i=i, c=c) for i, c in enumerate(cpus)]
    chosen = pick % len(cpus)
    claim = f"node-{chosen} had the {word} CPU at {cpus[chosen]}%."
    extreme = min(cpus) if word in ("lowest", "least") else max(cpus)
    expected = ["grounded"] if cpus[chosen] == extreme else ["contradicted"]
    assert buckets(claim, items) == expected, (claim, items)


@settings(max_examples=60)
@given(cpus=st.lists(st.integers(1, 99), min_size=3, max_size=5, unique=True),
       pick=st.integers(0, 4), rank=st.sampled_from([("second", 2), ("third", 3)]),
       low=st.booleans())
@example(cpus=[32, 88, 26, 29], pick=0, rank=("second", 2), low=False)
def test_a_rank_is_its_place_among_every_record(cpus: list[int], pick: int,
                                                rank: tuple[str, int], low: bool) -> None:
    items = [f"node=node-{i} cpu_pct={c}" for i, c in enumerate(cpus)]
    chosen = pick % len(cpus)
    word = "lowest" if low else "highest"
    claim = f"node-{chosen} had the {rank[0]} {word} CPU at {cpus[chosen]}%."
    placed = sorted(cpus, reverse=not low)[rank[1] - 1]
    expected = ["grounded"] if cpus[chosen] == placed else ["contradicted"]
    assert buckets(claim, items) == expected, (claim, items)


@settings(max_examples=80)
@given(cpus=st.lists(st.integers(1, 99), min_size=2, max_size=5, unique=True),
       pick=st.integers(0, 4), word=st.sampled_from(["highest", "lowest", "most", "least"]),
       key=st.sampled_from([("cpu_pct", "CPU"), ("restarts", "restarts"),
                            ("memory_mb", "memory")]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=2), reverse=st.booleans())
@example(cpus=[32, 88], pick=0, word="lowest", key=("cpu_pct", "CPU"), others=OTHER,
         reverse=False)
def test_a_superlative_without_a_value_is_read_over_every_record(
        cpus: list[int], pick: int, word: str, key: tuple[str, str], others: list[str],
        reverse: bool) -> None:
    items = [f"node=node-{i} {key[0]}={c} disk_pct=50" for i, c in enumerate(cpus)]
    if reverse:
        items.reverse()
    chosen = pick % len(cpus)
    claim = f"node-{chosen} had the {word} {key[1]}."
    extreme = min(cpus) if word in ("lowest", "least") else max(cpus)
    expected = ["grounded"] if cpus[chosen] == extreme else ["contradicted"]
    assert buckets(claim, [*items, *others]) == expected, (claim, items)
    assert buckets(claim, [*others, *items]) == expected, (claim, items)


@settings(max_examples=60)
@given(scores=st.lists(st.integers(10, 60), min_size=2, max_size=4, unique=True),
       pick=st.integers(0, 3), word=st.sampled_from(["highest", "lowest"]))
def test_a_row_a_plain_word_names_is_ranked_over_every_row(scores: list[int], pick: int,
                                                           word: str) -> None:
    models = ["LSTM", "GRU", "LRN", "SRU"]
    items = [f"model={models[i]} bleu={s}.5 meteor=30.{i}" for i, s in enumerate(scores)]
    chosen = pick % len(scores)
    claim = f"{models[chosen]} has the {word} BLEU score."
    extreme = max(scores) if word == "highest" else min(scores)
    expected = ["grounded"] if scores[chosen] == extreme else ["contradicted"]
    assert buckets(claim, items) == expected, (claim, items)
    assert buckets(claim, ["\n".join(reversed(items))]) == expected, (claim, items)


# ================================================================================================
# A claim of every record of a kind, or of none, is read against every record of that kind:
# one record agreeing never carries "all pods were Running" or "no pod restarted".
# ================================================================================================

def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=60)
@given(count=st.integers(2, 6), odd=st.integers(0, 5), ok=st.booleans(),
       form=st.sampled_from(["All pods were Running.", "All the pods were Running.",
                             "Every pod was Running."]),
       shuffle=st.randoms(use_true_random=False))
def test_all_of_a_kind_is_every_record(count: int, odd: int, ok: bool, form: str,
                                       shuffle) -> None:
    rows = [f"pod=web-{n} phase=Running restarts=0" for n in range(count)]
    if not ok:
        rows[odd % count] = f"pod=web-{odd % count} phase=CrashLoopBackOff restarts=7"
    shuffle.shuffle(rows)
    assert bucket(form, rows) == ("grounded" if ok else "contradicted"), rows


@settings(max_examples=60)
@given(count=st.integers(2, 6), odd=st.integers(0, 5), ok=st.booleans(), restarts=st.integers(1, 9),
       form=st.sampled_from(["No pod restarted.", "None of the pods restarted.",
                             "Not a single pod restarted."]))
def test_none_of_a_kind_is_no_record(count: int, odd: int, ok: bool, restarts: int,
                                     form: str) -> None:
    rows = [f"pod=web-{n} phase=Running restarts=0" for n in range(count)]
    if not ok:
        rows[odd % count] = f"pod=web-{odd % count} phase=Running restarts={restarts}"
    assert bucket(form, rows) == ("grounded" if ok else "contradicted"), rows


@settings(max_examples=40)
@given(count=st.integers(2, 5), odd=st.integers(0, 4), ok=st.booleans(),
       said=st.sampled_from([("All hosts were up.", "up", "down"),
                             ("None of the hosts were down.", "up", "down"),
                             ("All deploys succeeded.", "succeeded", "failed")]))
def test_a_category_of_all_or_none_holds_of_every_record(
        count: int, odd: int, ok: bool, said: tuple[str, str, str]) -> None:
    claim, good, bad = said
    key = "deploy" if "deploy" in claim else "host"
    rows = [f"{key}={key}-{n} status={good}" for n in range(count)]
    if not ok:
        rows[odd % count] = f"{key}={key}-{odd % count} status={bad}"
    assert bucket(claim, rows) == ("grounded" if ok else "contradicted"), (claim, rows)


@settings(max_examples=60)
@given(restarts=st.lists(st.integers(0, 9), min_size=2, max_size=6), said=st.integers(0, 6),
       words=st.booleans())
def test_a_count_of_records_is_how_many_records_did_it(restarts: list[int], said: int,
                                                       words: bool) -> None:
    rows = [f"pod=web-{n} phase=Running restarts={r}" for n, r in enumerate(restarts)]
    did = sum(r > 0 for r in restarts)
    if said == 0:
        return  # "0 pods restarted" is "no pod restarted" (the test above)
    number = ("one two three four five six".split()[said - 1]) if words else str(said)
    claim = f"{number.capitalize()} pods restarted."
    verdict = bucket(claim, rows)
    # never grounded by one pod's restart count equal to the number; contradicted when wrong
    assert verdict == ("grounded" if did == said else "contradicted"), (claim, rows)


# ================================================================================================
# A claim of scope ("only", "always", "all his life", "the busiest") says something of every
# other member or time, which one record never shows: it is grounded only where a fact it is
# aligned to states the word, or where records of one kind decide it. "Only" before a measured
# value, a denied scope ("not only") and a measure's peak whose value a record holds are no
# scope.
# ================================================================================================

PEOPLE = ("Julian Assange", "Kate Micucci", "David Cook", "Maria Lindqvist", "Tomas Brandt")
PLACES = ("Australia", "Michigan", "Ontario", "Bavaria", "Tasmania")
LABELS = ("Columbia Records", "Island Records", "Wagram Music", "Sub Pop")
# (evidence lines, the plain claim, the claim with the scope word) per fact
FACTS = {
    "residence": ("Residence: {place}", "{name} lived in {place}.",
                  ("{name} has always lived in {place}.", "{name} lived in {place} all her life.",
                   "{name} lived in {place} for her entire life.",
                   "{name} lived only in {place}.", "{name} has lived in {place} forever.")),
    "label": ("Labels: {label}", "{name} released music on {label}.",
              ("{name} released music only on {label}.",
               "{name} released music exclusively on {label}.",
               "{name} has always released music on {label}.",
               "{name} released music solely on {label}.")),
}
SUPERLATIVES = ("the busiest", "the largest", "the most famous", "the oldest",
                "its best-selling", "the second largest", "the least known")


def infobox(name: str, line: str) -> str:
    return f"Name: {name}\n{line}\nOccupation: Singer songwriter"


@settings(max_examples=80)
@given(name=st.sampled_from(PEOPLE), place=st.sampled_from(PLACES),
       label=st.sampled_from(LABELS), fact=st.sampled_from(sorted(FACTS)), form=st.integers(0, 4))
def test_a_scope_no_fact_states_is_never_grounded(name: str, place: str, label: str, fact: str,
                                                  form: int) -> None:
    line, plain, scoped = FACTS[fact]
    values = {"name": name, "place": place, "label": label}
    items = [infobox(name, line.format(**values))]
    assert buckets(plain.format(**values), items) == ["grounded"]
    claim = scoped[form % len(scoped)].format(**values)
    assert buckets(claim, items) == ["ungrounded"], claim
    # the evidence stating the scope grounds it
    stated = line.format(**values) + (" (only)" if " only " in claim or "ly on" in claim
                                      else " (always, for her entire life)")
    if "solely" in claim or "exclusively" in claim:
        stated = line.format(**values) + " (solely, exclusively)"
    assert buckets(claim, [infobox(name, stated)]) == ["grounded"], claim


@settings(max_examples=60)
@given(name=st.sampled_from(("Broadgreen", "Karachi", "Lindholm", "Westerby")),
       sup=st.sampled_from(SUPERLATIVES), noun=st.sampled_from(("station", "city", "port")),
       place=st.sampled_from(PLACES))
def test_a_superlative_no_fact_states_is_never_grounded(name: str, sup: str, noun: str,
                                                        place: str) -> None:
    items = [f"Name: {name}\nType: {noun}\nLocation: {place}"]
    assert buckets(f"{name} is a {noun} in {place}.", items) == ["grounded"]
    claim = f"{name} is {sup} {noun} in {place}."
    assert buckets(claim, items) == ["ungrounded"], claim
    word = sup.split(maxsplit=1)[1]
    said = [f"Name: {name}\nType: {noun}\nLocation: {place}\nRank: {word} {noun} in {place}"]
    assert buckets(claim, said) == ["grounded"], claim


@settings(max_examples=60)
@given(value=st.integers(1, 59), off=st.sampled_from([0, 0, 40]),
       form=st.sampled_from(("The error rate on api-1 was only {v}%.",
                             "api-1 had an error rate of only {v}%.",
                             "api-1 saw an error rate of only about {v}%.")))
def test_only_before_a_measured_value_is_the_value(value: int, off: int, form: str) -> None:
    items = [f"host=api-1 error_pct={value} status=200"]
    claim = form.format(v=value + off)
    assert buckets(claim, items) == (["grounded"] if off == 0 else ["contradicted"]), claim


@settings(max_examples=40)
@given(name=st.sampled_from(PEOPLE), place=st.sampled_from(PLACES),
       form=st.sampled_from(("{name} has not always lived in {place}.",
                             "{name} lived not only in {place}.")))
def test_a_denied_scope_is_no_scope(name: str, place: str, form: str) -> None:
    items = [infobox(name, f"Residence: {place}")]
    verdict = judge.explain(synthesis=form.format(name=name, place=place),
                            evidence=EvidenceSet.coerce(items))
    assert all(c.kind != "scope" for v in verdict for c in v.checks)


@settings(max_examples=60)
@given(restarts=st.lists(st.integers(0, 4), min_size=2, max_size=5),
       order=st.booleans())
def test_records_of_a_kind_decide_only(restarts: list[int], order: bool) -> None:
    items = [f"pod=api-{i} restarts={n} node=ip-10-0-3-{i}" for i, n in enumerate(restarts)]
    if order:
        items.reverse()
    claim = "Only api-0 restarted."
    if restarts[0] == 0:
        return
    expected = ["grounded"] if not any(restarts[1:]) else ["contradicted"]
    assert buckets(claim, items) == expected, items


@settings(max_examples=60)
@given(pause=st.integers(60, 4000), off=st.sampled_from([0, 0, 250]),
       host=st.sampled_from(("search-prod-37", "batch-3", "api-7")),
       sup=st.sampled_from(("longest", "highest", "worst")))
def test_a_peak_a_record_holds_is_its_value(pause: int, off: int, host: str, sup: str) -> None:
    items = [f"host={host} gc_pause_ms={pause} heap_used_mb=812"]
    claim = f"The {sup} GC pause on {host} was {pause + off} ms."
    assert buckets(claim, items) == (["grounded"] if off == 0 else ["contradicted"]), claim


SCOPE_UNRELATED = ["2024-05-01T10:30:00Z INFO cache-1 flushed 42 keys",
             "host=db-9 cpu_pct=12.5 status=ok", "name=cache-1 cpu_pct=12.5 status=ok",
             "Name: worker-3\nType: batch"]
CLAIMS = ("{name} has always lived in {place}.", "{name} lived only in {place}.",
          "{name} is the most famous person in {place}.")


@settings(max_examples=60)
@given(name=st.sampled_from(PEOPLE), place=st.sampled_from(PLACES),
       extra=st.lists(st.sampled_from(SCOPE_UNRELATED), unique=True, min_size=1, max_size=3),
       first=st.booleans(), form=st.sampled_from(CLAIMS))
def test_unrelated_items_never_change_a_scope_verdict(name: str, place: str, extra: list[str],
                                                      first: bool, form: str) -> None:
    own = infobox(name, f"Residence: {place}")
    claim = form.format(name=name, place=place)
    alone = buckets(claim, [own])
    assert buckets(claim, [*extra, own] if first else [own, *extra]) == alone == ["ungrounded"]


# ================================================================================================
# A stated difference is read off two rows the claim names, under a key it names; a change of
# one subject's value ("rose by 300 ms") off its two samples, in time order. Unrelated rows change
# no verdict, and the product (judge and guard) agrees with the judge.
# ================================================================================================

MODELS = ("CBOW", "CMOW", "Hybrid", "GRU", "oLRN", "SRU")
COLUMNS = ("trec", "subj", "mrpc", "bleu")
PHRASINGS = ("On {col}, {x} outperforms {y} by {d} points.",
             "{x} scores {d} points higher than {y} on {col}.",
             "On {col}, {x} gives +{d} over {y}.")


def table(scores: dict[str, dict[str, int]]) -> list[str]:
    return [f"method={m} " + " ".join(f"{c}={v / 10:.1f}" for c, v in row.items())
            for m, row in scores.items()]


scores_st = st.fixed_dictionaries({c: st.integers(100, 999) for c in COLUMNS})


@settings(max_examples=60)
@given(pair=st.permutations(MODELS).map(lambda p: p[:4]), col=st.sampled_from(COLUMNS),
       rows=st.lists(scores_st, min_size=4, max_size=4), phrasing=st.sampled_from(PHRASINGS),
       off=st.integers(3, 40))
def test_a_difference_of_two_named_rows_is_grounded_and_another_never(
        pair: tuple[str, ...], col: str, rows: list[dict[str, int]], phrasing: str,
        off: int) -> None:
    x, y, third, fourth = pair
    scores = dict(zip(pair, rows, strict=True))
    gap = abs(scores[x][col] - scores[y][col])
    if gap == 0:
        return
    if scores[x][col] < scores[y][col]:  # "x scores 2 points higher than y": x is the higher
        x, y = y, x
    items = table({x: scores[x], y: scores[y]})
    right = phrasing.format(col=col.upper(), x=x, y=y, d=f"{gap / 10:.1f}")
    assert bucket(right, items) == "grounded", (right, items)
    # unrelated rows, anywhere, change nothing
    others = table({third: scores[third], fourth: scores[fourth]})
    assert bucket(right, [others[0], *items, others[1]]) == "grounded"
    wrong = phrasing.format(col=col.upper(), x=x, y=y, d=f"{(gap + off) / 10:.1f}")
    # never the gap, nor a value of a row that happens to equal it ("by 16.4" against a 16.4)
    assert bucket(wrong, items) != "grounded", (wrong, items)


@settings(max_examples=40)
@given(first=st.integers(120, 9000), second=st.integers(120, 9000), listed=st.booleans(),
       rose=st.booleans())
def test_a_change_of_one_subject_is_read_off_its_two_samples_in_time_order(
        first: int, second: int, listed: bool, rose: bool) -> None:
    if first == second:
        return
    samples = [f"2026-03-14T09:10:00Z host=api-1 p99_latency_ms={first}",
               f"2026-03-14T09:15:00Z host=api-1 p99_latency_ms={second}"]
    items = samples if listed else samples[::-1]  # listed out of time order: the times decide
    verb = "rose" if rose else "fell"
    claim = f"The p99 latency on api-1 {verb} by {abs(second - first)} ms."
    # the subject's only two samples: another direction or amount is the change misstated
    expected = "grounded" if (second > first) == rose else "contradicted"
    assert bucket(claim, items) == expected, (claim, items)
    assert bucket(f"The p99 latency on api-1 {verb} by {abs(second - first) + 7} ms.",
                  items) == "contradicted"
    # a third sample: which two the claim compares is no longer known, so never contradicted
    # (far above both, so no consecutive pair differs by the claim's amount by chance)
    third = [*items, f"2026-03-14T09:20:00Z host=api-1 p99_latency_ms={3 * max(first, second) + 1}"]
    assert bucket(f"The p99 latency on api-1 {verb} by {abs(second - first) + 7} ms.",
                  third) == "ungrounded"


# (claim, scores of the table, expected): a bucket, or "not <bucket>" for any other verdict
GAPS = [
    # rows the claim does not name make no difference: 880 - 856 is CMOW's gap over CBOW
    pytest.param("On TREC, CMOW outperforms CBOW by 2.4 points.",
                 {"CBOW": {"trec": 856}, "CMOW": {"trec": 880}, "GRU": {"trec": 900}},
                 "grounded", id="the-named-rows"),
    # 900 - 856 = 4.4 is GRU's gap, not CMOW's
    pytest.param("On TREC, CMOW outperforms CBOW by 4.4 points.",
                 {"CBOW": {"trec": 856}, "CMOW": {"trec": 880}, "GRU": {"trec": 900}},
                 "not grounded", id="another-rows-gap"),
    # a key the claim does not name: no column to read
    pytest.param("CMOW outperforms CBOW by 2.4 points.",
                 {"CBOW": {"trec": 856}, "CMOW": {"trec": 880}, "GRU": {"trec": 900}},
                 "not grounded", id="no-key-named"),
    # a comparative of something else (size, cost) says nothing of the gap
    pytest.param("CMOW, a smaller model than CBOW, outperforms it by 2.4 points on TREC.",
                 {"CBOW": {"trec": 856}, "CMOW": {"trec": 880}}, "grounded",
                 id="a-comparative-of-size"),
    pytest.param("CMOW, with lower cost than CBOW, beats it by 2.4 points on TREC.",
                 {"CBOW": {"trec": 856}, "CMOW": {"trec": 880}}, "grounded",
                 id="a-comparative-of-cost"),
]


@pytest.mark.parametrize(("claim", "scores", "expected"), GAPS)
def test_a_gap_is_read_off_the_rows_and_key_the_claim_names(
        claim: str, scores: dict[str, dict[str, int]], expected: str) -> None:
    got = bucket(claim, table(scores))
    if expected.startswith("not "):
        assert got != expected.removeprefix("not "), claim
    else:
        assert got == expected, claim


def test_the_product_keeps_what_the_judge_grounds() -> None:
    evaluator = GSAREvaluator(StagedJudge())
    items = table({"CBOW": {"trec": 856}, "CMOW": {"trec": 880}})
    right = evaluator.evaluate_sync(report_synthesis="On TREC, CMOW outperforms CBOW by 2.4 "
                                    "points.", evidence_corpus=items)
    assert right.final_decision is Decision.PROCEED
    wrong = evaluator.evaluate_sync(report_synthesis="On TREC, CMOW outperforms CBOW by 3.4 "
                                    "points.", evidence_corpus=items)
    assert wrong.final_decision is not Decision.PROCEED


@settings(max_examples=40)
@given(values=st.lists(st.integers(120, 9000), min_size=3, max_size=5, unique=True),
       stamped=st.sampled_from(["Z", "", "mixed"]), reverse=st.booleans())
def test_a_change_is_of_consecutive_samples_and_has_a_direction_only_in_a_known_order(
        values: list[int], stamped: str, reverse: bool) -> None:
    def stamp(n: int) -> str:
        zone = "Z" if stamped == "Z" or (stamped == "mixed" and n % 2) else ""
        return f"2026-03-14T09:{10 + n:02d}:00{zone}"
    items = [f"{stamp(n)} host=api-1 p99_latency_ms={v}" for n, v in enumerate(values)]
    listed = items[::-1] if reverse else items
    steps = list(pairwise(values))
    for before, after in steps:
        verb = "rose" if after > before else "fell"
        claim = f"The p99 latency on api-1 {verb} by {abs(after - before)} ms."
        if stamped == "mixed":  # no order to read a direction from: never grounded
            assert bucket(claim, listed) != "grounded", (claim, listed)
        else:
            assert bucket(claim, listed) == "grounded", (claim, listed)
    # a gap of two samples that are not consecutive is no change the evidence shows
    consecutive = {abs(b - a) for a, b in steps}
    gap = abs(values[2] - values[0])
    if stamped != "mixed" and gap not in consecutive:
        verb = "rose" if values[2] > values[0] else "fell"
        assert bucket(f"The p99 latency on api-1 {verb} by {gap} ms.", listed) != "grounded"


WAYS = ("{x} scores {d} points higher than {y} on {col}.",
        "{y} is {d} points lower than {x} on {col}.",
        "On {col}, {x} has {d} more points than {y}.", "On {col}, {y} trails {x} by {d} points.",
        "{x} exceeds {y} by {d} points on {col}.")


@settings(max_examples=60)
@given(pair=st.permutations(MODELS).map(lambda p: p[:2]), col=st.sampled_from(COLUMNS),
       rows=st.lists(scores_st, min_size=2, max_size=2), way=st.sampled_from(WAYS))
def test_a_difference_said_the_wrong_way_round_is_contradicted(
        pair: tuple[str, ...], col: str, rows: list[dict[str, int]], way: str) -> None:
    scores = dict(zip(pair, rows, strict=True))
    high, low = sorted(pair, key=lambda m: -scores[m][col])
    gap = scores[high][col] - scores[low][col]
    if gap == 0:
        return
    items = table(scores)
    d = f"{gap / 10:.1f}"
    right = way.format(x=high, y=low, d=d, col=col.upper())
    assert bucket(right, items) == "grounded", (right, items)
    # the same gap, the names swapped: each names one row, so the claim is of those two
    wrong = way.format(x=low, y=high, d=d, col=col.upper())
    assert bucket(wrong, items) == "contradicted", (wrong, items)


@settings(max_examples=40)
@given(p50=st.lists(st.integers(20, 900), min_size=2, max_size=2, unique=True),
       p99=st.lists(st.integers(1000, 9000), min_size=2, max_size=2, unique=True),
       label=st.sampled_from(["resource=cpu", "region=us-east-1", "env=prod"]),
       which=st.sampled_from(["p50", "p99"]))
def test_a_change_is_read_under_the_key_the_claim_names_whatever_else_the_rows_share(
        p50: list[int], p99: list[int], label: str, which: str) -> None:
    # the samples share more words than the subject ("cpu" of resource=cpu): still one subject;
    # and "p99 latency" is p99_latency_ms, never p50_latency_ms, though both are latencies
    items = [f"2026-03-14T09:1{n}:00Z host=api-1 {label} p50_latency_ms={p50[n]} "
             f"p99_latency_ms={p99[n]}" for n in range(2)]
    named, other = (p50, p99) if which == "p50" else (p99, p50)
    word = label.split("=")[1]
    verb = "rose" if named[1] > named[0] else "fell"
    right = f"The {which} latency of {word} on api-1 {verb} by {abs(named[1] - named[0])} ms."
    assert bucket(right, items) == "grounded", (right, items)
    if abs(other[1] - other[0]) != abs(named[1] - named[0]):
        wrong = f"The {which} latency of {word} on api-1 {verb} by {abs(other[1] - other[0])} ms."
        assert bucket(wrong, items) == "contradicted", (wrong, items)


@settings(max_examples=40)
@example(before=5000, amount=1850, noun="")  # may be a year
@example(before=5000, amount=2012, noun="")
@given(before=st.integers(1000, 30000), amount=st.integers(1000, 9999),
       noun=st.sampled_from(["", " requests"]))
def test_a_change_of_a_count_in_four_digits_is_read_as_a_change(before: int, amount: int,
                                                                noun: str) -> None:
    # a number that may be a year ("rose by 1850.") is the change where the samples make it
    items = [f"2026-03-14T09:10:00Z host=api-1 requests={before}",
             f"2026-03-14T09:15:00Z host=api-1 requests={before + amount}"]
    assert bucket(f"Requests on api-1 rose by {amount}{noun}.", items) == "grounded"
    assert bucket(f"Requests on api-1 fell by {amount}{noun}.", items) == "contradicted"
    if 1800 <= amount <= 2100 and not noun:  # no two samples make it: read as a year, as written
        assert bucket(f"Requests on api-1 rose by {amount}.", items[:1]) != "contradicted"


@settings(max_examples=40)
@given(first=st.integers(100, 900), second=st.integers(100, 900))
def test_names_under_two_keys_on_the_same_rows_are_two_names(first: int, second: int) -> None:
    # call edges: both names on both rows, under different keys; never one subject's samples
    if first == second:
        return
    items = [f"run=1 model=web-3 baseline=api-2 score={first}",
             f"run=2 model=api-2 baseline=web-3 score={second}"]
    gap = abs(first - second)
    for higher, lower in (("web-3", "api-2"), ("api-2", "web-3")):
        claim = f"The score of {higher} is {gap} points higher than {lower}."
        assert bucket(claim, items) != "grounded", (claim, items)


@settings(max_examples=40)
@given(p99=st.lists(st.integers(300, 3000), min_size=2, max_size=2, unique=True),
       budget=st.lists(st.integers(100, 900), min_size=2, max_size=2, unique=True))
def test_the_key_is_the_one_adding_fewest_words_the_claim_lacks(p99: list[int],
                                                               budget: list[int]) -> None:
    items = [f"host=api-{n} p99_latency_ms={p99[n]} latency_budget_ms={budget[n]}"
             for n in range(2)]
    high, low = (1, 0) if p99[1] > p99[0] else (0, 1)
    right = f"The p99 latency of api-{high} is {p99[high] - p99[low]} ms higher than api-{low}."
    assert bucket(right, items) == "grounded", (right, items)
    gap = abs(budget[high] - budget[low])
    if gap != p99[high] - p99[low]:
        wrong = f"The p99 latency of api-{high} is {gap} ms higher than api-{low}."
        assert bucket(wrong, items) != "grounded", (wrong, items)


@settings(max_examples=60)
@given(values=st.lists(st.integers(1, 99), min_size=2, max_size=2, unique=True),
       form=st.sampled_from(["{x} had {c} CPU than {y}.", "CPU on {x} was {c} than on {y}.",
                             "{x} ran at {c} CPU than {y}."]),
       higher=st.booleans(), extra=st.booleans())
def test_a_comparison_of_two_named_rows_with_no_amount_is_read_in_its_order(
        values: list[int], form: str, higher: bool, extra: bool) -> None:
    rows = [f"host=api-{n + 1} cpu_pct={values[n]} mem_pct={values[1 - n]}" for n in range(2)]
    if extra:  # unrelated rows change nothing
        rows.append("host=db-9 cpu_pct=50 mem_pct=50")
    claim = form.format(x="api-1", y="api-2", c="higher" if higher else "lower")
    holds = (values[0] > values[1]) == higher
    assert bucket(claim, rows) == ("grounded" if holds else "contradicted"), (claim, rows)


METHODS = ["acoustic supervision", "multi-task learning", "minimizing DCE", "FSEGAN"]


@settings(max_examples=60)
@given(wers=st.lists(st.integers(150, 400), min_size=2, max_size=4, unique=True),
       first=st.integers(0, 3), second=st.integers(0, 3),
       word=st.sampled_from(["higher", "lower"]), one_item=st.booleans())
def test_rows_plain_words_name_are_compared_under_the_measure_the_claim_names(
        wers: list[int], first: int, second: int, word: str, one_item: bool) -> None:
    a, b = first % len(wers), second % len(wers)
    if a == b:
        return
    rows = [f'method="{m}" wer={w / 10}' for m, w in zip(METHODS, wers, strict=False)]
    items = ["\n".join(["table: Table 3: WER (%) on CHiME-4", *rows])] if one_item else [
        "table: Table 3: WER (%) on CHiME-4", *rows]
    claim = f"{METHODS[a].capitalize()} shows a {word} WER than {METHODS[b]}."
    holds = (wers[a] > wers[b]) == (word == "higher")
    verdicts = judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    assert [v.bucket for v in verdicts] == (["grounded"] if holds else ["contradicted"]), (
        claim, rows)
