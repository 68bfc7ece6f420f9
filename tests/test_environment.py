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
