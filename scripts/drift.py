"""What the newest releases of the dependencies would move, found in a scratch environment.

    python scripts/drift.py [--reference] [--tests ARGS] [--pin REQ ...] [--dir DIR]
                            [--mq2008 DIR] [--python PYTHON] [--format text|json]

creates a clean virtual environment (``python -m venv``, without the system's site packages)
in a temporary directory, or in DIR (kept; an environment already there is upgraded in place),
and installs this checkout there with the extras the lock covers, without the lock:
``pip install --upgrade --upgrade-strategy eager -e ".[test,docs]"`` and each ``--pin``, so
that every dependency resolves to its newest release the others admit. Then it reports:

1. packages: each version that differs from requirements/lock.txt (locked -> new), and each
   package pip still finds a newer release of (held back by another package's requirement);
2. libraries: ``ltrconv check-libraries --format json`` in the new environment (on MQ2008
   Fold1's test queries too when MQ2008 is found): each library convention that still holds,
   departs from the library (first difference), or can no longer be checked;
3. with ``--reference``: config/ci.yaml's pipeline run by the new environment into a temporary
   directory (scripts/ci_reference.py's run) and compared with reference/ci byte for byte as
   ``ltrconv check-reference`` compares it: each file that moves and, from the two
   provenance.json records, the recorded differences known to move it;
4. with ``--tests ARGS``: ``pytest ARGS`` in the new environment, and each test that fails.

Exit status 0 when nothing moves (every convention holds, every reference file is equal,
every test passes; newer versions alone move nothing, and are listed), 1 when something moves
(the pipeline or check-libraries failing in the new environment is a move too), 2 when the
environment cannot be made or an option is wrong. Taking the new versions is then
``python scripts/lock.py`` in an environment that has them (docs/reproducibility.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts"
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(SCRIPTS))

import ci_reference  # noqa: E402
import lock  # noqa: E402
from ltrconv.errors import LtrconvError  # noqa: E402
from ltrconv.study import reference as R  # noqa: E402
from ltrconv.study.provenance import canonical  # noqa: E402

REFERENCE = ci_reference.REFERENCE
TAIL = 3000  # characters of a failing step's output kept in the report

# Run by the new environment's Python: what lock.py would pin there, as JSON.
PINS = ("import json, sys; sys.path.insert(0, sys.argv[1]); import lock; "
        "pins, missing = lock.locked(); "
        "print(json.dumps({'packages': pins, 'missing': missing, "
        "'python': lock.python_version()}))")
# Run by the new environment's Python: config/ci.yaml's pipeline into argv[2] (MQ2008 from
# argv[3] when not empty); prints the dataset's results directory.
PIPELINE = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
            "import ci_reference; "
            "print(ci_reference.run(Path(sys.argv[2]), Path(sys.argv[3]) if sys.argv[3] "
            "else None))")


class DriftError(Exception):
    """The check cannot be made (exit status 2); the message says why."""


# --- the report's parts, from what each step returned ----------------------------------------
def _order(old: str, new: str) -> str:
    from packaging.version import InvalidVersion, Version

    try:
        return "upgraded" if Version(new) > Version(old) else "downgraded"
    except InvalidVersion:
        return "changed"


def package_changes(locked: dict[str, str], new: dict[str, str]) -> list[dict]:
    """Each package whose version differs between ``locked`` and ``new`` (name -> version),
    by name: ``change`` is upgraded, downgraded (by PEP 440 order), added or removed."""
    out = []
    for name in sorted(set(locked) | set(new)):
        old, now = locked.get(name), new.get(name)
        if old == now:
            continue
        change = "added" if old is None else "removed" if now is None else _order(old, now)
        out.append({"package": name, "locked": old, "new": now, "change": change})
    return out


def held_back(outdated: list[dict], covered: dict[str, str]) -> list[dict]:
    """The packages of ``covered`` (the locked closure in the new environment) that pip lists
    as outdated there (``pip list --outdated --format json``): installed below their newest
    release, since another package's requirement (or a ``--pin``) holds them back."""
    out = []
    for entry in outdated:
        name = canonical(entry["name"])
        if name in covered:
            out.append({"package": name, "installed": entry["version"],
                        "newest": entry["latest_version"]})
    return sorted(out, key=lambda e: e["package"])


