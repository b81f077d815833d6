"""The tiered judge against the Claude judge alone, on every answer of the realistic set.

Both judges use the real ``anthropic`` SDK over HTTP against the local fake Messages API
(``tests/support/fake_anthropic.py``, started here), which answers deterministically: every
claim it is asked about is grounded, citing the item sharing most words with it, and it reports
tokens as the request's bytes divided by four, the system prompt (marked ``cache_control``) as a
cache read after its first call, as the API does (``SizedResponder``). So the figures measure what the tiered
judge sends and saves, not what a real model would decide:

- claims settled offline, and model calls avoided (answers with nothing left to escalate);
- request bytes and input tokens of the tiered judge against the Claude judge alone;
- p50 time of the offline tier (the records engine) per answer: the latency the tier adds;
- the dispute precision of the offline second opinion on the Claude judge's grounded claims (a
  dispute is right when the claim overlaps the unfaithful answer's ``error_span``), which
  chooses the default ``dispute_policy`` (``cap`` only at 98% or more);
- the offline tier's verified-claim precision on the held-out half, which decides the default
  judge (``tiered`` only at 98% or more).

    python benchmarks/tiered.py            # Markdown tables
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import anthropic  # noqa: E402
from _common import quantile  # noqa: E402
from realistic import SPLITS, load, overlaps  # noqa: E402

from gsar_otel.core.evidence import coerce_evidence  # noqa: E402
from gsar_otel.judges.anthropic.judge import AnthropicJudge  # noqa: E402
from gsar_otel.judges.records.judge import RecordsJudge  # noqa: E402
from gsar_otel.judges.tiered.judge import TieredJudge  # noqa: E402
from tests.support.fake_anthropic import FakeMessagesServer, SizedResponder  # noqa: E402

KEY = "sk-ant-benchmark-not-a-real-key"


def _share(part: float, whole: float) -> str:
    return f"{part:,.0f}/{whole:,.0f} ({100.0 * part / whole:.1f}%)" if whole else "-"


async def run(cases: list[dict[str, Any]], server: FakeMessagesServer) -> dict[str, Any]:
    client = anthropic.AsyncAnthropic(api_key=KEY, base_url=server.base_url, max_retries=0)
    alone = AnthropicJudge(client=client)
    tiered = TieredJudge(AnthropicJudge(client=client))
    offline = RecordsJudge()
    totals: dict[str, Any] = {"claims": 0, "settled": 0, "escalated": 0, "calls_avoided": 0,
                              "answers": 0, "offline_s": [], "disputed": 0, "disputed_right": 0,
                              "tiered_disputed": 0}
    usage: dict[str, dict[str, int]] = {
        name: {"bytes": 0, "tokens": 0, "cached": 0, "calls": 0}
        for name in ("anthropic", "tiered")}
    for case in cases:
        evidence = coerce_evidence([{"content": e["content"], "source": e.get("source")}
                                    for e in case["evidence"]])
        answer = case["answer"]
        span = case.get("error_span") if case["label"] == "unfaithful" else None
        totals["answers"] += 1
        started = time.perf_counter()
        offline.explain(synthesis=answer, evidence=evidence)
        totals["offline_s"].append(time.perf_counter() - started)
        for name, judge in (("anthropic", alone), ("tiered", tiered)):
            before = len(server.message_requests)
            verdict = await judge.judge_verdict(synthesis=answer, evidence=evidence)
            sent = server.message_requests[before:]
            usage[name]["calls"] += len(sent)
            usage[name]["bytes"] += sum(len(r.raw) for r in sent)
            if verdict.usage is not None:
                usage[name]["tokens"] += verdict.usage.input_tokens
                usage[name]["cached"] += (verdict.usage.cache_read_input_tokens
                                          + verdict.usage.cache_creation_input_tokens)
            grounded = verdict.output.grounded_claims
            if name == "anthropic":
                disputed = [c for c in grounded if c.disputed]
                totals["disputed"] += len(disputed)
                totals["disputed_right"] += sum(bool(span) and overlaps(answer, c, span)
                                                for c in disputed)
            else:
                tiers = verdict.tiers
                assert tiers is not None
                totals["claims"] += verdict.output.to_partition().total_claims
                totals["settled"] += tiers.settled
                totals["escalated"] += tiers.escalated
                totals["calls_avoided"] += not sent
                totals["tiered_disputed"] += sum(bool(c.disputed) for c in grounded)
    await client.close()
    return {"totals": totals, "usage": usage}


def heldout_precision() -> tuple[int, int]:
    """Verified claims of the offline tier on the held-out half, and how many are wrong."""
    judge = RecordsJudge()
    verified = wrong = 0
    for case in load(SPLITS["heldout"]):
        evidence = coerce_evidence([{"content": e["content"], "source": e.get("source")}
                                    for e in case["evidence"]])
        output = judge.judge_now(synthesis=case["answer"], evidence=evidence)
        span = case.get("error_span") if case["label"] == "unfaithful" else None
        for claim in output.grounded_claims:
            verified += 1
            wrong += bool(span) and overlaps(case["answer"], claim, span)
    return verified, wrong


def main() -> int:
    cases = load([*SPLITS["dev"], *SPLITS["heldout"]])
    with FakeMessagesServer(default=SizedResponder()) as server:
        figures = asyncio.run(run(cases, server))
    totals, usage = figures["totals"], figures["usage"]
    a, t = usage["anthropic"], usage["tiered"]
    print(f"**All {totals['answers']} answers of the realistic set, both halves**\n")
    print("| measure | `anthropic` alone | `tiered` | tiered / alone |")
    print("|---|---|---|---|")
    print(f"| model calls | {a['calls']} | {t['calls']} | {t['calls'] / a['calls']:.2f} |")
    print(f"| request bytes | {a['bytes']:,} | {t['bytes']:,} | {t['bytes'] / a['bytes']:.2f} |")
    print(f"| input tokens (bytes / 4, the cached system prompt aside) | {a['tokens']:,} | "
          f"{t['tokens']:,} | {t['tokens'] / a['tokens']:.2f} |")
    print(f"| cached system-prompt tokens (read or written) | {a['cached']:,} | "
          f"{t['cached']:,} | {t['cached'] / a['cached']:.2f} |")
    print()
    print("| tiered judge | figure |")
    print("|---|---|")
    print(f"| claims settled offline | {_share(totals['settled'], totals['claims'])} |")
    print(f"| claims escalated to the model | {_share(totals['escalated'], totals['claims'])} |")
    print(f"| model calls avoided (answers settled offline) | "
          f"{_share(totals['calls_avoided'], totals['answers'])} |")
    times = totals["offline_s"]
    print(f"| offline tier per answer, p50 / p95 | {1000 * quantile(times, 0.5):.1f} ms / "
          f"{1000 * quantile(times, 0.95):.1f} ms |")
    print(f"| model-grounded claims disputed | {totals['tiered_disputed']} |")
    print()
    disputed, right = totals["disputed"], totals["disputed_right"]
    precision = 100.0 * right / disputed if disputed else 0.0
    verified, wrong = heldout_precision()
    vprec = 100.0 * (verified - wrong) / verified if verified else 0.0
    print("| choice | measured | needed | default |")
    print("|---|---|---|---|")
    print(f"| `dispute_policy` (disputes of the `anthropic` judge's grounded claims that are the "
          f"answer's error) | {precision:.1f}% of {disputed} | 98% for `cap` | "
          f"`{'cap' if disputed and precision >= 98.0 else 'flag'}` |")
    print(f"| default judge with a key (offline tier's verified precision, held-out half) | "
          f"{vprec:.1f}% of {verified} | 98% for `tiered` | "
          f"`{'tiered' if vprec >= 98.0 else 'anthropic'}` |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
