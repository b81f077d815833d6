"""The gsar pytest plugin: fail CI when the grounding of AI-agent answers regresses.

Hooks only. The machinery lives in the sibling modules and is imported on first use, so a test
suite that never judges an answer pays for nothing but option parsing.

- Fixtures: ``assert_grounded``, ``gsar_judge``, ``gsar_evaluator``; marker
  ``@pytest.mark.gsar(min_score=..., judge=..., decision=..., record_mode=...)``.
- Case files ``gsar_*.jsonl`` / ``*.gsar.jsonl``: one test item per recorded agent output.
- Recorded verdicts (``--gsar-record-mode``), score baselines (``--gsar-baseline``), a terminal
  summary, JUnit XML properties and an HTML report (``--gsar-report``).
- ``--gsar-block-network``: a test's call may open no connection but to ``--gsar-allowed-hosts``.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_gsar.options import (
    CONTRADICTION_POLICIES,
    DISPUTE_POLICIES,
    INI_HELP,
    RECORD_MODES,
    resolve_options,
)
from pytest_gsar.records import RECORDS_KEY, REPORT_ATTRIBUTE, JudgementRecord
from pytest_gsar.state import STATE_KEY, GSARSession

if TYPE_CHECKING:
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.core.protocol import Judge
    from pytest_gsar.cases import GSARCaseFile
    from pytest_gsar.fixtures import AssertGrounded

WORKER_DESELECTED = "gsar_deselected"
WORKER_ERRORS = "gsar_errors"
WORKER_STALE = "gsar_stale_guard_reports"
"""``workeroutput`` keys through which xdist workers tell the controller what they deselected,
their errors and how many recorded guard reports no longer matched."""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add ``pytest_gsar_make_judge`` and ``pytest_gsar_result`` for conftest files."""
    from pytest_gsar import hooks

    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``gsar`` option group; every flag also has an ini option of the same name."""
    group = parser.getgroup("gsar", "grounding of AI-agent answers (gsar)")
    group.addoption("--gsar-judge", dest="gsar_judge", metavar="NAME",
                    help="judge for assert_grounded and case files: staged, lexical, anthropic, "
                         "or a plugin's (ini: gsar_judge)")
    group.addoption("--gsar-record-mode", dest="gsar_record_mode", choices=RECORD_MODES,
                    help="recorded judge verdicts: none replays only (default), once records "
                         "into new cassettes, new_episodes adds missing verdicts, all re-records "
                         "(ini: gsar_record_mode)")
    group.addoption("--gsar-cassette-dir", dest="gsar_cassette_dir", metavar="DIR",
                    help="where recorded verdicts live (default: cassettes/gsar next to each "
                         "test file; ini: gsar_cassette_dir)")
    group.addoption("--gsar-baseline", dest="gsar_baseline", metavar="PATH",
                    help="fail when S drops or the decision gets worse against this baseline "
                         "(ini: gsar_baseline)")
    group.addoption("--gsar-update-baseline", dest="gsar_update_baseline", action="store_true",
                    help="write this run's scores into the baseline instead of failing on them")
    group.addoption("--gsar-tolerance", dest="gsar_tolerance", metavar="DROP",
                    help="largest allowed drop of S below the baseline, 0..1 (default 0.05; "
                         "ini: gsar_tolerance)")
    group.addoption("--gsar-min-score", dest="gsar_min_score", metavar="S",
                    help="lowest passing S where a test sets none, 0..1, checked as well as the "
                         "decision (ini: gsar_min_score)")
    group.addoption("--gsar-report", dest="gsar_report", metavar="PATH",
                    help="write a self-contained HTML grounding report (ini: gsar_report)")
    group.addoption("--gsar-config", dest="gsar_config", metavar="PATH",
                    help="gsar settings file with thresholds, contradiction_penalty, weight_map "
                         "(default: $GSAR_CONFIG; ini: gsar_config)")
    group.addoption("--gsar-allow-outside-links", dest="gsar_allow_outside_links",
                    action="store_true", default=None,
                    help="allow cassette and baseline paths that a symlink leads out of the "
                         "project (refused by default; ini: gsar_allow_outside_links)")
    group.addoption("--gsar-block-network", dest="gsar_block_network", action="store_true",
                    default=None,
                    help="fail a test that opens a network connection during its call, whatever "
                         "its record mode: a replay-only run must not reach a judge API "
                         "(ini: gsar_block_network; -o gsar_block_network=false turns it off)")
    group.addoption("--gsar-allowed-hosts", dest="gsar_allowed_hosts", metavar="HOSTS",
                    help="comma-separated host names or addresses still reachable with "
                         "--gsar-block-network; loopback is blocked unless listed "
                         "(ini: gsar_allowed_hosts)")
    group.addoption("--gsar-recheck", dest="gsar_recheck", action="store_true", default=None,
                    help="run the integrity guard again on every replayed verdict instead of "
                         "reusing the report recorded beside it (ini: gsar_recheck)")
    group.addoption("--gsar-strict", dest="gsar_strict", action="store_true", default=None,
                    help="fail a test whose answer the offline judge abstains on as unverified "
                         "(too few of its claims checkable against the evidence); by default it "
                         "passes and the summary counts it (ini: gsar_strict)")
    group.addoption("--gsar-contradiction-policy", dest="gsar_contradiction_policy",
                    choices=CONTRADICTION_POLICIES,
                    help="cap: a contradicted or unsupported "
                         "tool-backed claim caps the decision at regenerate "
                         "however high S is; score: S alone decides, as in the paper (default: "
                         "$GSAR_CONTRADICTION_POLICY, the settings file, else cap; "
                         "ini: gsar_contradiction_policy)")
    group.addoption("--gsar-dispute-policy", dest="gsar_dispute_policy",
                    choices=DISPUTE_POLICIES,
                    help="flag: a claim a model judge grounded but the offline engine "
                         "contradicts is reported and counted; cap: it caps the decision at "
                         "regenerate (default: $GSAR_DISPUTE_POLICY, the settings file, else "
                         "flag; ini: gsar_dispute_policy)")
    for name, text in INI_HELP.items():
        parser.addini(name, text, type="string", default="")


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker, validate the options and keep the session state in the stash."""
    config.addinivalue_line(
        "markers", "gsar(min_score=None, judge=None, decision=None, record_mode=None): per-test "
                   "settings for assert_grounded; for min_score and judge the command line and "
                   "ini options take precedence, record_mode (none|once|new_episodes|all) wins "
                   "over --gsar-record-mode and gsar_record_mode")
    state = GSARSession(config, resolve_options(config))
    state.stale_before = _stale_guard_reports()
    if state.options.baseline is not None:
        from pytest_gsar.baseline import BaselineError

        try:
            state.baseline()
        except BaselineError as error:
            raise pytest.UsageError(str(error)) from None
    config.stash[STATE_KEY] = state
    config.pluginmanager.register(_ReportCollector(state), "gsar-report-collector")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the session's event loop."""
    state = config.stash.get(STATE_KEY, None)
    if state is not None:
        state.close()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> GSARCaseFile | None:
    """Collect ``gsar_*.jsonl`` and ``*.gsar.jsonl`` as files of recorded cases."""
    if not is_case_file(file_path):
        return None
    from pytest_gsar.cases import GSARCaseFile

    case_file: GSARCaseFile = GSARCaseFile.from_parent(parent, path=file_path)
    return case_file


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In record mode ``once`` (the session's or a test's marker), note which cassettes exist
    before any test records."""
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        return
    if state.options.record_mode != "once" and not any(_marks_once(item) for item in items):
        return
    from pytest_gsar.judging import note_existing_cassettes

    note_existing_cassettes(state, items)


def _marks_once(item: pytest.Item) -> bool:
    marker = item.get_closest_marker("gsar")
    mode = None if marker is None else marker.kwargs.get("record_mode")
    return isinstance(mode, str) and mode.strip().lower() == "once"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Refuse an invalid ``@pytest.mark.gsar(record_mode=...)`` before the test runs, whatever
    judge it uses (a deterministic one never reads the mode)."""
    state = item.config.stash.get(STATE_KEY, None)
    if state is not None:
        state.record_mode_for(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """With ``--gsar-block-network``: run the test's call behind the network guard, and fail it,
    naming the hosts, when it tried to connect anywhere not allowed (even when the caller
    swallowed the refusal, as an SDK that retries or a judge that abstains does)."""
    __tracebackhide__ = True
    state = item.config.stash.get(STATE_KEY, None)
    if state is None or not state.options.block_network:
        return (yield)
    from pytest_gsar.errors import GroundingFailure
    from pytest_gsar.network import NetworkGuard, blocked_message

    with NetworkGuard(state.options.allowed_hosts) as guard:
        try:
            outcome = yield
        except Exception as error:
            if not guard.blocked:
                raise
            seen = str(error).strip().splitlines()
            message = blocked_message(item.nodeid, guard.blocked, state.record_mode_for(item))
            raise GroundingFailure(f"{message}\nthe test then failed with "
                                   f"{type(error).__name__}: {seen[0] if seen else ''}"
                                   ) from None
    if guard.blocked:
        raise GroundingFailure(blocked_message(item.nodeid, guard.blocked,
                                               state.record_mode_for(item)))
    return outcome


def is_case_file(path: Path) -> bool:
    """True for ``gsar_*.jsonl`` and ``*.gsar.jsonl``, the files of recorded cases."""
    name = path.name
    return name.endswith(".jsonl") and (name.startswith("gsar_") or name.endswith(".gsar.jsonl"))


@pytest.fixture
def assert_grounded(request: pytest.FixtureRequest) -> AssertGrounded:
    """``assert_grounded(synthesis, evidence, *, min_score=None, decision=None, judge=None,
    **evaluator_options)``: judge an answer; fail the test with the claims that fall short."""
    from pytest_gsar.fixtures import AssertGrounded

    return AssertGrounded(request.node)


@pytest.fixture
def gsar_judge(request: pytest.FixtureRequest) -> Iterator[Judge]:
    """The configured judge, replaying from (or recording into) the test's cassette."""
    from pytest_gsar.fixtures import evaluator_for, finish_recordings

    evaluator, recording = evaluator_for(request.node)
    yield evaluator.judge
    finish_recordings(recording)


@pytest.fixture
def gsar_evaluator(request: pytest.FixtureRequest) -> Iterator[GSAREvaluator]:
    """A GSAREvaluator with the configured judge and the ``GSAR_CONFIG`` settings."""
    from pytest_gsar.fixtures import evaluator_for, finish_recordings

    evaluator, recording = evaluator_for(request.node)
    yield evaluator
    finish_recordings(recording)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Put the test's judgements on its call report, which xdist carries to the controller."""
    report = yield
    if call.when == "call":
        records = item.stash.get(RECORDS_KEY, None)
        if records:
            setattr(report, REPORT_ATTRIBUTE, [record.to_json() for record in records])
            del item.stash[RECORDS_KEY]  # the report carries them from here on
    return report


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After the last case of a case file (in this process): write its recorded verdicts and
    let go of its cassette."""
    state = item.config.stash.get(STATE_KEY, None)
    if state is not None and state.evaluators and (nextitem is None
                                                   or nextitem.path != item.path):
        state.finish_file(item.path)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the baseline and the HTML report, once, on the controller."""
    state = session.config.stash.get(STATE_KEY, None)
    if state is None:
        return
    if state.dirty_stores:
        try:
            state.save_cassettes()
        except Exception as error:
            state.errors.append(str(error))
    if state.is_worker:
        workeroutput: dict[str, Any] = session.config.workeroutput  # type: ignore[attr-defined]
        workeroutput[WORKER_DESELECTED] = sorted(state.deselected)
        workeroutput[WORKER_ERRORS] = list(state.errors)  # shown by the controller
        workeroutput[WORKER_STALE] = _stale_in_session(state)
        return
    if not state.records and state.options.baseline is None and state.options.report is None:
        return
    from pytest_gsar.report import finish_session

    finish_session(state)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The gsar section: failures (everything with -v), totals, baseline news and a hint."""
    state = config.stash.get(STATE_KEY, None)
    if state is None or state.is_worker:
        return
    if not (state.records or state.diff or state.errors or state.report_written):
        return
    from pytest_gsar.report import write_summary

    write_summary(terminalreporter, state.records, verbose=config.get_verbosity() > 0,
                  diff=state.diff, baseline=state.options.baseline,
                  update=state.options.update_baseline, baseline_written=state.baseline_written,
                  report=state.report_written, errors=state.errors,
                  base=config.invocation_params.dir)
    stale = _stale_in_session(state)
    if stale > 0:
        terminalreporter.write_line(
            f"{stale} replayed verdict(s) carried an integrity guard report that no longer "
            f"matches (another gsar-otel, Python or pydantic version, or an edited cassette): "
            f"the guard checked them again; --gsar-record-mode=new_episodes records fresh "
            f"reports")


def _stale_guard_reports() -> int:
    """Recorded guard reports this process found stale so far (none while nothing loaded the
    guard memo module)."""
    import sys

    module = sys.modules.get("gsar_otel.core.guard_memo")
    return 0 if module is None else int(module.memo_stats().stale)


def _stale_in_session(state: GSARSession) -> int:
    """Replayed verdicts of this session whose recorded guard report no longer matched: this
    process's (the guard memo counts per process) and its xdist workers'."""
    return _stale_guard_reports() - state.stale_before + state.stale_guard_reports


class _ReportCollector:
    """Gathers judgements and outcomes from test reports, wherever the tests ran."""

    def __init__(self, state: GSARSession) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        state = self.state
        if state.is_worker:
            return
        if state.options.baseline is not None and (
                report.when == "call" or (report.when == "setup" and not report.passed)):
            state.outcomes[report.nodeid] = report.outcome
            state.files_ran.add(report.nodeid.split("::", 1)[0])
        data = getattr(report, REPORT_ATTRIBUTE, None)
        if data:
            state.records.extend(JudgementRecord.from_json(entry) for entry in data)
            # The records are kept once, here; reports live until the session ends.
            delattr(report, REPORT_ATTRIBUTE)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.state.deselected.update(item.nodeid for item in items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        output = getattr(node, "workeroutput", None) or {}
        self.state.deselected.update(output.get(WORKER_DESELECTED, ()))
        self.state.errors.extend(e for e in output.get(WORKER_ERRORS, ())
                                 if e not in self.state.errors)
        self.state.stale_guard_reports += int(output.get(WORKER_STALE, 0))
