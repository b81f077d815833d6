"""``gsar sidecar`` keeps the cyclic garbage collector's full collections short and rare: the
start-up objects are frozen once it listens (never walked again) and the thresholds raised
(:mod:`gsar_otel.sidecar.collector_pauses`). Its latency under the soak is measured in
``benchmarks/sidecar_soak.py``, not here."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap

from gsar_otel.sidecar import collector_pauses
from tests.sidecar.support import start_sidecar_command


def test_the_command_freezes_its_start_up_objects_once_it_listens() -> None:
    env = {**os.environ, "GSAR_JUDGE": "lexical", "OTEL_EXPORTER_OTLP_ENDPOINT": "",
           "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ""}
    process, _, banner = start_sidecar_command("--http-port", "0", "--grpc-port", "0", env=env)
    try:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    frozen = re.search(r"(\d+) start-up objects frozen for the garbage collector", banner)
    assert frozen is not None, banner
    assert int(frozen.group(1)) > 10_000  # the modules and the judge, never walked again


def test_apply_freezes_raises_the_thresholds_and_restore_undoes_both() -> None:
    # In a process of its own: freezing is process-wide.
    script = textwrap.dedent("""
        import gc
        from gsar_otel.sidecar import collector_pauses
        before = gc.get_threshold()
        keep = [[i] for i in range(1000)]
        frozen = collector_pauses.apply()
        assert frozen >= 1000 and gc.get_freeze_count() == frozen, frozen
        assert gc.get_threshold() == collector_pauses.THRESHOLDS
        assert collector_pauses.apply() == frozen  # a second call changes nothing
        collector_pauses.restore()
        assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_thresholds_make_only_full_collections_rarer_than_cpythons() -> None:
    young, middle, full = collector_pauses.THRESHOLDS
    assert (young, middle) == (700, 10) and full > 10  # young ones as short as CPython's
