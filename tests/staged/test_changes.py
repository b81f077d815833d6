"""A change is read in its order off a record's fields before and after it (``replicas_old`` and
``replicas_new``, ``previous_version`` and ``current_version``): "from A to B" the other way
round, or "now A" / "to A" where A is the value it left, is contradicted; and an act a record
says was done (``action=scale``) is the act: "deleted" beside it is contradicted."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
PAIRS = [("replicas_old", "replicas_new"), ("previous_replicas", "current_replicas"),
         ("replicas_before", "replicas_after")]


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=100)
@given(keys=st.sampled_from(PAIRS), old=st.integers(1, 20), new=st.integers(1, 20),
       form=st.sampled_from(["from {a} to {b}", "to {b}", "now {b}"]), swapped=st.booleans())
@example(keys=PAIRS[0], old=8, new=1, form="from {a} to {b}", swapped=True)
@example(keys=PAIRS[0], old=8, new=1, form="to {b}", swapped=True)
def test_a_change_is_read_in_its_order(keys: tuple[str, str], old: int, new: int, form: str,
                                       swapped: bool) -> None:
    if old == new:
        return
    item = f"ts=2024-06-10T14:01:09Z deployment=orders-api {keys[0]}={old} {keys[1]}={new}"
    a, b = (new, old) if swapped else (old, new)
    said = form.format(a=a, b=b)
    claim = (f"orders-api now has {b} replicas." if form.startswith("now")
             else f"orders-api was scaled {said} replicas.")
    verdict = bucket(claim, [item])
    if swapped:
        assert verdict == "contradicted", (claim, item)
    else:
        assert verdict == "grounded", (claim, item)


ACTIONS = [("scale", "scaled"), ("delete", "deleted"), ("restart", "restarted"),
           ("create", "created")]


@settings(max_examples=60)
@given(done=st.sampled_from(ACTIONS), said=st.sampled_from(ACTIONS),
       shape=st.sampled_from(["ts=2024-06-10T14:01:09Z user=frank action={a} "
                              "resource=deployment/orders-api result=allowed",
                              '{{"user": "frank", "verb": "{a}", "objectRef": '
                              '{{"name": "orders-api", "resource": "deployments"}}}}']))
def test_the_act_is_the_one_the_record_says(done: tuple[str, str], said: tuple[str, str],
                                            shape: str) -> None:
    item = shape.format(a=done[0])
    claim = f"frank {said[1]} the orders-api deployment."
    expected = "grounded" if done == said else "contradicted"
    assert bucket(claim, [item]) == expected, (claim, item)


DIFF = """diff --git a/deploy/{svc}/values.yaml b/deploy/{svc}/values.yaml
@@ -12,8 +12,8 @@ {svc}:
   http:
-    {key}: {old}
+    {key}: {new}
   db:
     host: pg-primary.prod.svc"""
KEYS = [("timeoutSeconds", "timeout", "seconds"), ("maxConnections", "max connections", ""),
        ("replicaCount", "replica count", "")]


@settings(max_examples=80)
@given(key=st.sampled_from(KEYS), old=st.integers(1, 500), new=st.integers(1, 500),
       off=st.integers(1, 90), form=st.sampled_from(["now", "from", "swapped", "other end"]))
@example(key=KEYS[0], old=10, new=30, off=370, form="other end")
@example(key=KEYS[0], old=10, new=30, off=1, form="now")
def test_a_diff_of_a_key_is_its_change(key: tuple[str, str, str], old: int, new: int, off: int,
                                       form: str) -> None:
    if old == new:
        return
    item = DIFF.format(svc="search", key=key[0], old=old, new=new)
    unit = f" {key[2]}" if key[2] else ""
    faithful = {"now": f"The search {key[1]} is now {new}{unit}.",
                "from": f"The search {key[1]} went from {old} to {new}{unit}."}
    unfaithful = {"now": f"The search {key[1]} is now {old}{unit}.",
                  "from": f"The search {key[1]} went from {new} to {old}{unit}.",
                  "swapped": f"The search {key[1]} went from {new} to {old}{unit}.",
                  "other end": f"The search {key[1]} went from {old} to {new + off}{unit}."}
    if form in faithful:
        assert bucket(faithful[form], [item]) == "grounded", (faithful[form], item)
    assert bucket(unfaithful[form], [item]) != "grounded", (unfaithful[form], item)


def test_a_yaml_list_item_is_no_change() -> None:
    from gsar_otel.judges.staged.log_fields import diff_keys
    assert diff_keys(["- name", "image", "- name"]) == ["- name", "image", "- name"]
    assert diff_keys(["-    ttl", "+    ttl", "host"]) == ["ttl_old", "ttl_new", "host"]
