"""The synthetic incident cases: deterministic, in the shared data format, labels true to the text.

The checks here are written independently of the generator: token kinds are found with their own
regular expressions, and a grounded claim's anchors (names, addresses, ids, times, numbers) are
looked up in the evidence as plain strings or, for numbers, as a value of the evidence rounded or
scaled (``41%`` for ``41.2%``, ``32%`` for ``0.32``, ``1.84 s`` for ``1840`` ms).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from benchmarks.worlds.synthetic import (
    CLAIM_LABELS,
    SCENARIOS,
    TOKEN_KINDS,
    generate_cases,
    write_cases,
)
from gsar_otel.core.model import EvidenceType
from gsar_otel.measure.datasets import load_examples

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "synthetic_incidents.jsonl"
SEED_SENTENCE = "The outage was caused by a config push."
OBSERVED_TYPES = {"tool_match", "signal_match", "specific_data"}

KIND_PATTERNS = {
    "percent": r"\d%|_pct=\d|_rate=0\.\d",
    "unit_number": r"\d ?(?:GB|ms|req/s)\b|_(?:gb|ms)[\"=:]+ ?\d|rps=\d",
    "count": r"\b(?:restarts|replicas|depth|connections|ecc_errors|tls_handshake_errors|partitions"
             r"|members|gpus|timeline|lag)\"?[=:] ?\d+|\b\d+ (?:restarts|pods|instances)\b"
             r"|threshold \d+\)",
    "clock_time": r"since \d{2}:\d{2}:\d{2} UTC",
    "timestamp": r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})"
                 r"| \d{2}:\d{2}:\d{2} UTC)",
    "date": r"\b\d{4}-\d{2}-\d{2}(?![T ]\d)",
    "duration": r"\b\d+m\d{2}s\b|\b\d+s\b|took \d+ ms",
    "version": r"\bv\d+\.\d+\.\d+\b",
    "ipv4": r"\b\d{1,3}(?:\.\d{1,3}){3}\b",
    "ipv6": r"\[[0-9a-f]*:[0-9a-f:]*\]",
    "port": r"(?:\d{1,3}(?:\.\d{1,3}){3}|\]):\d{2,5}\b",
    "http_status": r"(?:status=|returned |answered |\"top_status\": )[1-5]\d{2}\b",
    "http_class": r"\b[1-5]xx\b",
    "percentile": r"\bp(?:50|90|95|99)(?!\d)",
    "identifier": r"\b(?:cfg|INC|flag)-\d{4}\b",
    "uuid": r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
    "git_sha": r"(?:sha |\"commit\": \")[0-9a-f]{7}\b",
    "host": r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b",
    "quoted_string": r"\w=\"[^\"]+\"",
}
# Anchors of a claim, cut out in this order (a UUID holds hyphens, an address holds a time-like
# port ...); what is left may only hold plain numbers.
ANCHORS = (
    ("uuid", KIND_PATTERNS["uuid"]),
    ("address", r"\[[0-9a-f:]+\](?::\d+)?|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"),
    ("date", r"\b\d{4}-\d{2}-\d{2}\b"),
    ("time", r"\b\d{2}:\d{2}(?::\d{2})?\b"),
    ("version", r"\bv?\d+\.\d+\.\d+\b"),
    ("name", r"\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+\b"),
    ("sha", r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7}\b"),
    ("class", r"\b\dxx\b"),
)
SUBJECT_ANCHORS = {"uuid", "address", "name"}
NUMBER = r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?"
SCALES = (1, 100, 0.001)


@cache
def sample() -> tuple[dict[str, Any], ...]:
    return tuple(generate_cases(500, seed=11))


def claims_of(label: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(case, claim) for case in sample() for claim in case["claims"]
            if claim["label"] == label]


def anchors(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The claim's (kind, anchor) pairs and the plain numbers left over."""
    found = []
    for kind, pattern in ANCHORS:
        found += [(kind, match) for match in re.findall(pattern, text)]
        text = re.sub(pattern, " ", text)
    return found, re.findall(NUMBER, text)


def number_supported(number: str, evidence: str) -> bool:
    """Some evidence number, as is or in percent or seconds, rounds to ``number``."""
    decimals = len(number.split(".")[1]) if "." in number else 0
    tolerance = 0.5 * 10 ** -decimals + 1e-9
    return any(abs(float(found) * scale - float(number)) <= tolerance
               for found in re.findall(r"\d+(?:\.\d+)?", evidence) for scale in SCALES)


def test_the_same_seed_gives_the_same_cases_and_a_longer_run_extends_a_shorter_one() -> None:
    assert generate_cases(60, seed=7) == generate_cases(60, seed=7)
    assert generate_cases(60, seed=7) != generate_cases(60, seed=8)
    assert generate_cases(25, seed=7) == generate_cases(60, seed=7)[:25]


def test_a_negative_count_is_refused() -> None:
    with pytest.raises(ValueError, match="n must be >= 0"):
        generate_cases(-1, seed=0)
    assert generate_cases(0, seed=0) == []


