"""Dataset acquisition: verification, local copies, the manifest, re-verification before use,
the offline message. Archives: tests/test_acquire_archives.py; downloads:
tests/test_acquire_download.py."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest
import yaml

from ltrconv import errors
from ltrconv.data import acquire as A
from ltrconv.data import verify

from acquire_helpers import LAYOUT, crlf, digests, make_copy, quiet, relabel_first_line, source


@pytest.fixture
def copy(tmp_path):
    return make_copy(tmp_path / "src" / "DS")


# ---- verification -------------------------------------------------------------------------
def test_verify_reads_sums_and_counts(copy):
    manifest = verify.verify(copy, LAYOUT)
    assert [m["file"] for m in manifest] == LAYOUT.files()
    assert all(m["checked"] and m["verified_by"] == "sha256" for m in manifest)
    assert all(m["rows"] > 0 and m["queries"] > 0 for m in manifest)


def test_sha_mismatch_detected_and_not_published(copy, tmp_path):
    path = copy / "Fold2" / "test.txt"
    path.write_text(path.read_text()[:-40])  # truncated file, stale SHA256SUMS
    dest = tmp_path / "out" / "data"
    with pytest.raises(errors.AcquireError, match=r"refused Fold2/test.txt .*matches neither"):
        A.acquire(source(local=str(copy)), dest, tmp_path / "work", log=quiet)
    assert not dest.exists()


def test_config_sha_overrides_sums_file(copy):
    bad = {f: "0" * 64 for f in LAYOUT.files()}
    with pytest.raises(errors.AcquireError, match="config sha256 expects 0{64}"):
        verify.verify(copy, LAYOUT, sha256=bad)


def test_expected_counts_checked(copy):
    rows = sum(verify.count_rows_queries(copy / f)[0] for f in LAYOUT.files()[:3])
    verify.verify(copy, LAYOUT, expect={"rows": rows})
    with pytest.raises(errors.AcquireError, match=r"fold 1 has \d+ rows in total, expect.rows is"):
        verify.verify(copy, LAYOUT, expect={"rows": rows + 1})


def test_content_digest_ignores_form_not_substance(tmp_path):
    line = b"2 qid:7 1:0.500000 2:0 3:1.000000 #docid = GX1-2 inc = 1 prob = 0.25\n"
    other = b"0 qid:7 1:0.1 2:0.2 3:0.3 #docid = GX3-4 inc = 0 prob = 0.5\n"
    base = line + other

    def digest(data: bytes) -> str:
        path = tmp_path / "f.txt"
        path.write_bytes(data)
        return verify.content_sha256(path)

    want = digest(base)
    same = [crlf(base), base.replace(b"\n", b"\r"), b"\n" + base + b"\n\n",
            base.replace(b"1:0.500000", b"1:0.5").replace(b"2:0 ", b"2:0.000 "),
            base.replace(b" 3:", b"\t3:"), base.replace(b"prob = 0.25", b"prob = 0.3")]
    for variant in same:
        assert digest(variant) == want, variant
    changed = [base.replace(b"2 qid", b"1 qid"), base.replace(b"qid:7 1:0.5", b"qid:8 1:0.5"),
               base.replace(b"3:0.3", b"3:0.31"), base.replace(b"GX3-4", b"GX3-5"),
               base.replace(b"2:0.2 ", b""), other + line]
    for variant in changed:
        assert digest(variant) != want, variant
    with pytest.raises(errors.AcquireError, match=r"f\.txt:2: every feature must read INDEX:VALUE"):
        digest(line + b"0 qid:7 1:0.1 2 3:0.3\n")
    with pytest.raises(errors.AcquireError, match=r"f\.txt: a feature index or value is not a number"):
        digest(line + b"0 qid:7 1:0.1 2:NULL 3:0.3\n")


def test_content_digest_accepts_a_reformatted_copy(copy, tmp_path):
    sha, content = digests(copy)
    other = tmp_path / "mirror" / "DS"
    for rel in LAYOUT.files():
        (other / rel).parent.mkdir(parents=True, exist_ok=True)
        (other / rel).write_bytes(crlf((copy / rel).read_bytes()))
    manifest = verify.verify(other, LAYOUT, sha, content=content)
    assert [m["verified_by"] for m in manifest] == ["content"] * len(LAYOUT.files())
    assert [m["content_sha256"] for m in manifest] == [content[f] for f in LAYOUT.files()]
    assert all(m["sha256"] != sha[m["file"]] for m in manifest)
    # the original still matches by bytes, and the content digest is then not needed
    assert {m["verified_by"] for m in verify.verify(copy, LAYOUT, sha, content=content)} == {"sha256"}


def test_file_matching_neither_digest_is_refused_with_both(copy, tmp_path):
    sha, content = digests(copy)
    path = copy / "Fold1" / "vali.txt"
    path.write_bytes(relabel_first_line(path.read_bytes()))
    with pytest.raises(errors.AcquireError) as exc:
        verify.verify(copy, LAYOUT, sha, content=content, origin="http://mirror.example/DS.zip")
    msg = str(exc.value)
    assert "refused Fold1/vali.txt (from http://mirror.example/DS.zip)" in msg
    assert verify.sha256_file(path) in msg and sha["Fold1/vali.txt"] in msg
    assert verify.content_sha256(path) in msg and content["Fold1/vali.txt"] in msg


# ---- local copies ---------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["symlink", "copy"])
def test_local_directory_published(copy, tmp_path, mode):
    dest = tmp_path / "res" / "data"
    manifest, origin = A.acquire(source(local=str(copy), link=mode), dest, tmp_path / "work",
                                 log=quiet)
    assert origin == str(copy)
    for rel in LAYOUT.files():
        assert (dest / rel).read_bytes() == (copy / rel).read_bytes()
        assert (dest / rel).is_symlink() == (mode == "symlink")
    assert len(manifest) == len(LAYOUT.files())


def test_search_paths_used_in_order(copy, tmp_path):
    dest = tmp_path / "res" / "data"
    _, origin = A.acquire(source(search=[str(tmp_path / "absent"), str(copy)]), dest,
                          tmp_path / "work", log=quiet)
    assert origin == str(copy)


def test_offline_message_names_places_urls_and_ways_out(tmp_path):
    (tmp_path / "empty" / "Fold1").mkdir(parents=True)
    (tmp_path / "empty" / "Fold1" / "train.txt").write_text("0 qid:1 1:0\n")
    src = source(name="MQ2008", urls=["http://127.0.0.1:9/MQ2008.zip", "http://x.invalid/M.rar"],
                 search=[str(tmp_path / "nowhere"), str(tmp_path / "empty")],
                 config_key="datasets.MQ2008", page="https://example.org/letor4")
    with pytest.raises(errors.AcquireError) as exc:
        A.acquire(src, tmp_path / "d", tmp_path / "w", offline=True, log=quiet)
    msg = str(exc.value)
    assert "offline is true" in msg
    assert f"{tmp_path / 'nowhere'}: absent" in msg
    assert f"{tmp_path / 'empty'}: unusable: dataset MQ2008: {tmp_path / 'empty'} lacks 5" in msg
    assert "http://127.0.0.1:9/MQ2008.zip" in msg and "http://x.invalid/M.rar" in msg
    assert "Set config key datasets.MQ2008.local to a directory holding Fold1/train.txt" in msg
    # the command shown works: snakemake --config cannot set datasets.MQ2008.local
    echo = next(line for line in msg.splitlines() if "> local.yaml" in line)
    assert yaml.safe_load(echo.split("'")[1]) == {"datasets": {"MQ2008": {"local": "/path/to/MQ2008"}}}
    assert "       snakemake --cores 2 --configfile local.yaml" in msg.splitlines()
    assert "Download the archive by hand from https://example.org/letor4" in msg
    assert not (tmp_path / "w").exists() and not (tmp_path / "d").exists()


def test_atomic_manifest(tmp_path):
    path = tmp_path / "m.tsv"
    verify.write_manifest([{"file": "a", "sha256": "x", "checked": True, "rows": 1, "queries": 1,
                       "verified_by": "content", "content_sha256": "y"},
                      {"file": "b", "sha256": "z", "checked": True, "rows": 2, "queries": 1,
                       "verified_by": "sha256", "size": 10, "mtime_ns": 20, "ctime_ns": 30}],
                     path, "here")
    assert path.read_text().splitlines() == [
        "# origin: here",
        "file\tsha256\tchecked\trows\tqueries\tverified_by\tcontent_sha256\tsize\tmtime_ns\tctime_ns",
        "a\tx\ttrue\t1\t1\tcontent\ty\t-\t-\t-",
        "b\tz\ttrue\t2\t1\tsha256\t-\t10\t20\t30"]
    assert [p.name for p in tmp_path.iterdir()] == ["m.tsv"]
    origin, rows = verify.read_manifest(path)
    assert origin == "here" and [r["file"] for r in rows] == ["a", "b"]
    assert [(r["size"], r["mtime_ns"], r["ctime_ns"]) for r in rows] == [(None,) * 3, (10, 20, 30)]


# ---- re-verification before use -----------------------------------------------------------
def acquired(copy: Path, tmp_path: Path, mode: str = "symlink") -> tuple[Path, Path]:
    """(published data directory, manifest) after acquiring ``copy`` as the workflow does."""
    dest, manifest = tmp_path / "res" / "data", tmp_path / "res" / "manifest.tsv"
    rows, origin = A.acquire(source(local=str(copy), link=mode), dest, tmp_path / "work",
                             log=quiet)
    verify.write_manifest(rows, manifest, origin)
    return dest, manifest


def hashed(monkeypatch) -> list[Path]:
    """The files hashed from now on."""
    calls: list[Path] = []
    real = verify.sha256_file
    monkeypatch.setattr(verify, "sha256_file", lambda p: calls.append(Path(p)) or real(p))
    return calls


def test_unchanged_files_pass_and_only_touched_ones_are_hashed(copy, tmp_path, monkeypatch):
    dest, manifest = acquired(copy, tmp_path)
    calls = hashed(monkeypatch)
    rows = verify.check_unchanged(dest, manifest, LAYOUT.files())
    assert [r["file"] for r in rows] == LAYOUT.files() and calls == []
    st = (copy / "Fold1" / "train.txt").stat()
    os.utime(copy / "Fold1" / "train.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    verify.check_unchanged(dest, manifest, LAYOUT.files())  # touched, same bytes: accepted
    assert calls == [dest / "Fold1" / "train.txt"]


@pytest.mark.parametrize("edit", ["appended", "same size and mtime"])
def test_source_edited_after_acquire_is_refused(copy, tmp_path, edit):
    dest, manifest = acquired(copy, tmp_path)
    path = copy / "Fold2" / "vali.txt"
    before, st = path.read_bytes(), path.stat()
    if edit == "appended":
        path.write_bytes(before + before.splitlines(keepends=True)[0])
    else:  # one label changed in place, size and mtime put back
        path.write_bytes(relabel_first_line(before))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    with pytest.raises(errors.AcquireError) as info:
        verify.check_unchanged(dest, manifest, LAYOUT.files())
    msg = str(info.value)
    assert msg.startswith(f"{dest / 'Fold2' / 'vali.txt'} (a link to {path}): changed since it "
                          f"was verified: its SHA-256 is now {verify.sha256_file(path)}, the manifest "
                          f"{manifest} records {hashlib.sha256(before).hexdigest()}; if the change "
                          f"is intended, delete {manifest}"), msg
    assert "\n" not in msg


def test_published_copy_does_not_follow_later_edits(copy, tmp_path):
    dest, manifest = acquired(copy, tmp_path, mode="copy")
    published = dest / "Fold1" / "test.txt"
    before = published.read_bytes()
    assert not published.is_symlink() and before == (copy / "Fold1" / "test.txt").read_bytes()
    (copy / "Fold1" / "test.txt").write_text("0 qid:1 1:0.5\n")
    rows = verify.check_unchanged(dest, manifest, LAYOUT.files())  # the edit is not seen
    assert [r["file"] for r in rows] == LAYOUT.files()
    assert published.read_bytes() == before


def test_manifest_without_stamps_hashes_every_file(copy, tmp_path, monkeypatch):
    dest, manifest = acquired(copy, tmp_path)
    lines = manifest.read_text().splitlines()
    manifest.write_text("".join("\t".join(ln.split("\t")[:7]) + "\n" for ln in lines))
    calls = hashed(monkeypatch)
    verify.check_unchanged(dest, manifest, LAYOUT.files())
    assert sorted(calls) == sorted(dest / f for f in LAYOUT.files())
    (copy / "Fold1" / "train.txt").write_bytes(relabel_first_line((copy / "Fold1" / "train.txt")
                                                                  .read_bytes()))
    with pytest.raises(errors.AcquireError, match="Fold1/train.txt .*changed since it was verified"):
        verify.check_unchanged(dest, manifest)


def test_unlisted_or_vanished_files_are_refused(copy, tmp_path):
    dest, manifest = acquired(copy, tmp_path)
    with pytest.raises(errors.AcquireError, match=rf"Fold3/train.txt: not verified \(not in the "
                                             rf"manifest {re.escape(str(manifest))}\)"):
        verify.check_unchanged(dest, manifest, ["Fold3/train.txt"])
    (copy / "Fold1" / "vali.txt").unlink()
    with pytest.raises(errors.AcquireError, match="Fold1/vali.txt .*verified earlier .* but now "
                                             "unreadable: No such file"):
        verify.check_unchanged(dest, manifest)
    manifest.write_text("not a manifest\n")
    with pytest.raises(errors.AcquireError, match="not a dataset manifest"):
        verify.check_unchanged(dest, manifest)


def test_file_edited_while_being_acquired_is_not_published(copy, tmp_path, monkeypatch):
    real = A.materialise

    def then_edit(root, files, dest, mode="symlink"):
        real(root, files, dest, mode)
        path = root / "Fold2" / "test.txt"
        path.write_bytes(relabel_first_line(path.read_bytes()))

    monkeypatch.setattr(A, "materialise", then_edit)
    dest = tmp_path / "res" / "data"
    with pytest.raises(errors.AcquireError, match=r"Fold2/test.txt .*changed since it was verified.*"
                                             r"edited while being acquired"):
        A.acquire(source(local=str(copy)), dest, tmp_path / "work", log=quiet)
    assert not dest.exists()


# ---- files without qids: their query sizes beside them ----------------------------------------
SIZED = verify.Layout(n_folds=1, fold_dir=".", splits={"train": "rank.train", "vali": None,
                                                       "test": "rank.test"})


def sized_copy(root: Path) -> Path:
    """LightGBM's layout (``rank.train`` + ``rank.train.query``) and XGBoost's name for the
    sizes file (``rank.test`` + ``rank.test.group``): lines without qids, as those tools write."""
    root.mkdir(parents=True)
    (root / "rank.train").write_text("2 1:0.5 2:0.1\n0 1:0.2\n1 2:0.3\n0 1:0.4 2:0.4\n")
    (root / "rank.train.query").write_text("3\n1\n")
    (root / "rank.test").write_text("1 1:0.5\n0 2:0.25\n")
    (root / "rank.test.group").write_text("1\n1\n")
    return root


def test_query_sizes_files_are_verified_published_and_listed(tmp_path):
    src = sized_copy(tmp_path / "src")
    dest = tmp_path / "res" / "data"
    manifest, _ = A.acquire(source(local=str(src), layout=SIZED, expect={"queries": 4, "rows": 6}),
                            dest, tmp_path / "work", log=quiet)
    files = ["rank.train", "rank.train.query", "rank.test", "rank.test.group"]
    assert [m["file"] for m in manifest] == files
    # a data file's queries are its own (query 1 of rank.train is not query 1 of rank.test)
    assert [(m["rows"], m["queries"]) for m in manifest] == [(4, 2), (4, 2), (2, 2), (2, 2)]
    assert sorted(p.name for p in dest.iterdir()) == sorted(files)
    with pytest.raises(errors.AcquireError, match="fold 1 has 4 queries in total, expect.queries"):
        A.acquire(source(local=str(src), layout=SIZED, expect={"queries": 3}), tmp_path / "r2",
                  tmp_path / "work", log=quiet)


def test_query_sizes_content_digest_ignores_form_not_substance(tmp_path):
    src = sized_copy(tmp_path / "src")
    digest = verify.sizes_sha256(src / "rank.train.query")
    assert digest == hashlib.sha256(verify.SIZES_TAG + b"3\n1\n").hexdigest()
    (src / "rank.train.query").write_bytes(b"3\r\n\r\n1  \r\n")
    assert verify.sizes_sha256(src / "rank.train.query") == digest
    (src / "rank.train.query").write_text("2\n2\n")
    assert verify.sizes_sha256(src / "rank.train.query") != digest
    # a data file without qids: its lines' content, not a qid file's with some qid
    letor = tmp_path / "with_qids.txt"
    letor.write_text("".join(line.replace(" ", " qid:0 ", 1) + "\n"
                             for line in (src / "rank.test").read_text().splitlines()))
    without = verify.content_sha256(src / "rank.test")
    (src / "rank.test").write_bytes(crlf((src / "rank.test").read_bytes()))
    assert verify.content_sha256(src / "rank.test") == without != verify.content_sha256(letor)


def test_query_sizes_verified_by_content_digest(tmp_path):
    src = sized_copy(tmp_path / "src")
    content = {f: verify.content_sha256(src / f) for f in SIZED.files()}
    content["rank.train.query"] = verify.sizes_sha256(src / "rank.train.query")
    sha = {f: "0" * 64 for f in (*SIZED.files(), "rank.train.query")}
    (src / "rank.train.query").write_bytes(b"3\r\n1\r\n")  # another mirror's line ends
    manifest = verify.verify(src, SIZED, sha, content=content)
    by = {m["file"]: m["verified_by"] for m in manifest}
    assert by == {"rank.train": "content", "rank.train.query": "content", "rank.test": "content",
                  "rank.test.group": "none"}
    (src / "rank.train.query").write_text("2\n2\n")
    with pytest.raises(errors.AcquireError, match=r"refused rank.train.query: it matches neither"):
        verify.verify(src, SIZED, sha, content=content)


@pytest.mark.parametrize("edit, message", [
    (lambda d: (d / "rank.test.group").unlink(),
     r"rank.test:1: missing qid: second token is '1:0.5', expected qid:QID \(a file without qids "
     r"needs its query sizes beside it, in rank.test.query or rank.test.group\)"),
    (lambda d: (d / "rank.train.query").write_text("3\n2\n"),
     r"rank.train.query: the 2 query sizes add up to 5 rows, but \S*rank.train has 4 data lines"),
    (lambda d: (d / "rank.train.query").write_text("3\n\n1 1\n"),
     r"rank.train.query:3: expected one query size \(an integer >= 1\) per line, got '1 1'"),
    (lambda d: (d / "rank.test.group").write_text(""), r"rank.test.group: no query sizes"),
])
def test_missing_or_wrong_query_sizes_are_refused_naming_the_file(tmp_path, edit, message):
    src = sized_copy(tmp_path / "src")
    edit(src)
    dest = tmp_path / "res" / "data"
    with pytest.raises(errors.AcquireError, match=message) as info:
        A.acquire(source(local=str(src), layout=SIZED), dest, tmp_path / "work", log=quiet)
    assert "\n" not in str(info.value)
    assert not dest.exists()


def test_query_sizes_edited_or_added_after_acquire_are_refused(tmp_path):
    src = sized_copy(tmp_path / "src")
    dest = tmp_path / "res" / "data"
    manifest = tmp_path / "res" / "manifest.tsv"
    rows, origin = A.acquire(source(local=str(src), layout=SIZED), dest, tmp_path / "work",
                             log=quiet)
    verify.write_manifest(rows, manifest, origin)
    files = verify.with_sizes(dest, SIZED.files())
    assert files == ["rank.train", "rank.train.query", "rank.test", "rank.test.group"]
    verify.check_unchanged(dest, manifest, files)
    (src / "rank.test.group").write_text("2\n")
    with pytest.raises(errors.AcquireError, match=r"rank.test.group \(a link to .*\): changed "
                                                  r"since it was verified"):
        verify.check_unchanged(dest, manifest, files)
    (src / "rank.test.group").write_text("1\n1\n")
    (dest / "rank.train.group").write_text("4\n")  # an unverified file beside the data
    (dest / "rank.train.query").unlink()
    with pytest.raises(errors.AcquireError, match=r"rank.train.group: not verified \(not in the "
                                                  r"manifest"):
        verify.check_unchanged(dest, manifest, verify.with_sizes(dest, SIZED.files()))
