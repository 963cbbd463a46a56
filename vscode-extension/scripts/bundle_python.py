"""Fills vscode-extension/bundled/ with the surface-lint server and its dependencies for one .vsix target.

    python scripts/bundle_python.py --target linux-x64     # or universal, darwin-arm64, win32-x64, ...

bundled/libs: surface-lint itself (a wheel built from this checkout) and its pure-Python
dependencies, resolved from pyproject.toml for Python 3.10 (the oldest supported: its backports
are harmless on newer Pythons), as `pip install --target` lays them out (licences in dist-info).
bundled/native/cpXY: the compiled dependencies (today google-re2, module re2, and msgspec) for
CPython X.Y on the target's platform, for every Python in PYTHONS that has a wheel there; the
`universal` target has none (the server then needs them from the user's Python: see the README).
Which dependencies are compiled is read from their wheels (Root-Is-Purelib), not listed here;
which of them the server runs without (OPTIONAL) is, and the manifest says so.
bundled/manifest.json records what was bundled; the launcher reads it.
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
# VS Code's platform targets -> pip platform tags of the wheels that run there (pip expands a tag
# to the older compatible ones). glibc 2.28 and macOS 14 are what the compiled wheels need today;
# VS Code itself needs glibc 2.28.
TARGETS: dict[str, tuple[str, ...]] = {
    "linux-x64": ("manylinux_2_28_x86_64",),
    "linux-arm64": ("manylinux_2_28_aarch64",),
    "alpine-x64": ("musllinux_1_2_x86_64",),
    "alpine-arm64": ("musllinux_1_2_aarch64",),
    "darwin-x64": ("macosx_14_0_x86_64",),
    "darwin-arm64": ("macosx_14_0_arm64",),
    "win32-x64": ("win_amd64",),
    "win32-arm64": ("win_arm64",),
}
UNIVERSAL = "universal"
# Where the dependency tree is resolved to tell pure from compiled packages (every one has wheels there).
REFERENCE = "linux-x64"
# Compiled dependencies the server runs without, with the same results (manifest `optional`: the
# launcher does not ask for them): msgspec only speeds JSON up (surface_lint/model/jsonread.py
# reads with json.loads where it cannot be imported).
OPTIONAL = frozenset({"msgspec"})


def pip(*args: str, allow_no_match: bool = False) -> bool:
    """Runs pip; False when `allow_no_match` and no wheel matches, else exits on failure."""
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args]
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    if done.returncode == 0:
        return True
    if allow_no_match and "No matching distribution found" in done.stderr:
        return False
    sys.exit(f"bundle_python: {' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")


def platform_flags(platforms: tuple[str, ...], python: str) -> list[str]:
    abi = "cp" + python.replace(".", "")
    flags = ["--only-binary=:all:", "--python-version", python, "--implementation", "cp", "--abi", abi, "--abi", "abi3", "--abi", "none"]
    for platform in platforms:
        flags += ["--platform", platform]
    return flags


def canonical(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def dist_infos(site: Path) -> dict[str, Path]:
    """Canonical distribution name -> its dist-info folder."""
    return {canonical(info.name[: -len(".dist-info")].partition("-")[0]): info for info in sorted(site.glob("*.dist-info"))}


def version_of(info: Path) -> str:
    return info.name[: -len(".dist-info")].partition("-")[2]


def is_pure(info: Path) -> bool:
    return "Root-Is-Purelib: true" in (info / "WHEEL").read_text(encoding="utf-8")


def top_levels(info: Path) -> list[str]:
    """The top-level files and folders a distribution installed (its RECORD), dist-info included."""
    names: list[str] = []
    for line in (info / "RECORD").read_text(encoding="utf-8").splitlines():
        top = line.split(",")[0].split("/")[0]
        if top and top not in names:
            names.append(top)
    return names


def move_distribution(site: Path, info: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    for top in top_levels(info):
        if (site / top).exists() and not (into / top).exists():
            shutil.move(str(site / top), str(into / top))


def requirements(site: Path, python: str) -> list[tuple[str, str]]:
    """(canonical name, requirement) of every Requires-Dist in `site` that applies to `python`."""
    from pip._vendor.packaging.markers import Marker
    from pip._vendor.packaging.requirements import Requirement

    environment = {"python_version": python, "python_full_version": f"{python}.0", "extra": ""}
    found: list[tuple[str, str]] = []
    for info in dist_infos(site).values():
        for line in (info / "METADATA").read_text(encoding="utf-8").splitlines():
            if line.startswith("Requires-Dist:"):
                requirement = Requirement(line.split(":", 1)[1].strip())
                marker: Marker | None = requirement.marker
                if marker is None or marker.evaluate(environment):
                    found.append((canonical(requirement.name), str(requirement).split(";")[0].strip()))
    return found


def resolve(wheel: Path, site: Path, python: str) -> None:
    """Installs the wheel and its dependency tree for `python` on the reference platform. pip
    evaluates markers (`tomli; python_version < "3.11"`) against the Python running it, not
    --python-version, so what `python` needs beyond that is added until nothing is missing."""
    flags = platform_flags(TARGETS[REFERENCE], python)
    pip("install", "--no-compile", "--target", str(site), *flags, str(wheel))
    while True:
        have = dist_infos(site)
        missing = sorted({spec for name, spec in requirements(site, python) if name not in have})
        if not missing:
            return
        pip("install", "--no-compile", "--no-deps", "--target", str(site), *flags, *missing)


def precompile() -> list[str]:
    """Bytecode of the bundle for the Python running this script (its cache tag, e.g. cpython-311),
    next to the sources and checked by hash only (an unpacked .vsix keeps no source mtimes): a
    server started by that Python reads it instead of compiling every module at its first start
    (the launcher reads `bytecode` in the manifest). Other Pythons compile into their cache."""
    tag = sys.implementation.cache_tag
    native = BUNDLED / "native" / f"cp{sys.version_info[0]}{sys.version_info[1]}"
    folders = [BUNDLED / "libs", *([native] if native.is_dir() else [])]
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash",
                    *map(str, folders)], check=True)
    return [tag] if tag else []


def bundle(target: str) -> dict[str, object]:
    for part in ("libs", "native", "manifest.json"):
        path = BUNDLED / part
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    libs = BUNDLED / "libs"
    native: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="surface-lint-bundle-") as temp:
        wheels = Path(temp) / "wheels"
        pip("wheel", "--no-deps", "--wheel-dir", str(wheels), str(PROJECT))
        (wheel,) = sorted(wheels.glob("surface_lint-*.whl"))
        reference = Path(temp) / "reference"
        resolve(wheel, reference, PYTHONS[0])
        specs = dict(requirements(reference, PYTHONS[0]))
        for name, info in dist_infos(reference).items():
            if is_pure(info):
                move_distribution(reference, info, libs)
                continue
            modules = [top for top in top_levels(info) if not top.endswith(".dist-info") and not top.endswith(".libs")]
            pythons: dict[str, str] = {}
            native[name] = {"requirement": specs.get(name, name), "modules": modules, "pythons": pythons,
                            "optional": name in OPTIONAL}
            if target == UNIVERSAL:
                continue
            for python in PYTHONS:
                tag = "cp" + python.replace(".", "")
                site = Path(temp) / f"{name}-{tag}"
                flags = platform_flags(TARGETS[target], python)
                if not pip("install", "--no-compile", "--no-deps", "--target", str(site), *flags, specs.get(name, name), allow_no_match=True):
                    continue  # no wheel for this Python here: the launcher falls back to the user's
                (built,) = dist_infos(site).values()
                pythons[tag] = version_of(built)
                move_distribution(site, built, BUNDLED / "native" / tag)
        shutil.rmtree(libs / "bin", ignore_errors=True)  # console scripts with this machine's shebang
    manifest: dict[str, object] = {
        "target": target,
        "python_requires": f">={PYTHONS[0]}",
        "libs": {name: version_of(info) for name, info in dist_infos(libs).items()},
        "native": native,
        "bytecode": precompile(),
    }
    (BUNDLED / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--target", required=True, choices=[*TARGETS, UNIVERSAL])
    args = parser.parse_args()
    print(json.dumps(bundle(args.target), indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