def library_results(outcomes: list[dict], locked: dict[str, str]) -> list[dict]:
    """check-libraries' objects (``--format json``) with a ``status``: ``holds``, ``departs``,
    or ``not checked`` (the library is absent); ``moved`` when it departs, or is absent while
    the lock has its distribution (the new environment lost it); ``locked`` is the version
    the lock pins."""
    out = []
    for o in outcomes:
        # the distribution, and those its convention was checked on ("name version, ...")
        names = {canonical(o["package"])} | {
            canonical(part.strip().rpartition(" ")[0]) for part in o["checked_on"].split(",")}
        status = {True: "holds", False: "departs", None: "not checked"}[o["equal"]]
        out.append({**o, "status": status, "locked": locked.get(canonical(o["package"])),
                    "moved": o["equal"] is False
                    or (o["equal"] is None and bool(names & set(locked)))})
    return out


def reference_report(results: Path, reference: Path = REFERENCE) -> dict:
    """``results`` against ``reference`` as ``ltrconv check-reference`` compares them
    (:mod:`ltrconv.study.reference`): the provenance records' differences, then each file that
    differs with the recorded differences known to move it."""
    names, differences = R.compare(results, reference)
    changes, note = R.provenance_changes(results, reference)
    files, known = [], {}
    for d in differences:
        why, deps = R.explain(d, results, reference, changes)
        files.append({"file": d.name, "detail": d.detail, "why": why})
        known.update((dep.outputs, dep.why) for dep in deps)
    return {"compared": len(names),
            "provenance": None if changes is None else [c.text() for c in changes],
            "provenance_note": note, "differ": files, "dependences": known}


def junit_results(junit: str) -> dict:
    """Counts and the failing tests (``file::name``, with the first line of the message) of a
    pytest JUnit XML report."""
    root = ET.fromstring(junit)
    cases = list(root.iter("testcase"))
    failed, skipped = [], 0
    for case in cases:
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            test = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")
            message = (bad.get("message") or bad.text or "").strip().splitlines()
            failed.append({"test": test, "kind": bad.tag,
                           "message": message[0][:300] if message else ""})
        elif case.find("skipped") is not None:
            skipped += 1
    return {"run": len(cases), "skipped": skipped,
            "passed": len(cases) - skipped - len(failed), "failed": failed}


def moves(report: dict) -> list[str]:
    """One line per thing that moves in the new environment; empty when nothing does."""
    out = []
    for lib in report.get("libraries") or []:
        if lib["moved"]:
            out.append(f"{lib['library']} {lib['version'] or ''} / {lib['convention']}: "
                       + ("departs from its convention" if lib["status"] == "departs"
                          else f"no longer checked ({lib.get('reason')})"))
    for step in ("libraries_error", "reference_error", "tests_error"):
        if report.get(step):
            out.append(f"{step.split('_')[0]}: failed in the new environment")
    ref = report.get("reference")
    if ref and ref["differ"]:
        out.append(f"reference/ci: {len(ref['differ'])} of {ref['compared']} files differ")
    tests = report.get("tests")
    if tests and tests["failed"]:
        out.append(f"tests: {len(tests['failed'])} of {tests['run']} fail")
    return out


def exit_status(report: dict) -> int:
    return 1 if moves(report) else 0


