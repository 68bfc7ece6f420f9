"""A fold whose test file repeats a training query is refused by the first job that reads it."""

from __future__ import annotations

import yaml

from workflow_helpers import base_config, snakemake, write_dataset


def test_test_query_in_the_training_file_is_refused(tmp_path):
    write_dataset(tmp_path / "SYN")
    fold = tmp_path / "SYN" / "Fold1"
    train_lines = (fold / "train.txt").read_text().splitlines(keepends=True)
    qid = train_lines[0].split()[1]
    leaked = "".join(line for line in train_lines if line.split()[1] == qid)
    (fold / "test.txt").write_text((fold / "test.txt").read_text() + leaked)
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(base_config(tmp_path / "SYN")))
    work = tmp_path / "w"
    proc = snakemake(work, cfg, "resources/SYN/cache/all.npz", timeout=300)
    assert proc.returncode != 0
    message = (f"error in rule prepare {{'dataset': 'SYN'}}: resources/SYN/data/Fold1/test.txt: "
               "1 test query also in resources/SYN/data/Fold1/train.txt "
               f"(e.g. qid {qid[4:]}): the splits of a fold must not share queries")
    assert message in proc.stderr, proc.stderr[-3000:]
    assert not list((work / "resources" / "SYN").glob("cache/**/*.npz"))
