"""Stages 5-6: the feature vector, the model file, the bucket rules and evidence types."""

from __future__ import annotations

import json
import math
from importlib import resources

import pytest

from gsar_otel.core.model import EvidenceType
from gsar_otel.judges.staged.classify import (
    REGIMES,
    Model,
    TypeSources,
    classify,
    evidence_type,
    load_model,
    regime_of,
)
from gsar_otel.judges.staged.features import FEATURE_NAMES, FEATURES_VERSION, FeatureVector


def model_data() -> dict[str, object]:
    text = resources.files("gsar_otel.judges.staged").joinpath("model.json").read_text()
    data: dict[str, object] = json.loads(text)
    return data


def test_model_file_records_its_training() -> None:
    data = model_data()
    assert data["features_version"] == FEATURES_VERSION
    assert tuple(data["feature_names"]) == FEATURE_NAMES  # type: ignore[arg-type]
    training = data["training"]
    assert isinstance(training, dict)
    for key in ("seed", "split_rule", "date", "files", "claim_learner"):
        assert key in training
    # the learner's own settings: the logistic L2, or the trees' shape and seed
    assert "l2" in training if training["claim_learner"] == "logistic" else {
        "trees", "trees_seed"} <= set(training)
    assert all(len(f["sha256"]) == 64 for f in training["files"])
    assert set(data["thresholds"]) == {"grounded_rows", "grounded_prose_single",  # type: ignore[arg-type]
                                       "grounded_prose_multi", "contradicted"}


def test_a_model_of_other_features_is_refused() -> None:
    data = model_data() | {"features_version": "other"}
    with pytest.raises(ValueError, match="retrain"):
        Model.from_json(data)


def test_probabilities_sum_to_one() -> None:
    model = load_model()
    p = model.probabilities(FeatureVector(tuple(0.5 for _ in FEATURE_NAMES)))
    assert set(p) == set(model.classes)
    assert abs(sum(p.values()) - 1.0) < 1e-9


def named(**overrides: float) -> dict[str, float]:
    values = dict.fromkeys(FEATURE_NAMES, 0.0)
    values.update(overrides)
    return values


ROW = TypeSources(EvidenceType.TOOL_MATCH)
PROSE = TypeSources(EvidenceType.SPECIFIC_DATA)


def test_evidence_type_rules() -> None:
    assert evidence_type("grounded", named(conclusion=1), ROW) is EvidenceType.INFERENCE
    assert evidence_type("grounded", named(claim_negated=1), ROW) is EvidenceType.NEG_EVIDENCE
    assert evidence_type("grounded", named(lead_coverage=1, coverage=1), ROW) \
        is EvidenceType.TOOL_MATCH
    signal = TypeSources(EvidenceType.SIGNAL_MATCH)
    assert evidence_type("grounded", named(lead_coverage=1, coverage=1), signal) \
        is EvidenceType.SIGNAL_MATCH
    assert evidence_type("grounded", named(lead_coverage=1, coverage=1), PROSE) \
        is EvidenceType.SPECIFIC_DATA
    spread = named(aligned_units=2, lead_coverage=0.4, coverage=1)
    assert evidence_type("grounded", spread, PROSE) is EvidenceType.SYNTHESIS
    # one aligned unit holding all of the claim's values decides, however words spread
    held = TypeSources(EvidenceType.SIGNAL_MATCH, EvidenceType.TOOL_MATCH)
    assert evidence_type("grounded", spread, held) is EvidenceType.TOOL_MATCH
    assert evidence_type("grounded", named(conclusion=1), held) is EvidenceType.INFERENCE
    assert evidence_type("complementary", named(), PROSE) \
        is EvidenceType.COMPLEMENTARY_FINDING
    assert evidence_type("grounded", named(), TypeSources(None)) is EvidenceType.INFERENCE


def flat_model(grounded: float = 0.2, rules: frozenset[str] = frozenset(
        {"name_absent", "time_absent"})) -> Model:
    """Uniform probabilities (0.25 each), so only thresholds and rules decide."""
    n = len(FEATURE_NAMES)
    return Model(classes=("grounded", "ungrounded", "contradicted", "complementary"),
                 mean=(0.0,) * n, scale=(1.0,) * n, weights=((0.0,) * n,) * 4,
                 bias=(0.0,) * 4, grounded_thresholds=dict.fromkeys(REGIMES, grounded),
                 contradicted_threshold=0.2, version="test", rules=rules)


def vector(**overrides: float) -> FeatureVector:
    return FeatureVector(tuple(named(**overrides).values()))


def test_rules_decide_before_the_model() -> None:
    model = flat_model()
    assert classify(model, vector(conclusion=1, conclusion_unstated=1), ROW, False).rule \
        == "conclusion_unstated"
    assert classify(model, vector(names_missing_any=1), PROSE, False).rule == "name_absent"
    assert classify(model, vector(time_absent=1), ROW, False).rule == "time_absent"
    assert classify(model, vector(), ROW, True).bucket == "contradicted"
    negated = classify(model, vector(negation_mismatch=1, evidence_row=1, lead_coverage=0.9),
                       TypeSources(EvidenceType.TOOL_MATCH), False)
    assert (negated.bucket, negated.rule) == ("contradicted", "negation_conflict")
    assert classify(flat_model(rules=frozenset()), vector(names_missing_any=1), PROSE,
                    False).rule == "model"


def test_thresholds_decide_between_grounded_and_ungrounded() -> None:
    assert classify(flat_model(grounded=0.5), vector(), ROW, False).bucket == "grounded"
    assert classify(flat_model(grounded=0.6), vector(), ROW, False).bucket == "ungrounded"
    # contradicted needs a conflict signal, however likely the model finds it
    assert classify(flat_model(grounded=0.6), vector(anchor_conflict_share=1), ROW,
                    False).bucket == "contradicted"


def test_regimes() -> None:
    assert regime_of(named(evidence_row=1)) == "rows"
    assert regime_of(named(answer_claims=math.log1p(1))) == "prose_single"
    assert regime_of(named(answer_claims=math.log1p(5))) == "prose_multi"


def test_number_absent_is_an_optional_rule_for_tool_rows() -> None:
    with_rule = flat_model(rules=frozenset({"number_absent"}))
    unseen = vector(numeric_absent=1, evidence_row=1)
    assert classify(with_rule, unseen, ROW, False).rule == "number_absent"
    # prose, a conflicting value, or a model without the rule leave it to the model
    assert classify(with_rule, vector(numeric_absent=1), PROSE, False).rule == "model"
    assert classify(with_rule, vector(numeric_absent=1, evidence_row=1,
                                      anchor_conflict_share=0.5), ROW, False).rule == "model"
    assert classify(flat_model(rules=frozenset()), unseen, ROW, False).rule == "model"
