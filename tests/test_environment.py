"""pyproject.toml and the conda environment files list the same packages with the same bounds:
environment.yml all but the Slurm plugin, environment-cluster.yml those and the plugin."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _split(req: str) -> tuple[str, str]:
    m = re.match(r"^\s*([A-Za-z0-9_.-]+)\s*(.*)$", req)
    return m.group(1).lower().replace("_", "-"), m.group(2).replace(" ", "")


def test_pyproject_and_environment_agree():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    # torch's CPU build comes from PyTorch's own index (docs/libraries.md); environment.yml leaves it out,
    # and the Slurm plugin (environment-cluster.yml)
    extras = [r for name, reqs in project["optional-dependencies"].items()
              if name not in ("torch", "slurm") for r in reqs]
    wanted = dict(_split(r) for r in project["dependencies"] + extras)
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    listed = {}
    for dep in env["dependencies"]:
        items = dep["pip"] if isinstance(dep, dict) else [dep]
        for item in items:
            if item.startswith("-e") or item in ("pip",):
                continue
            name, bound = _split(item)
            listed[name] = bound
    assert listed.pop("python") == ">=" + project["requires-python"].lstrip(">=")
    assert listed == wanted


def _conda_deps(path: Path) -> dict[str, str]:
    listed = {}
    for dep in yaml.safe_load(path.read_text())["dependencies"]:
        for item in dep["pip"] if isinstance(dep, dict) else [dep]:
            if not item.startswith("-e") and item != "pip":
                name, bound = _split(item)
                listed[name] = bound
    return listed


def test_job_environment_is_the_runtime_part_of_environment_yml():
    """workflow/envs/ltrconv.yml (every rule's conda env) pins what environment.yml pins, and
    holds every runtime dependency but those of the scheduling process."""
    jobs = _conda_deps(ROOT / "workflow" / "envs" / "ltrconv.yml")
    full = _conda_deps(ROOT / "environment.yml")
    assert {n: full.get(n) for n in jobs} == jobs
    runtime = {_split(r)[0] for r in tomllib.loads((ROOT / "pyproject.toml").read_text())
               ["project"]["dependencies"]}
    assert set(jobs) - {"python"} == runtime - {"snakemake", "jsonschema"}


def test_cluster_environment_is_environment_yml_plus_the_slurm_extra():
    """environment-cluster.yml (cluster runs) holds environment.yml's packages, the checkout,
    and pyproject.toml's slurm extra; environment.yml holds no executor plugin, which would
    probe Slurm at every Snakemake start."""
    def entries(path):
        env = yaml.safe_load(path.read_text())
        return env["name"], [d for d in env["dependencies"] if not isinstance(d, dict)], \
            next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))

    name, conda, pip = entries(ROOT / "environment.yml")
    cname, cconda, cpip = entries(ROOT / "environment-cluster.yml")
    slurm = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["slurm"]
    assert not any("executor-plugin" in d for d in conda + pip)
    assert cname != name and cpip == pip and "-e ." in pip
    assert sorted(cconda) == sorted(conda + [s.replace(" ", "") for s in slurm])


# --- the locked environment (requirements/lock.txt, environment-lock.yml; scripts/lock.py) -----
def _lock_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("lock", ROOT / "scripts" / "lock.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lock_pins_every_requirement_within_its_bound():
    """Every requirement of pyproject.toml (runtime, and the extras the lock covers) is pinned
    with ==, at a version its lower bound admits; the library's own bounds stay bounds."""
    from packaging.requirements import Requirement

    lock = _lock_script()
    pins = lock.read_lock()
    assert pins and all(re.fullmatch(r"[a-z0-9-]+", n) and v for n, v in pins.items())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + [r for e in lock.EXTRAS
                                      for r in project["optional-dependencies"][e]]
    for text in reqs:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate():
            continue
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        assert name in pins, f"requirements/lock.txt does not pin {name}"
        assert req.specifier.contains(pins[name], prereleases=True), (name, pins[name])
        assert "==" not in str(req.specifier) or name == "snakemake-executor-plugin-slurm"


def test_conda_lock_pins_what_the_pip_lock_pins():
    lock = _lock_script()
    env = yaml.safe_load((ROOT / "environment-lock.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pip[-1] == "-e ."
    assert dict(p.split("==") for p in pip[:-1]) == lock.read_lock()
    python = lock.lock_python()
    assert f"Python {python}," in (ROOT / "requirements" / "lock.txt").read_text()
    # the files are what the script writes for these pins
    pins = lock.read_lock()
    assert (ROOT / "requirements" / "lock.txt").read_text().endswith(
        "\n".join(f"{n}=={v}" for n, v in pins.items()) + "\n")
    assert (ROOT / "environment-lock.yml").read_text() == lock.conda_text(pins, python)


def test_this_environment_is_the_locked_one():
    """The README's test command installs with the lock as constraints: every package the lock
    covers is installed at its locked version (scripts/lock.py --check names any that is not;
    refreshing the lock is python scripts/lock.py, with reference/ re-blessed if bytes move)."""
    lock = _lock_script()
    installed, missing = lock.locked()
    pinned = lock.read_lock()
    assert missing == []
    differ = {n: (pinned.get(n), installed.get(n)) for n in set(pinned) | set(installed)
              if pinned.get(n) != installed.get(n)}
    assert differ == {}, f"(locked, installed) differ: {differ}"


def test_lock_check_names_a_moved_version(tmp_path, monkeypatch, capsys):
    lock = _lock_script()
    pins = lock.read_lock()
    moved = dict(pins, numpy="1.0.0")
    fake = tmp_path / "lock.txt"
    fake.write_text(lock.pip_text(moved, lock.python_version()))
    monkeypatch.setattr(lock, "LOCK", fake)
    assert lock.main(["--check"]) == 1
    assert f"numpy: locked 1.0.0, installed {pins['numpy']}" in capsys.readouterr().out
