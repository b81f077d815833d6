"""``gsar --version`` prints the package's one version and exits 0."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gsar_otel._version import __version__
from gsar_otel.cli.main import main


def test_version_flag_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"gsar {__version__}"


def test_version_flag_works_from_the_console_entry_point() -> None:
    done = subprocess.run([sys.executable, "-m", "gsar_otel.cli.main", "--version"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"gsar {__version__}"
