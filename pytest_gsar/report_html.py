"""The HTML report: one self-contained page (inline CSS and script, no external assets).

Every text written goes through the caller's mask (the plugin's Redactor) and is then
HTML-escaped; a Content-Security-Policy lets only the page's own script run, so even text that
slipped through could not execute.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Final

from pytest_gsar.baseline import BaselineDiff, decision_rank
from pytest_gsar.records import DECISION_ORDER, JudgementRecord
from pytest_gsar.report_meta import RunInfo, settings_text

BUCKET_ORDER: Final = ("contradicted", "ungrounded", "complementary", "grounded")
"""Worst first: where claims overlap in the answer, the worse bucket is the one shown."""

Mask = Callable[[str, str], str]
"""``mask(text, kind)``: the text with secrets masked (kind as for ``gsar_redact``)."""

_CSS: Final = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#1d232b;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.05em;margin:0;font-family:ui-monospace,monospace}
[hidden]{display:none!important}
.summary td,.summary th,.run td,.run th{padding:.2em .8em;text-align:left;vertical-align:top}
.run td{font-family:ui-monospace,monospace;font-size:.92em}
.filters{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #d6dbe1}
.filters input[type=search]{width:28em;max-width:100%;padding:.3em .5em}
.filters label{margin-left:1em}
section{border:1px solid #d6dbe1;border-radius:6px;margin:1em 0;padding:.6em 1em}
section.failed{border-left:6px solid #c62828}section.passed{border-left:6px solid #2e7d32}
section.missing{border-left:6px solid #f9a825}
summary{cursor:pointer;color:#56606b}.meta{color:#56606b;margin:.3em 0}
.badge{display:inline-block;border-radius:3px;padding:0 .4em;margin-left:.4em;font-size:.9em}
.badge.x{background:#ef9a9a}.badge.regressed{background:#ffcc80}
.answer{white-space:pre-wrap;background:#f7f8fa;padding:.6em;border-radius:4px}
mark{padding:0 .1em;border-radius:3px}
.b-grounded{background:#c8e6c9}.b-complementary{background:#bbdefb}
.b-ungrounded{background:#ffe082}.b-contradicted{background:#ef9a9a}
table.claims{border-collapse:collapse;width:100%;margin:.6em 0}
table.claims td,table.claims th{border-top:1px solid #e3e6ea;padding:.25em .5em;text-align:left;
vertical-align:top}
table.baseline,table.regressions{border-collapse:collapse;margin:.4em 0}
table.baseline td,table.baseline th,table.regressions td,table.regressions th{
border:1px solid #e3e6ea;padding:.2em .6em;text-align:left}
.down{color:#b71c1c;font-weight:600}.up{color:#2e7d32}
ul.contradicted{margin:.3em 0;padding-left:1.2em}
ol.evidence{font-family:ui-monospace,monospace;font-size:.92em}
.id{font-weight:600}.type{color:#56606b}.problem{color:#b71c1c}
.legend mark{margin-right:.6em}
"""

_SCRIPT: Final = """
(function(){
var q=document.getElementById("gsar-filter"),failed=document.getElementById("gsar-failed"),
x=document.getElementById("gsar-contradicted"),shown=document.getElementById("gsar-shown"),
rows=Array.prototype.slice.call(document.querySelectorAll("section[data-status]"));
rows.forEach(function(r){var t=[];
Array.prototype.forEach.call(r.querySelectorAll(".key,.claim-text,.decision"),
function(e){t.push(e.textContent);});r.gsarText=t.join("\\n").toLowerCase();});
function apply(){var words=q.value.toLowerCase().split(/\\s+/).filter(Boolean),n=0;
rows.forEach(function(r){var ok=(!failed.checked||r.getAttribute("data-status")!=="passed")&&
(!x.checked||r.getAttribute("data-contradicted")==="1")&&
words.every(function(w){return r.gsarText.indexOf(w)>=0;});r.hidden=!ok;if(ok){n++;}});
shown.textContent=n+" of "+rows.length+" shown";}
q.addEventListener("input",apply);failed.addEventListener("change",apply);
x.addEventListener("change",apply);apply();
})();
"""
_SCRIPT_HASH: Final = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
CSP: Final = (f"default-src 'none'; style-src 'unsafe-inline'; "
              f"script-src 'sha256-{_SCRIPT_HASH}'")
"""Only the report's own script may run; nothing is fetched."""


