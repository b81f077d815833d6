"""Tables, rows and records: tool output is read one record per row (or per JSON object, or per
config block), and a value restated of its own record is grounded, another record's is not.

Its sections cover Markdown, CSV and aligned tables; a cell of another row in the same column;
``ss`` socket tables; SRE tool listings (``kubectl``, and more); process and container
listings (``ps``, ``docker``); a field of a record the claim does not name; nested JSON
records; config and status output read field by field; and ``df`` disk tables, incident
states, amounts, plans and forecasts.
"""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.tables import column_key, find_tables

# ================================================================================================
# Tables in tool output (Markdown, CSV with a header, columns aligned as ``kubectl`` or ``df``
# print them) are read as one record per row: a cell restated of its row is grounded, the same
# column's value of another row or another column's value of the same row is not.
# ================================================================================================

judge = StagedJudge()
HOSTS = ["web-01", "web-02", "api-03", "db-04", "cache-05"]


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


def render(shape: str, rows: list[tuple[str, int, int]]) -> str:
    if shape == "markdown":
        return "\n".join(["| host | cpu_pct | errors |", "|---|---:|---:|",
                          *(f"| {h} | {c} | {e} |" for h, c, e in rows)])
    if shape == "csv":
        return "\n".join(["host,cpu_pct,errors", *(f"{h},{c},{e}" for h, c, e in rows)])
    return "\n".join([f"{'HOST':<10}  {'CPU%':<6}  ERRORS",
                      *(f"{h:<10}  {c:<6}  {e}" for h, c, e in rows)])


tables = st.lists(st.tuples(st.integers(10, 99), st.integers(100, 999)), min_size=2,
                  max_size=5)


@settings(max_examples=100)
@given(cells=tables, shape=st.sampled_from(["markdown", "csv", "aligned"]),
       pick=st.integers(0, 4), other=st.integers(0, 4), column=st.sampled_from(["cpu", "errors"]))
@example(cells=[(56, 120), (91, 340)], shape="aligned", pick=0, other=1, column="cpu")
def test_a_cell_is_its_rows_and_its_columns(cells: list[tuple[int, int]], shape: str, pick: int,
                                            other: int, column: str) -> None:
    rows = [(HOSTS[i], c, e) for i, (c, e) in enumerate(cells)]
    item = render(shape, rows)
    i, j = pick % len(rows), other % len(rows)

    def claim(value: int) -> str:
        return (f"CPU on {HOSTS[i]} was {value}%." if column == "cpu"
                else f"{HOSTS[i]} logged {value} errors.")

    own = rows[i][1] if column == "cpu" else rows[i][2]
    assert bucket(claim(own), [item]) == "grounded", (claim(own), item)
    others = rows[j][1] if column == "cpu" else rows[j][2]
    if others != own:  # the same column of another row
        assert bucket(claim(others), [item]) != "grounded", (claim(others), item)
    swapped = rows[i][2] if column == "cpu" else rows[i][1]  # another column of its row
    assert bucket(claim(swapped), [item]) != "grounded", (claim(swapped), item)


def test_the_shapes_tools_print_are_tables() -> None:
    df = ["Filesystem      Size  Used Avail Use% Mounted on",
          "/dev/sda1        50G   37G   13G  74% /",
          "tmpfs           7.8G     0  7.8G   0% /dev/shm"]
    (table,) = find_tables(df)
    assert table.rows[0] == (("Filesystem", "/dev/sda1"), ("Size", "50G"), ("Used", "37G"),
                             ("Avail", "13G"), ("Use_pct", "74%"), ("Mounted_on", "/"))
    free = ["total        used        free", "Mem:           15890        7321        1043"]
    assert find_tables(free)[0].rows[0][0] == ("name", "Mem")
    deploy = ["NAME    READY   UP-TO-DATE   AVAILABLE   AGE", "cart    1/3     3            1  5d"]
    assert dict(find_tables(deploy)[0].rows[0])["READY"] == "1/3"
    assert column_key("CPU(cores)") == "CPU_cores"


@given(words=st.lists(st.sampled_from(["the", "host", "was", "restarted", "after", "deploy",
                                       "errors", "rose"]), min_size=2, max_size=8),
       number=st.integers(0, 999))
def test_prose_is_no_table(words: list[str], number: int) -> None:
    # lines of words, one holding a number: sentences, not a header and its rows
    lines = [" ".join(words), " ".join([*words[:-1], str(number)])]
    assert find_tables(lines) == []
    assert find_tables([f"{line}." for line in lines]) == []


@settings(max_examples=60)
@given(states=st.lists(st.tuples(st.booleans(), st.integers(1, 23),
                                 st.sampled_from([1, 137, 143])), min_size=2, max_size=4),
       pick=st.integers(0, 3))
def test_a_cell_holding_spaces_is_cut_at_the_headers_columns(
        states: list[tuple[bool, int, int]], pick: int) -> None:
    names = ["fluentd", "redis", "nginx", "worker"]
    status = [f"Up {n} hours (healthy)" if up else f"Exited ({code}) {n} minutes ago"
              for up, n, code in states]
    lines = ["NAMES     IMAGE            STATUS",
             *(f"{names[i]:<10}{names[i] + ':1.2.' + str(i):<17}{s}"
               for i, s in enumerate(status))]
    table = "\n".join(lines)
    chosen = pick % len(states)
    up, _, code = states[chosen]
    for claim, holds in ((f"The {names[chosen]} container is up and healthy.", up),
                         (f"The {names[chosen]} container exited with code {code}.", not up)):
        verdicts = judge.explain(synthesis=claim, evidence=EvidenceSet.coerce([table]))
        assert ([v.bucket for v in verdicts] == ["grounded"]) == holds, (claim, table)


