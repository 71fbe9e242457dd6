"""Make the tests import the installed ``a2a_migrate``, never the source folder by accident.

setup.cfg installs the top-level ``transforms/`` folder as ``a2a_migrate.transforms``
(``package_dir``). ``python -m pytest`` run in the repository puts the working
folder first on ``sys.path``, so ``import a2a_migrate`` would find the source
folder ``a2a_migrate/``, which has no ``transforms`` inside: after a plain
(non-editable) ``pip install '.[test]'`` the chain could not be imported. With
the repository's root taken off ``sys.path``, every test imports what pip
installed: the wheel's files after a plain install (so the tests check the
install itself), the source tree through setuptools' editable finder after
``pip install -e``. Tests that start ``python -m a2a_migrate`` run it outside
the repository for the same reason.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _is_repo(entry: str) -> bool:
    return Path(entry or os.getcwd()).resolve() == REPO


sys.path[:] = [entry for entry in sys.path if not _is_repo(entry)]
if "a2a_migrate" not in sys.modules and importlib.util.find_spec("a2a_migrate") is None:
    pytest.exit("a2a-migrate is not installed: run pip install -e '.[test]' (or pip install '.[test]') first",
                returncode=pytest.ExitCode.USAGE_ERROR)
