"""A word a claim gives one row that another row of its table holds in the same column:
"the nginx worker process runs as root" beside a ``ps`` listing whose nginx row runs as
``www-data`` and another row as ``root``.

The row's own cell is grounded; another row's cell of that column is contradicted, whatever
the column (the user a process runs as, a container's image tag, a pod's node) and though the
claim names no key; a claim that also writes the row's own cell compares rows and is not
contradicted by it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
COMMANDS = [("nginx: worker process", "nginx worker"),
            ("postgres: checkpointer", "postgres checkpointer"),
            ("sshd: session", "sshd session"), ("haproxy: master", "haproxy master")]
USERS = ["root", "admin", "nobody", "daemon", "deploy", "operator"]


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


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