@settings(max_examples=60)
@given(lags=st.lists(st.integers(100, 99999), min_size=2, max_size=5, unique=True),
       pick=st.integers(0, 4), said=st.integers(0, 4), reverse=st.booleans())
def test_a_key_and_its_number_name_the_record(lags: list[int], pick: int, said: int,
                                              reverse: bool) -> None:
    rows = [f"search-consumer  orders.v1      {i:<11}{1000 + i:<16}{1000 + i + lag:<16}{lag:<8}"
            f"consumer-{i}-abc" for i, lag in enumerate(lags)]
    if reverse:
        rows.reverse()
    table = "\n".join(["GROUP            TOPIC          PARTITION  CURRENT-OFFSET  "
                       "LOG-END-OFFSET  LAG     CONSUMER-ID", *rows])
    chosen, stated = pick % len(lags), lags[said % len(lags)]
    claim = f"Partition {chosen} of orders.v1 has a lag of {stated} for search-consumer."
    verdicts = judge.explain(synthesis=claim, evidence=EvidenceSet.coerce([table]))
    expected = "grounded" if stated == lags[chosen] else "contradicted"
    assert [v.bucket for v in verdicts] == [expected], (claim, table)


@settings(max_examples=60)
@given(locks=st.lists(st.integers(1, 900), min_size=2, max_size=4, unique=True),
       pick=st.integers(0, 3), said=st.integers(0, 3))
def test_a_psql_table_is_a_record_per_row_and_a_pid_names_its_row(locks: list[int], pick: int,
                                                                   said: int) -> None:
    pids = [73226, 56642, 8747, 1204][:len(locks)]
    rows = [f" {pid:>5} | {user:<9} | idle                | {n:>5}"
            for pid, user, n in zip(pids, ["migrator", "reporting", "app_rw", "etl"], locks,
                                    strict=False)]
    table = "\n".join(["  pid  |  usename  |        state        | locks", "-------+-----------+"
                       "---------------------+-------", *rows, f"({len(rows)} rows)"])
    chosen, stated = pick % len(locks), locks[said % len(locks)]
    claim = f"Backend {pids[chosen]} held {stated} locks."
    verdicts = judge.explain(synthesis=claim, evidence=EvidenceSet.coerce([table]))
    expected = "grounded" if stated == locks[chosen] else "contradicted"
    assert [v.bucket for v in verdicts] == [expected], (claim, table)
    assert [len(t.rows) for t in find_tables([line.strip() for line in table.split("\n")])] == [
        len(locks)]


@settings(max_examples=40)
@given(pod=st.sampled_from(["api-7d9f-k2", "web-5c6d-x1"]), code=st.sampled_from([137, 143, 1]),
       restarts=st.integers(0, 40))
def test_key_value_lines_aligned_by_spaces_are_no_table(pod: str, code: int,
                                                        restarts: int) -> None:
    text = (f"Name:         {pod}\nNamespace:    prod\nStatus:       Running\n"
            f"Restart Count:  {restarts}\nLast State:     Terminated\n  Reason:       OOMKilled\n"
            f"  Exit Code:    {code}\nLimits:\n  memory:  512Mi")
    assert find_tables([line.strip() for line in text.split("\n")]) == []
    verdicts = judge.explain(synthesis=f"{pod} was OOMKilled with exit code {code}.",
                             evidence=EvidenceSet.coerce([text]))
    assert [v.bucket for v in verdicts] == ["grounded"], text


# ================================================================================================
# A word a claim gives one row that another row of its table holds in the same column:
# "the nginx worker process runs as root" beside a ``ps`` listing whose nginx row runs as
# ``www-data`` and another row as ``root``.
#
# The row's own cell is grounded; another row's cell of that column is contradicted, whatever
# the column (the user a process runs as, a container's image tag, a pod's node) and though the
# claim names no key; a claim that also writes the row's own cell compares rows and is not
# contradicted by it.
# ================================================================================================

COMMANDS = [("nginx: worker process", "nginx worker"),
            ("postgres: checkpointer", "postgres checkpointer"),
            ("sshd: session", "sshd session"), ("haproxy: master", "haproxy master")]
USERS = ["root", "admin", "nobody", "daemon", "deploy", "operator"]


@settings(max_examples=40, deadline=None)
@given(rows=st.permutations(range(len(COMMANDS))), count=st.integers(2, 4),
       users=st.lists(st.sampled_from(USERS), min_size=4, max_size=4, unique=True),
       pick=st.integers(0, 3), shuffle=st.booleans())
def test_a_cell_of_another_row_is_not_this_rows(rows: list[int], count: int, users: list[str],
                                                pick: int, shuffle: bool) -> None:
    listed = rows[:count]
    header = "USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"
    lines = [f"{users[at]:<9} {2200 + at:>5}  1.{at}  1.2 612340 198220 ?     S    09:12   "
             f"1:02 {COMMANDS[which][0]}" for at, which in enumerate(listed)]
    listing = "\n".join([header, *(reversed(lines) if shuffle else lines)])
    at = pick % count
    words = COMMANDS[listed[at]][1]
    own, theirs = users[at], users[(at + 1) % count]
    assert bucket(f"The {words} runs as {own}.", [listing]) == "grounded", listing
    assert bucket(f"The {words} runs as {theirs}.", [listing]) == "contradicted", listing
    # unrelated items leave the verdict alone
    noise = ["host=edge-lb-2 p99_ms=41", "2024-06-10T14:02:01Z INFO deploy-bot: rolled out web"]
    assert bucket(f"The {words} runs as {theirs}.", [*noise, listing]) == "contradicted"


