"""End-to-end fixtures: the session's one real Phoenix server is registered in tests/conftest.py
(see tests/support/phoenix.py)."""
