"""Data sizes are compared in bytes: a decimal unit (KB, MB, GB, TB) stands for its decimal and
its binary reading ("4 GB" for 4096 MB), a binary unit (KiB ... TiB) for the binary one, at the
precision written; a wrong scale (ten or a thousand times off) is another size, never the same."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import example, given
from hypothesis import strategies as st

from gsar_otel.core.anchor.units import byte_factors
from gsar_otel.core.anchors import Agreement, compare_anchors, extract_anchors
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

POWER = {"KB": 1, "MB": 2, "GB": 3, "TB": 4, "KiB": 1, "MiB": 2, "GiB": 3, "TiB": 4}


def agreement(claim: str, evidence: str) -> Agreement:
    said = [a for a in extract_anchors(claim) if a.unit is not None]
    held = [a for a in extract_anchors(evidence) if a.key is not None]
    assert len(said) == 1 and len(held) == 1, (said, held)
    return compare_anchors(said[0], held[0])


def written(size: Decimal, unit: str) -> str:
    """``size`` bytes in ``unit`` (its binary reading for a binary unit), to one decimal."""
    base = 1024 if unit.endswith("iB") else 1000
    return f"{size / Decimal(base) ** POWER[unit]:.1f}"


@given(mib=st.integers(1, 4_000_000), unit=st.sampled_from(sorted(POWER)),
       key=st.sampled_from(["mem_used_mb", "rss_mib", "heap_bytes"]))
@example(mib=4096, unit="GB", key="mem_used_mb")
def test_a_size_restated_in_any_unit_matches(mib: int, unit: str, key: str) -> None:
    held = Decimal(mib) * (Decimal(1024) ** 2 if key == "heap_bytes" else 1)
    # the bytes the record holds, in the reading its own unit has
    size = held * (Decimal(1000) ** 2 if key == "mem_used_mb" else
                   Decimal(1024) ** 2 if key == "rss_mib" else 1)
    said = written(size, unit)
    if Decimal(said) == 0:
        return
    assert agreement(f"used {said} {unit}", f"{key}={held}") is Agreement.MATCH, (said, unit)


@given(mib=st.integers(1, 400_000), unit=st.sampled_from(sorted(POWER)),
       scale=st.sampled_from([10, 1000, Decimal("0.1"), Decimal("0.001")]))
@example(mib=4096, unit="GB", scale=10)
def test_a_wrong_scale_is_another_size(mib: int, unit: str, scale: Decimal | int) -> None:
    size = Decimal(mib) * Decimal(1024) ** 2
    said = Decimal(written(size, unit)) * Decimal(scale)
    if said == 0:
        return
    assert agreement(f"used {said} {unit}", f"mem_used_mb={mib}") is Agreement.CONFLICT


def test_a_decimal_unit_reads_both_ways_and_a_binary_unit_one() -> None:
    assert byte_factors("GB") == (Decimal(10) ** 9, Decimal(2) ** 30)
    assert byte_factors("gigabytes") == byte_factors("gb")
    assert byte_factors("GiB") == byte_factors("Gi") == (Decimal(2) ** 30,)
    assert byte_factors("bytes") == (Decimal(1),)
    assert byte_factors("ms") == byte_factors(None) == ()


@given(gb=st.integers(1, 64), wrong=st.sampled_from([10, 1000]),
       shape=st.sampled_from(["host={h} mem_used_mb={v}", '{{"host": "{h}", "mem_used_mb": {v}}}']))
def test_the_judge_reads_memory_in_any_unit(gb: int, wrong: int, shape: str) -> None:
    judge = StagedJudge()
    evidence = EvidenceSet.coerce([shape.format(h="api-1", v=gb * 1024)])

    def bucket(claim: str) -> str:
        return judge.explain(synthesis=claim, evidence=evidence)[0].bucket

    assert bucket(f"api-1 used {gb} GB of memory.") == "grounded"
    assert bucket(f"api-1 used {gb} GiB of memory.") == "grounded"
    assert bucket(f"api-1 used {gb * 1024} MB of memory.") == "grounded"
    assert bucket(f"api-1 used {gb * wrong} GB of memory.") == "contradicted"
    assert bucket(f"api-1 used {gb} MB of memory.") == "contradicted"


@given(said=st.integers(1, 999), held=st.integers(1, 999), unit=st.sampled_from(sorted(POWER)))
@example(said=23, held=21, unit="GB")
def test_two_sizes_in_one_unit_are_two_numbers(said: int, held: int, unit: str) -> None:
    # 21 GB read as binary (22.5e9 bytes) is still not "23 GB": within a unit, numbers compare
    found = agreement(f"used {said} {unit}", f"mem={held} {unit}")
    assert found is (Agreement.MATCH if said == held else Agreement.CONFLICT), (said, held)
