"""Ctrl-C while the command is still importing ends it in one line, as during a command."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import builtins, sys
real_import = builtins.__import__
def interrupting(name, *args, **kwargs):
    if name == "{module}":
        raise KeyboardInterrupt
    return real_import(name, *args, **kwargs)
builtins.__import__ = interrupting
from ltrconv.cli import run
sys.exit(run())
"""


def _interrupted_at(module: str, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CODE.format(module=module), *argv],
                          capture_output=True, text=True, timeout=120)


def test_importing_the_package_loads_no_numerical_library():
    out = subprocess.run([sys.executable, "-c", "import sys, ltrconv.cli; print(sorted(m for m in "
                          "sys.modules if m.split('.')[0] in ('numpy', 'pandas', 'numba')))"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr


def test_ctrl_c_while_the_command_modules_load():
    """numpy loads while the parser is built (the commands' modules), numba when train starts."""
    for module, argv in (("numpy", ["eval", "--help"]), ("numba", ["train", "--algorithm",
                                                                   "adarank", "--train", "x",
                                                                   "--out", "m"])):
        proc = _interrupted_at(module, *argv)
        assert proc.returncode == 130, proc.stderr
        assert proc.stderr == "ltrconv: interrupted\n"
