"""From a finished run's spans and logs to the answer and the evidence a judge needs.

Every convention's extractor (in the order of
:data:`~gsar_otel.sidecar.conventions.registry.CONVENTIONS`) reads the whole trace; their
findings are merged: evidence is the union over every tool span and tool message of the run,
deduplicated by tool-call id and by text (chat spans repeat the whole history), each item keeping
the span id and tool name it came from, so a claim's refs point back at the span that grounds
it. The answer is the run span's own output, else the last agent span's, else the last inference
without a tool call.

Read by convention, not by framework:

- One tool call is one item: a tool span read by several conventions (OpenLLMetry's
  ``traceloop.entity.output`` beside ``gen_ai.tool.call.result``) gives one, and a history
  message answering a call a tool span already answered (same call id, or same unwrapped text)
  is that call's copy.
- A tool result whose text is an answer the run produced (a ``final_answer`` tool, a tool that
  echoes the model's output) is never evidence: it would ground the answer's own claims
  (counted ``echoes``).
- A control tool (its input holds the run's answer, or it answers a fixed acknowledgement and
  was given no data: :func:`~gsar_otel.sidecar.conventions.shapes.is_control`) is the
  framework's control flow, not evidence (counted ``controls``, its source listed).
- The answer is text: a serialized object is read for its one text field or refused
  (:func:`~gsar_otel.sidecar.conventions.shapes.answer_value`), and where it was read from is
  ``answer_source``.
- A call id answered twice with different results (a retried call) keeps both, in order; the
  later is marked as the retry's (``retry``, counted ``retries``).
- A result read only from a message history (``role: tool`` input messages, which the client of
  a chat API can write) is evidence when the trace shows the call it answers: a tool span with
  its call id, or the model's own tool call (an output message) in the run; by the tool's name
  when the ids differ (Google ADK renames call ids in the history it sends). Otherwise it is
  ``unverified``: left out by default (counted), kept and marked with ``include_unverified``.

A plugin can take over with the ``gsar_sidecar_extract`` hook (first non-None answer wins).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.plugins import hookspec, plugin_manager
from gsar_otel.sidecar.conventions.registry import CONVENTIONS
from gsar_otel.sidecar.conventions.shapes import answer_value, is_control
from gsar_otel.sidecar.conventions.shared import RANK_AGENT, Answer, Call, Found, as_text
from gsar_otel.sidecar.intake.spans import json_text

if TYPE_CHECKING:
    from gsar_otel.sidecar.assembly.ready import ReadyRun

logger = logging.getLogger(__name__)

NOTE_NO_EVIDENCE = "no_evidence"
NOTE_UNVERIFIED_HISTORY = "unverified_history"
"""Tool results were found only in message histories with no call in the trace, and left
out (e.g. every model call its own trace, no agent span)."""
NOTE_PLUGIN_FAILED = "plugin_failed"
ANSWER_SOURCE_RUN = "run_span"
ANSWER_SOURCE_AGENT = "agent_span"
ANSWER_SOURCE_MODEL = "model_output"
ANSWER_SOURCE_PLUGIN = "plugin"


@dataclass(frozen=True, slots=True)
class ExtractedRun:
    """The run as the judge sees it."""

    answer: str | None
    answer_span_id: str
    evidence: tuple[Found, ...]
    convention: str
    notes: tuple[str, ...] = ()
    echoes: int = 0
    """Tool results left out because they are the run's own answer text."""
    unverified: int = 0
    """History-only results with no call in the trace (left out unless asked for)."""
    retries: int = 0
    """Later results for an already answered call id, kept and marked."""
    controls: tuple[Found, ...] = ()
    """Tool calls left out as the framework's control flow (``finish``, ``final_answer``)."""
    answer_source: str = ANSWER_SOURCE_PLUGIN
    """Where the answer was read: ``run_span``, ``agent_span`` or ``model_output``, with
    ``:{field}`` when it came out of an envelope (``run_span:raw``)."""

    @property
    def evidence_spans(self) -> int:
        return len({item.span_id for item in self.evidence if item.span_id})

    def evidence_set(self) -> EvidenceSet:
        """Items ``E1``.. with source ``{tool_name}@{span_id}``; oversize input is cut (and
        the cut recorded) by :meth:`EvidenceSet.coerce`."""
        return EvidenceSet.coerce([
            {"id": f"E{n}", "content": item.content, "source": source(item)}
            for n, item in enumerate(self.evidence, start=1)])


