"""Fork safety of the background worker, in subprocesses with a hard timeout (a hang fails the
test): a child's flush needs no import and no lock the parent held, the child does not run the
parent's queue, and children of ``multiprocessing`` get every evaluation judged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.telemetry.background_children import judged_lines

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def run(script: str, timeout: float = 120) -> dict[str, object]:
    """Run ``script`` in a new interpreter; its last stdout line (JSON), with ``stderr`` added."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GSAR_")}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env=environ)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    result["stderr"] = done.stderr
    return result


# Reaps children with a deadline: a child still running after it is stuck (and killed).
REAP = """
    import os, signal, time

    def reap(pids, limit=20.0):
        deadline = time.monotonic() + limit
        codes, stuck = [], 0
        for pid in pids:
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    codes.append(os.waitstatus_to_exitcode(status))
                    break
                if time.monotonic() > deadline:
                    stuck += 1
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    break
                time.sleep(0.005)
        return codes, stuck
"""

# Makes one module slow to import, so a fork lands while a thread is inside that import.
SLOW_IMPORT = """
    import importlib.abc, importlib.machinery, sys, threading, time

    importing = threading.Event()

    class SlowImport(importlib.abc.MetaPathFinder):
        def __init__(self, name, seconds):
            self.name, self.seconds = name, seconds

        def find_spec(self, fullname, path, target=None):
            if fullname != self.name:
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            run_module = spec.loader.exec_module
            seconds = self.seconds

            def exec_module(module):
                importing.set()
                time.sleep(seconds)
                run_module(module)

            spec.loader.exec_module = exec_module
            return spec
"""


def test_a_fork_while_the_worker_imports_its_first_jobs_leaves_no_child_stuck() -> None:
    result = run(REAP + SLOW_IMPORT + """
    import json
    sys.meta_path.insert(0, SlowImport("gsar_otel.otel.instruments", 1.0))
    from gsar_otel import flush, grounded, record_evidence
    from tests.telemetry.helpers import ScriptedJudge

    @grounded(judge=ScriptedJudge(), mode="background", name="parent")
    def agent():
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return "The answer."

    for _ in range(5):
        agent()
    assert importing.wait(10)
    pids = []
    for _ in range(10):
        pid = os.fork()
        if pid == 0:
            os._exit(0 if flush(2.0) else 3)
        pids.append(pid)
    codes, stuck = reap(pids)
    print(json.dumps({"codes": codes, "stuck": stuck, "parent": flush(10.0)}))
    """)
    result.pop("stderr")
    assert result == {"codes": [0] * 10, "stuck": 0, "parent": True}


def test_a_childs_flush_keeps_its_timeout_when_a_host_thread_was_mid_import() -> None:
    result = run(REAP + SLOW_IMPORT + """
    import json
    from gsar_otel import flush, grounded, record_evidence
    from tests.telemetry.helpers import ScriptedJudge

    @grounded(judge=ScriptedJudge(), mode="background", name="child")
    def agent():
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return "The answer."

    # A host thread (nothing of ours waits for it) is inside the import of a module judging
    # needs when the process forks: in the child that import can never finish.
    sys.meta_path.insert(0, SlowImport("gsar_otel.otel.instruments", 30.0))
    threading.Thread(target=__import__, args=("gsar_otel.otel.instruments",),
                     daemon=True).start()
    assert importing.wait(10)
    pids = []
    for _ in range(5):
        pid = os.fork()
        if pid == 0:
            agent()
            os._exit(0 if flush(0.5) else 3)
        pids.append(pid)
    codes, stuck = reap(pids)
    print(json.dumps({"codes": codes, "stuck": stuck}))
    """)
    # The children's evaluations cannot run: each fails at once, is reported and counted as
    # dropped (reason error), and no flush waits on the import.
    stderr = str(result.pop("stderr"))
    assert result == {"codes": [0] * 5, "stuck": 0}
    assert stderr.count("the background evaluation of child failed (ImportError)") == 5


def test_a_forked_child_judges_its_own_calls_and_not_the_parents_queue() -> None:
    result = run(REAP + """
    import asyncio, json, threading
    from gsar_otel import flush, grounded, record_evidence
    from gsar_otel.otel.background import current_worker
    from tests.telemetry.helpers import ScriptedJudge

    release, started = threading.Event(), threading.Event()

    class GatedJudge(ScriptedJudge):
        async def judge_verdict(self, **kwargs):
            started.set()
            while not release.is_set():
                await asyncio.sleep(0.005)
            return await super().judge_verdict(**kwargs)

    judge = GatedJudge()

    @grounded(judge=judge, mode="background", name="server", k_max=0)
    def agent(n):
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return f"Answer {n}."

    for n in range(20):  # 8 held in the judge, 12 waiting in the parent's queue
        agent(n)
    assert started.wait(10)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        inherited = current_worker()
        release.set()
        for n in range(100, 105):
            agent(n)
        ok = flush(10.0)
        os.write(w, json.dumps({"inherited": inherited is not None, "flushed": ok,
                                "judged": sorted({s for s, _ in judge.seen})}).encode())
        os._exit(0)
    os.close(w)
    codes, stuck = reap([pid])
    child = json.loads(os.read(r, 65536) or b"{}")
    release.set()
    print(json.dumps({"child": child, "codes": codes, "stuck": stuck, "parent": flush(10.0),
                      "parent_judged": len({s for s, _ in judge.seen})}))
    """)
    # The child starts with no worker and judges its own 5 calls; the parent judges its 20.
    result.pop("stderr")
    assert result == {"child": {"inherited": False, "flushed": True,
                                "judged": [f"Answer {n}." for n in range(100, 105)]},
                      "codes": [0], "stuck": 0, "parent": True, "parent_judged": 20}


@pytest.mark.parametrize("method", ["fork", "forkserver"])
@pytest.mark.parametrize("flush_at_end", [True, False], ids=["flush", "no-flush"])
def test_every_evaluation_of_multiprocessing_children_is_judged(
        tmp_path: Path, method: str, flush_at_end: bool) -> None:
    result = run(f"""
    import json, multiprocessing
    from tests.telemetry.background_children import child_work

    if __name__ == "__main__":
        context = multiprocessing.get_context({method!r})
        children = [context.Process(target=child_work,
                                    args=(f"{tmp_path}/{{n}}.spans", 10, {flush_at_end!r}))
                    for n in range(10)]
        for child in children:
            child.start()
        for child in children:
            child.join(60)
        print(json.dumps({{"exitcodes": [child.exitcode for child in children]}}))
    """)
    assert result["exitcodes"] == [0] * 10, result["stderr"]
    lines = judged_lines(tmp_path)
    assert len(lines) == 100
    assert set(lines) == {"gsar.evaluate child replan"}
