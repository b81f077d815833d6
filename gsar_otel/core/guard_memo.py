"""A recorded integrity-guard report, reused only for exactly the inputs and code it came from.

The integrity guard (:func:`~gsar_otel.core.integrity.check_judge_output`) is a pure,
deterministic function of the judge output, the answer, the evidence (ids, types, contents,
truncations), the weight map, the contradiction penalty and ``default_unknown``, and of its own
code. A recorded verdict may carry the guard's report as a :class:`GuardMemo` with a digest:
SHA-256 over a fingerprint of the guard's code (:func:`code_fingerprint`), those inputs and the
report itself. A replay that recomputes the same digest from the verdict it actually read gets
the recorded report, which is what the guard returns for those inputs; on any difference (a
hand-edited verdict or memo, other evidence or options, another version of the guard's code, a
masked secret) the memo is ignored and the guard runs as it always does.

Trust: a memo is as trusted as the cassette that holds it. Whoever can edit a cassette can also
edit the test that reads it; the digest only guarantees that a memo is used for exactly the
inputs and code it was computed from, so a stale or mismatched memo can never stand in for the
guard.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
import threading
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Final

from pydantic import ValidationError

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.integrity import Adjustment, IntegrityReport
from gsar_otel.core.model import JudgeOutput
from gsar_otel.core.protocol import GuardMemo

GUARD_MODULES: Final = (
    "gsar_otel.core.integrity", "gsar_otel.core.anchors", "gsar_otel.core.anchor",
    "gsar_otel.core.anchor.compare", "gsar_otel.core.anchor.derived",
    "gsar_otel.core.anchor.fractions", "gsar_otel.core.anchor.model",
    "gsar_otel.core.anchor.scan", "gsar_otel.core.anchor.times", "gsar_otel.core.anchor.units",
    "gsar_otel.core.anchor.words", "gsar_otel.core.evidence", "gsar_otel.core.model",
    "gsar_otel.core.scoring", "gsar_otel.core.text", "gsar_otel.core.thresholds",
    "gsar_otel.core.guard_memo",
)
"""Every module the guard's code runs (its imports, transitively; checked by a test) and this
one, which reads memos: a change to any of them makes every recorded memo stale."""

FORMAT: Final = "gsar-guard-memo/1"


@dataclass(frozen=True, slots=True)
class MemoStats:
    """Memos used and ignored since the process started."""

    reused: int
    """Rounds whose guard report came from a matching memo."""
    stale: int
    """Rounds that carried a memo that did not match (the guard ran)."""
    made: int
    """Memos computed after the guard ran, for a judge that records them."""


_lock = threading.Lock()
_counts = {"reused": 0, "stale": 0, "made": 0}


def memo_stats() -> MemoStats:
    """The counters so far."""
    with _lock:
        return MemoStats(**_counts)


def _count(name: str) -> None:
    with _lock:
        _counts[name] += 1


def _source(name: str) -> bytes | None:
    module = sys.modules.get(name) or importlib.import_module(name)
    path = getattr(module, "__file__", None)
    if isinstance(path, str) and path.endswith(".py"):
        try:
            with open(path, "rb") as handle:
                return handle.read()
        except OSError:
            return None
    loader = getattr(module, "__loader__", None)
    get_source = getattr(loader, "get_source", None)
    try:
        text = get_source(name) if callable(get_source) else None
    except (ImportError, OSError):
        return None
    return text.encode("utf-8", "surrogatepass") if isinstance(text, str) else None


@cache
def code_fingerprint() -> str | None:
    """SHA-256 of the guard's source (:data:`GUARD_MODULES`) and of the Python, pydantic and
    Unicode versions it runs on; None when a source cannot be read (then no memo is made or
    used). Computed once per process."""
    import pydantic
    import pydantic_core

    hasher = hashlib.sha256(
        f"{FORMAT}\npython {sys.version}\npydantic {pydantic.VERSION} "
        f"{pydantic_core.__version__}\nunicode {unicodedata.unidata_version}\n".encode())
    for name in GUARD_MODULES:
        source = _source(name)
        if source is None:
            return None
        _frame(hasher, name.encode())
        _frame(hasher, source)
    return hasher.hexdigest()


def _frame(hasher: Any, data: bytes) -> None:
    """Feed ``data`` with its length first, so no two input sequences hash alike."""
    hasher.update(len(data).to_bytes(8, "big"))
    hasher.update(data)


def _number(value: object) -> str:
    return f"{type(value).__name__}:{value!r}"


def _weights(weight_map: Mapping[Any, Any] | None) -> str:
    if weight_map is None:
        return "default"
    try:
        return _canonical_weights(tuple(weight_map.items()))
    except TypeError:  # an unhashable weight: not worth remembering
        return _canonical_weights.__wrapped__(tuple(weight_map.items()))


@lru_cache(maxsize=64)
def _canonical_weights(items: tuple[tuple[Any, Any], ...]) -> str:
    """The weight map as one string: keys by name, each weight with its type (a round scores
    with the evaluator's few maps, so each is spelled out once)."""
    return ";".join(f"{key}={_number(value)}" for key, value
                    in sorted(((str(k), v) for k, v in items), key=lambda kv: kv[0]))


_NO_ADJUSTMENTS: Final = '{"adjustments":[],"output":null}'


def _result(adjustments: tuple[dict[str, Any], ...], output: dict[str, Any] | None) -> str:
    if not adjustments and output is None:
        return _NO_ADJUSTMENTS
    return json.dumps({"adjustments": list(adjustments), "output": output}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))


