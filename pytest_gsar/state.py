"""Per-session state kept in ``config.stash``: judges, cassettes, the event loop, the records.

Everything expensive is built on first use and cached for the session (per xdist worker): one
judge per name, one cassette store per file, one event loop for every judgement (so an HTTP
client a judge keeps stays bound to a live loop).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from pytest_gsar.options import GSAROptions, marker_record_mode
from pytest_gsar.records import JudgementRecord

if TYPE_CHECKING:
    import asyncio

    from gsar_otel.config import GSARSettings
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.core.protocol import Judge
    from gsar_otel.judges.recorded.judge import RecordingJudge
    from gsar_otel.judges.recorded.store import CassetteStore
    from gsar_otel.otel.setup import TelemetryHandle
    from pytest_gsar.baseline import BaselineDiff, BaselineEntry

T = TypeVar("T")


class GSARSession:
    """What the plugin knows during one pytest session."""

    def __init__(self, config: pytest.Config, options: GSAROptions) -> None:
        self.config = config
        self.options = options
        self.is_worker = hasattr(config, "workerinput")
        self.records: list[JudgementRecord] = []
        """Every judgement reported in this process (on the controller: from all workers)."""
        self.files_ran: set[str] = set()
        """Test files with at least one test that ran (on the controller)."""
        self.outcomes: dict[str, str] = {}
        """passed / failed / skipped per test node id, kept when a baseline is in use."""
        self.deselected: set[str] = set()
        self.diff: BaselineDiff | None = None
        self.baseline_written: int | None = None
        self.report_written: Path | None = None
        self.errors: list[str] = []
        self.stale_guard_reports = 0  # stale recorded guard reports the xdist workers found
        self.stale_before = 0  # the process's count of stale guard reports before this session
        self._judges: dict[str, Judge] = {}
        self._judge_errors: dict[str, str] = {}
        self._identities: dict[int, tuple[Judge, dict[str, str]]] = {}
        self._stores: dict[Path, CassetteStore] = {}
        self._loop: asyncio.AbstractEventLoop | None = None  # built on first judgement
        self.evaluators: dict[tuple[Path, int, bool],
                              tuple[GSAREvaluator, RecordingJudge | None]] = {}
        self.preexisting: dict[Path, bool] = {}
        """Whether each cassette existed when collection ended (for record mode ``once``: every
        xdist worker collects before any test runs, so all agree whatever others record)."""
        self.dirty_stores: set[CassetteStore] = set()
        """Cassettes with recordings not yet written (a case file's, until its last case)."""
        self._baseline: dict[str, BaselineEntry] | None = None
        self._hook_judge: tuple[Judge | None] | None = None
        self._settings: GSARSettings | None = None
        self._telemetry: TelemetryHandle | None = None
        self._telemetry_checked = False
        self._current_providers: Callable[[], tuple[Any, Any]] | None = None
        self._providers_seen: tuple[Any, Any] | None = None
        self._listening = False

    # --- judges -----------------------------------------------------------------------------

    def judge_named(self, name: str) -> Judge:
        """The judge called ``name``, built once per session.

        In record mode ``none`` the Anthropic judge is not built at all (replaying needs no API
        key and no SDK): a :class:`DeferredJudge` with the same identity stands in for it.

        Raises:
            ValueError: no judge answers to ``name``, or it cannot be built (e.g. no API key).
        """
        key = name.strip().lower()
        judge = self._judges.get(key)
        if judge is not None:
            return judge
        if key in self._judge_errors:
            raise ValueError(self._judge_errors[key])
        if key == "anthropic" and self.options.record_mode == "none":
            from pytest_gsar.deferred import DeferredJudge, anthropic_identity

            judge = self._judges[key] = DeferredJudge(anthropic_identity(self.judge_model()),
                                                      lambda: self._build(key))
            return judge
        judge = self._judges[key] = self._build(key)
        return judge

    def _build(self, key: str) -> Judge:
        from gsar_otel.judges.factory import make_judge

        model = self.judge_model()
        try:
            return make_judge(key, model=model)
        except Exception as error:
            self._judge_errors[key] = f"cannot build the {key!r} judge: {error}"
            raise ValueError(self._judge_errors[key]) from None

    def judge_model(self) -> str | None:
        """The judge model the settings name (``GSAR_JUDGE_MODEL`` / ``GSAR_CONFIG``), if any."""
        model = self.settings_value("judge_model")
        return str(model) if model else None

    def default_judge(self) -> Judge:
        """The judge used when nothing names one: the ``pytest_gsar_make_judge`` hook, else the
        ``GSAR_CONFIG`` / ``GSAR_JUDGE`` setting, else ``make_judge``'s default."""
        if self._hook_judge is None:
            made = self.config.hook.pytest_gsar_make_judge(config=self.config)
            self._hook_judge = (made,)
        if self._hook_judge[0] is not None:
            return self._hook_judge[0]
        configured = self.settings_value("judge")
        from gsar_otel.judges.factory import default_judge_name

        return self.judge_named(str(configured) if configured else default_judge_name())

    def identity(self, judge: Judge) -> dict[str, str]:
        """The judge's identity for cassette keys, computed once per judge."""
        # Keyed by id, holding the judge so that its id cannot be reused by another object.
        cached = self._identities.get(id(judge))
        if cached is None or cached[0] is not judge:
            from gsar_otel.judges.recorded.judge import judge_identity

            cached = self._identities[id(judge)] = (judge, judge_identity(judge))
        return cached[1]

    # --- settings from GSAR_CONFIG ----------------------------------------------------------

    def settings(self) -> GSARSettings:
        """The ``GSAR_*`` settings and the settings file (``--gsar-config`` / ``gsar_config``,
        else ``GSAR_CONFIG``), under ``--gsar-contradiction-policy``, read once per session.

        Raises:
            ValueError: the settings are invalid (the message names the variable or key).
        """
        if self._settings is None:
            from gsar_otel import environment
            from gsar_otel.config import load_settings

            self._settings = load_settings(self.options.settings_env(environment.environ()))
        return self._settings

    def settings_value(self, name: str) -> Any:
        """One value of :meth:`settings`."""
        return getattr(self.settings(), name, None)

    # --- cassettes --------------------------------------------------------------------------

    def record_mode_for(self, item: pytest.Item) -> str:
        """The record mode of ``item``: its ``@pytest.mark.gsar(record_mode=...)``, else the
        command line's, else the ini file's, else ``none``.

        Raises:
            GroundingFailure: the marker names no record mode (naming the test and the modes).
        """
        return marker_record_mode(item) or self.options.record_mode

    def store(self, path: Path, record_mode: str | None = None) -> CassetteStore:
        """The cassette at ``path``, loaded once per session. Record mode ``all`` (the session's,
        or ``record_mode`` of the test asking first) may replace a damaged one (it records every
        verdict again).

        Raises:
            CassetteError: a symlink leads the path out of the project (see
                :func:`check_inside_project`).
        """
        store = self._stores.get(path)
        if store is None:
            from gsar_otel.judges.recorded.store import CassetteError, CassetteStore

            try:
                self.check_inside_project(path, "cassette")
            except ValueError as error:
                raise CassetteError(str(error)) from None
            store = self._stores[path] = CassetteStore(
                path, existed=self.preexisting.get(path),
                replace_damaged=(record_mode or self.options.record_mode) == "all")
        return store

    def check_inside_project(self, path: Path, what: str) -> None:
        """Refuse ``path`` when it lies in the project but a symlink sends it outside.

        Raises:
            ValueError: naming the path, where it leads and how to allow it.
        """
        if not self.options.allow_outside_links:
            check_inside_project(path, self.config.rootpath, what=what)

    def cassette_base(self, test_file: Path) -> Path:
        """Directory holding the cassettes of ``test_file``'s tests."""
        directory = self.options.cassette_dir
        if directory is None:
            return test_file.parent / "cassettes" / "gsar"
        try:
            relative = test_file.parent.resolve().relative_to(self.config.rootpath)
        except ValueError:
            return directory
        return directory / relative

    # --- baseline ---------------------------------------------------------------------------

    def baseline(self) -> dict[str, BaselineEntry]:
        """The baseline's entries (none without ``--gsar-baseline``), loaded once."""
        if self._baseline is None:
            path = self.options.baseline
            if path is None:
                self._baseline = {}
            else:
                from pytest_gsar.baseline import BaselineError, load_baseline

                try:
                    self.check_inside_project(path, "baseline")
                except ValueError as error:
                    raise BaselineError(str(error)) from None
                self._baseline = load_baseline(path)
        return self._baseline

    # --- running judgements -----------------------------------------------------------------

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the session's event loop (in a worker thread inside async code)."""
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if self._loop is None or self._loop.is_closed():
                self._loop = asyncio.new_event_loop()
            return self._loop.run_until_complete(coroutine)
        from gsar_otel.runtime.loop import run_sync

        return run_sync(coroutine)

    def finish_file(self, path: Path) -> None:
        """A case file's last case ran: write what was recorded and drop its cassette from
        memory (a big suite's verdicts otherwise stay alive, and slow every garbage collection,
        until the process ends). A case of the file that runs later loads it again.

        Raises:
            CassetteError: a cassette cannot be written.
        """
        if self.dirty_stores:
            self.save_cassettes()
        for key in [key for key in self.evaluators if key[0] == path]:
            _, recording = self.evaluators.pop(key)
            if recording is not None:
                self._stores.pop(recording.store.path, None)

    def save_cassettes(self) -> None:
        """Write every cassette with unwritten recordings.

        Raises:
            CassetteError: a cassette cannot be written (the others are still tried).
        """
        stores, self.dirty_stores = list(self.dirty_stores), set()
        failures = []
        for store in stores:
            try:
                store.save()
            except Exception as error:
                failures.append(error)
        if failures:
            raise failures[0]

    def ensure_telemetry(self) -> None:
        """Export gsar's spans and metrics when ``OTEL_EXPORTER_OTLP_*ENDPOINT`` is set and nothing
        else set up OpenTelemetry, so CI runs show up in tracing. Once per session.

        The providers are gsar's own (``set_global=False``): the test suite's global providers
        stay untouched. Telemetry problems never fail a test.
        """
        if self._telemetry_checked:
            return
        self._telemetry_checked = True
        try:
            from gsar_otel.otel.instruments import current_providers
            from gsar_otel.otel.setup import (
                configure_telemetry,
                host_meter_provider,
                host_tracer_provider,
                otlp_endpoint_set,
            )

            if not (otlp_endpoint_set("traces") or otlp_endpoint_set("metrics")):
                return
            if host_tracer_provider() is not None or host_meter_provider() is not None:
                return
            from opentelemetry import trace

            if current_providers()[0] is not trace.get_tracer_provider():
                return  # someone already pointed gsar's telemetry somewhere
            self._telemetry = configure_telemetry(console=False, console_metrics=False,
                                                  set_global=False)
        except Exception:
            logging.getLogger(__name__).debug("gsar: could not set up telemetry export",
                                              exc_info=True)

    def telemetry_listening(self) -> bool:
        """True when a tracer or meter provider would receive gsar's telemetry (checked per
        judgement: a test may install providers mid-session). Without one, judging skips the
        span and metric work entirely: no-op providers would drop it anyway."""
        if self._current_providers is None:
            self._telemetry_checked = self._telemetry_checked or not _otlp_configured()
            self.ensure_telemetry()  # a no-op without an endpoint: nothing imported for it
            if not _telemetry_imported():
                return False  # no tracer or meter provider can exist yet: checked again later
            from gsar_otel.otel.instruments import current_providers

            self._current_providers = current_providers
        providers = self._current_providers()
        if providers != self._providers_seen:
            from opentelemetry import metrics, trace

            tracer_provider, meter_provider = providers
            silent_tracer = isinstance(tracer_provider, trace.ProxyTracerProvider
                                       | trace.NoOpTracerProvider)
            silent_meter = isinstance(meter_provider, metrics.NoOpMeterProvider) or type(
                meter_provider).__name__ == "_ProxyMeterProvider"
            self._providers_seen = providers
            self._listening = not (silent_tracer and silent_meter)
        return self._listening

    def close(self) -> None:
        """Flush gsar's exporters (when this session set them up) and release the event loop."""
        telemetry, self._telemetry = self._telemetry, None
        if telemetry is not None:
            try:
                telemetry.shutdown()
            except Exception:
                logging.getLogger(__name__).debug("gsar: telemetry shutdown failed",
                                                  exc_info=True)
        loop, self._loop = self._loop, None
        if loop is not None:
            from gsar_otel.runtime.loop_resources import close_owned_loop

            close_owned_loop(loop)


def _otlp_configured() -> bool:
    from gsar_otel.otel.exporter_choice import endpoint_set

    return endpoint_set("traces") or endpoint_set("metrics")


def _telemetry_imported() -> bool:
    """False while nothing in the process has imported OpenTelemetry or gsar's instruments: no
    provider can have been set, so judging need not import them to find none."""
    return "opentelemetry" in sys.modules or "gsar_otel.otel.instruments" in sys.modules


def check_inside_project(path: Path, root: Path, *, what: str) -> None:
    """Refuse a cassette or baseline path inside the project that a symlink leads out of it.

    A committed symlink could otherwise make a test run read, or record over, any file the user
    can reach. A path given outside the project in the first place is the user's choice and is
    allowed; so is every path with ``--gsar-allow-outside-links``.

    Raises:
        ValueError: naming the path, where it leads and how to allow it.
    """
    lexical = Path(os.path.abspath(path))
    real_root = root.resolve()
    if not (lexical.is_relative_to(root) or lexical.is_relative_to(real_root)):
        return
    target = lexical.resolve()
    if target.is_relative_to(real_root):
        return
    raise ValueError(f"{what} {lexical} is inside the project but a symlink leads it to "
                     f"{target}, outside the project ({real_root}); refusing to read or write "
                     f"it. If that is intended, pass --gsar-allow-outside-links (ini: "
                     f"gsar_allow_outside_links = true)")


STATE_KEY = pytest.StashKey[GSARSession]()
"""Where the session's GSARSession lives in ``config.stash``."""


def session_of(config: pytest.Config) -> GSARSession:
    """The GSARSession of ``config``."""
    return config.stash[STATE_KEY]