def text(report: dict) -> str:
    """The report as text."""
    env = report["environment"]
    lines = [f"drift: this checkout ({env['extras']}) installed without the lock in "
             f"{env['dir']}{'' if env['kept'] else ' (removed)'} (Python {env['python']}"
             + (f"; the lock's is {env['locked_python']}" if env["python"] != env["locked_python"]
                else "") + ")"
             + (f", pinned: {', '.join(env['pins'])}" if env["pins"] else "")]
    pk = report["packages"]
    if pk["changed"]:
        lines.append(f"packages: {len(pk['changed'])} differ from requirements/lock.txt "
                     f"({pk['same']} the same)")
        for c in pk["changed"]:
            lines.append(f"  {c['package']}: {c['locked'] or 'not locked'} -> "
                         f"{c['new'] or 'not installed'} ({c['change']})")
    else:
        lines.append(f"packages: all {pk['same']} at their locked versions: the lock holds the "
                     "newest releases that resolve together")
    if pk["missing"]:
        lines.append(f"  required but not installed: {', '.join(pk['missing'])}")
    if pk["held_back"] is None:
        lines.append("  (pip list --outdated could not be run)")
    elif pk["held_back"]:
        lines.append("  held back below their newest release (by a requirement or --pin): "
                     + ", ".join(
            f"{h['package']} {h['installed']} (newest {h['newest']})" for h in pk["held_back"]))
    else:
        lines.append("  none held back below its newest release")
    if report.get("libraries_error"):
        lines.append(f"libraries: check-libraries failed:\n{_indent(report['libraries_error'])}")
    elif report.get("libraries") is not None:
        held = sum(lib["status"] == "holds" for lib in report["libraries"])
        lines.append(f"libraries: {held} of {len(report['libraries'])} conventions hold "
                     f"({report['libraries_data']})")
        for lib in report["libraries"]:
            was = (f", locked {lib['locked']}" if lib["locked"] and lib["locked"] != lib["version"]
                   else "")
            head = (f"  {lib['library']} {lib['version'] or ''}".rstrip()
                    + f"{was} / {lib['convention']}: ")
            if lib["status"] == "holds":
                lines.append(head + f"holds on {lib['queries']} queries")
            elif lib["status"] == "departs":
                d = lib["first_difference"]
                lines.append(head + f"DEPARTS at {d['case']}" + (f", k={d['k']}" if d["k"] else "")
                             + f": library {d['library']}, ltrconv {d['ltrconv']}")
            else:
                lines.append(head + ("LOST: " if lib["moved"] else "") + f"not checked "
                             f"({lib['reason']})")
    if report.get("reference_error"):
        lines.append(f"reference: the pipeline failed:\n{_indent(report['reference_error'])}")
    elif report.get("reference") is not None:
        ref = report["reference"]
        lines.append(f"reference: config/ci.yaml's run against reference/ci: {ref['compared']} "
                     f"files compared, {len(ref['differ'])} differ")
        if ref["provenance"] is None:
            lines.append(f"  provenance: {ref['provenance_note']}")
        else:
            lines.append(f"  provenance: {len(ref['provenance'])} difference(s) between the "
                         "records" + "".join(f"\n    {c}" for c in ref["provenance"]))
        for f in ref["differ"]:
            lines.append(f"  differs: {f['file']}: {f['detail']}")
            lines += [f"    {w}" for w in f["why"]]
        if ref["dependences"]:
            lines.append("  known dependences:")
            lines += [f"    {o}: {w}" for o, w in ref["dependences"].items()]
    if report.get("tests_error"):
        lines.append(f"tests: pytest could not run:\n{_indent(report['tests_error'])}")
    elif report.get("tests") is not None:
        t = report["tests"]
        lines.append(f"tests: pytest {report['tests_args']}: {t['passed']} passed, "
                     f"{len(t['failed'])} failed, {t['skipped']} skipped")
        lines += [f"  {f['kind']}: {f['test']}: {f['message']}" for f in t["failed"]]
    moved = moves(report)
    lines.append("moves: " + "; ".join(moved) if moved else
                 "nothing moves" + (" (newer versions, none of the checks moved)"
                                    if pk["changed"] else ""))
    return "\n".join(lines) + "\n"


def _indent(s: str) -> str:
    return "\n".join("    " + line for line in s.rstrip().splitlines())


# --- the scratch environment ------------------------------------------------------------------
class Scratch:
    """A virtual environment at ``path`` and a way to run its programs: PATH and VIRTUAL_ENV
    point at it, and no PYTHONPATH or PYTHONHOME reaches it (it imports only what it has)."""

    def __init__(self, path: Path):
        self.path = path
        self.bin = path / ("Scripts" if os.name == "nt" else "bin")
        self.python = self.bin / ("python.exe" if os.name == "nt" else "python")
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE")}
        env["VIRTUAL_ENV"] = str(path)
        env["PATH"] = str(self.bin) + os.pathsep + env.get("PATH", "")
        env["PYTHONNOUSERSITE"] = "1"
        self.env = env

    def run(self, *args, step: str, cwd: Path = REPO, timeout: float | None = None,
            ok=(0,), log=None) -> subprocess.CompletedProcess:
        """Run ``args`` (the environment's Python when the first is ``python``); a status not
        in ``ok`` raises :class:`StepFailed` with the end of its output."""
        cmd = [str(self.python) if args[0] == "python" else args[0], *map(str, args[1:])]
        if log:
            log(f"{step}: {' '.join(shlex.quote(c) for c in cmd)}")
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=self.env, capture_output=True, text=True,
                                  timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise StepFailed(step, str(exc)) from None
        if proc.returncode not in ok:
            raise StepFailed(step, f"exit status {proc.returncode}\n"
                             + (proc.stderr or proc.stdout)[-TAIL:])
        return proc


