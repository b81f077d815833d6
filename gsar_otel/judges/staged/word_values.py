"""A word a claim gives a record's field: "checkout-api runs in namespace staging" beside
``service=checkout-api namespace=prod``.

A field whose value is a plain word (``namespace=prod``, ``strategy=bluegreen``,
``engine=postgres``, ``runtime=python``) holds a categorical value no category axis lists. A
claim that names the field's key and gives it another word states another value for the same
key and subject: contradicted. The claim's word is the one it puts beside the key: the words
just before it ("the staging environment", "a mysql database engine") or the word just after
it, with at most a copula between ("namespace staging", "region was us-west-2").

The claim holds the value when one of its words is the value written alike (case, hyphens,
slashes: "blue-green" is ``bluegreen``), shortened ("prod" for ``production``, "postgres" for
``postgresql``) or as initials ("Google Cloud Platform" for ``gcp``). A word of the claim is
another value only when the evidence holds it nowhere, or holds it as the value of the same key
of another record; a word the evidence states elsewhere may be the claim's paraphrase, and is
left to the other checks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from gsar_otel.core.text import STOPWORDS
from gsar_otel.judges.staged.alignment import Alignment, FactIndex, numbered_records
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import ClaimSlots
from gsar_otel.judges.staged.facts import STATE_KEYS, Fact, Field
from gsar_otel.judges.staged.keyed import UNIT_WORDS
from gsar_otel.judges.staged.lexicon import IDENTITY_KEYS, key_stems
from gsar_otel.judges.staged.log_fields import COMMANDS, METHODS
from gsar_otel.judges.staged.ordinals import check_ordinals
from gsar_otel.judges.staged.plain_names import ACT_WORDS, key_parts
from gsar_otel.judges.staged.roots import root
from gsar_otel.judges.staged.triggers import TRIGGER_VERBS, check_trigger, trigger_of

_TOKEN: Final = re.compile(r"[a-z0-9][a-z0-9_./\-]*[a-z0-9]|[a-z0-9]")
_WORD_VALUE: Final = re.compile(r"[a-z][a-z0-9/\-]{1,39}")
"""A field value that is one plain word (lowercased): a letter first, no spaces."""
_PHRASE: Final = re.compile(r"[a-z][a-z()\- ]{1,60}")
"""A field value of plain words (``idle in transaction (aborted)``)."""
_NOT_VALUES: Final = frozenset({"true", "false", "yes", "no", "none", "null", "never", "not",
                                "nothing", "unknown", "n/a"})
"""A truth, an absence or a negation: the key's polarity (``merged=false``), which the
negation checks read, never a word value."""
_STATED: Final = re.compile(r"\b(?:is|was|are|were|became|remains|remained|stays|stayed|went)"
                           r"\s{1,3}(?:still\s{1,3}|now\s{1,3}|in\s{1,3})?([A-Za-z][\w-]{1,40})")
"""A state a claim gives its subject: "pod X is Pending", "was in CrashLoopBackOff"."""
_COPULAS: Final = frozenset({"is", "was", "are", "were", "be", "been", "set", "to", "as"})
"""Words between a key and the value after it: "region was us-west-2", "tier set to gold"."""
_GENERIC_KEYS: Final = frozenset(root(w) for w in (
    "name", "type", "kind", "id", "value", "key", "label", "message", "msg", "text", "detail",
    "description", "summary", "note", "comment", "source", "target", "object", "item"))
"""Key words too general for the word beside them to be the field's value ("the error
message", "a new type of")."""
BEFORE: Final = 2
"""Words before the key read as its value: "a mysql database engine"."""
MIN_PREFIX: Final = 3
"""A shortened value keeps at least this many letters ("prod")."""


def _normal(word: str) -> str:
    return re.sub(r"[^a-z0-9]", "", word.lower())


def _holds(value: str, tokens: Sequence[str]) -> bool:
    """Whether the claim's tokens write ``value``: alike, shortened, or as initials."""
    wanted = _normal(value)
    if not wanted:
        return True
    for token in tokens:
        said = _normal(token)
        if said == wanted:
            return True
        short, long = sorted((said, wanted), key=len)
        if len(short) >= MIN_PREFIX and long.startswith(short):
            return True
    initials = "".join(t[0] for t in tokens if t[0].isalpha())
    return len(wanted) >= 2 and wanted.isalpha() and wanted in initials


