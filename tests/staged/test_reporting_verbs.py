"""A verb of reporting a measured result ("achieved", "obtained", "attained", "yielded",
"performed", "outperformed") is the claim's predicate, free to paraphrase: it is never a word the
evidence must hold, so it neither uses up the paraphrase budget nor lowers coverage. The values
it reports are still checked: another value is never grounded."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
MODELS = ["LRN", "BiLSTM", "GPT-2", "ULMFiT", "TGen"]
VERBS = ["achieved", "achieves", "obtained", "obtains", "attained", "yielded", "yields"]
METRICS = [("accuracy", "accuracy"), ("BLEU", "bleu"), ("F1", "f1")]


@settings(max_examples=40)
@given(model=st.sampled_from(MODELS), verb=st.sampled_from(VERBS), metric=st.sampled_from(METRICS),
       score=st.integers(100, 999), delta=st.integers(-30, 30), other=st.sampled_from(MODELS))
def test_a_reported_result_is_its_value_not_its_verb(model: str, verb: str,
                                                    metric: tuple[str, str], score: int,
                                                    delta: int, other: str) -> None:
    said, key = metric
    value = score / 10
    rows = [f"model={model} {key}={value}"]
    if other != model:
        rows.append(f"model={other} {key}={(score + 7) / 10}")
    evidence = EvidenceSet.coerce("\n".join(rows))
    claim = f"{model} {verb} a {said} of {value}."
    verdicts = judge.explain(synthesis=claim, evidence=evidence)
    assert [v.bucket for v in verdicts] == ["grounded"], (claim, rows)
    assert verdicts[0].missing == (), (claim, verdicts[0].missing)
    if delta:
        changed = f"{model} {verb} a {said} of {(score + delta) / 10}."
        assert [v.bucket for v in judge.explain(synthesis=changed, evidence=evidence)] \
            != ["grounded"], (changed, rows)