def test_a_claim_writing_both_rows_cells_compares_them() -> None:
    listing = ("NAME    MODEL   SCORE\n"
               "run-a   cnn     0.91\n"
               "run-b   lstm    0.87")
    assert bucket("The cnn model beat the lstm model with 0.91.", [listing]) != "contradicted"


# ================================================================================================
# ``ss -tlnp`` output is a table: each listening socket a row of its process (``users:((
# "redis-server",pid=1502,fd=6))`` is the process ``redis-server``), so a port, an address or a
# queue length of another process's row is never grounded for the one a claim names.
# ================================================================================================

PROCESSES = ("nginx", "postgres", "java", "redis-server", "haproxy", "sshd", "node")
UNRELATED = ["2024-05-01T10:00:00Z ERROR payments-api: timeout calling ledger",
             "ALERT ALRT-7 HighLatency on checkout-api fired at 10:02"]


def _ss(rows: list[tuple[str, int, int, str]]) -> str:
    lines = ["State    Recv-Q   Send-Q     Local Address:Port     Peer Address:Port   Process"]
    for at, (name, port, queue, address) in enumerate(rows):
        local = f"{address}:{port}"
        lines.append(f"LISTEN   0        {queue:<8} {local:>22} {'0.0.0.0:*':>20}       "
                     f'users:(("{name}",pid={1000 + at},fd=6))')
    return "\n".join(lines)


def _bucket(claim: str, items: list[str]) -> str:
    verdicts = StagedJudge().explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, claim
    return verdicts[0].bucket


@settings(max_examples=40, deadline=None)
@given(names=st.lists(st.sampled_from(PROCESSES), min_size=2, max_size=4, unique=True),
       ports=st.lists(st.integers(1024, 9999), min_size=4, max_size=4, unique=True),
       queues=st.lists(st.sampled_from([128, 244, 511, 4096]), min_size=4, max_size=4,
                       unique=True),
       addresses=st.lists(st.sampled_from(["0.0.0.0", "127.0.0.1", "10.0.3.17"]),
                          min_size=4, max_size=4),
       pick=st.integers(0, 3), other=st.integers(1, 3))
@example(names=["nginx", "redis-server", "postgres"], ports=[8080, 6379, 5432, 9000],
         queues=[511, 4096, 244, 128], addresses=["0.0.0.0", "127.0.0.1", "0.0.0.0", "0.0.0.0"],
         pick=1, other=1)
def test_a_socket_is_its_own_processs(names: list[str], ports: list[int], queues: list[int],
                                      addresses: list[str], pick: int, other: int) -> None:
    rows = [(name, ports[at], queues[at], addresses[at]) for at, name in enumerate(names)]
    table = _ss(rows)
    mine = pick % len(rows)
    theirs = (mine + other) % len(rows)
    name, port, queue, address = rows[mine]
    said = f"The {name} process listens on port {port}."
    assert _bucket(said, [table]) == "grounded", (said, table)
    assert _bucket(said, [*UNRELATED, table]) == "grounded", (said, table)
    assert _bucket(f"{name} is listening on {address}:{port}.", [table]) == "grounded", table
    assert _bucket(f"The {name} process has a send queue of {queue}.", [table]) == "grounded"
    if theirs != mine:
        _, port2, queue2, address2 = rows[theirs]
        for wrong in (f"The {name} process listens on port {port2}.",
                      f"{name} is listening on {address2}:{port2}.",
                      f"The {name} process has a send queue of {queue2}."):
            assert _bucket(wrong, [table]) != "grounded", (wrong, table)
            assert _bucket(wrong, [table, *UNRELATED]) != "grounded", (wrong, table)


# ================================================================================================
# Listings SRE tools print, read record by record:
#
# - ``kubectl get pods``: "no pods restarted" is read against every row's RESTARTS (the rows of a
#   ``NAME`` column are the pods), and ``READY 0/1`` is a pod that is not ready;
# - ping's summary: its counts (``17 received``) and slash-joined round-trip times
#   (``min/avg/max/mdev = ...``) are fields of their own, so one is never another's;
# - a CI run that completed with ``conclusion: failure`` failed (it still completed);
# - an incident or alarm whose state is ``triggered`` or ``ALARM`` is firing, so "resolved" is
#   contradicted;
# - "the total lag" is the sum over the rows;
# - "returned 502" is a status code, read against the access log line of the request it names;
# - dig's answer section: each record its name, TTL (in seconds), type and value.
#
# Swapping any one value is never grounded; restating it is.
# ================================================================================================

PODS = ["checkout-api-7f9c6d-q8zt4", "checkout-api-7f9c6d-x2b9k", "payments-worker-5c8d7b-k1m2n",
        "cart-6d5f4c-p0o9i"]


def pods(rows: list[tuple[str, int, int]]) -> str:
    """``kubectl get pods`` output: (name, ready containers of 1, restarts) per row."""
    lines = [f"{'NAME':<32}READY   STATUS             RESTARTS   AGE"]
    for name, ready, restarts in rows:
        status = "Running" if ready else "CrashLoopBackOff"
        lines.append(f"{name:<32}{ready}/1     {status:<19}{restarts:<11}3d2h")
    return "\n".join(lines)


@settings(max_examples=40)
@given(restarts=st.lists(st.integers(0, 9), min_size=2, max_size=4),
       ready=st.lists(st.booleans(), min_size=4, max_size=4), pick=st.integers(0, 3),
       phrase=st.sampled_from(["No pods have restarted.", "No pod restarted.",
                               "None of the pods restarted."]))