def _telling(key: str) -> frozenset[str]:
    """The stems that tell a field's key: its last part's (``incidents.urgency`` is urgency,
    not every field of an incident), or the part before a general one (``priority.summary``)."""
    stems: frozenset[str] = frozenset()
    for part in reversed(key.split(".")):
        stems = key_stems(part) - UNIT_WORDS - _GENERIC_KEYS
        if stems:
            break
    return stems


def _word_fields(index: FactIndex, position: int) -> dict[str, tuple[Field, ...]]:
    """A fact's fields holding one plain word and no typed value, by the telling stems of their
    keys. An identity key's value (``region=eu-west-1``) names a subject, which the subject
    checks read."""
    held = index.memo.get(("word fields", position))
    if held is not None:
        return held  # type: ignore[return-value]
    fact = index.facts[position]
    table: dict[str, list[Field]] = {}
    for field in fact.fields if fact.kind != "prose" else ():
        if field.anchors:
            continue
        value = field.value.lower()
        if not _WORD_VALUE.fullmatch(value) or value in _NOT_VALUES \
                or field.key_stems & IDENTITY_KEYS:
            continue
        for stem_ in _telling(field.key):
            table.setdefault(stem_, []).append(field)
    found = {k: tuple(v) for k, v in table.items()}
    index.memo[("word fields", position)] = found  # a claim reads a fact's table, not its fields
    return found


def _beside(tokens: Sequence[str], stems: frozenset[str],
            own: frozenset[str] = frozenset()) -> list[str]:
    """The claim's words beside its last mention of a key: those just before it (up to a
    stopword), or, with none, the one just after it (past the subject it is of, ``own``, and a
    copula: "the environment of checkout-api is sandbox")."""
    places = [i for i, t in enumerate(tokens) if root(t) in stems]
    if not places:
        return []
    end = places[-1]
    start = end
    while start - 1 in places:
        start -= 1
    before: list[str] = []
    for token in reversed(tokens[max(0, start - BEFORE):start]):
        if token in STOPWORDS or token in _COPULAS:
            break
        before.insert(0, token)
    after = end + 1
    if tokens[after:after + 1] == ["of"] and tokens[after + 1:after + 2] and (
            tokens[after + 1] in own):
        after += 2
    while after < len(tokens) and tokens[after] in _COPULAS:
        after += 1
    if before or after >= len(tokens) or tokens[after] in STOPWORDS:
        return before  # "the staging namespace is used": its value stands before it
    return [tokens[after]]


def _other_value(word: str, stems: frozenset[str], index: FactIndex,
                 held: Field, said: str = "") -> Field | None:
    """The field of another record holding ``word`` under the key of ``held`` (found by the
    key's stems): ``status.health.status=Degraded`` is no value of ``status.sync.status``; or,
    given the claim's text ``said``, a value of words that it begins and the claim writes
    whole ("PID 31877 is idle in transaction" beside another row's ``idle in transaction``)."""
    for position in index.by_token.get(word, ()):
        table = _word_fields(index, position)
        for field in (f for s in stems for f in table.get(s, ())):
            if field.key == held.key and _normal(field.value) == _normal(word):
                return field
    return _phrase_value(word, index, held, said) if said else None


def _spaced(text: str) -> str:
    """``text`` lowercased, its runs of spaces one space (a padded table cell as written)."""
    return " ".join(text.lower().split())


def _phrase_value(word: str, index: FactIndex, held: Field, said: str) -> Field | None:
    """A value of ``held``'s key of words, another than ``held``'s, that ``word`` begins and the
    claim's text ``said`` writes whole ("idle in transaction", where its record is ``idle``)."""
    own = _spaced(held.value)
    for position in index.by_token.get(word, ()):
        for field in index.facts[position].fields:
            value = _spaced(field.value)
            if field.key == held.key and value.startswith(f"{word} ") and value in said \
                    and value not in own:
                return field
    return None


def _categorical(field: Field) -> bool:
    return bool(field.categories or field.key_categories)


