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
        in float32, how far its values agree. With --axes, the axes a convention is made of:
        each one's values (default first), the inputs it acts on and what it means.
    """, writes=False)
    c.add_argument("--axes", action="store_true",
                   help="list the axes a convention is made of instead of the conventions")
    add_conventions_file(c)
    c.set_defaults(func=run)


def run(args: argparse.Namespace) -> None:
    if args.axes:
        write_stdout(axes_text())
        return
    convention_set = load_conventions_file(args.conventions_file)
    lines = []
    for name in convention_set.names():
        lines.append(f"{name:19s} {convention_set[name].canonical}\n")
        lib = conv_mod.library(name)
        if lib is not None:
            note = f" [float32: {lib.float32}]" if lib.float32 else ""
            lines.append(f"{'':19s} {lib.tool}, checked on {lib.checked}: {lib.description}{note}\n")
    write_stdout("".join(lines))


def axes_text() -> str:
    """The axes of :data:`ltrconv.evaluation.axes.AXES`, one block each."""
    from ..evaluation.axes import AXES

    out = []
    for a in AXES:
        where = "LETOR lists and runs" if "list" in a.inputs else "runs with qrels only"
        out.append(f"{a.name:11s}{a.listing.replace('`', '')}  [{where}]\n"
                   f"{'':11s}{a.meaning.replace('`', '')}\n")
    return "".join(out)
