"""Starts the surface-lint language server bundled in the VS Code extension, with the user's Python.

Run as `<python> surface_lint_server.py` (the server, over stdio) or `... --check` (prints one JSON
line saying whether this Python can run the bundled server, and exits 0 if it can). The bundled
pure-Python packages (bundled/libs) and the compiled ones built for this Python
(bundled/native/cpXY, listed in bundled/manifest.json) go first on sys.path, so an older
surface-lint in the environment never shadows them; a compiled one not built for this Python is
taken from the environment. Stays
importable by Python 3.6, so that an old interpreter gets a clear message, not a SyntaxError.
"""

# %-formatting and no f-strings: this file must run on any Python 3 to say that it is too old.
# ruff: noqa: UP031, RUF005

import json
import os
import sys

MINIMUM = (3, 10)
BUNDLED = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tag():
    import sysconfig

    # A free-threaded build (3.13t) cannot load the regular build's extension modules.
    threading = "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
    return "cp%d%d%s" % (sys.version_info[0], sys.version_info[1], threading)


def _manifest():
    try:
        with open(os.path.join(BUNDLED, "manifest.json"), encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def _problem():
    """Why this Python cannot run the bundled server, or None."""
    version = "%d.%d" % sys.version_info[:2]
    if sys.version_info[:2] < MINIMUM:
        return "surface-lint needs Python >= %d.%d; %s is Python %s" % (MINIMUM + (sys.executable, version))
    libs = os.path.join(BUNDLED, "libs")
    if not os.path.isdir(libs):
        return "this extension has no bundled server (%s is missing): set surfaceLint.importStrategy to fromEnvironment" % libs
    paths = [libs]
    native = os.path.join(BUNDLED, "native", _tag())
    if sys.implementation.name == "cpython" and os.path.isdir(native):
        paths.append(native)
    sys.path[0:0] = paths
    # The compiled dependencies (google-re2): this Python's bundled build, else its own.
    manifest = _manifest()
    for name, native_info in sorted(manifest.get("native", {}).items()):
        for module in native_info.get("modules", []):
            try:
                __import__(module)
            except ImportError as error:
                built = ", ".join(sorted(native_info.get("pythons", {}))) or "none"
                requirement = native_info.get("requirement", name)
                return (
                    "the compiled package %s (module %s) is not bundled for %s Python %s on this platform "
                    "(this .vsix: target %s, built for %s) and %s does not have it (%s): run `%s -m pip install '%s'`, "
                    "or install the .vsix built for your platform"
                    % (requirement.split(">")[0].split("=")[0].split("<")[0], module, sys.implementation.name, version,
                       manifest.get("target", "?"), built, sys.executable, error, sys.executable, requirement)
                )
    # Found, not imported: importing the server takes seconds, and it is imported once, to run.
    import importlib.util

    for name in ("surface_lint", "pygls", "lsprotocol"):
        spec = importlib.util.find_spec(name)
        if spec is None or not (spec.origin or "").startswith(libs + os.sep):
            return "the bundled %s is missing from %s: reinstall the extension" % (name, libs)
    return None


def main(argv):
    problem = _problem()
    if "--check" in argv:
        report = {"ok": problem is None, "python": sys.executable, "version": "%d.%d.%d" % sys.version_info[:3]}
        if problem is None:
            import importlib.util

            spec = importlib.util.find_spec("surface_lint")
            report["server"] = os.path.dirname(spec.origin)
        else:
            report["problem"] = problem
        print(json.dumps(report))
        return 0 if problem is None else 1
    if problem is not None:
        sys.stderr.write("surface-lint: %s\n" % problem)
        return 1
    from surface_lint.__main__ import main as surface_lint_main

    return surface_lint_main(["server", *argv])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