def test_a_pod_listing_is_read_row_by_row(restarts: list[int], ready: list[bool], pick: int,
                                          phrase: str) -> None:
    rows = [(PODS[at], int(ready[at]), count) for at, count in enumerate(restarts)]
    text = pods(rows)
    expected = "grounded" if not any(restarts) else "contradicted"
    assert bucket(phrase, [text]) == expected, text
    name, is_ready, _ = rows[pick % len(rows)]
    got = bucket(f"{name} is ready.", [text])
    assert (got == "grounded") == bool(is_ready), (text, got)
    assert bucket(f"{name} is {is_ready}/1 ready.", [text]) == "grounded", text
    assert bucket(f"{name} is {1 - is_ready}/1 ready.", [text]) == "contradicted", text


@settings(max_examples=40)
@given(sent=st.integers(5, 100), lost=st.integers(1, 4), times=st.lists(
    st.integers(100, 99999), min_size=4, max_size=4, unique=True), pick=st.integers(0, 2),
    other=st.integers(1, 2))
def test_a_ping_summary_is_read_field_by_field(sent: int, lost: int, times: list[int], pick: int,
                                               other: int) -> None:
    received = sent - lost
    loss = round(100 * lost / sent)
    rtt = sorted(t / 1000 for t in times)  # min, avg, max in order, mdev last
    text = "\n".join([
        "--- 10.0.3.17 ping statistics ---",
        f"{sent} packets transmitted, {received} received, {loss}% packet loss, time 19026ms",
        f"rtt min/avg/max/mdev = {rtt[0]:.3f}/{rtt[1]:.3f}/{rtt[2]:.3f}/{rtt[3]:.3f} ms"])
    assert bucket(f"{received} packets were received.", [text]) == "grounded", text
    assert bucket(f"{sent} packets were received.", [text]) == "contradicted", text
    assert bucket(f"Packet loss was {loss}%.", [text]) == "grounded", text
    assert bucket(f"Packet loss was {loss + 7}%.", [text]) == "contradicted", text
    names = ["minimum", "average", "maximum"]
    said = f"The {names[pick]} round-trip time (RTT) was {{:.3f}} ms."
    assert bucket(said.format(rtt[pick]), [text]) == "grounded", text
    assert bucket(said.format(rtt[(pick + other) % 3]), [text]) == "contradicted", text


@settings(max_examples=30)
@given(run=st.integers(1000, 99999), conclusion=st.sampled_from(["success", "failure"]),
       said=st.sampled_from(["succeeded", "failed", "completed"]))
def test_a_run_that_completed_is_what_its_conclusion_says(run: int, conclusion: str,
                                                          said: str) -> None:
    record = (f'{{"id": {run}, "name": "deploy-prod", "head_branch": "main", '
              f'"status": "completed", "conclusion": "{conclusion}"}}')
    got = bucket(f"The deploy-prod run {said}.", [record])
    if said == "completed" or (said == "succeeded") == (conclusion == "success"):
        assert got == "grounded", (record, said, got)
    else:
        assert got == "contradicted", (record, said, got)


@settings(max_examples=30)
@given(number=st.integers(1000, 99999), shape=st.sampled_from(["pagerduty", "cloudwatch"]))
def test_a_triggered_incident_or_an_alarm_is_firing(number: int, shape: str) -> None:
    if shape == "pagerduty":
        record = (f'{{"incident": {{"incident_number": {number}, "status": "triggered", '
                  '"urgency": "high"}}')
        name = f"Incident {number}"
    else:
        record = (f'{{"MetricAlarms": [{{"AlarmName": "checkout-5xx-{number}", '
                  '"StateValue": "ALARM", "Threshold": 5.0}]}')
        name = f"The checkout-5xx-{number} alarm"
    assert bucket(f"{name} was resolved.", [record]) == "contradicted", record
    assert bucket(f"{name} is firing.", [record]) == "grounded", record


@settings(max_examples=30)
@given(lags=st.lists(st.integers(0, 50000), min_size=2, max_size=5), delta=st.integers(1, 99))
def test_the_total_is_the_sum_over_the_rows(lags: list[int], delta: int) -> None:
    lines = ["GROUP           TOPIC    PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG"]
    lines += [f"orders-consumer orders   {at:<11}{100000:<16}{100000 + lag:<16}{lag}"
              for at, lag in enumerate(lags)]
    text = "\n".join(lines)
    said = "The total lag of orders-consumer is {}."
    assert bucket(said.format(sum(lags)), [text]) == "grounded", text
    assert bucket(said.format(sum(lags) + delta), [text]) == "contradicted", text


@settings(max_examples=30)
@given(codes=st.lists(st.sampled_from([200, 201, 301, 404, 429, 500, 502, 503]), min_size=3,
                      max_size=3, unique=True), pick=st.integers(0, 2), other=st.integers(1, 2))
def test_returned_a_code_is_the_status_of_the_named_request(codes: list[int], pick: int,
                                                           other: int) -> None:
    paths = ["/api/orders", "/api/checkout", "/api/cart"]
    text = "\n".join(
        f'10.1.2.{at} - - [10/Jun/2024:14:02:1{at} +0000] "POST {path} HTTP/1.1" {code} 157 '
        '"-" "curl/8.0"' for at, (path, code) in enumerate(zip(paths, codes, strict=True)))
    path = paths[pick]
    assert bucket(f"POST {path} returned {codes[pick]}.", [text]) == "grounded", text
    assert bucket(f"POST {path} returned {codes[(pick + other) % 3]}.",
                  [text]) == "contradicted", text


