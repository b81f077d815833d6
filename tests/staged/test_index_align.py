"""Stage 3: evidence units and alignment."""

from __future__ import annotations

from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.model import EvidenceType
from gsar_otel.core.text import stem
from gsar_otel.judges.staged.align import align
from gsar_otel.judges.staged.index import build_index
from gsar_otel.judges.staged.textual import facts_of


def index_of(*contents: str):  # type: ignore[no-untyped-def]
    return build_index(EvidenceSet.coerce(list(contents)))


def test_a_flat_row_keeps_its_keys() -> None:
    index = index_of("host=edge-lb-3 http_5xx_rate=41.2% ts=2024-05-01T10:15:32Z")
    (unit,) = index.units
    assert unit.kind == "row"
    assert [p.key for p in unit.pairs] == ["host", "http_5xx_rate", "ts"]
    assert "edge-lb-3" in unit.subjects
    assert {stem("http"), stem("rate")} <= unit.stems


def test_prose_is_split_into_sentences_and_alerts_are_signals() -> None:
    evidence = EvidenceSet(items=(
        Evidence("E1", "The film opened in 2006. It grossed $181 million."),
        Evidence("E2", "alert_id=A-1 fired_at=10:15:00", EvidenceType.SIGNAL_MATCH)))
    index = build_index(evidence)
    assert [u.kind for u in index.units] == ["prose", "prose", "signal"]
    assert [u.ref for u in index.units] == ["E1", "E1", "E2"]


def test_alignment_picks_the_unit_that_states_the_claim() -> None:
    index = index_of("The weather was mild.", "Request rate dropped to 12 RPS on db-1.")
    alignment = align(facts_of("The request rate dropped to 12 RPS."), index)
    assert alignment.units[0] == 1
    assert alignment.coverage == 1.0
    assert alignment.anchor_coverage == 1.0
    assert alignment.missing == ()


def test_names_match_whole_tokens_only() -> None:
    index = index_of("George Washington was born in Virginia.")
    alignment = align(facts_of("He studied at Georgetown in Virginia."), index)
    assert alignment.names_missing == 1
    assert "georgetown" in alignment.missing


def test_number_words_count_as_numbers() -> None:
    index = index_of("The cluster has 3 replicas.")
    alignment = align(facts_of("The cluster has three replicas."), index)
    assert alignment.coverage == 1.0


def test_missing_words_are_reported() -> None:
    alignment = align(facts_of("CPU rose sharply on Tuesday."), index_of("CPU rose."))
    assert set(alignment.missing) == {"sharp", "tuesday"}
    assert alignment.coverage < 0.6
