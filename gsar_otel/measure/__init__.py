"""Measuring judges: statistics, ``gsar bench`` (accuracy on labelled data) and ``gsar calibrate``
(fitting thresholds on a human-graded set)."""