@settings(max_examples=30)
@example(addresses=[1], ttl=1040, other=0, delta=1)  # a TTL written like a decade ("1040s")
@given(addresses=st.lists(st.integers(1, 254), min_size=1, max_size=3, unique=True),
       ttl=st.integers(30, 86400), other=st.sampled_from([0, 255]), delta=st.integers(1, 20))
def test_a_dns_answer_is_its_records(addresses: list[int], ttl: int, other: int,
                                     delta: int) -> None:
    text = "\n".join([";; ANSWER SECTION:", *(f"api.example.com.\t{ttl}\tIN\tA\t203.0.113.{a}"
                                               for a in addresses)])
    said = "api.example.com resolves to 203.0.113.{}."
    assert bucket(said.format(addresses[0]), [text]) == "grounded", text
    assert bucket(said.format(other), [text]) != "grounded", text  # an address it holds not
    assert bucket(f"The TTL of api.example.com is {ttl} seconds.", [text]) == "grounded", text
    assert bucket(f"The TTL of api.example.com is {ttl + delta} seconds.",
                  [text]) == "contradicted", text


# ================================================================================================
# Process, container and event listings, read as tables whatever their column layout:
#
# - ``ps aux``: right-aligned numbers and a free-text ``COMMAND`` last; ``%CPU`` is ``CPU_pct``;
#   "PID 2210" names that process's row, so another row's value is never its own;
# - ``docker ps``: a header of two words (``CONTAINER ID``), cells holding spaces (``Up 2
#   hours``) and an empty ``PORTS``; "all containers are running" against every row;
# - ``kubectl get events``: ``LAST SEEN`` is one column, ``MESSAGE`` free text, and a CamelCase
#   reason in a cell states its category (``NodeNotReady``).
#
# Swapping any one value is never grounded; restating it is.
# ================================================================================================

PS_COMMANDS = ["postgres: checkout checkout 10.0.1.5(52310) SELECT", "nginx: worker process",
            "java -Xmx4g -jar orders.jar", "/usr/bin/redis-server 127.0.0.1:6379"]
NAMES = ["cache", "db", "orders", "gateway"]


def ps(rows: list[tuple[int, float, float]]) -> str:
    lines = ["USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"]
    for at, (pid, cpu, mem) in enumerate(rows):
        lines.append(f"svc{at:<6} {pid:>5} {cpu:4.1f} {mem:4.1f} 612340 198220 ?        S    "
                     f"09:12   1:02 {COMMANDS[at % len(COMMANDS)]}")
    return "\n".join(lines)


@settings(max_examples=40)
@given(pids=st.lists(st.integers(100, 99999), min_size=2, max_size=4, unique=True),
       cpus=st.lists(st.integers(1, 999), min_size=4, max_size=4, unique=True),
       mems=st.lists(st.integers(1, 999), min_size=4, max_size=4, unique=True),
       pick=st.integers(0, 3), other=st.integers(1, 3))
def test_a_process_is_its_pid_row(pids: list[int], cpus: list[int], mems: list[int], pick: int,
                                  other: int) -> None:
    rows = [(pid, cpus[at] / 10, mems[at] / 10) for at, pid in enumerate(pids)]
    text = ps(rows)
    pid, cpu, mem = rows[pick % len(rows)]
    _, other_cpu, other_mem = rows[(pick + other) % len(rows)]
    if other_cpu == cpu:
        return
    assert bucket(f"PID {pid} uses {cpu:.1f}% CPU.", [text]) == "grounded", text
    assert bucket(f"PID {pid} uses {other_cpu:.1f}% CPU.", [text]) == "contradicted", text
    assert bucket(f"PID {pid} uses {mem:.1f}% of memory.", [text]) == "grounded", text
    assert bucket(f"PID {pid} uses {other_mem:.1f}% of memory.", [text]) == "contradicted"


@settings(max_examples=40)
@given(up=st.lists(st.booleans(), min_size=2, max_size=4), codes=st.lists(
    st.sampled_from([0, 1, 137, 143]), min_size=4, max_size=4), pick=st.integers(0, 3))
def test_a_container_listing_is_read_row_by_row(up: list[bool], codes: list[int],
                                                pick: int) -> None:
    lines = ["CONTAINER ID   IMAGE          COMMAND                  CREATED        "
             "STATUS                      PORTS                    NAMES"]
    for at, running in enumerate(up):
        status = "Up 2 hours" if running else f"Exited ({codes[at]}) 5 minutes ago"
        ports = "0.0.0.0:6379->6379/tcp" if running else ""
        lines.append(f"{at:012x}   redis:7.2      \"docker-entrypoint.s…\"   2 hours ago    "
                     f"{status:<28}{ports:<25}{NAMES[at]}")
    text = "\n".join(lines)
    expected = "grounded" if all(up) else "contradicted"
    assert bucket("All containers are running.", [text]) == expected, text
    name, running = NAMES[pick % len(up)], up[pick % len(up)]
    got = bucket(f"The {name} container is up.", [text])
    assert got == ("grounded" if running else "contradicted"), (text, got)
    if not running:
        code = codes[pick % len(up)]
        said = f"The {name} container exited with code {{}}."
        assert bucket(said.format(code), [text]) == "grounded", text
        assert bucket(said.format(code + 2), [text]) != "grounded", text


@settings(max_examples=30)
@given(ready=st.booleans(), node=st.integers(1, 254), minutes=st.integers(1, 59))
def test_an_event_listing_keeps_its_columns_and_its_reasons(ready: bool, node: int,
                                                           minutes: int) -> None:
    reason = "NodeReady" if ready else "NodeNotReady"
    host = f"ip-10-1-3-{node}.ec2.internal"
    text = ("LAST SEEN  TYPE     REASON        OBJECT                           MESSAGE\n"
            f"{minutes}m{' ' * (10 - len(str(minutes)))}Normal   {reason:<14}"
            f"node/{host:<27}  Node status changed")
    assert bucket(f"Node {host} was ready.", [text]) == (
        "grounded" if ready else "contradicted"), text
    assert bucket(f"Node {host} went NotReady.", [text]) == (
        "contradicted" if ready else "grounded"), text


