"""YAML as ltrconv reads it (conventions files, ``--param`` values): PyYAML's safe subset, plus
two refusals that ``yaml.safe_load`` does not make.

* Numbers in exponent form without a dot (``1e-9``) are floats, as YAML 1.2 reads them
  (YAML 1.1 makes them strings).
* A mapping that repeats a key is refused: ``safe_load`` keeps the last value silently, so a
  convention defined twice would quietly be the second one. Keys brought in by a merge
  (``<<: *base``) may be overridden, as YAML intends.
* Aliases let a few lines stand for a huge value (nine levels of nine aliases make 9^9
  nodes: a minute of CPU and gigabytes to build, and gigabytes more to print). The value a
  document expands to is counted on the node graph before anything is built; when aliases add
  more than :data:`MAX_NODES` nodes to what is written, or an alias contains itself, the
  document is refused. So is nesting deeper than the parser's recursion allows.

Refusals are ``yaml.YAMLError`` exceptions carrying the line, as PyYAML's own errors do.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, SequenceNode

from ..errors import printable, shown

MAX_NODES = 10_000
"""Largest number of YAML nodes (scalars, sequences, mappings) that aliases may add to a
document by repeating what they refer to; a document without aliases may be of any size."""

_MERGE = "tag:yaml.org,2002:merge"


class _Loader(yaml.SafeLoader):
    def compose_document(self) -> Node:
        node = super().compose_document()
        _expanded_size(node, MAX_NODES + _distinct_nodes(node))
        return node

    def construct_mapping(self, node: Node, deep: bool = False) -> dict:
        if isinstance(node, MappingNode):
            first: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    line = first.get(key)
                except TypeError:  # an unhashable key: the base class says so
                    continue
                if line is not None:
                    raise ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"found the key {shown(key)} a second time (first on line {line + 1}); "
                        "each key may appear once", key_node.start_mark)
                first[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


# YAML 1.1 (PyYAML) reads 1e-9 and 1E+3 as strings: its floats need a dot. A person writing
# tol=1e-9 means a number, as YAML 1.2 reads it.
_Loader.add_implicit_resolver("tag:yaml.org,2002:float",
                              re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
                              list("-+.0123456789"))


def _refuse(problem: str, node: Node) -> ConstructorError:
    return ConstructorError(None, None, problem, node.start_mark)


def _distinct_nodes(root: Node) -> int:
    """Nodes of the document as written (each node once, aliases not repeated)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            stack.extend(n for pair in node.value for n in pair)
    return len(seen)


def _expanded_size(root: Node, limit: int = MAX_NODES) -> int:
    """Nodes of the value ``root`` expands to (aliases repeated), or raise beyond ``limit``."""
    done: dict[int, int] = {}
    active: set[int] = set()

    def size(node: Node) -> int:
        key = id(node)
        if key in done:
            return done[key]
        if key in active:
            raise _refuse("an alias refers to a value that contains it", node)
        active.add(key)
        total = 1
        if isinstance(node, SequenceNode):
            children = node.value
        elif isinstance(node, MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        for child in children:
            total += size(child)
            if total > limit:
                raise _refuse(f"aliases expand the document by more than {MAX_NODES:,} values "
                              "(an alias repeats what it refers to); write it out instead", root)
        active.discard(key)
        done[key] = total
        return total

    return size(root)


def load(text: str) -> Any:
    """The value of the YAML document ``text``, by the module's rules."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 -- a SafeLoader subclass
    except RecursionError:
        raise yaml.YAMLError("nested too deeply") from None


def reason(exc: Exception) -> str:
    """One line saying why a YAML text was refused (PyYAML's context and problem)."""
    parts = [getattr(exc, "context", None), getattr(exc, "problem", None)]
    text = "; ".join(p for p in parts if p) or str(exc)
    return printable(" ".join(text.split()))
