"""Old import paths kept for one release after the move into subpackages (0.2).

Each old module is a few lines that call :func:`moved`: importing it warns once with a
``DeprecationWarning`` that names the new home, and then *is* the new module, so attributes,
monkeypatching and ``isinstance`` checks behave as before.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from types import ModuleType

REMOVED_IN = "0.3"


def moved(old: str, new: str) -> ModuleType:
    """Make ``old`` an alias of ``new`` and warn the importer that the old path is deprecated."""
    warnings.warn(
        f"{old} is deprecated and goes away in gsar-otel {REMOVED_IN}; import from {new} "
        f"(or the public names from gsar_otel) instead",
        DeprecationWarning,
        stacklevel=3,
    )
    module = importlib.import_module(new)
    sys.modules[old] = module
    return module