# ================================================================================================
# A word a claim gives a field of a record it does not name: "the run was on the release
# branch" beside the one CI run listed, ``head_branch: main``.
#
# The claim names no subject, so the record may not be the one it means: another word for the
# field, stated by no evidence item, is a value the evidence lacks (never grounded), while the
# record's own word is grounded; naming the record ("the deploy-prod run") makes the same word
# a contradiction.
# ================================================================================================

FIELDS = [("head_branch", "branch", ["main", "release", "hotfix", "develop"]),
          ("strategy", "strategy", ["canary", "bluegreen", "recreate", "rolling"]),
          ("trigger_event", "event", ["push", "schedule", "dispatch", "tag"])]


@settings(max_examples=40, deadline=None)
@given(field=st.sampled_from(FIELDS), pick=st.integers(0, 3), other=st.integers(1, 3),
       run=st.integers(1000, 99999))
def test_another_word_for_a_field_of_an_unnamed_record_is_never_grounded(
        field: tuple[str, str, list[str]], pick: int, other: int, run: int) -> None:
    key, noun, words = field
    own, said = words[pick], words[(pick + other) % len(words)]
    record = json.dumps({"id": run, "name": "deploy-prod", key: own, "status": "completed",
                         "conclusion": "success"})
    assert bucket(f"The run used the {own} {noun}.", [record]) == "grounded", record
    assert bucket(f"The run used the {said} {noun}.", [record]) != "grounded", record
    assert bucket(f"The deploy-prod run used the {said} {noun}.", [record]) == "contradicted", \
        record


@settings(max_examples=20, deadline=None)
@given(status=st.sampled_from(["completed", "in_progress", "queued"]), run=st.integers(1, 9999))
def test_a_run_in_progress_has_no_outcome_yet(status: str, run: int) -> None:
    """"Still in progress" is a run with no outcome yet: contradicted by a completed run,
    grounded by one in progress."""
    record = json.dumps({"id": run, "name": "deploy-prod", "status": status,
                         "conclusion": "success" if status == "completed" else None})
    verdict = bucket("The deploy-prod run is still in progress.", [record])
    # queued is under way too (no outcome), but not running: never contradicted as finished
    assert verdict == {"completed": "contradicted", "in_progress": "grounded"}.get(
        status, verdict), record
    assert verdict != "contradicted" or status == "completed", record


# ================================================================================================
# A JSON record is one record however deeply its fields nest: a pod's ``metadata.name`` and its
# ``status.phase`` are one pod's, its containers' ``restartCount`` its own, a Prometheus sample's
# value its series', an Alertmanager alert's ``labels`` and ``status`` one alert's. Each is read of
# its own record, never of another record of the same list.
# ================================================================================================

PHASES = ("Running", "Pending", "Failed", "Succeeded")


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(items))]


def _pod(name: str, phase: str, restarts: int) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "prod", "labels": {"app": "checkout"}},
            "status": {"phase": phase, "containerStatuses": [
                {"name": "app", "ready": phase == "Running", "restartCount": restarts}]}}


json_pods = st.lists(st.tuples(st.sampled_from(PHASES), st.integers(0, 9)), min_size=1, max_size=4)


@settings(max_examples=100)
@given(states=json_pods, pick=st.integers(0, 3), said=st.sampled_from(PHASES), listed=st.booleans())
@example(states=[("Running", 0), ("Pending", 3)], pick=0, said="Pending", listed=True)
def test_a_pods_phase_is_its_own(states: list[tuple[str, int]], pick: int, said: str,
                                 listed: bool) -> None:
    records = [_pod(f"checkout-api-7d9f-{i}", phase, n) for i, (phase, n) in enumerate(states)]
    items = [json.dumps({"kind": "List", "items": records})] if listed else [
        json.dumps(r) for r in records]
    chosen = pick % len(states)
    claim = f"Pod checkout-api-7d9f-{chosen} is {said}."
    verdict = buckets(claim, items)
    if said == states[chosen][0]:
        assert verdict == ["grounded"], (claim, states)
    else:  # another phase: never grounded, contradicted where another pod holds it
        assert verdict != ["grounded"], (claim, states)
        if any(phase == said for phase, _ in states):
            assert verdict == ["contradicted"], (claim, states)


@settings(max_examples=80)
@given(states=json_pods, pick=st.integers(0, 3), off=st.sampled_from([0, 0, 1, 2]),
       listed=st.booleans())
def test_a_containers_restarts_are_its_pods(states: list[tuple[str, int]], pick: int, off: int,
                                            listed: bool) -> None:
    records = [_pod(f"checkout-api-7d9f-{i}", phase, n) for i, (phase, n) in enumerate(states)]
    items = [json.dumps({"items": records})] if listed else [json.dumps(r) for r in records]
    chosen = pick % len(states)
    said = states[chosen][1] + off
    claim = f"Pod checkout-api-7d9f-{chosen} has restarted {said} times."
    verdict = buckets(claim, items)
    assert (verdict == ["grounded"]) == (off == 0), (claim, states)


@settings(max_examples=60)
@given(values=st.lists(st.integers(10, 99), min_size=2, max_size=5, unique=True),
       pick=st.integers(0, 4), other=st.integers(0, 4))
