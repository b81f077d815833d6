"""A stated difference is read off two rows the claim names, under a key it names; a change of
one subject's value ("rose by 300 ms") off its two samples, in time order. Unrelated rows change
no verdict, and the product (judge and guard) agrees with the judge."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import Decision
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
MODELS = ("CBOW", "CMOW", "Hybrid", "GRU", "oLRN", "SRU")
COLUMNS = ("trec", "subj", "mrpc", "bleu")
PHRASINGS = ("On {col}, {x} outperforms {y} by {d} points.",
             "{x} scores {d} points higher than {y} on {col}.",
             "On {col}, {x} gives +{d} over {y}.")


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


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


def test_rows_the_claim_does_not_name_make_no_difference() -> None:
    items = table({"CBOW": {"trec": 856}, "CMOW": {"trec": 880}, "GRU": {"trec": 900}})
    assert bucket("On TREC, CMOW outperforms CBOW by 2.4 points.", items) == "grounded"
    # 900 - 856 = 4.4 is GRU's gap, not CMOW's
    assert bucket("On TREC, CMOW outperforms CBOW by 4.4 points.", items) != "grounded"
    # a key the claim does not name: no column to read
    assert bucket("CMOW outperforms CBOW by 2.4 points.", items) != "grounded"


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


def test_a_comparative_of_something_else_says_nothing_of_the_gap() -> None:
    items = table({"CBOW": {"trec": 856}, "CMOW": {"trec": 880}})
    for claim in ("CMOW, a smaller model than CBOW, outperforms it by 2.4 points on TREC.",
                  "CMOW, with lower cost than CBOW, beats it by 2.4 points on TREC."):
        assert bucket(claim, items) == "grounded", claim


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