def check_word_values(slots: ClaimSlots, alignment: Alignment,
                      index: FactIndex) -> list[Check]:
    """Each plain-word field of the claim's focus facts whose key the claim names, against the
    word the claim puts beside that key (see the module docstring): a CONFLICT per field whose
    value the claim gives another word; a field it states alike adds nothing (its fact is
    already the claim's). A state field (``status.phase=Running``) is named by a verb of being
    ("pod X is Pending"), and is contradicted only by a word another record holds under it."""
    tokens = _TOKEN.findall(slots.text.lower())
    # of a host, a service, a pod, or where records are keyed by the scope: not "the economic
    # environment" of a story
    scoped = _unknown_scopes(tokens, index, keyed=not slots.subjects)
    # a record the claim does not name ("the run was on the release branch" of the one run
    # listed): another word for its field is a value no evidence item states, not a conflict
    named = bool(slots.subjects) or bool(numbered_records(slots.text, index))  # "incident 2077"
    # a capitalised word ("Pending", "Azure") is the claim's name and may be a value too
    own = frozenset({*slots.subjects, *(v.spec.text.lower() for v in slots.values)})
    said = {root(t) for t in tokens}
    states = [m.group(1).lower() for m in _STATED.finditer(slots.text)]
    fields: dict[Field, tuple[Fact, frozenset[str], bool]] = {}
    for position in alignment.focus:
        table = _word_fields(index, position)
        for stem_ in said:
            for field in table.get(stem_, ()):
                if not _categorical(field):
                    fields.setdefault(field, (index.facts[position],
                                              field.key_stems - UNIT_WORDS - _GENERIC_KEYS, False))
        for stem_ in STATE_KEYS if states else ():
            for field in table.get(stem_, ()):
                fields.setdefault(field, (index.facts[position], field.key_stems, True))
        for field in index.facts[position].fields if states else ():  # "fastpath function call"
            if field.key_stems & STATE_KEYS and not field.anchors and " " in field.value.strip() \
                    and _PHRASE.fullmatch(field.value.strip().lower()):
                fields.setdefault(field, (index.facts[position], field.key_stems, True))
    checks: list[Check] = []
    done: set[frozenset[str]] = set()
    text = _spaced(slots.text)
    for field, (fact, stems, state) in fields.items():
        if stems in done:
            continue
        done.add(stems)
        longer = next((f for w in states if (f := _phrase_value(w, index, field, text))),
                      None) if state else None
        if longer is not None:  # "is idle in transaction" of a record that is only ``idle``
            checks.append(Check("value", "CONFLICT", f"says {' '.join(longer.value.split())}; "
                                f"{fact.ref} has {field.shown}", fact.ref, fact.position))
            continue
        if any(_holds(fl.value, tokens) for fl, (_, s, _) in fields.items() if s == stems):
            continue
        for word in states if state else _beside(tokens, stems, own):
            if word in own or word in _NOT_VALUES or root(word) in stems or word[0].isdigit():
                continue
            other = _other_value(word, stems, index, field, text if state else "")
            if other is None and (state or word in index.by_token or root(word) in index.by_stem):
                continue  # said elsewhere: perhaps the claim's paraphrase, not a value
            checks.append(Check("value", "CONFLICT" if named else "ABSENT", f"says {word} for "
                                f"{field.key}; {fact.ref} has {field.shown}", fact.ref,
                                fact.position))
            break
    trigger = check_trigger(slots, alignment, index) + check_ordinals(
        slots, alignment, index, named)
    if trigger_of(slots.text):  # "triggered by a push": the run's trigger, not an act done
        tokens = [t for t in tokens if t not in TRIGGER_VERBS]
    return scoped + checks + trigger + (_check_acts(tokens, alignment, index) if named else [])


ACTION_KEYS: Final = frozenset(root(w) for w in ("action", "verb", "operation", "op", "event",
                                                  "activity"))
"""Keys whose value is what was done (``action=scale``, an audit event's ``verb``)."""


