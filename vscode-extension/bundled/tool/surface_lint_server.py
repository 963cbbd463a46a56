"""Starts the surface-lint language server bundled in the VS Code extension, with the user's Python.

Run as `<python> surface_lint_server.py` (the server, over stdio) or `... --check` (prints one JSON
line saying whether this Python can run the bundled server, and exits 0 if it can). Run as the
server, it first writes that same report to stderr, after REPORT_PREFIX, then serves (or exits 1):
the extension reads it instead of starting a Python of its own for `--check` first. With
`--from-environment` first, the same for the surface-lint installed in that Python (the
`fromEnvironment` import strategy). Before anything is imported, the working directory (the
workspace folder), every relative entry and this script's folder leave sys.path: `python -m` and
`python -c` put the working directory first, and Python 3.10 ignores PYTHONSAFEPATH, so a
`surface_lint/` (or `pygls/`) in the workspace would otherwise be the code that runs. The bundled
pure-Python packages (bundled/libs) and the compiled ones built for this Python
(bundled/native/cpXY, listed in bundled/manifest.json) go first on sys.path, so an older
surface-lint in the environment never shadows them; a compiled one not built for this Python is
taken from the environment, and an optional one (msgspec) may be missing. Stays
importable by Python 3.6, so that an old interpreter gets a clear message, not a SyntaxError.
"""

# %-formatting and no f-strings: this file must run on any Python 3 to say that it is too old.
# ruff: noqa: UP031, RUF005

import json
import os
import sys

MINIMUM = (3, 10)
HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = os.path.dirname(HERE)
FROM_ENVIRONMENT = "--from-environment"
SERVER_MODULES = ("surface_lint", "pygls", "lsprotocol")
# The extension's serverController.ts and core/serverCommand.ts read this line on stderr.
REPORT_PREFIX = "surface-lint launcher: "


def safe_path(path, cwd, here):
    """`path` (sys.path) without what the workspace could plant code in: the working directory,
    any relative entry (it resolves against the working directory; "" is the working directory)
    and this script's folder."""
    def unsafe(entry):
        if not os.path.isabs(entry):
            return True
        real = os.path.realpath(entry)
        return real == os.path.realpath(here) or (cwd is not None and real == os.path.realpath(cwd))

    return [entry for entry in path if not unsafe(entry)]


def _current_directory():
    try:
        return os.getcwd()
    except OSError:  # removed while we start: nothing can be imported from it either
        return None


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
    # The compiled dependencies (google-re2): this Python's bundled build, else its own. An
    # optional one (msgspec) is not asked for: the server uses it where it is importable, and
    # reads the same without it.
    manifest = _manifest()
    for name, native_info in sorted(manifest.get("native", {}).items()):
        if native_info.get("optional"):
            continue
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


def _environment_problem():
    """Why this Python's own surface-lint cannot run (fromEnvironment), or None."""
    version = "%d.%d" % sys.version_info[:2]
    if sys.version_info[:2] < MINIMUM:
        return "surface-lint needs Python >= %d.%d; %s is Python %s" % (MINIMUM + (sys.executable, version))
    import importlib.util

    missing = [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        return "%s does not have %s installed" % (sys.executable, ", ".join(missing))
    return None


def use_shipped_bytecode(manifest):
    """The bundle carries bytecode for this Python (manifest `bytecode`, checked by hash): read it
    from beside the sources, and the installation's own for the standard library, instead of the
    extension's cache (PYTHONPYCACHEPREFIX), which is empty at the first start and would make that
    start compile every module (about 1.8 s of CPU here). Nothing is written then."""
    tag = getattr(sys.implementation, "cache_tag", None)
    if tag is not None and tag in manifest.get("bytecode", []):
        sys.pycache_prefix = None
        sys.dont_write_bytecode = True
        return True
    return False


def main(argv):
    sys.path[:] = safe_path(sys.path, _current_directory(), HERE)
    from_environment = FROM_ENVIRONMENT in argv
    argv = [arg for arg in argv if arg != FROM_ENVIRONMENT]
    problem = _environment_problem() if from_environment else _problem()
    report = {"ok": problem is None, "python": sys.executable, "version": "%d.%d.%d" % sys.version_info[:3]}
    if problem is None:
        import importlib.util

        spec = importlib.util.find_spec("surface_lint")
        report["server"] = os.path.dirname(spec.origin)
    else:
        report["problem"] = problem
    if "--check" in argv:
        print(json.dumps(report))
        return 0 if problem is None else 1
    if problem is not None:
        sys.stderr.write("surface-lint: %s\n" % problem)
    # Flushed now: the extension waits for this line before it sends `initialize`.
    sys.stderr.write(REPORT_PREFIX + json.dumps(report) + "\n")
    sys.stderr.flush()
    if problem is not None:
        return 1
    if not from_environment:
        use_shipped_bytecode(_manifest())
    from surface_lint.__main__ import main as surface_lint_main

    return surface_lint_main(["server", *argv])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