def test_every_case_has_the_shared_data_format() -> None:
    for case in sample():
        assert set(case) >= {"id", "task", "evidence", "synthesis", "claims", "answer_label",
                             "meta"}
        assert case["task"] == "incident"
        assert isinstance(case["evidence"], str) and len(case["evidence"].splitlines()) >= 4
        assert 1 <= len(case["claims"]) <= 5
        for claim in case["claims"]:
            assert set(claim) == {"text", "label", "type", "conclusion"}
            assert claim["label"] in CLAIM_LABELS
            assert claim["type"] in {t.value for t in EvidenceType}
            assert isinstance(claim["conclusion"], bool)
        all_grounded = all(c["label"] == "grounded" for c in case["claims"])
        assert case["answer_label"] == ("faithful" if all_grounded else "unfaithful")
        assert case["meta"]["scenario"] in {*SCENARIOS, "config_push_seed"}
        assert len(case["meta"]["claim_moves"]) == len(case["claims"])
    assert len({case["id"] for case in sample()}) == len(sample())


def test_the_benchmark_loader_reads_a_written_file(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    assert write_cases(path, 40, 3) == 40
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert rows == generate_cases(40, seed=3)
    examples = load_examples(path)
    assert [e.faithful for e in examples] == [r["answer_label"] == "faithful" for r in rows]
    assert [len(e.claims) for e in examples] == [len(r["claims"]) for r in rows]


def test_types_and_conclusions_follow_the_labels() -> None:
    for _, claim in claims_of("grounded") + claims_of("contradicted"):
        assert claim["type"] in OBSERVED_TYPES, claim
    for _, claim in claims_of("ungrounded"):
        assert claim["type"] == "inference", claim
    conclusion_labels = {claim["label"] for case in sample() for claim in case["claims"]
                         if claim["conclusion"]}
    assert conclusion_labels == set(CLAIM_LABELS)


def test_about_half_the_answers_are_faithful_and_every_label_is_common() -> None:
    faithful = sum(case["answer_label"] == "faithful" for case in sample())
    assert 0.4 < faithful / len(sample()) < 0.6
    for label in CLAIM_LABELS:
        assert len(claims_of(label)) > 150, label
    assert {case["meta"]["scenario"] for case in sample()} >= set(SCENARIOS)


def test_every_token_kind_appears_in_500_cases_and_meta_names_only_kinds_present() -> None:
    listed: set[str] = set()
    for case in sample():
        kinds = case["meta"]["token_kinds"]
        listed.update(kinds)
        for kind in kinds:
            assert re.search(KIND_PATTERNS[kind], case["evidence"]), (kind, case["evidence"])
    assert listed == set(TOKEN_KINDS) == set(KIND_PATTERNS)
    evidence = "\n".join(case["evidence"] for case in sample())
    for kind, pattern in KIND_PATTERNS.items():
        assert re.search(pattern, evidence), kind


def test_each_claim_is_one_sentence_found_verbatim_in_the_synthesis() -> None:
    for case in sample():
        texts = [claim["text"] for claim in case["claims"]]
        assert case["synthesis"] == " ".join(texts)
        for text in texts:
            assert text in case["synthesis"]
            assert text.endswith(".") and ". " not in text, text


def test_grounded_claims_name_only_anchors_the_evidence_holds() -> None:
    for case, claim in claims_of("grounded"):
        found, numbers = anchors(claim["text"])
        for kind, anchor in found:
            if kind != "class":
                assert anchor.removeprefix("v") in case["evidence"], (anchor, claim, case["id"])
        for number in numbers:
            assert number_supported(number, case["evidence"]), (number, claim, case["id"])


def test_contradicted_claims_name_a_subject_of_the_evidence() -> None:
    for case, claim in claims_of("contradicted"):
        found, _ = anchors(claim["text"])
        subjects = [anchor for kind, anchor in found if kind in SUBJECT_ANCHORS]
        assert any(s in case["evidence"] for s in subjects), (claim, case["id"])


def test_the_seed_scenario_is_the_first_two_cases() -> None:
    alone, with_facts = generate_cases(2, seed=20261203)
    assert alone["evidence"] == with_facts["evidence"]
    push, alert = alone["evidence"].splitlines()[:2]
    assert "pushed cfg-7781 to edge-lb-3" in push and alert.startswith("ALERT ")
    pushed_at = datetime.strptime(push[11:19], "%H:%M:%S")
    alerted_at = datetime.strptime(re.findall(r"since (\S+) UTC", alert)[0], "%H:%M:%S")
    assert (alerted_at - pushed_at).seconds == 30
    seed_claim = {"text": SEED_SENTENCE, "label": "ungrounded", "type": "inference",
                  "conclusion": True}
    assert alone["claims"] == [seed_claim] and alone["synthesis"] == SEED_SENTENCE
    assert with_facts["claims"][-1] == seed_claim
    assert [c["label"] for c in with_facts["claims"][:3]] == ["grounded"] * 3
    assert alone["answer_label"] == with_facts["answer_label"] == "unfaithful"


def test_the_seed_sentence_takes_each_label_as_the_evidence_changes() -> None:
    """Alone over a push and an alert it over-reaches; a root-cause line makes it grounded."""
    labels = {claim["label"] for case in sample() for claim in case["claims"]
              if claim["text"] == SEED_SENTENCE}
    assert labels == {"grounded", "ungrounded"}


def test_the_committed_file_is_the_generator_output() -> None:
    lines = COMMITTED.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1000
    assert [json.loads(line) for line in lines] == generate_cases(1000, seed=20261203)