class StepFailed(Exception):
    def __init__(self, step: str, output: str):
        super().__init__(f"{step}: {output}")
        self.step, self.output = step, output


def make_environment(path: Path, python: str, pins: list[str], log) -> Scratch:
    """A clean virtual environment at ``path`` (created, or reused when one is there) with
    this checkout installed, newest releases and ``pins``; :class:`DriftError` when it fails."""
    scratch = Scratch(path)
    try:
        if not (path / "pyvenv.cfg").is_file():
            log(f"venv: {python} -m venv --upgrade-deps {path}")
            proc = subprocess.run([python, "-m", "venv", "--upgrade-deps", str(path)],
                                  capture_output=True, text=True, env=scratch.env)
            if proc.returncode != 0:
                raise StepFailed("venv", (proc.stderr or proc.stdout)[-TAIL:])
        scratch.run("python", "-m", "pip", "install", "--upgrade", "--upgrade-strategy", "eager",
                    "-e", f"{REPO}[{','.join(lock.EXTRAS)}]", *pins, step="install", log=log)
    except StepFailed as exc:
        raise DriftError(f"the new environment could not be made ({exc.step}): "
                         f"{exc.output}") from None
    return scratch


def mq2008_test_file(mq2008: Path | None) -> Path | None:
    return mq2008 / "Fold1" / "test.txt" if mq2008 is not None else None


def check(scratch: Scratch, args, log) -> dict:
    """Every step in ``scratch``; the report (without ``moves``)."""
    locked = lock.read_lock()
    report: dict = {}
    probe = scratch.run("python", "-c", PINS, SCRIPTS, step="versions", log=log)
    try:
        found = json.loads(probe.stdout)
    except json.JSONDecodeError:
        raise StepFailed("versions", f"no JSON in its output: {probe.stdout[-TAIL:]}") from None
    changed = package_changes(locked, found["packages"])
    try:
        listed = scratch.run("python", "-m", "pip", "list", "--outdated", "--format", "json",
                             step="outdated", log=log)
        outdated = held_back(json.loads(listed.stdout), found["packages"])
    except (StepFailed, json.JSONDecodeError) as exc:
        log(f"outdated: {exc}")
        outdated = None
    report["environment"] = {"dir": str(scratch.path), "kept": args.dir is not None,
                             "python": found["python"],
                             "locked_python": lock.lock_python(), "pins": args.pin,
                             "extras": f".[{','.join(lock.EXTRAS)}]"}
    report["packages"] = {"changed": changed, "missing": found["missing"],
                          "held_back": outdated,
                          "same": sum(locked[n] == v for n, v in found["packages"].items()
                                      if n in locked)}

    data = mq2008_test_file(args.mq2008)
    report["libraries_data"] = (f"adversarial queries and {data}" if data
                                else "adversarial queries")
    try:
        proc = scratch.run("python", "-m", "ltrconv", "check-libraries", "--format", "json",
                           *(["--data", data] if data else []), step="check-libraries",
                           ok=(0, 1), log=log)
        report["libraries"] = library_results(json.loads(proc.stdout), locked)
    except (StepFailed, json.JSONDecodeError) as exc:
        report["libraries"], report["libraries_error"] = None, str(exc)

    if args.reference:
        with tempfile.TemporaryDirectory(prefix="ltrconv-drift-ci-") as tmp:
            try:
                proc = scratch.run("python", "-c", PIPELINE, SCRIPTS, tmp,
                                   args.mq2008 or "", step="pipeline", log=log)
                results = Path(proc.stdout.strip().splitlines()[-1])
                report["reference"] = reference_report(results)
            except StepFailed as exc:
                report["reference"], report["reference_error"] = None, exc.output
            except LtrconvError as exc:  # the run wrote no results to compare
                report["reference"], report["reference_error"] = None, str(exc)

    if args.tests is not None:
        report["tests_args"] = args.tests
        with tempfile.TemporaryDirectory(prefix="ltrconv-drift-tests-") as tmp:
            junit = Path(tmp) / "junit.xml"
            try:
                proc = scratch.run("python", "-m", "pytest", "-p", "no:cacheprovider", "-q",
                                   f"--junitxml={junit}", *shlex.split(args.tests),
                                   step="pytest", ok=(0, 1, 2, 3, 4, 5), log=log)
                if proc.returncode == 5:
                    raise DriftError(f"--tests {args.tests!r}: pytest collected no test")
                if not junit.is_file() or proc.returncode in (3, 4):
                    raise StepFailed("pytest", f"exit status {proc.returncode}\n"
                                     + (proc.stdout + proc.stderr)[-TAIL:])
                report["tests"] = junit_results(junit.read_text())
                if proc.returncode == 2 and not report["tests"]["failed"]:
                    raise StepFailed("pytest", "interrupted\n" + proc.stdout[-TAIL:])
            except StepFailed as exc:
                report["tests"], report["tests_error"] = None, exc.output
    return report


