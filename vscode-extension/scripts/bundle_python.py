"""Fills vscode-extension/bundled/ with the surface-lint server and its dependencies for one .vsix target.

    python scripts/bundle_python.py --target linux-x64     # or universal, darwin-arm64, win32-x64, ...

bundled/libs: surface-lint itself (a wheel built from this checkout) and its pure-Python
dependencies, resolved from pyproject.toml for Python 3.10 (the oldest supported: its backports
are harmless on newer Pythons), as `pip install --target` lays them out (licences in dist-info).
bundled/native/cpXY: the compiled `regex` for CPython X.Y on the target's platform, for every
Python in PYTHONS; the `universal` target has none (the server then needs `regex` from the
user's Python: see the README). bundled/manifest.json records what was bundled.
Needs pip and the package registry (PyPI); run with any Python >= 3.10.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EXTENSION = Path(__file__).resolve().parents[1]
PROJECT = EXTENSION.parent
BUNDLED = EXTENSION / "bundled"
PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
NATIVE = ("regex",)
# VS Code's platform targets -> pip platform tags of the wheels that run there (pip expands the
# manylinux and macOS tags to the older compatible ones).
TARGETS: dict[str, tuple[str, ...]] = {
    "linux-x64": ("manylinux_2_17_x86_64",),
    "linux-arm64": ("manylinux_2_17_aarch64",),
    "alpine-x64": ("musllinux_1_2_x86_64",),
    "alpine-arm64": ("musllinux_1_2_aarch64",),
    "darwin-x64": ("macosx_11_0_x86_64",),
    "darwin-arm64": ("macosx_11_0_arm64",),
    "win32-x64": ("win_amd64",),
    "win32-arm64": ("win_arm64",),
}
# The universal .vsix resolves its pure dependencies as on linux-x64, then drops the native ones.
UNIVERSAL = "universal"


def pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args]
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bundle_python: {' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")


def platform_flags(platforms: tuple[str, ...], python: str) -> list[str]:
    abi = "cp" + python.replace(".", "")
    flags = ["--only-binary=:all:", "--python-version", python, "--implementation", "cp", "--abi", abi, "--abi", "abi3", "--abi", "none"]
    for platform in platforms:
        flags += ["--platform", platform]
    return flags


def take_distribution(site: Path, name: str, into: Path) -> str:
    """Moves package `name` and its dist-info out of `site` into `into`; returns its version."""
    into.mkdir(parents=True, exist_ok=True)
    infos = sorted(site.glob(f"{name}-*.dist-info"))
    if len(infos) != 1:
        sys.exit(f"bundle_python: expected one {name} dist-info in {site}, found {[p.name for p in infos]}")
    version = infos[0].name[len(name) + 1 : -len(".dist-info")]
    for line in (infos[0] / "RECORD").read_text(encoding="utf-8").splitlines():
        top = line.split(",")[0].split("/")[0]
        source = site / top
        if top and source.exists() and not (into / top).exists():
            shutil.move(str(source), str(into / top))
    return version


def canonical(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def add_backports(libs: Path, platforms: tuple[str, ...], python: str) -> None:
    """Installs what `python` needs beyond the running Python: pip evaluates environment markers
    (`tomli; python_version < "3.11"`) against the Python running it, not --python-version."""
    from pip._vendor.packaging.markers import Marker
    from pip._vendor.packaging.requirements import Requirement

    environment = {"python_version": python, "python_full_version": f"{python}.0", "extra": ""}
    while True:
        have = {canonical(name) for name in installed_versions(libs)}
        missing: list[str] = []
        for info in sorted(libs.glob("*.dist-info")):
            for line in (info / "METADATA").read_text(encoding="utf-8").splitlines():
                if not line.startswith("Requires-Dist:"):
                    continue
                requirement = Requirement(line.split(":", 1)[1].strip())
                marker: Marker | None = requirement.marker
                if marker is not None and not marker.evaluate(environment):
                    continue
                if canonical(requirement.name) not in have:
                    missing.append(str(requirement).split(";")[0].strip())
        if not missing:
            return
        pip("install", "--no-compile", "--no-deps", "--target", str(libs), *platform_flags(platforms, python), *sorted(set(missing)))


def installed_versions(site: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for info in sorted(site.glob("*.dist-info")):
        name, _, version = info.name[: -len(".dist-info")].partition("-")
        found[name] = version
    return found


def bundle(target: str) -> dict[str, object]:
    platforms = TARGETS.get(target, TARGETS["linux-x64"])
    for part in ("libs", "native", "manifest.json"):
        path = BUNDLED / part
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    libs = BUNDLED / "libs"
    with tempfile.TemporaryDirectory(prefix="surface-lint-bundle-") as temp:
        wheels = Path(temp) / "wheels"
        pip("wheel", "--no-deps", "--wheel-dir", str(wheels), str(PROJECT))
        (wheel,) = sorted(wheels.glob("surface_lint-*.whl"))
        oldest = PYTHONS[0]
        pip("install", "--no-compile", "--target", str(libs), *platform_flags(platforms, oldest), str(wheel))
        add_backports(libs, platforms, oldest)
        shutil.rmtree(libs / "bin", ignore_errors=True)  # console scripts with this machine's shebang
        native_versions: dict[str, str] = {}
        native_pythons: list[str] = []
        for name in NATIVE:
            version = take_distribution(libs, name, Path(temp) / "drop")
            native_versions[name] = version
            if target == UNIVERSAL:
                continue
            for python in PYTHONS:
                tag = "cp" + python.replace(".", "")
                site = Path(temp) / tag
                pip("install", "--no-compile", "--no-deps", "--target", str(site), *platform_flags(platforms, python), f"{name}=={version}")
                take_distribution(site, name, BUNDLED / "native" / tag)
                if tag not in native_pythons:
                    native_pythons.append(tag)
    manifest: dict[str, object] = {
        "target": target,
        "python_requires": f">={PYTHONS[0]}",
        "libs": installed_versions(libs),
        "native": native_versions,
        "native_pythons": native_pythons,
    }
    (BUNDLED / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, choices=[*TARGETS, UNIVERSAL])
    args = parser.parse_args()
    print(json.dumps(bundle(args.target), indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