def source(item: Found) -> str:
    """``{tool_name}@{span_id}``, marked ``#retry`` / ``#unverified`` where it applies."""
    text = f"{item.tool_name}@{item.span_id}" if item.span_id else item.tool_name
    if item.retry:
        text += "#retry"
    if not item.verified:
        text += "#unverified"
    return text


# --- merging -------------------------------------------------------------------------------------


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def _key(text: str) -> str:
    """Comparison key of a result: JSON compared by value, text by words, case-folded."""
    decoded = json_text(text.strip())
    if not isinstance(decoded, str):
        text = as_text(decoded)
    return _normal(text)


@dataclass(frozen=True, slots=True)
class Merged:
    """Evidence after merging, and what was left out or marked on the way."""

    items: tuple[Found, ...]
    echoes: int = 0
    unverified: int = 0
    retries: int = 0
    controls: tuple[Found, ...] = ()


def _one_per_span(items: list[Found]) -> list[Found]:
    """A tool span's own result once, however many conventions read it: the copies (the same
    text once unwrapped) become one item holding the call id and input any of them found."""
    kept: list[Found] = []
    by_span: dict[tuple[str, str], int] = {}
    for item in items:
        key = (item.span_id, _key(item.content))
        at = by_span.get(key) if item.span_id and not item.from_history else None
        if at is None:
            if item.span_id and not item.from_history:
                by_span[key] = len(kept)
            kept.append(item)
            continue
        first = kept[at]
        if first.call_id and item.call_id and first.call_id != item.call_id:
            kept.append(item)
            continue
        kept[at] = replace(first, call_id=first.call_id or item.call_id,
                           arguments=first.arguments if first.arguments is not None
                           else item.arguments)
    return kept


def merge(found: Iterable[Found], *, answers: Iterable[str] = (), calls: Iterable[Call] = (),
          include_unverified: bool = False, answer: str | None = None) -> Merged:
    """Union of items, tool spans first, one per tool call (by span, by call id, by text),
    without the run's own answers and control tools, history-only results checked against the
    trace's calls. ``answer``: the run's answer, looked for in tool inputs."""
    items = _one_per_span(sorted(found, key=lambda f: (f.order, f.start_ns)))
    answers = [a for a in answers if a.strip()]
    answer_keys = {_key(a) for a in answers}
    run_answers = [answer] if answer else []
    calls = list(calls)
    called = {c.call_id for c in calls if c.call_id}
    called_names = {c.name for c in calls if c.name}
    first_call = min((c.start_ns for c in calls), default=None)
    tool_span_ids = {f.call_id for f in items if f.call_id and not f.from_history}
    tool_span_names = {f.tool_name for f in items if not f.from_history}
    answered: set[str] = set()
    seen_texts: set[str] = set()
    kept: list[Found] = []
    controls: list[Found] = []
    echoes = unverified = retries = 0
    for item in items:
        text = _key(item.content)
        if not text or text in seen_texts:
            continue
        if item.from_history and item.call_id and item.call_id in tool_span_ids:
            continue  # the history's copy of a call its tool span answered
        if text in answer_keys:
            echoes += 1
            continue
        if is_control(item.content, item.arguments, run_answers):
            controls.append(item)
            seen_texts.add(text)
            continue
        retry = bool(item.call_id) and item.call_id in answered
        if item.call_id:
            answered.add(item.call_id)
        seen_texts.add(text)
        verified = not item.from_history or (
            item.call_id in tool_span_ids or item.call_id in called
            or item.tool_name in tool_span_names or item.tool_name in called_names
            if item.call_id else first_call is not None and first_call <= item.start_ns)
        if not verified:
            unverified += 1
            if not include_unverified:
                continue
        retries += retry
        kept.append(replace(item, retry=retry, verified=verified) if retry or not verified
                    else item)
    return Merged(tuple(kept), echoes, unverified, retries, tuple(controls))


