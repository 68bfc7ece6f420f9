"""The package's layout rules, read from the modules' imports (function-level ones included).

Five wings under ``src/ltrconv``: ``evaluation`` imports no other wing, ``data`` and ``rankers``
import ``evaluation`` only, ``study`` imports those three, ``pipeline`` (the workflow's logic)
all four; every wing may import the
foundation modules ``errors``, ``outputs``, ``_version`` and ``jit``. No module imports the package
that contains it (nothing climbs back up), the engine's private kernels are imported from
``evaluation`` only, and the module graph has no cycle.
"""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
FOUNDATION = {"ltrconv.errors", "ltrconv.outputs", "ltrconv._version", "ltrconv.jit"}
WINGS = ("evaluation", "data", "rankers", "study", "pipeline")
ALLOWED = {"evaluation": set(), "data": {"evaluation"}, "rankers": {"evaluation"},
           "study": {"evaluation", "data", "rankers"},
           "pipeline": {"evaluation", "data", "rankers", "study"}}
PRIVATE = ("ltrconv.evaluation._kernels", "ltrconv.evaluation._numpy_kernel")


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted((SRC / "ltrconv").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The ltrconv modules ``name`` imports; ``from P import x`` counts as importing the
    submodule ``P.x`` when there is one, else ``P``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            subs = {f"{target}.{a.name}" for a in node.names} & known
            found |= subs or {target}
    return {m for m in found if m in known}


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {m: imports(m, p, set(mods)) - {m} for m, p in mods.items()}


def wing(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in WINGS else None


def wing_arrows(g: dict[str, set[str]]) -> dict[tuple[str, str], int]:
    """Import arrows between wings (module to module), by (from wing, to wing)."""
    out: dict[tuple[str, str], int] = {}
    for m, targets in g.items():
        for t in targets:
            a, b = wing(m), wing(t)
            if a and b and a != b:
                out[a, b] = out.get((a, b), 0) + 1
    return out


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope="module")
def import_graph():
    return graph()


def test_every_wing_is_a_package_with_public_names():
    for w in WINGS:
        init = SRC / "ltrconv" / w / "__init__.py"
        assert init.exists(), w
        assert ast.get_docstring(ast.parse(init.read_text())), f"{w}/__init__.py has no docstring"


def test_wings_import_only_the_wings_before_them(import_graph):
    bad = []
    for m, targets in import_graph.items():
        w = wing(m)
        if w is None:
            continue
        for t in targets:
            tw = wing(t)
            if tw is None and t not in FOUNDATION:
                bad.append(f"{m} -> {t} (top level beyond errors/outputs/_version/jit)")
            elif tw not in (None, w) and tw not in ALLOWED[w]:
                bad.append(f"{m} -> {t} ({w} may import {sorted(ALLOWED[w]) or 'no wing'})")
    assert bad == []


def test_foundation_imports_no_wing(import_graph):
    for m in FOUNDATION:
        assert import_graph[m] <= FOUNDATION, m


def test_nothing_imports_a_package_that_contains_it(import_graph):
    climbs = [f"{m} -> {t}" for m, targets in import_graph.items() for t in targets
              if m.startswith(t + ".")]
    assert climbs == []


def test_private_kernels_are_imported_by_the_engine_only(import_graph):
    outside = [f"{m} -> {t}" for m, targets in import_graph.items() for t in targets
               if t in PRIVATE and wing(m) != "evaluation"]
    assert outside == []


def test_no_import_cycle(import_graph):
    assert cycles(import_graph) == []


def test_the_checks_see_a_violation():
    """The analysis itself: a planted cycle and a planted wrong-way arrow are found."""
    g = {"ltrconv.evaluation.a": {"ltrconv.data.b"}, "ltrconv.data.b": {"ltrconv.evaluation.a"}}
    assert cycles(g) == [["ltrconv.data.b", "ltrconv.evaluation.a"]]
    assert wing_arrows(g) == {("evaluation", "data"): 1, ("data", "evaluation"): 1}


NUMBA_DECORATORS = {"njit", "prange", "jit"}
NUMBA_DIRECT: set[str] = set()
"""Modules allowed to take a decorator from numba itself: none."""


def numba_decorators(path: Path) -> list[str]:
    """Where ``path`` takes njit, prange or jit from numba directly: ``from numba import ...``
    or ``numba.NAME``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "numba" and not node.level:
            found += [f"line {node.lineno}: from numba import {a.name}" for a in node.names
                      if a.name in NUMBA_DECORATORS or a.name == "*"]
        elif (isinstance(node, ast.Attribute) and node.attr in NUMBA_DECORATORS
              and isinstance(node.value, ast.Name) and node.value.id == "numba"):
            found.append(f"line {node.lineno}: numba.{node.attr}")
    return found


def test_kernels_take_njit_and_prange_from_ltrconv_jit():
    """Every numba kernel is compiled with ltrconv.jit's njit and prange (numba's BLAS probe
    deferred): no module but ltrconv.jit takes them from numba."""
    direct = {m: found for m, p in modules().items() if m != "ltrconv.jit"
              for found in [numba_decorators(p)] if found}
    assert set(direct) - NUMBA_DIRECT == set(), direct


def test_the_numba_check_sees_each_form(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import numba\nfrom numba import njit as nj, types\n"
                      "from numba import prange\n@numba.jit\ndef f():\n    pass\n")
    assert numba_decorators(module) == ["line 2: from numba import njit",
                                        "line 3: from numba import prange", "line 4: numba.jit"]
