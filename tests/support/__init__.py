"""Test support: servers the tests start (fake Messages API, Phoenix, Prometheus) and helpers."""