def guard_digest(output: JudgeOutput, *, synthesis: str, evidence: EvidenceSet,
                 weight_map: Mapping[Any, Any] | None, contradiction_penalty: float,
                 default_unknown: float, adjustments: tuple[dict[str, Any], ...],
                 repaired: dict[str, Any] | None) -> str | None:
    """The digest of one guard run: code, inputs and report (JSON data); None without a code
    fingerprint."""
    fingerprint = code_fingerprint()
    if fingerprint is None:
        return None
    hasher = hashlib.sha256()
    for part in (fingerprint, output.model_dump_json(), synthesis, evidence.model_dump_json(),
                 _weights(weight_map), _number(contradiction_penalty), _number(default_unknown),
                 _result(adjustments, repaired)):
        # surrogatepass: a lone surrogate hashes like any other character.
        _frame(hasher, part.encode("utf-8", "surrogatepass"))
    return hasher.hexdigest()


def make_memo(report: IntegrityReport, output: JudgeOutput, *, synthesis: str,
              evidence: EvidenceSet, weight_map: Mapping[Any, Any] | None,
              contradiction_penalty: float, default_unknown: float) -> GuardMemo | None:
    """The memo of ``report``, the guard's report on ``output``; None when it cannot be made."""
    adjustments = tuple(item.model_dump(mode="json") for item in report.adjustments)
    if not adjustments and report.output != output:
        return None  # not a report this module can restore
    repaired = report.output.model_dump(mode="json") if adjustments else None
    digest = guard_digest(output, synthesis=synthesis, evidence=evidence, weight_map=weight_map,
                          contradiction_penalty=contradiction_penalty,
                          default_unknown=default_unknown, adjustments=adjustments,
                          repaired=repaired)
    if digest is None:
        return None
    _count("made")
    return GuardMemo(digest=digest, adjustments=adjustments, output=repaired)


def reuse_memo(memo: GuardMemo, output: JudgeOutput, *, synthesis: str, evidence: EvidenceSet,
               weight_map: Mapping[Any, Any] | None, contradiction_penalty: float,
               default_unknown: float) -> IntegrityReport | None:
    """The guard's report on ``output`` read from ``memo`` when its digest matches this round's
    code and inputs; None (the guard must run) otherwise, also when the memo cannot be read."""
    try:
        digest = guard_digest(output, synthesis=synthesis, evidence=evidence,
                              weight_map=weight_map, contradiction_penalty=contradiction_penalty,
                              default_unknown=default_unknown, adjustments=memo.adjustments,
                              repaired=memo.output)
    except (TypeError, ValueError):  # e.g. a report that is not JSON data: the guard decides
        digest = None
    if digest is None or digest != memo.digest:
        _count("stale")
        return None
    if not memo.adjustments:
        _count("reused")
        return IntegrityReport(output, ())
    try:
        adjustments = tuple(Adjustment.model_validate(item) for item in memo.adjustments)
        repaired = JudgeOutput.model_validate(memo.output)
    except ValidationError:
        _count("stale")
        return None
    _count("reused")
    return IntegrityReport(repaired, adjustments)
