"""YAML as ltrconv reads it (conventions files, ``--param`` values): PyYAML's safe subset, plus
two refusals that ``yaml.safe_load`` does not make.

* Numbers are read as YAML 1.2 reads them, which is what a person writing them means:
  ``1e-9`` is a float (YAML 1.1 makes it a string), ``010`` is ten (YAML 1.1: eight; ``0o10``
  is octal), ``1:30`` is a string (YAML 1.1: the base-60 number 90). An integer of more than
  :data:`MAX_DIGITS` digits is refused.
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

MAX_DIGITS = 4300
"""Most digits of an integer (Python's own limit on converting text to int)."""

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


_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
# YAML 1.1 (PyYAML) reads 010 as octal 8 and 1:30 as base-60 90, and 1e-9 as a string; the
# resolvers below are YAML 1.2's core schema (plus 1.1's underscores and 0b binary).
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(
    _INT, re.compile(r"^[-+]?(?:0b[01_]+|0o[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)$"),
    list("-+0123456789"))
_Loader.add_implicit_resolver(
    _FLOAT, re.compile(r"^(?:[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9_]+)(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+.0123456789"))


def _construct_int(loader: _Loader, node: Node) -> int:
    text = loader.construct_scalar(node).replace("_", "")
    sign = -1 if text[0] == "-" else 1
    text = text.lstrip("+-")
    base = {"0b": 2, "0o": 8, "0x": 16}.get(text[:2], 10)
    digits = text[2:] if base != 10 else text
    if len(digits) > MAX_DIGITS:
        raise ConstructorError(None, None, f"an integer of {len(digits):,} digits (at most "
                               f"{MAX_DIGITS:,})", node.start_mark)
    return sign * int(digits, base)


_Loader.add_constructor(_INT, _construct_int)


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
