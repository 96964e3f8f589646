"""The studio installs on Python 3.12 and 3.13, not only on the 3.11 it is developed on: pip,
asked for those versions against the package registry, finds a wheel for every core dependency
and every dependency of theirs.

pip resolves for another Python only from wheels (`--python-version` needs `--only-binary=:all:`).
A package that publishes only an sdist is therefore resolved on its own (`--no-deps`, the sdist
allowed) and stands in the full resolution as a wheel of metadata only, built here from the
sdist's metadata, so that its own dependencies are still resolved from the registry's wheels.

This asks the registry: marked `network`, skipped when it does not answer within a few seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

pytestmark = [pytest.mark.network, pytest.mark.process]  # pip, asked in a process of its own

REPO = Path(__file__).resolve().parents[1]
REGISTRY = "https://pypi.org/simple/"
TARGET_PYTHONS = ("3.12", "3.13")

# Packages allowed to come as an sdist, and why.
SDIST_ONLY = {
    "llama-cpp-python": "publishes only an sdist: pip builds it once with a C compiler and caches the wheel",
}


def core_requirements() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(spec) for spec in project["dependencies"]]


@pytest.fixture(scope="module")
def registry() -> None:
    try:
        with urllib.request.urlopen(REGISTRY, timeout=5):
            pass
    except OSError as error:
        pytest.skip(f"the package registry cannot be reached: {error}")


def pip_resolve(python: str, requirements: list[str], folder: Path, *extra: str) -> list[dict[str, Any]]:
    """What `pip install --dry-run` for `python` would install (pip's installation report)."""
    report = folder / "report.json"
    # The registry alone: no configuration file (a machine's may add local wheel folders or caps),
    # no local wheel folder from the environment.
    env = {k: v for k, v in os.environ.items() if k not in ("PIP_FIND_LINKS", "PIP_CONSTRAINT", "PIP_NO_INDEX")}
    env["PIP_CONFIG_FILE"] = os.devnull
    command = [
        *(sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet"),
        *("--python-version", python, "--target", str(folder / "target"), "--report", str(report)),
        *extra,
        *requirements,
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, f"pip cannot resolve for Python {python}:\n{done.stderr}"
    installs: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))["install"]
    return installs


def metadata_wheel(folder: Path, metadata: dict[str, Any]) -> Path:
    """A wheel holding nothing but a package's metadata: name, version and what it requires."""
    name = str(metadata["name"]).replace("-", "_")
    version = str(metadata["version"])
    info = f"{name}-{version}.dist-info"
    lines = ["Metadata-Version: 2.1", f"Name: {metadata['name']}", f"Version: {version}"]
    if metadata.get("requires_python"):
        lines.append(f"Requires-Python: {metadata['requires_python']}")
    lines += [f"Requires-Dist: {spec}" for spec in metadata.get("requires_dist", [])]
    lines += [f"Provides-Extra: {extra}" for extra in metadata.get("provides_extra", [])]
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(f"{info}/METADATA", "\n".join(lines) + "\n")
        archive.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{info}/RECORD", "")
    return wheel


@pytest.mark.usefixtures("registry")
@pytest.mark.parametrize("python", TARGET_PYTHONS)
def test_every_core_dependency_has_wheels_for_the_newer_pythons(python: str, tmp_path: Path) -> None:
    requirements = core_requirements()
    stand_ins = tmp_path / "stand-ins"
    stand_ins.mkdir()
    for requirement in requirements:
        if canonicalize_name(requirement.name) not in SDIST_ONLY:
            continue
        (found,) = pip_resolve(python, [str(requirement)], tmp_path, "--no-deps")
        assert found["download_info"]["url"], f"{requirement.name} has no distribution for Python {python}"
        metadata_wheel(stand_ins, found["metadata"])

    installs = pip_resolve(
        python, [str(r) for r in requirements], tmp_path, "--only-binary=:all:", "--find-links", str(stand_ins)
    )

    resolved = {canonicalize_name(item["metadata"]["name"]): item for item in installs}
    assert {canonicalize_name(r.name) for r in requirements} <= set(resolved)
    from_registry = {name for name, item in resolved.items() if name not in SDIST_ONLY}
    for name in from_registry:
        url = resolved[name]["download_info"]["url"]
        assert url.startswith("https://") and url.endswith(".whl"), f"{name} for Python {python}: {url}"


def test_the_stand_in_wheel_carries_the_requirements(tmp_path: Path) -> None:
    wheel = metadata_wheel(
        tmp_path, {"name": "llama-cpp-python", "version": "0.3.36", "requires_dist": ["numpy>=1.20.0"]}
    )
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read("llama_cpp_python-0.3.36.dist-info/METADATA").decode()
    assert "Name: llama-cpp-python" in metadata and "Requires-Dist: numpy>=1.20.0" in metadata
    assert wheel.name == "llama_cpp_python-0.3.36-py3-none-any.whl"
