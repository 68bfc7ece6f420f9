"""Implementation variants against their base algorithm: table, claims section, figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ltrconv.study import figures, variants as implementation, tables as study
from ltrconv.study.paper import busa_fekete_2012 as paper


def per_query(values: dict[str, list[float]], folds=(1, 1, 2, 2), evals=("ranklib",)) -> pd.DataFrame:
    """NDCG@10 of four queries (two per fold) per algorithm, trained with ranklib."""
    rows = []
    for alg, vals in values.items():
        for ev in evals:
            for i, (f, v) in enumerate(zip(folds, vals)):
                rows.append(dict(dataset="D", fold=f, algorithm=alg, train_convention="ranklib",
                                 eval_convention=ev, metric="NDCG", k=10, qid=f"q{i}", value=v))
    return pd.DataFrame(rows)


def test_table_closed_form():
    pq = per_query({"adarank": [0.2, 0.4, 0.6, 0.8], "ada_v": [0.3, 0.4, 0.9, 0.8]})
    t = implementation.implementation_table(pq, {"ada_v": "adarank"})
    assert len(t) == 1
    r = t.iloc[0]
    assert (r["algorithm"], r["variant"], r["n"]) == ("adarank", "ada_v", 4)
    # fold means 0.3, 0.7 -> 0.5; variant 0.35, 0.85 -> 0.6
    assert r["mean_base"] == pytest.approx(0.5) and r["mean_variant"] == pytest.approx(0.6)
    d = np.array([0.1, 0.0, 0.3, 0.0])
    assert r["diff"] == pytest.approx(d.mean())
    assert r["t"] == pytest.approx(d.mean() / (d.std(ddof=1) / 2))
    # base stderr: per fold sd/sqrt(2) = 0.1 each, combined sqrt(0.01 + 0.01) / 2
    assert r["stderr_base"] == pytest.approx(np.sqrt(0.02) / 2)


def test_identical_variant_is_no_difference():
    pq = per_query({"rankboost": [0.2, 0.5, 0.6, 0.1], "rb_v": [0.2, 0.5, 0.6, 0.1]})
    r = implementation.implementation_table(pq, {"rb_v": "rankboost"}).iloc[0]
    assert r["diff"] == 0.0 and not r["significant"]


def test_missing_base_gives_empty_table():
    pq = per_query({"rb_v": [0.2, 0.5, 0.6, 0.1]})
    t = implementation.implementation_table(pq, {"rb_v": "rankboost"})
    assert t.empty and list(t.columns) == implementation.COLUMNS


def test_substitute_replaces_base_rows():
    s = study.summarise(per_query({"adarank": [0.1] * 4, "ada_v": [0.9] * 4, "ranksvm": [0.5] * 4}))
    sub = implementation.substitute(s, "ada_v", "adarank")
    assert sorted(sub["algorithm"]) == ["adarank", "ranksvm"]
    assert float(sub.loc[sub["algorithm"] == "adarank", "mean"].iloc[0]) == pytest.approx(0.9)


def test_section_reports_a_conclusion_that_flips():
    """AdaRank last as RankLib runs it, first as its variant: the verdict must change."""
    vals = {"adarank": [0.10, 0.12, 0.11, 0.09], "ada_v": [0.90, 0.91, 0.92, 0.93],
            "lambdamart": [0.5, 0.52, 0.51, 0.49], "ranksvm": [0.45, 0.47, 0.46, 0.44]}
    pq = per_query(vals, evals=("ranklib", "yahoo", "letor"))
    summary = study.summarise(pq)
    table = implementation.implementation_table(pq, {"ada_v": "adarank"})
    text = implementation.implementation_section(summary, table, {"ada_v": "adarank"},
                                                 {"ada_v": "stable ties"})
    row = next(line for line in text.splitlines() if line.startswith("| AdaRank not competitive"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == paper.HOLDS and cells[2] == paper.FAILS
    assert "| AdaRank | stable ties | ranklib | 0.1050 | 0.9150 | +0.8100 |" in text


def test_section_names_a_variant_that_runs_another_ranker():
    pq = per_query({"lambdamart": [0.2, 0.4, 0.6, 0.8], "lm_lgb": [0.3, 0.4, 0.9, 0.8]})
    summary, variants = study.summarise(pq), {"lm_lgb": "lambdamart"}
    table = implementation.implementation_table(pq, variants)
    plain = implementation.implementation_section(summary, table, variants)
    other = implementation.implementation_section(summary, table, variants,
                                                  rankers={"lm_lgb": "lambdamart_lightgbm"})
    assert "another implementation" not in plain
    assert ("parameters named below changed, or another implementation of it (lm_lgb: ranker "
            "lambdamart_lightgbm); the base follows RankLib 2.x") in other
    assert plain.splitlines()[4:] == other.splitlines()[4:]  # the intro alone differs
    named = implementation.implementation_section(
        summary, table, variants, rankers={"lambdamart_lightgbm": "lambdamart_lightgbm"})
    assert "another implementation of it (ranker lambdamart_lightgbm);" in named


def test_section_without_variants_says_so():
    pq = per_query({"adarank": [0.1] * 4})
    text = implementation.implementation_section(study.summarise(pq),
                                                 pd.DataFrame(columns=implementation.COLUMNS), {})
    assert "No variant was run." in text


def test_figure_draws_pairs_and_handles_absence(tmp_path):
    pq = per_query({"adarank": [0.2, 0.4, 0.6, 0.8], "ada_v": [0.3, 0.4, 0.9, 0.8]},
                   evals=("ranklib", "yahoo"))
    summary = study.summarise(pq)
    fig = figures.implementation_figure(summary, tmp_path / "impl", [("ada_v", "adarank", "v")],
                                        eval_conventions=("ranklib", "yahoo", "letor"))
    assert (tmp_path / "impl.png").stat().st_size > 0 and (tmp_path / "impl.pdf").stat().st_size > 0
    assert len(fig.axes) == 2  # one row, two evaluation conventions present
    fig = figures.implementation_figure(summary, tmp_path / "none", [("x", "rankboost", "v")])
    assert "no NDCG results" in fig.axes[0].texts[0].get_text()


def test_section_tables_keep_their_columns_with_a_pipe_in_a_label():
    """A label such as "largest |r|" is escaped, so every table row has its header's cells."""
    import markdown

    vals = {"adarank": [0.10, 0.12, 0.11, 0.09], "ada_v": [0.90, 0.91, 0.92, 0.93],
            "lambdamart": [0.5, 0.52, 0.51, 0.49]}
    pq = per_query(vals, evals=("ranklib", "yahoo", "letor"))
    table = implementation.implementation_table(pq, {"ada_v": "adarank"})
    text = implementation.implementation_section(study.summarise(pq), table, {"ada_v": "adarank"},
                                                 {"ada_v": "largest |r|"})
    html = markdown.markdown(text, extensions=["tables"])
    assert html.count("<table>") == 3 and "|---|" not in html
    assert "<th>AdaRank: largest |r|</th>" in html and "<td>largest |r|</td>" in html