def _check_acts(tokens: Sequence[str], alignment: Alignment, index: FactIndex) -> list[Check]:
    """An act the claim says was done ("frank deleted the deployment") against a record of the
    claim's subjects saying what was done: another act, with the claim's act nowhere in the
    record, is contradicted (``action=scale``)."""
    acts = [t for t in tokens if t in ACT_WORDS]  # verbs as written: "deployment" is none
    for position in alignment.focus if acts else ():
        fact = index.facts[position]
        if fact.kind == "prose" or any(root(a) in fact.stems for a in acts):
            continue
        done = next((f for f in fact.fields if f.key_stems & ACTION_KEYS
                     and _WORD_VALUE.fullmatch(f.value.lower())), None)
        if done is not None:
            return [Check("value", "CONFLICT", f"says {acts[0]}; {fact.ref} has {done.shown}",
                          fact.ref, fact.position)]
    return []


SCOPES: Final = frozenset((
    "namespace", "namespaces", "environment", "environments", "env", "cluster", "clusters",
    "datacenter", "datacenters", "tenant", "tenants"))
"""Nouns of where a thing runs, as written ("clustering" is none): the word naming one ("the
staging namespace") is a name."""


def _unknown_scopes(tokens: Sequence[str], index: FactIndex, keyed: bool) -> list[Check]:
    """A scope the claim names ("in the staging namespace") that no evidence item holds in any
    writing of it (``prod`` holds "production"): a name found nowhere. ``keyed``: only a scope
    some record has a key of (``kubernetes.namespace``)."""
    found: list[Check] = []
    for noun in SCOPES & set(tokens):
        if keyed and noun.rstrip("s") not in key_parts(index) and noun not in key_parts(index):
            continue
        for word in _beside(tokens, frozenset({root(noun)})):
            if word in STOPWORDS or word in _NOT_VALUES or word[0].isdigit() or root(word) in (
                    index.by_stem) or word in index.by_token or _written_anywhere(word, index):
                continue
            found.append(Check("subject", "ABSENT", f"{word} ({noun}) appears in no evidence "
                               "item"))
            break
    return found


def _written_anywhere(word: str, index: FactIndex) -> bool:
    """Whether some evidence token, or a part of one, writes ``word`` shortened or in full
    ("prod", ``eu-prod``)."""
    return any(_holds(part, [word]) for token in index.by_token if word[0] in token
               for part in re.split(r"[-_./]", token) if part[:1] == word[:1])


_METHOD: Final = re.compile(rf"\b({'|'.join(METHODS)})\s{{1,3}}(/[^\s,;]{{0,2000}})")
"""A request a claim names by its method and path ("GET /login"); the method in capitals."""
_COMMAND: Final = re.compile(
    rf"\b({'|'.join(COMMANDS)})\s{{1,3}}(?:(?:on|of|against|from|into|to|in)\s{{1,3}})?"
    r"(?:the\s{1,3})?([A-Za-z_][\w.]{0,120})")
"""A statement a claim names by its command and table ("an UPDATE on payments")."""
_ACTS: Final = (("method", "path", _METHOD), ("command", "table", _COMMAND))


def check_method(slots: ClaimSlots, index: FactIndex) -> list[Check]:
    """The method or command a claim gives a path or a table against the lines of it: "GET
    /login" beside only ``POST /login``, "an UPDATE on payments" beside only a ``SELECT`` of
    ``payments``, are contradicted."""
    checks: list[Check] = []
    for act, thing, pattern in _ACTS:
        for said in pattern.finditer(slots.text):
            verb, name = said.group(1), said.group(2).rstrip(".").lower()
            held = _acts(index, act, thing).get(name, [])
            if held and not any(field.value.upper() == verb.upper() for _, field in held):
                fact, field = held[0]
                checks.append(Check("value", "CONFLICT", f"says {verb} {name}; {fact.ref} "
                                    f"has {field.shown}", fact.ref, fact.position))
    return checks


def _acts(index: FactIndex, act: str, thing: str) -> dict[str, list[tuple[Fact, Field]]]:
    """Per path or table, the fields of the method or command done to it (read once per
    evidence)."""
    memo = index.memo.get(("acts", act))
    if isinstance(memo, dict):
        return memo
    held: dict[str, list[tuple[Fact, Field]]] = {}
    index.memo[("acts", act)] = held
    for fact in index.facts:
        things = [f.value.lower() for f in fact.fields if f.key == thing]
        for field in fact.fields:
            if field.key == act:
                for name in things:
                    held.setdefault(name, []).append((fact, field))
    return held