def _slug(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", value).strip("-") or "x"


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    from gsar_otel.core.text import split_sentences

    spans, position = [], 0
    for sentence in split_sentences(text):
        start = text.find(sentence, position)
        if start < 0:
            continue
        spans.append((start, start + len(sentence)))
        position = start + len(sentence)
    return spans


def claim_spans(text: str, claims: Sequence[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """Where each claim sits in the answer: ``(start, end, claim index)``, non-overlapping.

    A claim found word for word marks its own words; otherwise it marks the sentence that shares
    most of its content words. Worse buckets are placed first, so they win overlaps.
    """
    from gsar_otel.core.text import content_stems

    taken: list[tuple[int, int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e, _ in taken)

    order = sorted(range(len(claims)), key=lambda i: BUCKET_ORDER.index(claims[i]["bucket"])
                   if claims[i]["bucket"] in BUCKET_ORDER else len(BUCKET_ORDER))
    sentences = _sentence_spans(text)
    for index in order:
        claim_text = str(claims[index]["text"]).strip().rstrip(".!?;:")
        tokens = claim_text.split()
        if not tokens:
            continue
        pattern = re.compile(r"\s+".join(re.escape(t) for t in tokens), re.IGNORECASE)
        match = next((m for m in pattern.finditer(text) if free(m.start(), m.end())), None)
        if match is not None:
            taken.append((match.start(), match.end(), index))
            continue
        stems = content_stems(claim_text)
        if not stems:
            continue
        best, best_overlap = None, 0.5
        for start, end in sentences:
            overlap = len(stems & content_stems(text[start:end])) / len(stems)
            if overlap >= best_overlap and free(start, end):
                best, best_overlap = (start, end), overlap
        if best is not None:
            taken.append((best[0], best[1], index))
    return sorted(taken)


def _counts(record: JudgementRecord) -> str:
    c = record.counts
    return (f"G{c.get('grounded', 0)} U{c.get('ungrounded', 0)} X{c.get('contradicted', 0)} "
            f"K{c.get('complementary', 0)}")


def _places(old: float, new: float) -> int:
    """Two decimals, or three where two would not add up to the shown change."""
    return 2 if f"{round(old, 2) - round(new, 2):.2f}" == f"{old - new:.2f}" else 3


class _Writer:
    """Renders with one mask: every text is masked, then escaped."""

    def __init__(self, mask: Mask, info: RunInfo | None) -> None:
        self._mask = mask
        self.info = info
        self._seen: dict[tuple[str, str], str] = {}
        """Masked texts of this page: types, ids, judges and decisions repeat on every row."""

    def mask(self, text: str, kind: str) -> str:
        masked = self._seen.get((text, kind))
        if masked is None:
            masked = self._seen[(text, kind)] = self._mask(text, kind)
        return masked

    def e(self, value: object, kind: str = "explanation") -> str:
        return html.escape(self.mask(str(value), kind), quote=True)

    def answer(self, text: str, claims: Sequence[dict[str, Any]]) -> str:
        out, position = [], 0
        for start, end, index in claim_spans(text, claims):
            claim = claims[index]
            out.append(self.e(text[position:start], "synthesis"))
            refs = ", ".join(claim["refs"]) or "none"
            title = self.e(f"{claim['bucket']} · {claim['type']} · refs {refs}", "claim")
            out.append(f'<mark class="b-{self.e(claim["bucket"])}" title="{title}">'
                       f"{self.e(text[start:end], 'synthesis')}</mark>")
            position = end
        out.append(self.e(text[position:], "synthesis"))
        return "".join(out)

    def baseline_table(self, record: JudgementRecord) -> str:
        """Stored and new S and decision side by side, with the change."""
        old, new = record.baseline_score, record.score
        if old is None or new is None:
            return ""
        places = _places(old, new)
        delta = new - old
        trend = "down" if delta < 0 else ("up" if delta > 0 else "")
        old_rank, new_rank = (decision_rank(record.baseline_decision or ""),
                              decision_rank(record.decision or ""))
        change = "worse" if new_rank > old_rank else ("better" if new_rank < old_rank else "same")
        moved = {"worse": "down", "better": "up"}.get(change, "")
        return ('<table class="baseline"><tr><th></th><th>baseline</th><th>this run</th>'
                f'<th>change</th></tr><tr><th>S</th><td class="stored">{old:.{places}f}</td>'
                f'<td class="now">{new:.{places}f}</td><td class="delta {trend}">'
                f"{delta:+.{places}f}</td></tr><tr><th>decision</th>"
                f'<td class="stored">{self.e(record.baseline_decision)}</td>'
                f'<td class="now">{self.e(record.decision)}</td>'
                f'<td class="delta {moved}">{change}</td></tr></table>')

    def contradicted(self, claims: Sequence[dict[str, Any]]) -> str:
        """The contradicted claims, listed where they are seen without expanding anything."""
        shown = [c for c in claims if c.get("bucket") == "contradicted"]
        if not shown:
            return ""
        items = "".join(
            f'<li><mark class="b-contradicted">contradicted</mark> '
            f'<span class="claim-text">{self.e(c["text"], "claim")}</span> '
            f'<span class="type">[{self.e(c["type"])} · refs '
            f'{self.e(", ".join(c["refs"]) or "none")}]</span></li>' for c in shown)
        return f'<ul class="contradicted">{items}</ul>'

    def head(self, record: JudgementRecord, status: str) -> str:
        parts = [f'<div class="head"><h2 class="key" style="display:inline">'
                 f'{self.e(record.key)}</h2> — <span class="status">{status}</span>']
        if record.score is not None:
            parts.append(f' · S {record.score:.2f} · <span class="decision">'
                         f"{self.e(record.decision)}</span>")
        contradicted = record.counts.get("contradicted", 0)
        if contradicted:
            parts.append(f'<span class="badge x">{contradicted} contradicted</span>')
        if record.regressed:
            parts.append('<span class="badge regressed">baseline regression</span>')
        parts.append("</div>")
        return "".join(parts)

    def meta(self, record: JudgementRecord) -> str:
        meta = [f"judge {self.e(record.judge)}"] if record.judge else []
        if record.score is not None:
            meta.append(self.e(_counts(record)))
        if (not record.regressed and record.baseline_score is not None
                and record.baseline_delta is not None):
            meta.append(f"baseline S {record.baseline_score:.2f} "
                        f"({record.baseline_delta:+.2f}), {self.e(record.baseline_decision)}")
        settings = (record.details or {}).get("settings")
        if isinstance(settings, dict) and self.info is not None:
            own = settings_text(settings)
            if own and own != self.info.thresholds:
                meta.append(f"thresholds {self.e(own)}")
        return f'<p class="meta">{" · ".join(meta)}</p>'

    def claims_table(self, number: int, claims: Sequence[dict[str, Any]]) -> str:
        rows = ['<table class="claims"><tr><th>bucket</th><th>claim</th><th>type</th>'
                "<th>weight</th><th>evidence</th><th>adjusted</th></tr>"]
        for claim in claims:
            refs = ", ".join(f'<a href="#r{number}-{_slug(self.mask(ref, "evidence"))}">'
                             f"{self.e(ref, 'evidence')}</a>" for ref in claim["refs"]) or "—"
            rows.append(
                f'<tr><td><mark class="b-{self.e(claim["bucket"])}">{self.e(claim["bucket"])}'
                f'</mark></td><td class="claim-text">{self.e(claim["text"], "claim")}</td>'
                f"<td>{self.e(claim['type'])}</td><td>{self.e(claim.get('weight', ''))}</td>"
                f"<td>{refs}</td><td>{self.e(', '.join(claim.get('adjustments', [])))}</td></tr>")
        rows.append("</table>")
        return "".join(rows)

    def row(self, number: int, record: JudgementRecord) -> str:
        status = "missing" if record.missing is not None else ("passed" if record.passed
                                                                else "failed")
        details = record.details or {}
        claims: list[dict[str, Any]] = details.get("claims", [])
        contradicted = "1" if record.counts.get("contradicted", 0) else "0"
        parts = [f'<section class="{status}" id="r{number}" data-status="{status}" '
                 f'data-contradicted="{contradicted}" '
                 f'data-regressed="{"1" if record.regressed else "0"}">',
                 self.head(record, status), self.meta(record)]
        if record.regressed:
            parts.append(self.baseline_table(record))
        parts += [f'<p class="problem">{self.e(problem)}</p>' for problem in record.problems]
        parts.append(self.contradicted(claims))
        if details:
            parts.append(f'<details{" open" if status != "passed" else ""}><summary>answer, '
                         f"claims and evidence</summary>")
            parts.append(f'<div class="answer">'
                         f'{self.answer(details.get("synthesis", ""), claims)}</div>')
            if claims:
                parts.append(self.claims_table(number, claims))
            if details.get("explanation"):
                parts.append(f'<p class="meta">judge: '
                             f'{self.e(details["explanation"])}</p>')
            parts.append('<ol class="evidence">')
            for item in details.get("evidence", []):
                parts.append(f'<li id="r{number}-{_slug(self.mask(item["id"], "evidence"))}">'
                             f'<span class="id">{self.e(item["id"], "evidence")}</span> '
                             f'<span class="type">[{self.e(item["type"])}]</span> '
                             f"{self.e(item['content'], 'evidence')}</li>")
            parts.append("</ol></details>")
        parts.append("</section>")
        return "".join(parts)

    def regressions(self, numbered: Sequence[tuple[int, JudgementRecord]]) -> str:
        """The baseline regressions at a glance: stored and new S and decision, with links."""
        rows = []
        for number, record in numbered:
            old, new = record.baseline_score, record.score
            if not record.regressed or old is None or new is None:
                continue
            places = _places(old, new)
            rows.append(f'<tr><td><a href="#r{number}">{self.e(record.key)}</a></td>'
                        f'<td class="stored">{old:.{places}f}</td><td class="now">'
                        f'{new:.{places}f}</td><td class="delta">{new - old:+.{places}f}</td>'
                        f'<td class="stored">{self.e(record.baseline_decision)}</td>'
                        f'<td class="now">{self.e(record.decision)}</td></tr>')
        if not rows:
            return ""
        return ('<h2>baseline regressions</h2><table class="regressions"><tr><th>judgement</th>'
                "<th>baseline S</th><th>S</th><th>change</th><th>baseline decision</th>"
                f"<th>decision</th></tr>{''.join(rows)}</table>")

    def run_info(self) -> str:
        if self.info is None:
            return ""
        rows = "".join(f"<tr><th>{self.e(label)}</th><td>{self.e(value)}</td></tr>"
                       for label, value in self.info.rows)
        return f'<table class="run" id="run">{rows}</table>'


_FILTERS: Final = (
    '<div class="filters" role="search"><input type="search" id="gsar-filter" '
    'placeholder="filter by test id, claim or decision" aria-label="filter judgements" '
    'autocomplete="off"><label><input type="checkbox" id="gsar-failed"> failed only</label>'
    '<label><input type="checkbox" id="gsar-contradicted"> contradicted only</label> '
    '<span id="gsar-shown" class="meta"></span></div>')


def render_html(records: Sequence[JudgementRecord], *, mask: Mask, diff: BaselineDiff | None = None,
                info: RunInfo | None = None, title: str = "gsar grounding report") -> str:
    """A self-contained HTML page showing every judgement: run metadata, totals, a filter box,
    baseline regressions side by side, then one section per judgement, failures first."""
    w = _Writer(mask, info)
    judged = [r for r in records if r.score is not None]
    decisions = Counter(r.decision for r in judged)
    rows = [f"<tr><th>judgements</th><td>{len(records)}</td></tr>",
            f"<tr><th>failed</th><td>{sum(not r.passed for r in records)}</td></tr>"]
    rows += [f"<tr><th>{w.e(d)}</th><td>{decisions[d]}</td></tr>" for d in DECISION_ORDER
             if decisions[d]]
    contradicted = sum(bool(r.counts.get("contradicted", 0)) for r in records)
    if contradicted:
        rows.append(f"<tr><th>with contradicted claims</th><td>{contradicted}</td></tr>")
    if judged:
        mean = sum(r.score for r in judged if r.score is not None) / len(judged)
        rows.append(f"<tr><th>mean S</th><td>{mean:.3f}</td></tr>")
    if diff is not None:
        rows.append(f"<tr><th>baseline</th><td>{len(diff.regressed)} regressed, "
                    f"{len(diff.new)} new, {len(diff.vanished)} vanished</td></tr>")
    legend = "".join(f'<mark class="b-{b}">{b}</mark>' for b in reversed(BUCKET_ORDER))
    numbered = list(enumerate(sorted(records, key=lambda r: (r.passed, r.key)), 1))
    body = "".join(w.row(number, record) for number, record in numbered)
    vanished = ""
    if diff is not None and diff.vanished:
        vanished = ("<h2>vanished from the baseline</h2><ul>"
                    + "".join(f"<li>{w.e(key)}</li>" for key in diff.vanished) + "</ul>")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>{w.e(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{w.e(title)}</h1>{w.run_info()}<table class=\"summary\">{''.join(rows)}"
            f"</table>{w.regressions(numbered)}<p class=\"legend\">{legend}</p>{_FILTERS}"
            f"{body}{vanished}<script>{_SCRIPT}</script></body></html>\n")