def merge_evidence(found: Iterable[Found]) -> tuple[Found, ...]:
    """Union of items, tool spans first, without repeats by call id or by text."""
    return merge(found, include_unverified=True).items


def readable(answers: Iterable[Answer]) -> list[Answer]:
    """The answers that are text (:func:`answer_value`): envelopes read for their one text
    field (noted in ``field``), serialized objects with none left out."""
    out: list[Answer] = []
    for answer in answers:
        value = answer_value(answer.text)
        if value is not None:
            text, field = value
            out.append(replace(answer, text=text, field=field))
    return out


def pick_answer(answers: Sequence[Answer], run_span_id: str) -> Answer | None:
    """The run span's own answer, else the best-ranked latest one (text answers only)."""
    usable = [a for a in readable(answers) if a.text.strip()]
    own = [a for a in usable if a.span_id == run_span_id and a.rank <= RANK_AGENT]
    if own:
        return max(own, key=lambda a: a.end_ns)
    if not usable:
        return None
    best = min(a.rank for a in usable)
    return max((a for a in usable if a.rank == best), key=lambda a: a.end_ns)


def answer_source(answer: Answer, run_span_id: str) -> str:
    """Where the answer was read from (``run_span``, ``agent_span``, ``model_output``), with
    the envelope field it came out of (``run_span:raw``)."""
    if answer.span_id == run_span_id and answer.rank <= RANK_AGENT:
        where = ANSWER_SOURCE_RUN
    elif answer.rank <= RANK_AGENT:
        where = ANSWER_SOURCE_AGENT
    else:
        where = ANSWER_SOURCE_MODEL
    return f"{where}:{answer.field}" if answer.field else where


def builtin_extract(run: ReadyRun, *, include_unverified: bool = False) -> ExtractedRun:
    """Run every built-in extractor over the trace and merge their findings."""
    answers: list[Answer] = []
    found: list[Found] = []
    calls: list[Call] = []
    for reader in CONVENTIONS:
        extraction = reader.extract(run)
        answers.extend(extraction.answers)
        found.extend(extraction.evidence)
        calls.extend(extraction.calls)
    run_span_id = run.run_span.span_id if run.run_span is not None else ""
    answer = pick_answer(answers, run_span_id)
    merged = merge(found, answers=[a.text for a in answers] + [a.text for a in readable(answers)],
                   calls=calls, include_unverified=include_unverified,
                   answer=answer.text if answer else None)
    evidence = merged.items
    notes: tuple[str, ...] = ()
    if merged.unverified and not include_unverified:
        notes = (NOTE_UNVERIFIED_HISTORY,)
    elif not evidence:
        notes = (NOTE_NO_EVIDENCE,)
    convention = run.convention
    if answer is not None and answer.span_id != run_span_id:
        convention = answer.convention if run.convention == "root" else run.convention
    return ExtractedRun(answer=answer.text if answer else None,
                        answer_span_id=answer.span_id if answer else "",
                        evidence=evidence, convention=convention, notes=notes,
                        echoes=merged.echoes, unverified=merged.unverified,
                        retries=merged.retries, controls=merged.controls,
                        answer_source=answer_source(answer, run_span_id) if answer else "")


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


def extract_run(run: ReadyRun, *, include_unverified: bool = False) -> ExtractedRun:
    """The answer and evidence of ``run``: a plugin's reading if one answers, else the built-in
    one. A plugin that raises is skipped (noted as ``plugin_failed``). ``include_unverified``
    keeps history-only tool results the trace shows no call for (marked)."""
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
    built = builtin_extract(run, include_unverified=include_unverified)
    if notes:
        return replace(built, notes=(*built.notes, *notes))
    return built
