"""Typed anchors, module by module; :mod:`gsar_otel.core.anchors` is their public face."""
