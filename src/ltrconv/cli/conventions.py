"""``ltrconv conventions``: the registered conventions."""

from __future__ import annotations

import argparse

from ..evaluation import conventions as conv_mod
from ..outputs import write_stdout
from .common import add_command, add_conventions_file, load_conventions_file


def add_parser(subparsers) -> None:
    c = add_command(subparsers, "conventions", "list the registered conventions", """
        Each name with its definition string, which -c accepts in place of the name; for a
        library's convention also the tool, the version checked and, where the library computes
        in float32, how far its values agree.
    """, writes=False)
    add_conventions_file(c)
    c.set_defaults(func=run)


def run(args: argparse.Namespace) -> None:
    convention_set = load_conventions_file(args.conventions_file)
    lines = []
    for name in convention_set.names():
        lines.append(f"{name:19s} {convention_set[name].canonical}\n")
        lib = conv_mod.library(name)
        if lib is not None:
            note = f" [float32: {lib.float32}]" if lib.float32 else ""
            lines.append(f"{'':19s} {lib.tool}, checked on {lib.checked}: {lib.description}{note}\n")
    write_stdout("".join(lines))
