"""The incident-response agent of ``gsar demo``, as a script you can read and change.

    python examples/incident_agent.py                  # offline: StagedJudge, spans to the console
    OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 python examples/incident_agent.py

The agent itself (scripted tools, the over-reaching first answer, the recovery callbacks) lives in
``gsar_otel/cli/demo_agent.py`` so that ``gsar demo`` works from an installed package; this script
shows the three things an application does to use it: set up telemetry once, react to results
(here through the ``gsar_on_result`` plugin hook), and call the decorated agent.
"""

from __future__ import annotations

from gsar_otel import configure_telemetry
from gsar_otel.cli.demo_agent import ALERT_ID, make_incident_agent
from gsar_otel.core.result import GSARResult
from gsar_otel.plugins import hookimpl, register


class PrintTrajectory:
    """A result handler: print each judge round of every evaluation."""

    @hookimpl
    def gsar_on_result(self, result: GSARResult, function: str) -> None:
        for entry in result.trajectory:
            print(f"[{function}] round {entry.iteration} ({entry.action}): "
                  f"S = {entry.score:.3f} -> {entry.decision.value}")
            for claim in entry.judge_output.ungrounded_claims:
                print(f"    not grounded: {claim.text}")


def main() -> None:
    # OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else one line per evaluation on stderr
    # (GSAR_CONSOLE=spans prints every span).
    telemetry = configure_telemetry(service_name="incident-agent")
    register(PrintTrajectory())
    try:
        agent = make_incident_agent()  # StagedJudge without ANTHROPIC_API_KEY, Claude with it
        answer = agent(ALERT_ID)
        print(f"\nFinal answer:\n  {answer}")
    finally:
        telemetry.shutdown()  # flush the spans before exiting


if __name__ == "__main__":
    main()