def test_a_prometheus_sample_is_its_series(values: list[int], pick: int, other: int) -> None:
    result = [{"metric": {"__name__": "error_ratio", "instance": f"api-{i}", "job": "checkout"},
               "value": [1714557600.0, f"0.{v}"]} for i, v in enumerate(values)]
    items = [json.dumps({"status": "success",
                         "data": {"resultType": "vector", "result": result}})]
    chosen, held = pick % len(values), other % len(values)
    claim = f"The error ratio on api-{chosen} was 0.{values[held]}."
    # the sample is the error ratio its series' name says: another value of it on the same
    # instance is contradicted
    expected = ["grounded"] if chosen == held else ["contradicted"]
    assert buckets(claim, items) == expected, (claim, values)


ALERTS = [("warning", "active"), ("critical", "suppressed")]


@settings(max_examples=40)
@given(order=st.permutations(range(2)), pick=st.integers(0, 1),
       said=st.sampled_from(["critical", "a warning", "active", "suppressed"]))
def test_an_alerts_labels_and_status_are_one_alert(order: list[int], pick: int,
                                                   said: str) -> None:
    alerts = [{"labels": {"alertname": "HighErrorRate", "service": f"svc-{i}", "severity": sev},
               "status": {"state": state}, "startsAt": "2024-05-01T10:02:00Z"}
              for i, (sev, state) in enumerate(ALERTS)]
    items = [json.dumps([alerts[i] for i in order])]
    claim = f"HighErrorRate for svc-{pick} is {said}."
    holds = said.removeprefix("a ") in ALERTS[pick]
    assert buckets(claim, items) == (["grounded"] if holds else ["contradicted"]), claim


# ================================================================================================
# Config and status output is read field by field, each value under its own key path:
#
# - a YAML block's keys carry the block's name (``cache:`` over ``  enabled: true`` is
#   ``cache.enabled``): another block's ``enabled`` never decides a claim about the cache;
# - an INFO dump's ``key:value`` lines (Redis) are fields; ``used_memory_human`` is the same measure
#   as ``used_memory``, written with its unit;
# - a window in a key (``burn_rate_1h``) is named by "the 1h burn rate", and "12.5% of the error
#   budget" is the budget's;
# - ``systemctl status``'s Loaded/Active lines are the unit's on the line above them;
# - Terraform's plan summary is three counts;
# - a record under a command line (``argocd app get checkout``) states the state of the thing the
#   claim names by its record's name.
#
# Swapping any one value is never grounded; restating it is.
# ================================================================================================

BLOCKS = ["cache", "retries", "tracing", "compression", "autoscaling"]


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


# ================================================================================================
# Disk tables, incident states, amounts, plans and forecasts, and dates in lowercased text:
#
# - ``df``'s rows are read by their mount: "the root filesystem" (volume, partition, disk) is the
#   row mounted at ``/``, and its Use% is compared with that row's, never another row's; "free"
#   and "available" name the Avail column, "full" and "used" a percentage the Use% column;
# - a value is never contradicted by a field it cannot be compared with ("24% used" beside
#   ``Used=120G``);
# - an amount before "available" or "unavailable" says how much, not that something is down
#   ("380G available", "3 replicas unavailable");
# - an incident that is acknowledged is not resolved ("resolved" is contradicted), nor is it
#   stated to be firing (neither contradicts the other);
# - a prediction is grounded by a record of what will happen (a plan, an expiry, a next run)
#   only with that record's values; a stated forecast's values are compared like any value;
# - a date written in lowercase ("on may 30 .") is a date.
#
# Swapping any one value is never grounded; restating it is.
# ================================================================================================

MOUNTS = ["/var/lib/postgresql", "/data", "/var/log", "/srv/kafka"]
ROOT_NAMES = ["root filesystem", "root volume", "root partition", "root file system"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]


def df(rows: list[tuple[str, int, int]]) -> str:
    """``df -h`` output: (mount, size in G, use %) per row; the first row is mounted at ``/``."""
    lines = ["Filesystem      Size  Used Avail Use% Mounted on"]
    for at, (mount, size, pct) in enumerate(rows):
        used = size * pct // 100
        lines.append(f"/dev/nvme{at}n1p1  {size}G  {used}G  {size - used}G  {pct}% {mount}")
    return "\n".join(lines)


@settings(max_examples=40)
@given(sizes=st.lists(st.integers(20, 900), min_size=2, max_size=4),
       pcts=st.lists(st.integers(1, 99), min_size=4, max_size=4, unique=True),
       name=st.sampled_from(ROOT_NAMES), pick=st.integers(1, 3))
@example(sizes=[50, 500], pcts=[92, 24, 3, 4], name="root filesystem", pick=1)
def test_the_root_filesystem_is_the_row_mounted_at_slash(sizes: list[int], pcts: list[int],
                                                        name: str, pick: int) -> None:
    rows = [("/", sizes[0], pcts[0])] + [(MOUNTS[at], size, pcts[at + 1])
                                          for at, size in enumerate(sizes[1:])]
    text = df(rows)
    other = rows[pick % len(rows) or 1]
    assert bucket(f"The {name} is {pcts[0]}% full.", [text]) == "grounded", text
    assert bucket(f"The {name} is {other[2]}% full.", [text]) == "contradicted", text
    # a mount the claim names by its path is that row's
    assert bucket(f"{other[0]} is {other[2]}% used.", [text]) == "grounded", text
    assert bucket(f"{other[0]} is {pcts[0]}% used.", [text]) == "contradicted", text


@settings(max_examples=30)
@given(sizes=st.lists(st.integers(20, 900), min_size=2, max_size=4),
       pcts=st.lists(st.integers(1, 99), min_size=4, max_size=4, unique=True),
       word=st.sampled_from(["free", "available"]), pick=st.integers(0, 3))
