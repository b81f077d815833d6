"""Disk tables, incident states, amounts, plans and forecasts, and dates in lowercased text:

- ``df``'s rows are read by their mount: "the root filesystem" (volume, partition, disk) is the
  row mounted at ``/``, and its Use% is compared with that row's, never another row's; "free"
  and "available" name the Avail column, "full" and "used" a percentage the Use% column;
- a value is never contradicted by a field it cannot be compared with ("24% used" beside
  ``Used=120G``);
- an amount before "available" or "unavailable" says how much, not that something is down
  ("380G available", "3 replicas unavailable");
- an incident that is acknowledged is not resolved ("resolved" is contradicted), nor is it
  stated to be firing (neither contradicts the other);
- a prediction is grounded by a record of what will happen (a plan, an expiry, a next run)
  only with that record's values; a stated forecast's values are compared like any value;
- a date written in lowercase ("on may 30 .") is a date.

Swapping any one value is never grounded; restating it is."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
MOUNTS = ["/var/lib/postgresql", "/data", "/var/log", "/srv/kafka"]
ROOT_NAMES = ["root filesystem", "root volume", "root partition", "root file system"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


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
