"""The convention axes are declared once (ltrconv.evaluation.axes) and everything else follows:
the Convention's fields and checks, the canonical string, explain's causes, the listing of
``ltrconv conventions --axes`` and the table of docs/conventions.md. A made-up axis, added to
the declaration and to the rule in a copy of the package, reaches all of them."""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ltrconv.evaluation import axes
from ltrconv.evaluation.conventions import Convention, parse
from ltrconv.evaluation.explain import CAUSES

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ltrconv"


def test_convention_fields_are_the_declared_axes():
    names = [f.name for f in dataclasses.fields(Convention) if f.name != "name"]
    assert tuple(names) == axes.NAMES
    assert Convention() == Convention(**axes.DEFAULTS)


def test_canonical_string_spells_the_always_axes_and_the_others_away_from_default():
    assert Convention().canonical == "ndcg(" + ",".join(
        f"{a.name}={a.spelled(a.default)}" for a in axes.AXES if a.always) + ")"
    for a in axes.AXES:
        if a.choices is None or a.always:
            continue
        other = next(c for c in a.choices if c != a.default)
        conv = Convention(**{a.name: other})
        assert conv.canonical.endswith(f",{a.name}={other})"), a.name
        assert parse(conv.canonical) == conv


def test_each_closed_axis_refuses_a_value_outside_its_choices_naming_itself():
    from ltrconv.evaluation.conventions import ConventionError

    for a in axes.AXES:
        with pytest.raises(ConventionError, match=re.escape(a.name)):
            Convention(**{a.name: "no-such-value"})


def test_explain_causes_cover_every_axis_once():
    covered = [x for group in CAUSES.values() for x in group]
    assert sorted(covered) == sorted(axes.NAMES)


def test_docs_table_is_the_declaration():
    text = (ROOT / "docs" / "conventions.md").read_text()
    m = re.search(r"<!-- axes-table[^>]*-->\n(.*?)<!-- /axes-table -->", text, re.S)
    assert m, "docs/conventions.md has no axes table between its markers"
    assert m.group(1) == axes.markdown_table(), (
        "docs/conventions.md's axes table differs from ltrconv.evaluation.axes: paste "
        "axes.markdown_table() between its markers")


def test_cli_lists_every_axis():
    from ltrconv.cli.conventions import axes_text

    listed = [line.split()[0] for line in axes_text().splitlines() if not line.startswith(" ")]
    assert listed == list(axes.NAMES)


def _numba_functions(path: Path) -> list[ast.FunctionDef]:
    """Functions of a module compiled by numba: decorated with njit, or passed to njit(...)."""
    tree = ast.parse(path.read_text())
    wrapped = {node.args[0].id for node in ast.walk(tree)
               if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name)
               and isinstance(node.func, ast.Call) and getattr(node.func.func, "id", "") == "njit"}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            decorated = any("njit" in ast.unparse(d) for d in node.decorator_list)
            if decorated or node.name in wrapped:
                out.append(node)
    return out


TRAINING_NDCG = ("rankers/adarank.py", "rankers/coordinate_ascent.py", "rankers/lambdamart.py",
                 "rankers/lambdamart_lightgbm.py", "rankers/linear_objective.py")
"""The rankers' modules whose numba functions score NDCG under the training convention (they
take :class:`~ltrconv.evaluation.scorer.QueryArrays`)."""


def test_engine_kernels_take_a_convention_not_its_parts():
    """No numba function of the engine, or of a ranker scoring NDCG in training, takes more
    than 8 parameters, and none switches behaviour on an argument's None (a default of None)."""
    paths = sorted((SRC / "evaluation").glob("*.py")) + [SRC / m for m in TRAINING_NDCG]
    too_many, none_defaults = [], []
    for path in paths:
        for fn in _numba_functions(path):
            n = len(fn.args.args)
            where = f"{path.relative_to(SRC)}:{fn.name}"
            if n > 8:
                too_many.append(f"{where} ({n})")
            if any(isinstance(d, ast.Constant) and d.value is None for d in fn.args.defaults):
                none_defaults.append(where)
    assert too_many == [] and none_defaults == []
    for module in ("evaluation/_kernels.py", *TRAINING_NDCG):
        assert _numba_functions(SRC / module), f"the check sees no kernel in {module}"


