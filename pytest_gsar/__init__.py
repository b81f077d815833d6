"""pytest-gsar: fail CI when the grounding of AI-agent answers regresses.

The plugin loads itself (``pytest11`` entry point ``gsar``) and costs nothing until a test
judges an answer.

Fixtures:
    ``assert_grounded(synthesis, evidence, *, min_score=None, decision=None, judge=None,
    **evaluator_options)`` judges an answer and fails the test with every claim that is not
    grounded; ``gsar_judge`` and ``gsar_evaluator`` give the configured judge and evaluator.
    ``@pytest.mark.gsar(min_score=..., judge=..., decision=...)`` sets per-test defaults.

Case files:
    ``gsar_*.jsonl`` and ``*.gsar.jsonl`` hold recorded agent outputs, one JSON object per line
    (``id``, ``synthesis``, ``evidence``, optional ``expect``, ``min_score``, ``judge``,
    ``meta``); each line is the test item ``FILE::ID``.

Recorded verdicts:
    ``--gsar-record-mode=none|once|new_episodes|all`` (default ``none``, replay only) records the
    verdicts of API-backed judges into ``cassettes/gsar/`` next to the test files and replays
    them without a key (see :mod:`gsar_otel.judges.recorded.judge`).

Baselines and reports:
    ``--gsar-baseline=PATH`` fails on a drop of S beyond ``--gsar-tolerance`` or a worse
    decision, ``--gsar-update-baseline`` rewrites it; ``--gsar-report=PATH`` writes an HTML
    report; JUnit XML gets ``gsar_score`` / ``gsar_decision`` properties.

Every option also has an ini form (``gsar_judge``, ``gsar_record_mode``, ...); the command line
beats ini, which beats the marker. Hooks for ``conftest.py``: ``pytest_gsar_make_judge(config)``
and ``pytest_gsar_result(item, result)`` (:mod:`pytest_gsar.hooks`). A failing judgement raises
:class:`pytest_gsar.errors.GroundingFailure`, an ``AssertionError``.
"""
