"""Output paths: files replaced atomically, links followed, devices and FIFOs written through,
read-only files, directories and sockets refused, all before any work."""

import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest

import ltrconv
from ltrconv import cli
from ltrconv.cli import main
from ltrconv.outputs import OutputError, atomic_path, check_output
from ltrconv.data.synthetic import make_letor, write_letor

ENV = {**os.environ, "PYTHONPATH": str(Path(ltrconv.__file__).parents[1])}  # this checkout


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("out")
    data = make_letor(n_queries=20, seed=5)
    write_letor(data, d / "data.txt")
    np.savetxt(d / "s.txt", data.X[:, 0])
    return d, data


def leftovers(*dirs: Path) -> list[Path]:
    """Temporary ``.part`` files anywhere under ``dirs``."""
    return [p for d in dirs for p in d.rglob("*.part")]


def fails(capsys, args, message):
    capsys.readouterr()
    assert main([str(a) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ltrconv: error: ") and len(err.strip().splitlines()) == 1, err
    assert message in err, err
    return err


def eval_args(files, out):
    d, _ = files
    return ["eval", d / "data.txt", d / "s.txt", "-c", "ranklib", "--cutoffs", "1", "-o", out]


def test_regular_file_replaced_atomically_keeping_its_mode(files, tmp_path):
    out = tmp_path / "r.json"
    out.write_text("old")
    out.chmod(0o640)
    assert main([str(a) for a in eval_args(files, out)]) == 0
    assert json.loads(out.read_text())["conventions"]["ranklib"]["mean"]["NDCG@1"] >= 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640 and not leftovers(tmp_path)


def test_symlink_is_followed_and_kept(files, tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "r.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "real" / "new.json")
    for path in (link, dangling):
        assert main([str(a) for a in eval_args(files, path)]) == 0
        assert path.is_symlink()
    assert json.loads(target.read_text())["conventions"]
    assert json.loads((tmp_path / "real" / "new.json").read_text())["conventions"]
    assert not leftovers(tmp_path)


def test_fifo_is_written_through(files, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    try:
        assert main([str(a) for a in eval_args(files, fifo)]) == 0
    finally:
        if reader.is_alive():  # unblock the reader if nothing was written
            with open(fifo, "w"):
                pass
        reader.join(10)
    assert json.loads(got[0])["conventions"]
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and not leftovers(tmp_path)


def make_device(path: Path, minor: int) -> Path:
    """A character device node like /dev/null (minor 3) or /dev/full (minor 7), in a test dir."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device node here ({exc.strerror})")
    return path


def test_character_devices_are_written_through_never_replaced(files, tmp_path, capsys):
    null = make_device(tmp_path / "null", 3)
    assert main([str(a) for a in eval_args(files, null)]) == 0
    assert stat.S_ISCHR(null.lstat().st_mode)
    full = make_device(tmp_path / "full", 7)  # every write fails: No space left on device
    fails(capsys, eval_args(files, full), f"{full}: cannot write: No space left on device")
    assert stat.S_ISCHR(full.lstat().st_mode) and not leftovers(tmp_path)


def test_descriptor_link_writes_to_the_open_stdout(files, tmp_path):
    """``ln -s /proc/self/fd/1 so; ltrconv eval D S -o so`` prints, and ``so`` stays a link."""
    if not Path("/proc/self/fd/1").exists():
        pytest.skip("no /proc/self/fd on this system")
    link = tmp_path / "so"
    link.symlink_to("/proc/self/fd/1")
    args = [str(a) for a in eval_args(files, link)]
    proc = subprocess.run([sys.executable, "-m", "ltrconv.cli", *args], capture_output=True,
                          text=True, env=ENV, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["conventions"]["ranklib"]["mean"]
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"
    assert not leftovers(tmp_path)


def test_read_only_file_is_not_replaced(files, tmp_path, capsys):
    out = tmp_path / "r.json"
    out.write_text("keep")
    out.chmod(0o444)  # root ignores the bits, so ltrconv checks them itself
    fails(capsys, eval_args(files, out), f"{out}: is read-only, so it is not replaced")
    assert out.read_text() == "keep" and not leftovers(tmp_path)


def test_file_the_user_cannot_write_is_not_replaced(files, tmp_path, capsys, monkeypatch):
    """As a user without write permission (os.access says no) though the bits allow the owner."""
    out = tmp_path / "r.json"
    out.write_text("keep")
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == out
                        else real_access(p, mode, **kw))
    fails(capsys, eval_args(files, out), f"{out}: is read-only, so it is not replaced")
    assert out.read_text() == "keep"


def test_read_only_directory_is_refused(files, tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "r.json").write_text("keep")
    ro.chmod(0o555)
    try:
        for out in (ro / "r.json", ro / "new.json", ro / "sub" / "new.json"):
            fails(capsys, eval_args(files, out),
                  f"{out}: cannot create files in {ro}: the directory is not writable")
        assert sorted(p.name for p in ro.iterdir()) == ["r.json"]
    finally:
        ro.chmod(0o755)


@pytest.mark.parametrize("trailing", ["", "/"])
def test_directory_is_refused_and_nothing_left(files, tmp_path, capsys, trailing):
    out = tmp_path / "results"
    out.mkdir()
    fails(capsys, eval_args(files, f"{out}{trailing}"), "is a directory; name a file inside it"
          if not trailing else "names a directory; name a file inside it")
    assert list(out.iterdir()) == [] and not leftovers(tmp_path)


def test_path_below_a_file_is_refused(files, tmp_path, capsys):
    (tmp_path / "f.txt").write_text("keep")
    for out in (tmp_path / "f.txt" / "r.json", tmp_path / "f.txt" / "sub" / "r.json"):
        fails(capsys, eval_args(files, out), "is not a directory")
    assert (tmp_path / "f.txt").read_text() == "keep" and not leftovers(tmp_path)


def test_socket_is_refused(files, capsys):
    with tempfile.TemporaryDirectory(dir="/tmp") as d:  # socket paths must be short
        path = Path(d) / "sock"
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(str(path))
            fails(capsys, eval_args(files, path), f"{path}: is a socket")
            assert stat.S_ISSOCK(path.lstat().st_mode)


def test_output_checked_before_training(files, tmp_path, capsys, monkeypatch):
    """A bad --out stops train before it reads data, not after hours of training."""
    d, _ = files
    monkeypatch.setattr(cli.Dataset, "load", lambda *a, **k: pytest.fail("data was read"))
    ro = tmp_path / "model"
    ro.write_text("keep")
    ro.chmod(0o400)
    for out, message in ((tmp_path, "is a directory"), (ro, "is read-only")):
        fails(capsys, ["train", "--algorithm", "ranksvm", "--train", d / "data.txt", "--out", out],
              message)
    fails(capsys, ["predict", tmp_path / "m.pkl", d / "data.txt", "-o", ro], f"{ro}: is read-only")
    fails(capsys, ["audit", d / "data.txt", "-o", tmp_path], "is a directory")
    assert not leftovers(tmp_path)


def test_failed_work_leaves_the_old_file(tmp_path):
    out = tmp_path / "r.txt"
    out.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(out) as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert out.read_text() == "old" and not leftovers(tmp_path)


def test_check_output_targets(tmp_path):
    (tmp_path / "f").write_text("")
    (tmp_path / "l").symlink_to(tmp_path / "f")
    assert check_output(tmp_path / "l").path == tmp_path / "f"
    assert not check_output(tmp_path / "l").stream
    assert check_output(tmp_path / "new" / "x").path == tmp_path / "new" / "x"
    if Path("/dev/null").exists():
        assert check_output("/dev/null").stream
    with pytest.raises(OutputError, match="the output path is empty"):
        check_output("")


@pytest.fixture(scope="module")
def inputs(files, tmp_path_factory):
    """One copy of every kind of input a command reads, a model and per-query results included."""
    d, _ = files
    w = tmp_path_factory.mktemp("inputs")
    for name in ("data.txt", "s.txt"):
        (w / name).write_bytes((d / name).read_bytes())
    assert main(["train", "--algorithm", "ranksvm", "--param", "C_grid=[1.0]", "--train",
                 str(w / "data.txt"), "--vali", str(w / "data.txt"), "--out", str(w / "m.pkl")]) == 0
    for name in ("a", "b"):
        assert main(["eval", str(w / "data.txt"), str(w / "s.txt"), "--per-query", "-c",
                     "ranklib", "--cutoffs", "1", "-o", str(w / f"{name}.json")]) == 0
    (w / "c.yaml").write_text("conventions: {mine: {empty: 0.5}}\n")
    (w / "link.txt").symlink_to(w / "data.txt")
    os.link(w / "s.txt", w / "hard.txt")
    return w


SAME_AS_INPUT = [
    ("eval {w}/data.txt {w}/s.txt --format tsv -o {w}/data.txt", "data.txt: is also an input"),
    ("eval {w}/data.txt {w}/s.txt -o {w}/s.txt", "s.txt: is also an input"),
    ("eval {w}/data.txt {w}/s.txt -o {w}/link.txt",
     "link.txt: is the same file as the input {w}/data.txt"),
    ("eval {w}/data.txt {w}/s.txt -o {w}/hard.txt", "hard.txt: is the same file as the input {w}/s.txt"),
    ("eval {w}/data.txt {w}/s.txt --conventions-file {w}/c.yaml -o {w}/c.yaml", "c.yaml: is also an input"),
    ("predict {w}/m.pkl {w}/data.txt -o {w}/m.pkl", "m.pkl: is also an input"),
    ("predict {w}/m.pkl {w}/data.txt -o {w}/data.txt", "data.txt: is also an input"),
    ("train --algorithm ranksvm --train {w}/data.txt --out {w}/data.txt", "data.txt: is also an input"),
    ("train --algorithm ranksvm --train {w}/link.txt --vali {w}/s.txt --out {w}/s.txt", "s.txt: is also"),
    ("eval-score {w}/data.txt {w}/s.txt {w}/data.txt 1", "data.txt: is also an input"),
    ("eval-score {w}/data.txt {w}/s.txt {w}/link.txt 0", "link.txt: is the same file as the input"),
    ("ttest {w}/a.json {w}/b.json -o {w}/a.json", "a.json: is also an input"),
    ("audit {w}/s.txt {w}/data.txt -o {w}/link.txt", "link.txt: is the same file as the input"),
]


@pytest.mark.parametrize("command, message", SAME_AS_INPUT, ids=[c.split(" -o ")[0].split()[0] + str(i)
                                                                 for i, (c, _) in enumerate(SAME_AS_INPUT)])
def test_an_output_that_is_an_input_is_refused_before_any_work(inputs, capsys, monkeypatch,
                                                               command, message):
    w = inputs
    before = {p.name: p.read_bytes() for p in w.iterdir()}
    monkeypatch.setattr(cli.Dataset, "load", lambda *a, **k: pytest.fail("data was read"))
    fails(capsys, command.format(w=w).split(), message.format(w=w))
    assert {p.name: p.read_bytes() for p in w.iterdir()} == before and not leftovers(w)


def test_an_output_named_like_no_input_is_written(inputs, tmp_path):
    """A new path, or an existing file that is no input, passes the check."""
    w = inputs
    assert check_output(tmp_path / "new.txt", inputs=[w / "data.txt"]).path == tmp_path / "new.txt"
    (tmp_path / "other.txt").write_text("x")
    assert not check_output(tmp_path / "other.txt", inputs=[w / "data.txt", w / "gone"]).stream


def run_cli(args, tmp_path, stdout=subprocess.PIPE, preexec_fn=None, env=None):
    return subprocess.run([sys.executable, "-m", "ltrconv.cli", *map(str, args)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=env or ENV, cwd=tmp_path,
                          timeout=120, preexec_fn=preexec_fn)


@pytest.mark.parametrize("command", ["eval", "predict", "conventions"])
def test_standard_output_that_cannot_be_written_is_an_error(inputs, tmp_path, command):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    w = inputs
    args = {"eval": ["eval", w / "data.txt", w / "s.txt", "--per-query"],
            "predict": ["predict", w / "m.pkl", w / "data.txt"], "conventions": ["conventions"]}
    with open("/dev/full", "w") as full:
        proc = run_cli(args[command], tmp_path, stdout=full)
    assert proc.returncode == 2
    assert proc.stderr == "ltrconv: error: standard output: cannot write: No space left on device\n"


def test_standard_output_cut_short_by_a_file_size_limit_is_an_error(inputs, tmp_path):
    """Under ``ulimit -f`` a write stops at the limit: Python's buffered stdout drops the rest
    without an error (exit 0 with a truncated file); ltrconv reports it."""
    import resource

    w = inputs
    limit = 4096

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    with open(tmp_path / "out.json", "w") as out:
        proc = run_cli(["eval", w / "data.txt", w / "s.txt", "--per-query", "-c", "ranklib"],
                       tmp_path, stdout=out, preexec_fn=small_files)
    assert (tmp_path / "out.json").stat().st_size == limit
    assert proc.returncode == 2
    assert proc.stderr == "ltrconv: error: standard output: cannot write: File too large\n"


def test_short_writes_are_completed_and_a_failed_one_is_an_error(monkeypatch):
    from ltrconv import outputs

    r, w = os.pipe()
    real_write = os.write
    try:
        monkeypatch.setattr(outputs.os, "write", lambda fd, b: real_write(fd, bytes(b[:3])))
        outputs.write_all(w, b"0123456789\n", "out")  # four short writes
        monkeypatch.setattr(outputs.os, "write", lambda fd, b: 0)
        with pytest.raises(OutputError, match="^out: cannot write: the system accepted no byte"):
            outputs.write_all(w, b"x", "out")
        calls = []

        def full_after_three(fd, b):
            calls.append(len(b))
            if len(calls) > 1:
                raise OSError(28, "No space left on device")
            return real_write(fd, bytes(b[:3]))

        monkeypatch.setattr(outputs.os, "write", full_after_three)
        with pytest.raises(OutputError, match="^out: cannot write: No space left on device"):
            outputs.write_all(w, b"abcdef", "out")
        assert calls == [6, 3]
    finally:
        monkeypatch.undo()
        os.close(w)
        with os.fdopen(r, "rb") as fh:
            assert fh.read() == b"0123456789\nabc"


def test_a_reader_that_leaves_early_ends_the_command_quietly(inputs, tmp_path):
    """``ltrconv eval ... | head -c 100``: no traceback, no message, exit 141 (128 + SIGPIPE)."""
    w = inputs
    r, wr = os.pipe()
    os.close(r)
    try:
        proc = run_cli(["eval", w / "data.txt", w / "s.txt", "--per-query"], tmp_path, stdout=wr)
    finally:
        os.close(wr)
    assert (proc.returncode, proc.stderr) == (141, "")


@pytest.mark.parametrize("sig, code, line", [("SIGTERM", 143, "ltrconv: terminated (SIGTERM)\n"),
                                             ("SIGINT", 130, "ltrconv: interrupted\n")],
                         ids=["SIGTERM", "SIGINT"])
def test_a_signal_leaves_one_line_and_no_temporary_file(inputs, tmp_path, sig, code, line):
    """Stopped while waiting for a FIFO's reader, the finished output already in its temporary
    file: the temporary file goes, the FIFO stays, one line on stderr."""
    import signal
    import time

    w = inputs
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # SIGINT at its default in the child: a shell starts background jobs with it ignored, and
    # Python keeps it so (as it should: Ctrl-C is not meant for them).
    proc = subprocess.Popen([sys.executable, "-m", "ltrconv.cli", "eval", str(w / "data.txt"),
                             str(w / "s.txt"), "-o", str(fifo)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**ENV, "TMPDIR": str(tmp)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not list(tmp.glob("ltrconv-*.part")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(tmp.glob("ltrconv-*.part")), "the command never reached the FIFO"
        # A signal that lands before the open blocks is only handled when the open returns
        # (never, here): wait until the kernel shows the process waiting for a FIFO reader
        # (Linux), or 0.2 s where it does not say.
        wchan = Path(f"/proc/{proc.pid}/wchan")
        until = time.monotonic() + (20 if wchan.exists() else 0.2)
        while time.monotonic() < until:
            if wchan.exists() and wchan.read_text() in ("wait_for_partner", "fifo_open"):
                break
            time.sleep(0.02)
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert (proc.returncode, err, out) == (code, line, "")
    assert list(tmp.iterdir()) == [] and stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.parametrize("command", ["eval", "audit", "train", "predict"])
def test_ctrl_c_in_any_command_is_one_line(inputs, tmp_path, capsys, monkeypatch, command):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    w = inputs
    monkeypatch.setattr(cli.Dataset, "load", interrupted)
    out = tmp_path / "out"
    args = {"eval": ["eval", w / "data.txt", w / "s.txt", "-o", out],
            "audit": ["audit", w / "data.txt", "-o", out],
            "train": ["train", "--algorithm", "ranksvm", "--train", w / "data.txt", "--out", out],
            "predict": ["predict", w / "m.pkl", w / "data.txt", "-o", out]}[command]
    capsys.readouterr()
    assert main([str(a) for a in args]) == 130
    assert capsys.readouterr().err == "ltrconv: interrupted\n"
    assert list(tmp_path.iterdir()) == []