# ---- a made-up axis in three places ---------------------------------------------------------
# The worked example of docs/layout.md ("Add a convention axis"): the declaration
# (evaluation/axes.py), what it does to numbers (evaluation/compiled.py) and the reference of
# the equivalence test (tests/ndcg_reference.py). Here the first two are patched in a copy of
# the package; nothing else is edited, and every derived place sees the axis.

AXIS = '''
    Axis("round", None, "NDCG@k rounded to N decimals, as a tool printing N decimals reports "
         "it (an example)", values="`none`, an integer N", annotation=Any,
         parser=lambda v, earlier: _integer_or_none("round", v, 0, 15,
                                                    f"round must be 0..15 or none, got {v!r}")),
'''
END_OF_AXES = ')\n"""Every axis, in canonical-string order."""'

RULE_EDITS = (
    ("    divide_negative: bool\n", "    divide_negative: bool\n    digits: int = -1\n"),
    ('conv.negative == "keep-divide")',
     'conv.negative == "keep-divide", -1 if conv.round is None else conv.round)'),
    ("    return np.where(mask, value, ratio)\n",
     "    out = np.where(mask, value, ratio)\n"
     "    return out if rule.digits < 0 else np.round(out, rule.digits)\n"),
)

CHECK = textwrap.dedent('''
    import numpy as np, pandas as pd, ltrconv
    from ltrconv.evaluation import axes
    from ltrconv.evaluation.conventions import get, parse
    from ltrconv.evaluation.convention_set import BUILTINS
    from ltrconv.evaluation.explain import CAUSES
    from ltrconv.evaluation.metrics import evaluate
    from ltrconv.cli.conventions import axes_text
    assert ltrconv.__file__.startswith(COPY), ltrconv.__file__
    c = parse("ndcg(round=2)")
    assert c.round == 2 and c.canonical.endswith(",round=2)") and parse(c.canonical) == c
    assert "round" not in get("ranklib").canonical  # the default is left out
    assert CAUSES["round"] == ("round",)
    assert "| `round` |" in axes.markdown_table() and "round" in axes_text()
    defined = BUILTINS.define({"mine": {"base": "yahoo", "round": 1}}, where="file")
    assert defined["mine"].round == 1
    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(20), 7)
    y = rng.integers(0, 3, len(qid))
    s = rng.normal(size=len(qid))
    ev = evaluate(y, s, qid, conventions=["ranklib", c], cutoffs=[3, 10], engine="numpy")
    plain, rounded = ev["ranklib"]["NDCG@10"], ev[str(c)]["NDCG@10"]
    assert np.array_equal(rounded, np.round(plain, 2)) and not np.array_equal(rounded, plain)
    docs = [f"d{i}" for i in range(len(qid))]
    qrels = pd.DataFrame({"query_id": qid.astype(str), "doc_id": docs, "relevance": y})
    run = pd.DataFrame({"query_id": qid.astype(str), "doc_id": docs, "score": s})
    res = ltrconv.evaluate_run(qrels, run, conventions=["ndcg(round=2,ideal=qrels)"],
                               cutoffs=[10], metrics=["NDCG"])
    assert np.array_equal(next(iter(res.values()))["NDCG@10"], np.round(plain, 2))
    print("ok")
''')


def test_a_new_axis_is_two_source_files(tmp_path):
    copy = tmp_path / "src" / "ltrconv"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
    decl = (copy / "evaluation" / "axes.py").read_text()
    assert decl.count(END_OF_AXES) == 1, "the end of AXES moved: update the example"
    (copy / "evaluation" / "axes.py").write_text(decl.replace(END_OF_AXES, AXIS + END_OF_AXES))
    rule = (copy / "evaluation" / "compiled.py").read_text()
    for old, new in RULE_EDITS:
        assert rule.count(old) == 1, f"compiled.py no longer has {old!r}: update the example"
        rule = rule.replace(old, new)
    (copy / "evaluation" / "compiled.py").write_text(rule)
    env = {**os.environ, "PYTHONPATH": str(copy.parent), "NUMBA_CACHE_DIR": str(tmp_path / "nb")}
    proc = subprocess.run([sys.executable, "-c", f"COPY = {str(copy)!r}\n" + CHECK], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


def test_words_cover_every_choice():
    for a in axes.AXES:
        if a.words is not None:
            assert set(a.words) == set(a.choices), a.name
