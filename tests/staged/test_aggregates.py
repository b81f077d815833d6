"""What a claim says of several records or lines at once is read off all of them: a total is
their sum, a count of lines their number, "only X" excludes every other record, the first and
the last are the earliest and the latest line. One record or line agreeing is never the claim."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

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