def test_free_and_available_are_the_avail_column(sizes: list[int], pcts: list[int], word: str,
                                                 pick: int) -> None:
    rows = [("/", sizes[0], pcts[0])] + [(MOUNTS[at], size, pcts[at + 1])
                                          for at, size in enumerate(sizes[1:])]
    text = df(rows)
    _, size, pct = rows[pick % len(rows)]
    avail = size - size * pct // 100
    device = f"/dev/nvme{pick % len(rows)}n1p1"
    assert bucket(f"{device} has {avail}G {word}.", [text]) == "grounded", text
    assert bucket(f"{device} has {avail + 1}G {word}.", [text]) != "grounded", text


@settings(max_examples=30)
@given(replicas=st.integers(2, 40), down=st.integers(1, 40),
       word=st.sampled_from(["available", "unavailable"]),
       written=st.sampled_from(["{n} replicas {w}", "{n} {w} replicas"]))
def test_an_amount_before_available_is_how_much_not_a_state(replicas: int, down: int, word: str,
                                                           written: str) -> None:
    down = min(down, replicas - 1)
    record = ('{"deployment": "checkout-api", "status": {"replicas": '
              f'{replicas}, "availableReplicas": {replicas - down}, '
              f'"unavailableReplicas": {down}}}}}')
    count = down if word == "unavailable" else replicas - down
    said = "checkout-api had " + written + "."
    assert bucket(said.format(n=count, w=word), [record]) == "grounded", record
    assert bucket(said.format(n=replicas + 1, w=word), [record]) == "contradicted", record
    text = df([("/", 50, 92), ("/var/lib/postgresql", 500, 24)])
    assert bucket("/var/lib/postgresql has 380G available.", [text]) == "grounded", text


@settings(max_examples=30)
@given(number=st.integers(1000, 99999), shape=st.sampled_from(["json", "row", "yaml"]),
       said=st.sampled_from(["acknowledged", "resolved", "firing"]))
def test_an_acknowledged_incident_is_not_resolved(number: int, shape: str, said: str) -> None:
    incident = f"INC-{number}"
    record = {
        "json": f'{{"incident": "{incident}", "priority": "P1", "status": "acknowledged"}}',
        "row": f"incident={incident} priority=P1 status=acknowledged",
        "yaml": f"incident: {incident}\nstatus: acknowledged\nassignee: maria.lopez",
    }[shape]
    got = bucket(f"{incident} was {said}.", [record])
    expected = {"acknowledged": "grounded", "resolved": "contradicted",
                "firing": "ungrounded"}[said]
    assert got == expected, (record, said, got)
    # who acknowledged it is a name the record holds, not the incident's state
    actor = 'acknowledged_by="Alice Smith"'
    assert bucket(f"Alice Smith acknowledged {incident}.",
                  [f"incident={incident} {actor}"]) == "grounded"


@settings(max_examples=30)
@given(add=st.integers(0, 20), change=st.integers(0, 20), destroy=st.integers(0, 20),
       axis=st.sampled_from(["add", "change", "destroy"]), delta=st.integers(1, 5))
def test_a_plan_states_what_will_happen_with_its_counts(add: int, change: int, destroy: int,
                                                        axis: str, delta: int) -> None:
    text = ("Terraform will perform the following actions:\n\n"
            "  # aws_instance.web will be updated in-place\n\n"
            f"Plan: {add} to add, {change} to change, {destroy} to destroy.")
    count = {"add": add, "change": change, "destroy": destroy}[axis]
    assert bucket(f"Terraform will {axis} {count} resources.", [text]) == "grounded", text
    assert bucket(f"Terraform will {axis} {count + delta} resources.", [text]) != "grounded"


@settings(max_examples=30)
@given(day=st.integers(1, 27), month=st.integers(1, 12), hours=st.integers(2, 48),
       delta=st.integers(1, 5))
def test_a_record_of_the_future_grounds_only_its_own_values(day: int, month: int, hours: int,
                                                            delta: int) -> None:
    expiry = f"2025-{month:02d}-{day:02d}"
    other = f"2025-{month:02d}-{day + 1:02d}"
    cert = f'{{"host": "api-gw-7", "cn": "pay.example.net", "not_after": "{expiry}"}}'
    said = "The certificate for pay.example.net will expire on"
    assert bucket(f"{said} {expiry}.", [cert]) == "grounded", cert
    assert bucket(f"{said} {other}.", [cert]) == "contradicted", cert
    # a record of the future holds values, not every prediction about its subject
    assert bucket("The TLS failures on api-gw-7 will not happen again.", [cert]) != "grounded"
    forecast = (f"Capacity forecast: db-prod-2 will run out of disk in {hours} hours at "
                "the current rate.")
    claim = "db-prod-2 will run out of disk in {} hours."
    assert bucket(claim.format(hours), [forecast]) == "grounded", forecast
    assert bucket(claim.format(hours + delta), [forecast]) != "grounded", forecast


@settings(max_examples=40)
@given(month=st.integers(0, 11), day=st.integers(1, 28), delta=st.integers(1, 3),
       year=st.integers(1950, 2024))
def test_a_date_in_lowercased_text_is_a_date(month: int, day: int, delta: int,
                                             year: int) -> None:
    name = MONTHS[month]
    text = (f"the champion fought the challenger on {name} {day} , {year} at the arena , "
            "and won on points .")
    said = f"The champion fought the challenger on {name.capitalize()} {{}}, {year}."
    assert bucket(said.format(day), [text]) == "grounded", text
    assert bucket(said.format(day + delta), [text]) != "grounded", text
