"""The benchmark's arithmetic, checked against examples worked out by hand."""

from __future__ import annotations

import json

import pytest

from gsar_otel.measure.baselines import best_fraction, content_coverage
from gsar_otel.measure.bench import bootstrap_interval, confusion
from gsar_otel.measure.claims import claim_agreement, match_claims
from gsar_otel.measure.datasets import HELDOUT_PERCENT, parse_example, split_of

# (actually faithful, predicted faithful). Unfaithful is the positive class.
PAIRS = ([(False, False)] * 3 + [(False, True)] * 1 + [(True, False)] * 2 + [(True, True)] * 4)


def test_the_confusion_matrix_counts_each_outcome() -> None:
    matrix = confusion(PAIRS)
    assert (matrix.tp, matrix.fn, matrix.fp, matrix.tn) == (3, 1, 2, 4)
    assert matrix.total == 10


def test_precision_recall_and_balanced_accuracy_match_the_hand_computation() -> None:
    matrix = confusion(PAIRS)
    assert matrix.recall_unfaithful == pytest.approx(3 / 4)
    assert matrix.precision_unfaithful == pytest.approx(3 / 5)
    assert matrix.recall_faithful == pytest.approx(4 / 6)
    assert matrix.balanced_accuracy == pytest.approx((3 / 4 + 4 / 6) / 2)


def test_balanced_accuracy_is_not_fooled_by_always_predicting_the_majority() -> None:
    always_unfaithful = confusion([(False, False)] * 9 + [(True, False)])
    assert always_unfaithful.balanced_accuracy == pytest.approx(0.5)


def test_undefined_ratios_are_none_and_one_class_uses_its_own_recall() -> None:
    only_faithful = confusion([(True, True), (True, False)])
    assert only_faithful.recall_unfaithful is None
    assert only_faithful.precision_unfaithful == 0.0
    assert only_faithful.balanced_accuracy == pytest.approx(0.5)
    assert confusion([]).balanced_accuracy is None


def test_content_coverage_is_the_share_of_answer_words_in_the_evidence() -> None:
    assert content_coverage("CPU spiked on db-prod-1", "cpu high on db-prod-1") == pytest.approx(
        2 / 3)
    assert content_coverage("the and of", "anything") == 1.0


def test_the_baseline_picks_the_smallest_fraction_with_the_best_balanced_accuracy() -> None:
    coverages = [0.9, 0.8, 0.5, 0.3]
    faithful = [True, True, False, False]
    assert best_fraction(coverages, faithful) == (0.51, 1.0)


def test_the_baseline_fraction_trades_the_two_recalls() -> None:
    # f = 0.7 keeps 2 of 3 faithful (0.9, 0.7) and holds back 2 of 2 unfaithful: (2/3 + 1) / 2.
    fraction, score = best_fraction([0.9, 0.7, 0.4, 0.6, 0.2], [True, True, True, False, False],
                                    grid=[0.3, 0.5, 0.7])
    assert fraction == 0.7
    assert score == pytest.approx((2 / 3 + 1) / 2)


def test_a_labelled_claim_takes_the_bucket_of_its_best_judged_claim() -> None:
    # Until 0.2 the worst overlapping bucket won (contradicted here); now the best match does,
    # the earlier claim on a tie (both overlap fully), so one bad neighbour no longer decides.
    predicted = [("CPU on db-prod-1 reached 97%", "grounded"),
                 ("request rate held steady at 4500 RPS", "contradicted"),
                 ("an unrelated remark about lunch", "ungrounded")]
    labelled = ["CPU on db-prod-1 reached 97% and request rate held steady at 4500 RPS.",
                "The database restarted twice."]
    assert match_claims(labelled, predicted) == ["grounded", None]


def test_claim_agreement_counts_per_gold_bucket() -> None:
    rows = claim_agreement([("grounded", "grounded"), ("grounded", "ungrounded"),
                            ("partially_supported", "ungrounded"), ("unclear", "grounded"),
                            ("contradicted", None)])
    by_gold = {row.gold: row for row in rows}
    assert set(by_gold) == {"grounded", "ungrounded", "contradicted"}
    assert (by_gold["grounded"].claims, by_gold["grounded"].agree) == (2, 1)
    assert by_gold["grounded"].agreement == pytest.approx(0.5)
    assert by_gold["ungrounded"].predicted == {"ungrounded": 1}
    assert (by_gold["contradicted"].unmatched, by_gold["contradicted"].agreement) == (1, 0.0)


def test_the_split_is_a_stable_hash_of_the_id_with_about_30_percent_held_out() -> None:
    ids = [f"example-{n}" for n in range(2000)]
    held_out = sum(split_of(i) == "heldout" for i in ids)
    assert abs(held_out / len(ids) - HELDOUT_PERCENT / 100) < 0.04
    assert [split_of(i) for i in ids[:50]] == [split_of(i) for i in ids[:50]]


def test_an_example_needs_its_fields() -> None:
    good = {"id": "x", "evidence": "e", "synthesis": "s", "answer_label": "faithful",
            "claims": [{"text": "s", "label": "grounded"}]}
    example = parse_example(json.dumps(good))
    assert example.faithful and example.claims[0].label == "grounded"
    with pytest.raises(ValueError, match="line 3: field 'answer_label' must be one of"):
        parse_example(json.dumps({**good, "answer_label": "yes"}), where="line 3")
    with pytest.raises(ValueError, match="field 'synthesis' must be a string"):
        parse_example(json.dumps({**good, "synthesis": None}))
    with pytest.raises(ValueError, match=r"claims\[0\] needs 'text' and a 'label'"):
        parse_example(json.dumps({**good, "claims": [{"text": "s", "label": "maybe"}]}))
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_example("{nope")


def test_the_bootstrap_interval_is_deterministic_and_holds_the_estimate() -> None:
    interval = bootstrap_interval(PAIRS)
    assert interval is not None
    low, high = interval
    assert low <= (3 / 4 + 4 / 6) / 2 <= high
    assert 0.0 <= low < high <= 1.0
    assert bootstrap_interval(PAIRS) == interval


def test_a_perfect_judge_has_a_zero_width_interval_and_one_class_has_none() -> None:
    assert bootstrap_interval([(True, True), (False, False)] * 5) == (1.0, 1.0)
    assert bootstrap_interval([(True, True), (True, False)]) is None


def test_rows_that_share_a_pair_share_a_split() -> None:
    rows = [parse_example(json.dumps({"id": f"row-{i}", "pair": f"p{i // 2}", "evidence": "e",
                                      "synthesis": "s", "answer_label": "faithful"}))
            for i in range(200)]
    for first, second in zip(rows[::2], rows[1::2], strict=True):
        assert first.split == second.split == split_of(first.pair or "")
    assert 0.15 < sum(r.split == "heldout" for r in rows) / 200 < 0.45


def test_the_length_baseline_finds_the_separating_length() -> None:
    from gsar_otel.measure.baselines import fit_length_baseline

    def row(i: int, words: int, faithful: bool) -> str:
        return json.dumps({"id": f"r{i}", "evidence": "e", "synthesis": " ".join(["w"] * words),
                           "answer_label": "faithful" if faithful else "unfaithful"})

    rows = [parse_example(row(i, 5 + i % 3, True)) for i in range(60)]
    rows += [parse_example(row(100 + i, 20 + i % 5, False)) for i in range(60)]
    rule = fit_length_baseline(rows)
    assert rule.shorter_is_faithful is True
    assert 7 <= rule.threshold < 20
    assert rule.dev_balanced_accuracy == 1.0
    assert rule.predicts_faithful(6) and not rule.predicts_faithful(21)
