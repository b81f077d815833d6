"""Tables in tool output (Markdown, CSV with a header, columns aligned as ``kubectl`` or ``df``
print them) are read as one record per row: a cell restated of its row is grounded, the same
column's value of another row or another column's value of the same row is not."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.tables import column_key, find_tables

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
