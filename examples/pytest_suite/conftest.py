"""Suite-wide gsar hooks: extra JUnit properties for every judgement."""


def pytest_gsar_result(item, result):
    # Shown next to gsar_score and gsar_decision in --junitxml reports.
    item.user_properties.append(("gsar_rounds", result.rounds))
    item.user_properties.append(("gsar_judge", result.judge_name))
