"""From a finished run's spans and logs to the answer and the evidence a judge needs.

Every convention's extractor (``extract_genai``, ``extract_openinference``,
``extract_openllmetry``, ``extract_native``) reads the whole trace; their findings are merged:
evidence is the union over every tool span and tool message of the run, deduplicated by tool-call
id and by text (chat spans repeat the whole history), each item keeping the span id and tool name
it came from, so a claim's refs point back at the span that grounds it. The answer is the run
span's own output, else the last agent span's, else the last inference without a tool call.

A plugin can take over with the ``gsar_sidecar_extract`` hook (first non-None answer wins).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.plugins import hookspec, plugin_manager
from gsar_otel.sidecar import (
    extract_genai,
    extract_native,
    extract_openinference,
    extract_openllmetry,
)
from gsar_otel.sidecar.assembly import ReadyRun
from gsar_otel.sidecar.extract_model import RANK_AGENT, Answer, Found

logger = logging.getLogger(__name__)

NOTE_NO_EVIDENCE = "no_evidence"
NOTE_PLUGIN_FAILED = "plugin_failed"


@dataclass(frozen=True, slots=True)
class ExtractedRun:
    """The run as the judge sees it."""

    answer: str | None
    answer_span_id: str
    evidence: tuple[Found, ...]
    convention: str
    notes: tuple[str, ...] = ()

    @property
    def evidence_spans(self) -> int:
        return len({item.span_id for item in self.evidence if item.span_id})

    def evidence_set(self) -> EvidenceSet:
        """Items ``E1``.. with source ``{tool_name}@{span_id}``; oversize input is cut (and
        the cut recorded) by :meth:`EvidenceSet.coerce`."""
        return EvidenceSet.coerce([
            {"id": f"E{n}", "content": item.content,
             "source": f"{item.tool_name}@{item.span_id}" if item.span_id else item.tool_name}
            for n, item in enumerate(self.evidence, start=1)])


# --- merging -------------------------------------------------------------------------------------


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def merge_evidence(found: Iterable[Found]) -> tuple[Found, ...]:
    """Union of items, tool spans first, without repeats by call id or by text."""
    items = sorted(found, key=lambda f: (f.order, f.start_ns))
    seen_ids: set[str] = set()
    seen_texts: set[str] = set()
    kept: list[Found] = []
    for item in items:
        text = _normal(item.content)
        if not text:
            continue
        if (item.call_id and item.call_id in seen_ids) or text in seen_texts:
            continue
        if item.call_id:
            seen_ids.add(item.call_id)
        seen_texts.add(text)
        kept.append(item)
    return tuple(kept)


def pick_answer(answers: Sequence[Answer], run_span_id: str) -> Answer | None:
    """The run span's own answer, else the best-ranked latest one."""
    usable = [a for a in answers if a.text.strip()]
    own = [a for a in usable if a.span_id == run_span_id and a.rank <= RANK_AGENT]
    if own:
        return max(own, key=lambda a: a.end_ns)
    if not usable:
        return None
    best = min(a.rank for a in usable)
    return max((a for a in usable if a.rank == best), key=lambda a: a.end_ns)


def builtin_extract(run: ReadyRun) -> ExtractedRun:
    """Run every built-in extractor over the trace and merge their findings."""
    answers: list[Answer] = []
    found: list[Found] = []
    for module in (extract_genai, extract_openinference, extract_openllmetry, extract_native):
        extraction = module.extract(run)
        answers.extend(extraction.answers)
        found.extend(extraction.evidence)
    run_span_id = run.run_span.span_id if run.run_span is not None else ""
    answer = pick_answer(answers, run_span_id)
    evidence = merge_evidence(found)
    notes = () if evidence else (NOTE_NO_EVIDENCE,)
    convention = run.convention
    if answer is not None and answer.span_id != run_span_id:
        convention = answer.convention if run.convention == "root" else run.convention
    return ExtractedRun(answer=answer.text if answer else None,
                        answer_span_id=answer.span_id if answer else "",
                        evidence=evidence, convention=convention, notes=notes)


# --- the plugin hook -----------------------------------------------------------------------------


class SidecarHookSpecs:
    """The sidecar's plugin hook (registered on the shared gsar_otel plugin manager)."""

    @hookspec(firstresult=True)
    def gsar_sidecar_extract(self, run: ReadyRun) -> ExtractedRun | None:
        """Read the answer and evidence of ``run`` for a convention the sidecar does not know,
        or return None to leave it to the built-in extractors. The first non-None wins."""


def _hook() -> Any:
    manager = plugin_manager()
    if not hasattr(manager.hook, "gsar_sidecar_extract") or (
            manager.hook.gsar_sidecar_extract.spec is None):
        manager.add_hookspecs(SidecarHookSpecs)
    return manager.hook.gsar_sidecar_extract


def extract_run(run: ReadyRun) -> ExtractedRun:
    """The answer and evidence of ``run``: a plugin's reading if one answers, else the built-in
    one. A plugin that raises is skipped (noted as ``plugin_failed``)."""
    notes: tuple[str, ...] = ()
    try:
        hook = _hook()
        extracted = hook(run=run) if hook.get_hookimpls() else None
    except Exception:
        logger.warning("gsar sidecar: an extractor plugin failed; using the built-in ones",
                       exc_info=True)
        extracted, notes = None, (NOTE_PLUGIN_FAILED,)
    if isinstance(extracted, ExtractedRun):
        return extracted
    built = builtin_extract(run)
    if notes:
        return ExtractedRun(answer=built.answer, answer_span_id=built.answer_span_id,
                            evidence=built.evidence, convention=built.convention,
                            notes=(*built.notes, *notes))
    return built
