"""A small deterministic judge for the plugin's tests, offered to gsar as ``--gsar-judge=scripted``.

The plugin's tests assert exact scores, so they judge with rules simple enough to read here
rather than with the offline StagedJudge, whose heuristics may improve. Per sentence of the answer:

- "caused", "because" or "probably": ungrounded ``inference``, citing nothing;
- otherwise the evidence item sharing most words is cited; the claim is grounded when every
  number and clock time of the sentence is in that item (97% matches 97.2), else contradicted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.model import Claim, JudgeOutput
from gsar_otel.core.text import split_sentences
from gsar_otel.plugins import hookimpl

NAME = "scripted"
_TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
_NUMBER = re.compile(r"(?<![\w:.])\d+(?:\.\d+)?(?![\w:])")
_WORD = re.compile(r"[a-z0-9-]+")
_SPECULATION = ("caused", "because", "probably")


def _numbers(text: str) -> list[float]:
    return [float(n) for n in _NUMBER.findall(_TIME.sub(" ", text))]


def _supported(sentence: str, item: Evidence) -> bool:
    values = _numbers(item.content) + [float(n) for n in re.findall(r"\d+(?:\.\d+)?",
                                                                      item.content)]
    times_ok = all(t in item.content for t in _TIME.findall(sentence))
    return times_ok and all(any(abs(n - v) < 1 for v in values) for n in _numbers(sentence))


class ScriptedJudge:
    """Deterministic, offline, and plain enough to predict every score by hand."""

    name = NAME
    deterministic = True

    async def judge(self, *, synthesis: str, evidence: EvidenceSet) -> JudgeOutput:
        buckets: dict[str, list[Claim]] = {"grounded": [], "ungrounded": [], "contradicted": []}
        for sentence in split_sentences(synthesis):
            if any(word in sentence.lower() for word in _SPECULATION) or not evidence.items:
                buckets["ungrounded"].append(Claim(sentence, "inference"))
                continue
            words = set(_WORD.findall(sentence.lower()))
            item = max(evidence.items,
                       key=lambda e: len(words & set(_WORD.findall(e.content.lower()))))
            bucket = "grounded" if _supported(sentence, item) else "contradicted"
            buckets[bucket].append(Claim(sentence, item.type, [item.id]))
        grounded = not (buckets["ungrounded"] or buckets["contradicted"])
        return JudgeOutput(
            grounding_score=1.0 if grounded else 0.0, is_grounded=grounded,
            grounded_claims=buckets["grounded"], ungrounded_claims=buckets["ungrounded"],
            contradicted_claims=buckets["contradicted"],
            explanation=f"{len(buckets['grounded'])} sentence(s) match their evidence.")


class ScriptedJudgePlugin:
    """Offers the scripted judge to ``make_judge`` (and so to ``--gsar-judge``)."""

    @hookimpl
    def gsar_make_judge(self, name: str, model: str | None) -> ScriptedJudge | None:
        return ScriptedJudge() if name == NAME else None

    @hookimpl
    def gsar_judge_names(self) -> Sequence[str]:
        return [NAME]