# --- the command ------------------------------------------------------------------------------
def parse(argv):
    from packaging.requirements import InvalidRequirement, Requirement

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", action="store_true",
                        help="also run config/ci.yaml's pipeline (MQ2008, about 3 minutes on 2 "
                             "cores) and compare it with reference/ci")
    parser.add_argument("--tests", metavar="ARGS",
                        help="also run pytest with these arguments (one string, e.g. "
                             "\"-m 'not slow'\" or tests/test_metrics.py) and list failures")
    parser.add_argument("--pin", metavar="REQ", action="append", default=[],
                        help="a requirement installed with the checkout (numpy==2.3.5, "
                             "'scikit-learn<1.9'); repeatable")
    parser.add_argument("--dir", metavar="DIR", type=Path,
                        help="make (or reuse) the environment here and keep it (default: a "
                             "temporary directory, removed afterwards)")
    parser.add_argument("--mq2008", metavar="DIR", type=Path,
                        default=os.environ.get("LTRCONV_MQ2008_DIR") or None,
                        help="MQ2008 directory (Fold1..Fold5): its Fold1 test queries join "
                             "check-libraries, --reference runs on it; default "
                             "LTRCONV_MQ2008_DIR, else the configuration's search for the "
                             "pipeline and no file for check-libraries")
    parser.add_argument("--python", metavar="PYTHON", default=sys.executable,
                        help="the Python the environment is made with (default: this one)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="report format (default: text)")
    args = parser.parse_args(argv)
    for req in args.pin:
        try:
            Requirement(req)
        except InvalidRequirement as exc:
            parser.error(f"--pin {req!r}: not a requirement ({exc})")
    if args.tests is not None:
        try:
            if not shlex.split(args.tests):
                parser.error("--tests: empty; give pytest's arguments, e.g. tests/test_metrics.py")
        except ValueError as exc:
            parser.error(f"--tests {args.tests!r}: {exc}")
    if args.mq2008 is not None:
        args.mq2008 = args.mq2008.resolve()
        if not (args.mq2008 / "Fold1" / "test.txt").is_file():
            parser.error(f"--mq2008 {args.mq2008}: no Fold1/test.txt there")
    if args.dir is not None:
        d = args.dir.resolve()
        if d.exists() and (not d.is_dir() or (any(d.iterdir())
                                              and not (d / "pyvenv.cfg").is_file())):
            parser.error(f"--dir {args.dir}: exists and is no virtual environment; give a new "
                         "or empty directory, or one this command made")
        args.dir = d
    return args


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse(argv)
    except SystemExit as exc:
        return 2 if exc.code not in (0, None) else 0

    def log(msg):
        print(f"drift: {msg}", file=sys.stderr, flush=True)

    tmp = None
    try:
        if args.dir is None:
            tmp = Path(tempfile.mkdtemp(prefix="ltrconv-drift-"))
        path = args.dir or tmp / "venv"
        scratch = make_environment(path, args.python, args.pin, log)
        report = check(scratch, args, log)
    except DriftError as exc:
        print(f"drift: {exc}", file=sys.stderr)
        return 2
    except StepFailed as exc:
        print(f"drift: {exc.step} failed in the new environment: {exc.output}", file=sys.stderr)
        return 2
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    report["moves"] = moves(report)
    if args.format == "json":
        sys.stdout.write(json.dumps(report, indent=1) + "\n")
    else:
        sys.stdout.write(text(report))
    return exit_status(report)


if __name__ == "__main__":
    sys.exit(main())
