"""The realistic set's report and the leave-one-domain-out fit run and count what they say."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import realistic  # noqa: E402
import realistic_fit  # noqa: E402


def test_the_report_counts_every_case_of_a_domain(capsys):
    assert realistic.main(["--judge", "records", "--domain", "ci"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| ci |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1].split(" ")[0].endswith("/10")      # false passes of 10 unfaithful
    proceed, abstain, refused = (int(c.split("/")[0]) for c in cells[3:6])
    assert proceed + abstain + refused == 10            # every faithful answer decided once


def test_the_fit_chooses_by_the_objective_on_the_domains_given():
    table = {share: [] for share in realistic_fit.GRID}
    for share in realistic_fit.GRID:
        # a looser share lets more faithful answers through, and more unfaithful ones
        table[share] = ([("a", True, i < 10 * share) for i in range(10)]
                        + [("a", False, i < 10 * share - 5) for i in range(10)])
    chosen = realistic_fit.best(table, ["a"])
    proceed, false_pass = realistic_fit.rates(table[chosen], ["a"])
    assert chosen == 0.5 and (proceed, false_pass) == (0.5, 0.0)
    assert realistic_fit.best(table, ["b"]) == 0.0     # no cases: the strictest share


def test_every_set_holds_ten_faithful_and_ten_unfaithful_answers_per_domain():
    for name, (directory, splits) in realistic.SETS.items():
        domains = splits["dev"] + splits["heldout"]
        assert len(set(domains)) == 12, name
        for domain in domains:
            cases = realistic.load([domain], directory)
            labels = sorted(c["label"] for c in cases)
            assert labels == ["faithful"] * 10 + ["unfaithful"] * 10, (name, domain)
            for case in cases:
                if case["label"] == "unfaithful":
                    assert case["error_span"] in case["answer"], case["id"]


def test_the_report_reads_the_set_it_is_given(capsys):
    assert realistic.main(["--set", "realistic2", "--judge", "records", "--domain", "redis"]) == 0
    out = capsys.readouterr().out
    assert "realistic2" in out
    assert any(line.startswith("| redis |") for line in out.splitlines())
