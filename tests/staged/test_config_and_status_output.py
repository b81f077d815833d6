"""Config and status output is read field by field, each value under its own key path:

- a YAML block's keys carry the block's name (``cache:`` over ``  enabled: true`` is
  ``cache.enabled``): another block's ``enabled`` never decides a claim about the cache;
- an INFO dump's ``key:value`` lines (Redis) are fields; ``used_memory_human`` is the same measure
  as ``used_memory``, written with its unit;
- a window in a key (``burn_rate_1h``) is named by "the 1h burn rate", and "12.5% of the error
  budget" is the budget's;
- ``systemctl status``'s Loaded/Active lines are the unit's on the line above them;
- Terraform's plan summary is three counts;
- a record under a command line (``argocd app get checkout``) states the state of the thing the
  claim names by its record's name.

Swapping any one value is never grounded; restating it is."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
BLOCKS = ["cache", "retries", "tracing", "compression", "autoscaling"]


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


@settings(max_examples=40)
@given(states=st.lists(st.booleans(), min_size=2, max_size=len(BLOCKS)),
       numbers=st.lists(st.integers(1, 900), min_size=len(BLOCKS), max_size=len(BLOCKS)),
       pick=st.integers(0, 4))
def test_a_yaml_block_is_read_under_its_own_name(states: list[bool], numbers: list[int],
                                                 pick: int) -> None:
    lines = []
    for name, on, number in zip(BLOCKS, states, numbers, strict=False):
        lines += [f"{name}:", f"  enabled: {'true' if on else 'false'}", f"  limit: {number}"]
    text = "\n".join(lines)
    chosen = pick % len(states)
    name, on = BLOCKS[chosen], states[chosen]
    said, other = ("enabled", "disabled") if on else ("disabled", "enabled")
    assert bucket(f"The {name} setting is {said}.", [text]) == "grounded", text
    assert bucket(f"The {name} setting is {other}.", [text]) == "contradicted", text
    assert bucket(f"The {name} limit is {numbers[chosen]}.", [text]) == "grounded", text
    assert bucket(f"The {name} limit is {numbers[chosen] + 1}.", [text]) != "grounded", text


@settings(max_examples=30)
@given(clients=st.integers(1, 5000), blocked=st.integers(0, 50),
       used=st.integers(100, 999), ratio=st.integers(100, 300))
def test_an_info_dump_is_read_field_by_field(clients: int, blocked: int, used: int,
                                             ratio: int) -> None:
    text = "\n".join(["# Memory", f"used_memory:{used * 1048576}",
                      f"used_memory_human:{used}.00M",
                      f"mem_fragmentation_ratio:{ratio / 100}", "# Clients",
                      f"connected_clients:{clients}", f"blocked_clients:{blocked}"])
    assert bucket(f"Redis had {clients} connected clients.", [text]) == "grounded", text
    assert bucket(f"{blocked} clients were blocked.", [text]) == "grounded", text
    assert bucket(f"Redis used {used}.00M of memory.", [text]) == "grounded", text
    if blocked != clients:
        assert bucket(f"Redis had {blocked} connected clients.", [text]) == "contradicted", text
    assert bucket(f"Redis used {used + 7}.00M of memory.", [text]) != "grounded", text


@settings(max_examples=30)
@given(short=st.integers(10, 300), long=st.integers(10, 300), left=st.integers(1, 99))
def test_a_window_in_a_key_is_named_by_the_claim(short: int, long: int, left: int) -> None:
    row = (f"slo=checkout-availability window=30d target=99.9 burn_rate_1h={short / 10} "
           f"burn_rate_6h={long / 10} error_budget_remaining_pct={left}.5")
    assert bucket(f"The 1h burn rate was {short / 10}.", [row]) == "grounded", row
    assert bucket(f"The 6h burn rate was {long / 10}.", [row]) == "grounded", row
    assert bucket(f"{left}.5% of the error budget remains.", [row]) == "grounded", row
    if short != long:
        assert bucket(f"The 6h burn rate was {short / 10}.", [row]) == "contradicted", row
        assert bucket(f"The 1h burn rate was {long / 10}.", [row]) == "contradicted", row


UNITS = ["nginx.service", "postgresql@14-main.service", "kubelet.service", "certbot.timer"]


@settings(max_examples=30)
@given(unit=st.sampled_from(UNITS), failed=st.booleans(), pid=st.integers(100, 99999))
def test_systemctl_status_lines_are_the_units(unit: str, failed: bool, pid: int) -> None:
    state = "failed (Result: exit-code)" if failed else "active (running)"
    text = "\n".join([f"● {unit} - A unit", f"     Loaded: loaded (/lib/systemd/system/{unit}; "
                      "enabled)", f"     Active: {state} since Mon 2024-06-10 14:02:11 UTC; "
                      "5min ago", f"   Main PID: {pid} (code=exited, status=1/FAILURE)"
                      if failed else f"   Main PID: {pid} (nginx)"])
    assert (bucket(f"{unit} failed.", [text]) == "grounded") == failed, text
    assert bucket(f"{unit} is down.", [text]) == ("grounded" if failed else "contradicted"), text
    assert bucket(f"{unit} is running.", [text]) == ("contradicted" if failed else "grounded"), \
        text


@settings(max_examples=30)
@given(add=st.integers(0, 40), change=st.integers(0, 40), destroy=st.integers(0, 40))
def test_a_plan_summary_is_three_counts(add: int, change: int, destroy: int) -> None:
    text = ("Terraform will perform the following actions:\n"
            f"Plan: {add} to add, {change} to change, {destroy} to destroy.")
    assert bucket(f"The plan adds {add} resources.", [text]) == "grounded", text
    assert bucket(f"The plan destroys {destroy} resources.", [text]) == "grounded", text
    if add != destroy:
        assert bucket(f"The plan destroys {add} resources.", [text]) == "contradicted", text


@settings(max_examples=20)
@given(app=st.sampled_from(["checkout", "payments", "search"]),
       health=st.sampled_from([("Healthy", "healthy", "degraded"),
                               ("Degraded", "degraded", "healthy")]))
def test_a_record_under_a_command_line_states_the_named_things_state(
        app: str, health: tuple[str, str, str]) -> None:
    shown, same, other = health
    text = f"argocd app get {app}\nName: {app}\nHealth Status: {shown}"
    assert bucket(f"The {app} app is {same}.", [text]) == "grounded", text
    assert bucket(f"The {app} app is {other}.", [text]) == "contradicted", text


@settings(max_examples=30)
@given(pod=st.sampled_from(["checkout-api-7d9f-q8zt4", "worker-0", "db-prod-2"]),
       version=st.sampled_from(["v3.9.12", "2.4.0", "v1.0.1"]), code=st.sampled_from([1, 137, 143]),
       running=st.booleans())
def test_running_is_a_state_only_when_nothing_says_what_runs(pod: str, version: str, code: int,
                                                              running: bool) -> None:
    """"is running" is up, "was running v3.9.12" says what ran; an "exit code" is no state."""
    phase = "Running" if running else "Failed"
    row = f"pod={pod} phase={phase} image_tag={version} last_exit_code={code}"
    assert (bucket(f"{pod} is running.", [row]) == "grounded") == running, row
    assert bucket(f"{pod} was running {version}.", [row]) == "grounded", row
    assert bucket(f"The last exit code of {pod} was {code}.", [row]) == "grounded", row


@settings(max_examples=40)
@given(level=st.integers(0, 5), said=st.integers(0, 5),
       form=st.sampled_from(["a P{n} incident", "priority P{n}", "a SEV{n} incident"]),
       shown=st.sampled_from(["P{n}", "SEV{n}", "p{n}"]), p99=st.integers(10, 900))
def test_a_priority_is_a_level_and_never_a_percentile(level: int, said: int, form: str,
                                                      shown: str, p99: int) -> None:
    record = (f'{{"incident": "INC-2231", "priority": "{shown.format(n=level)}", '
              f'"service": "checkout-api", "p99_ms": {p99}}}')
    claim = f"INC-2231 is {form.format(n=said)}."
    same_scale = ("SEV" in form) == ("SEV" in shown)  # a severity is no priority
    got = bucket(claim, [record])
    if same_scale:
        assert got == ("grounded" if said == level else "contradicted"), (claim, record)
    else:
        assert got != "grounded", (claim, record)
    assert bucket(f"The p99 latency of checkout-api was {p99} ms.", [record]) == "grounded"


EXCEPTIONS = ["java.lang.OutOfMemoryError", "java.lang.NullPointerException",
              "java.util.ConcurrentModificationException", "org.postgresql.util.PSQLException",
              "java.net.SocketTimeoutException"]


@settings(max_examples=30)
@given(thrown=st.sampled_from(EXCEPTIONS), said=st.sampled_from(EXCEPTIONS),
       service=st.sampled_from(["orders-worker", "billing-api", "search-indexer"]))
def test_a_qualified_class_name_names_its_class(thrown: str, said: str, service: str) -> None:
    trace = (f'2024-06-10 14:02:11 ERROR [{service}] Uncaught exception in thread "main"\n'
             f"{thrown}: boom\n\tat com.shop.orders.BatchLoader.load(BatchLoader.java:88)")
    claim = f"{service} threw a {said.rsplit('.', 1)[1]}."
    assert (bucket(claim, [trace]) == "grounded") == (said == thrown), (claim, trace)
