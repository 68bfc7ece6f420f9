import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.image import imread

from ltrconv.study import figures, tables as study
from planted import planted_per_query


@pytest.fixture(scope="module")
def summary():
    pq = planted_per_query(n_queries=45, n_folds=3, eval_conventions=("ranklib", "yahoo", "letor"))
    return study.summarise(pq)


@pytest.fixture(autouse=True)
def fast_output(monkeypatch):
    # rendering speed only: the layout depends on neither
    monkeypatch.setattr(figures, "DPI", 60)
    monkeypatch.setitem(figures.RC, "pdf.fonttype", 3)


def runtime_table(with_memory=True):
    rows = []
    for i, alg in enumerate(["ranksvm", "adarank"]):
        for tc in ["ranklib", "letor"]:
            for fold in (1, 2):
                rows.append({"algorithm": alg, "train_convention": tc, "fold": fold,
                             "s": 10.0 ** i * fold, "max_rss": 100.0 + fold})
    t = pd.DataFrame(rows)
    return t if with_memory else t.drop(columns="max_rss")


def written(stem):
    png, pdf = stem.with_suffix(".png"), stem.with_suffix(".pdf")
    assert png.stat().st_size > 1000 and pdf.read_bytes().startswith(b"%PDF")
    return imread(png)


def test_figure1_grid_legend_and_colours(summary, tmp_path):
    fig = figures.figure1(summary, tmp_path / "f1", algorithms=("adarank", "nosuch", "ranknet"))
    img = written(tmp_path / "f1")
    assert img.shape[1] == int(figures.WIDTH * figures.DPI)  # 7 in at 300 dpi
    axes = fig.get_axes()
    assert len(axes) == 2 * 3  # the unknown algorithm is skipped
    assert [ax.get_title() for ax in axes[:3]] == ["evaluated with ranklib", "evaluated with yahoo",
                                                   "evaluated with letor"]
    assert axes[0].get_ylabel() == "AdaRank\nNDCG@k" and axes[3].get_xlabel() == "cutoff k"
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["trained with yahoo", "trained with ranklib", "trained with letor"]
    colours = {to_hex(line.get_color()) for line in axes[0].get_lines()}
    assert {"#0072b2", "#000000", "#d55e00"} <= colours
    # a column shares its y-limits, and they cover the plotted error bars
    assert axes[0].get_ylim() == axes[3].get_ylim()
    s = summary.query("metric == 'NDCG' and eval_convention == 'letor' and algorithm in ['adarank', 'ranknet']")
    lo, hi = axes[2].get_ylim()
    assert lo <= (s["mean"] - s["stderr"]).min() and hi >= (s["mean"] + s["stderr"]).max()
    assert hi - lo < 1.0


def test_figures_are_byte_identical(summary, tmp_path):
    small = summary[summary["algorithm"].isin(["ranksvm", "adarank"])]
    figures.figure2(small, tmp_path / "a", eval_conventions=("yahoo",))
    figures.figure2(small, tmp_path / "b", eval_conventions=("yahoo",))
    for ext in (".png", ".pdf"):
        assert (tmp_path / f"a{ext}").read_bytes() == (tmp_path / f"b{ext}").read_bytes()
    assert b"CreationDate" not in (tmp_path / "a.pdf").read_bytes()


def test_figure2_panels(summary, tmp_path):
    fig = figures.figure2(summary, tmp_path / "f2", eval_conventions=("ranklib", "trec", "letor"))
    written(tmp_path / "f2")
    axes = [ax for ax in fig.get_axes() if ax.get_visible() and ax.axison]
    assert [ax.get_title() for ax in axes] == ["evaluated with ranklib", "evaluated with letor"]
    assert fig.legends[0].get_title().get_text() == "trained with ranklib"
    assert len(fig.legends[0].get_texts()) == 6
    small = summary[summary["algorithm"] == "ranksvm"]
    four = figures.figure2(pd.concat([small, small.assign(eval_convention="trec")]),
                           tmp_path / "f4")
    assert len(four.get_axes()) == 4  # 2 x 2


def test_missing_data_gives_a_placeholder(summary, tmp_path):
    fig = figures.figure1(summary, tmp_path / "none", algorithms=("nosuch",))
    written(tmp_path / "none")
    assert "no NDCG results" in fig.get_axes()[0].texts[0].get_text()
    figures.figure2(summary.iloc[0:0], tmp_path / "empty2")
    written(tmp_path / "empty2")
    figures.runtime_figure(pd.DataFrame(), tmp_path / "empty3")
    written(tmp_path / "empty3")


def test_runtime_figure(tmp_path):
    fig = figures.runtime_figure(runtime_table(), tmp_path / "rt")
    written(tmp_path / "rt")
    ax_s, ax_m = fig.get_axes()
    assert ax_s.get_yscale() == "log" and ax_s.get_ylabel() == "seconds per fit"
    assert ax_m.get_ylabel() == "peak memory (MB)"
    assert [t.get_text() for t in ax_s.get_xticklabels()] == ["RankSVM", "AdaRank"]
    heights = sorted(p.get_height() for p in ax_s.patches)
    np.testing.assert_allclose(heights, [1.5, 1.5, 15.0, 15.0])  # fold means
    fig = figures.runtime_figure(runtime_table(with_memory=False), tmp_path / "rt2")
    assert "no peak memory data" in fig.get_axes()[1].texts[0].get_text()


def test_ties_figure_band_per_training_convention(tmp_path):
    pq = planted_per_query(n_queries=30, n_folds=3, algorithms=("rankboost",),
                           eval_conventions=("ranklib", "ranklib-tiepess", "ranklib-tieavg",
                                             "ranklib-tieopt"))
    fig = figures.ties_figure(study.summarise(pq), tmp_path / "ties", "rankboost")
    written(tmp_path / "ties")
    axes = fig.get_axes()
    assert [ax.get_title() for ax in axes] == ["trained with yahoo", "trained with ranklib",
                                               "trained with letor"]
    assert axes[0].get_ylabel() == "RankBoost\nNDCG@k"
    assert len(axes[0].collections) == 1  # the band
    fig = figures.ties_figure(study.summarise(pq), tmp_path / "none", "adarank")
    assert any("no NDCG results of AdaRank" in t.get_text() for ax in fig.get_axes()
               for t in ax.texts)


def test_winning_figure_panels(tmp_path):
    from ltrconv.study.winning import winning_numbers

    pq = planted_per_query(n_queries=45, n_folds=3, eval_conventions=("ranklib", "yahoo", "letor"))
    w = winning_numbers(study.fold_means(pq), by=["train_convention", "eval_convention",
                                                  "metric", "k"])
    fig = figures.winning_figure(w, tmp_path / "w", eval_conventions=("ranklib", "yahoo", "letor"))
    written(tmp_path / "w")
    titles = [ax.get_title() for ax in fig.get_axes() if ax.get_title()]
    assert titles == ["evaluated with ranklib", "evaluated with yahoo", "evaluated with letor"]
    assert len(fig.get_axes()[0].get_lines()) == 6
