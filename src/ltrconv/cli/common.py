"""What the commands share: their parser's layout, output paths, conventions files, messages."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import textwrap
from pathlib import Path

from ..errors import LtrconvError, printable
from ..outputs import atomic_path, check_output, write_stdout

OUTPUT_RULES = """\
output paths (-o/--out, OUTPUT):
  A regular file or a new path is written in full to a hidden temporary file
  beside it, then renamed over it: an interrupted or failed run leaves the old
  file (or nothing). A symbolic link is followed and its target treated by the
  same rules. A FIFO or a character device (/dev/null, /dev/stdout, >(...)) is
  written through, as the shell's > would. A directory, a socket or a block
  device is refused, and so is a file without write permission (even for root)
  or in a directory that is not writable. The path is checked before any work
  starts."""

FORMATTER = argparse.RawDescriptionHelpFormatter


class _StoreOnce(argparse._StoreAction):
    """An option taking one value: given twice, refused (argparse would keep the last one
    silently). Repeatable options say so and append."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given", {})
        if option_string is not None and self.dest in given:
            parser.error(f"{given[self.dest][0]} is given twice ({str(given[self.dest][1])!r} "
                         f"and {str(values)!r}); give it once")  # as written, typed or not
        given[self.dest] = (option_string, values)
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """ltrconv's argument parser (and its commands'): an option that takes one value may be
    given once."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def parse_args(self, args=None, namespace=None):
        out = super().parse_args(args, namespace)
        out.__dict__.pop("_given", None)
        return out


def paragraphs(*texts: str) -> str:
    """Paragraphs wrapped for an 80-column terminal, a blank line between them."""
    return "\n\n".join(textwrap.fill(" ".join(t.split()), 78) for t in texts)


def add_command(subparsers, name: str, summary: str, description: str,
                writes: bool = True) -> argparse.ArgumentParser:
    """The parser of command ``name``: ``summary`` in the command list and, as a sentence,
    before ``description``; a command that ``writes`` explains its output paths below."""
    return subparsers.add_parser(
        name, help=summary, formatter_class=FORMATTER,
        description=paragraphs(f"{summary[0].upper()}{summary[1:]}.", description),
        epilog=OUTPUT_RULES if writes else None)


def add_conventions_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--conventions-file", metavar="FILE",
                        help="YAML file defining more conventions")


def add_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")


def add_format(parser: argparse.ArgumentParser, choices=("text", "json"), more: str = "") -> None:
    """``--format``, one of ``choices``, the first the default; ``more`` ends its help."""
    parser.add_argument("--format", choices=choices, default=choices[0],
                        help=f"output format (default: {choices[0]})"
                        + (f"; {more}" if more else ""))


def load_conventions_file(path: str | None):
    """:func:`ltrconv.data.conventions_file.load_conventions` of ``--conventions-file``, imported
    when a command asks (the command line starts without the engine)."""
    from ..data.conventions_file import load_conventions

    return load_conventions(path)


def check_out(out: str | None, *inputs: str | None) -> None:
    """Refuse an unusable output path now, before the work (see OUTPUT_RULES), in particular
    one that is the same file as one of the command's ``inputs``."""
    if out is not None and out != "-":
        check_output(out, inputs=[i for i in inputs if i is not None])


@contextlib.contextmanager
def library_output_to_stderr():
    """Send whatever libraries print meanwhile to stderr, so that stdout holds only results.

    LightGBM logs through Python's ``print`` and, from its worker threads, straight to file
    descriptor 1; both are redirected.
    """
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no stdout to protect
        saved = None
    if saved is not None:
        os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def plot_format(path: str) -> str:
    """The figure format (``--plot``) the name of ``path`` asks for (PNG without a suffix);
    one that matplotlib cannot write is refused before any work."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    suffix = path.rsplit(".", 1)[-1].lower() if "." in os.path.basename(path) else "png"
    known = FigureCanvasAgg.get_supported_filetypes()
    if suffix not in known:
        raise LtrconvError(f"--plot {printable(path)}: cannot draw a .{printable(suffix)} "
                           f"file; name one ending in {', '.join('.' + k for k in known)}")
    return suffix


def check_plot(plot: str | None, output: str | None, inputs) -> None:
    """``--plot``, when given, checked before any work as ``--output`` is (not one of the
    ``inputs``), in a format matplotlib writes, and not the file ``--output`` names."""
    if not plot:
        return
    check_out(plot, *inputs)
    plot_format(plot)
    if output and os.path.realpath(output) == os.path.realpath(plot):
        raise LtrconvError(f"--plot and --output both name {printable(plot)}: the figure and "
                           "the report need two files")


def emit(text: str, out: str | None) -> None:
    """``text`` to ``out`` in full (atomically), or to stdout for None or '-'."""
    if out is None or out == "-":
        write_stdout(text)
        return
    with atomic_path(out) as tmp:
        Path(tmp).write_text(text)


def say(text: str) -> None:
    """One line on stderr, which may itself be gone."""
    with contextlib.suppress(OSError, ValueError):
        print(text, file=sys.stderr)
