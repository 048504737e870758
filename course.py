#!/usr/bin/env python3
"""Set up and open the course, or run its tests.  Standard library only.

usage:
    python3 course.py                 install what is needed, then open notebook 00 in JupyterLab
    python3 course.py test [ARGS]     install the test tools too, then run every test and notebook
    python3 course.py lab [ARGS]      the same as the first line; ARGS go to JupyterLab
    python3 course.py install         install the course into .venv only (for the labs and the
                                      roofline command), and say how to put roofline on the PATH
    python3 course.py --help          this text (installs nothing)

Options other than --help go to JupyterLab, e.g. ``python3 course.py --no-browser --port 8889``
(``python3 course.py lab --help`` shows JupyterLab's own options); options after ``test`` go to
pytest, e.g. ``python3 course.py test -k grading -rs``.

Both create a virtual environment in ``.venv`` beside this file on first use, install into it
with uv (pip when uv cannot, or when ROOFLINE_INSTALLER=pip), compile the CPU kernels once, and
reinstall only when ``pyproject.toml`` changes; each start brings the bytecode of the course's
own Python up to date.  Ctrl-C, or SIGTERM to this script, stops the Jupyter server it started.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import signal
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")

EXTRAS = {"lab": "course", "test": "course,test"}

# Which tool installs the packages into .venv.  uv resolves and unpacks in parallel: on the
# 2-core VM the test extra took 19 s with uv (its cache empty) against 58 s with pip, the same
# packages from the same index.  uv is one wheel, installed into .venv by pip first; if that or
# uv fails (no uv wheel for this platform, an index only pip can reach), pip does the install.
# ROOFLINE_INSTALLER=pip skips uv.
INSTALLER_ENV = "ROOFLINE_INSTALLER"

# The notebook folders nbval runs, in course order; those that do not exist yet are skipped.
NOTEBOOK_DIRS = ("notebooks", "solutions", "exercises")

START_NOTEBOOK = "notebooks/00_start_here.ipynb"

# The folders of the course's own Python, compiled to bytecode on every start (compile_bytecode).
COMPILED_DIRS = ("rooflinelib", "labs", "tests")

# What the file browser does not list: build and test output, which a student never opens.
# (Dot-folders such as .venv are hidden by Jupyter already.)
HIDDEN_GLOBS = ("__pycache__", "*.pyc", "*.pyo", ".DS_Store", "*~", "*.egg-info",
                "test-artifacts", "build", "dist")

HELP = ("-h", "--help", "help")

# The test extra's tools that a student never uses: `course.py test` installs nbgrader into the
# same .venv (its four server extensions, and a JupyterLab extension that adds an Nbgrader menu,
# a Validate button and a Create Assignment panel).  The course's JupyterLab starts without
# them: the server extensions switched off on its command line, the JupyterLab extension in
# the page config of a config folder of the course's own (COURSE_JUPYTER_CONFIG, put first on
# JUPYTER_CONFIG_PATH for the server alone).  One environment is kept, not a second one for
# the tests: that would install JupyterLab, numba and the rest twice (a first install of the
# test extra took 24 s and 1,436 MiB) for a difference of a few extensions.
TEST_ONLY_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader",
                               "nbgrader.server_extensions.assignment_list",
                               "nbgrader.server_extensions.course_list",
                               "nbgrader.server_extensions.validate_assignment")
TEST_ONLY_LAB_EXTENSIONS = ("@jupyter/nbgrader",)
COURSE_JUPYTER_CONFIG = VENV / "course-jupyter-config"

# The test run spreads its files over pytest workers (pytest-xdist): one more than the cores,
# because about a fifth of the run waits (servers starting, a browser, the package index),
# and at most this many, since every notebook runs in a kernel of its own and the browser
# tests start JupyterLab and Chromium.  On 2 cores 3 workers took 226 s where 2 took 262 s.
# Each file stays on one worker, so a notebook's cells run in order in one kernel.
MAX_TEST_WORKERS = 4
# Options under which pytest must run in this process alone (a debugger, uncaptured output),
# and those that choose the workers themselves.
SERIAL_OPTIONS = ("--pdb", "--trace", "-s", "--capture=no")
WORKER_OPTIONS = ("-n", "--numprocesses", "--dist")
# Lab 1 and Lab 3 on the CPU sample each rate over a window of seconds (2 s by default) and
# at least 10 timed trials; the tests check that they run and verify, not how good the rates
# are (benchmarks/cpu_lane.py does), so a test run samples over 0.1 s and at least 3 trials,
# unless the variable is set already.  A short window also bounds what a busy neighbour costs
# (at most WINDOW_CAP windows), so the kernels keep every core: on 2 cores, 3 workers took
# 190 s that way, 209 s with one thread each.
CPU_WINDOW_ENV = "ROOFLINE_CPU_WINDOW_S"
CPU_REPEATS_ENV = "ROOFLINE_CPU_REPEATS"
# numpy asks Linux for transparent huge pages on every array of 4 MiB or more.  Where the
# kernel then compacts memory on the first touch (THP "madvise" with defrag "madvise", as on
# the 2-core VM), the first write of a 600 MiB buffer took 2.7 s instead of 0.3 s, and
# exercise 04's set-up 15.2 s instead of 7.0 s.  No test times a first touch, so the test run
# turns the request off, unless the variable is set already.
NUMPY_HUGEPAGE_ENV = "NUMPY_MADVISE_HUGEPAGE"
TEST_SETTINGS = {CPU_WINDOW_ENV: "0.1", CPU_REPEATS_ENV: "3", NUMPY_HUGEPAGE_ENV: "0"}


def say(message: str) -> None:
    print(f"[course] {message}", flush=True)


def _envvars():
    """rooflinelib/core/envvars.py, loaded by its path: the one check of each variable, standard
    library only, and importable before the package's dependencies are installed."""
    spec = importlib.util.spec_from_file_location("_course_envvars", ROOT / "rooflinelib" / "core" / "envvars.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_environment(env) -> None:
    """Every environment variable the install, the labs and the tests read, checked before
    anything is created or installed; a bad one stops here with one line naming it (else
    numpy would refuse NUMPY_MADVISE_HUGEPAGE=abc in every kernel, after the install)."""
    envvars = _envvars()
    try:
        envvars.check_all(env)
    except envvars.EnvError as exc:
        sys.exit(f"[course] {exc}")


def ensure_env(extras: str) -> None:
    if not PY.exists():
        say(f"creating a virtual environment in {VENV}")
        try:
            # Without pip: uv comes first and brings pip along (install_with_uv).  ensurepip
            # took 6.3 s of a first install on the 2-core VM, and pip then 4.2 s to install uv.
            venv.EnvBuilder(with_pip=False).create(VENV)
        except Exception as exc:  # Debian's python3 without python3-venv lands here
            sys.exit(f"[course] could not create .venv ({exc}); on Debian: apt-get install python3-venv")
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()
    stamp = VENV / f".installed-{extras.replace(',', '-')}"
    if not (stamp.exists() and stamp.read_text() == digest):
        install_into_venv(extras, stamp, digest)
    compile_bytecode()


def install_into_venv(extras: str, stamp: Path, digest: str) -> None:
    installer = chosen_installer()
    say(f"installing the course with extras [{extras}] (first time only, with {installer})")
    if installer != "uv" or not install_with_uv(extras):
        try:
            ensure_pip()
            subprocess.run([str(PY), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
            subprocess.run([str(PY), "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[{extras}]"], check=True)
        except subprocess.CalledProcessError as exc:  # pip said why above
            sys.exit(f"[course] the install failed ({' '.join(map(str, exc.cmd[2:4]))}: exit {exc.returncode}); "
                     "what it said is above")
    # Numba's cache, filled once: the first measurement in a notebook then starts at once, and a
    # test run's workers do not all compile the same kernels together (rooflinelib/measure/warm.py)
    if subprocess.run([str(PY), "-m", "rooflinelib.measure.warm"]).returncode != 0:
        say("some CPU kernels were not compiled ahead (above); they compile where first used")
    # written whole or not at all (the package's own write path is not importable yet here):
    # a half-written stamp would only force a reinstall, but nothing the project writes is torn
    partial = stamp.with_name(stamp.name + ".tmp")
    partial.write_text(digest)
    os.replace(partial, stamp)


def compile_bytecode() -> None:
    """The course's own Python compiled to bytecode, as uv does for the installed packages.
    Where PYTHONDONTWRITEBYTECODE is set, no process writes it, and every notebook kernel and
    test process compiled again what it imported: 0.37 s instead of 0.19 s to import the
    notebooks' modules on the 2-core VM, for some 150 processes in a test run.  Files whose
    bytecode is current are skipped (0.2 s in all); a file that does not compile (a lab being
    edited) stays as it is and raises its own error where it is imported."""
    subprocess.run([str(PY), "-m", "compileall", "-qq", "-j", "0", *(str(ROOT / d) for d in COMPILED_DIRS)])


def chosen_installer() -> str:
    """uv, or pip when $ROOFLINE_INSTALLER says so; anything else stops with one line."""
    envvars = _envvars()
    try:
        return envvars.installer()
    except envvars.EnvError as exc:
        sys.exit(f"[course] {exc}")


def system_pip_installs_into_venv() -> bool:
    """Whether the pip of the Python running this script can install into .venv from outside
    (``pip --python``, pip 22.3 and later): 2.6 s for uv, with no pip in .venv first."""
    try:
        major, minor = (int(part) for part in importlib.metadata.version("pip").split(".")[:2])
    except Exception:  # no pip here (Debian's python3 without python3-pip), or an odd version
        return False
    return (major, minor) >= (22, 3)


def ensure_pip() -> None:
    """pip in .venv, from the Python's own bundled copy, where it is not there yet."""
    if subprocess.run([str(PY), "-m", "pip", "--version"], capture_output=True).returncode != 0:
        subprocess.run([str(PY), "-m", "ensurepip", "--upgrade", "--default-pip"], check=True,
                       stdout=subprocess.DEVNULL)  # its errors still show


def install_with_uv(extras: str) -> bool:
    """Install the course into .venv with uv; False (having said why) when pip must do it.
    uv installs pip into .venv beside the course, for the ``.venv/bin/pip`` lines of docs/install.md."""
    if system_pip_installs_into_venv():
        get_uv = [sys.executable, "-m", "pip", "--python", str(PY), "install", "--quiet", "uv"]
    else:
        try:
            ensure_pip()
        except subprocess.CalledProcessError as exc:
            say(f"uv could not install (ensurepip: exit {exc.returncode}); installing with pip instead")
            return False
        get_uv = [str(PY), "-m", "pip", "install", "--quiet", "uv"]
    steps = {"pip install uv": get_uv,
             "uv pip install": [str(PY), "-m", "uv", "pip", "install", "--quiet", "--python", str(PY),
                                "--compile-bytecode", "-e", f"{ROOT}[{extras}]", "pip"]}
    env = dict(os.environ)
    # uv reads its own settings, not pip's: an index given to pip in the environment is kept
    if env.get("PIP_INDEX_URL") and not (env.get("UV_INDEX_URL") or env.get("UV_DEFAULT_INDEX")):
        env["UV_INDEX_URL"] = env["PIP_INDEX_URL"]
    for name, step in steps.items():
        try:
            outcome = subprocess.run(step, env=env).returncode
        except OSError as exc:
            outcome = f"could not start: {exc}"
        if outcome != 0:
            said = f"exit {outcome}" if isinstance(outcome, int) else outcome
            say(f"uv could not install ({name}: {said}); installing with pip instead")
            return False
    return True


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def test_workers(extra_args: list, n_cores: int) -> int:
    """How many pytest workers a test run gets: one more than the cores, at most
    MAX_TEST_WORKERS, or 0 (pytest in this process) on one core, under a debugger, or when
    ``extra_args`` chooses."""
    chooses = any(a.startswith(WORKER_OPTIONS) or a.endswith("no:xdist") for a in extra_args)
    serial = any(a in SERIAL_OPTIONS for a in extra_args)
    if chooses or serial or n_cores < 2:
        return 0
    return min(n_cores + 1, MAX_TEST_WORKERS)


def test_command(extra_args: list, n_cores: int) -> list:
    """The pytest command line of ``python3 course.py test extra_args``."""
    args = [str(PY), "-m", "pytest", "tests"]
    notebooks = [d for d in NOTEBOOK_DIRS if any((ROOT / d).glob("*.ipynb"))]
    if notebooks:
        args += ["--nbval-lax", "--nbval-current-env", "--nbval-cell-timeout=600", *notebooks]
    workers = test_workers(extra_args, n_cores)
    if workers:
        args += ["-n", str(workers), "--dist", "loadfile", "--no-loadscope-reorder"]
    return args + list(extra_args)


def run_tests(extra_args: list) -> int:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    for name, value in TEST_SETTINGS.items():
        if not env.get(name, "").strip():
            env[name] = value
    check_environment(env)
    ensure_env(EXTRAS["test"])
    args = test_command(extra_args, cores())
    settings = " ".join(f"{name}={env[name]}" for name in TEST_SETTINGS)
    say(f"running: {' '.join(args[1:])}  ({settings})")
    return subprocess.run(args, cwd=ROOT, env=env).returncode


def lab_command(extra_args: list) -> list:
    """The ``jupyter lab`` command line for ``extra_args``."""
    args = list(extra_args)
    asked_for_a_path = any(a.endswith(".ipynb") or (ROOT / a).exists()
                           for a in args if not a.startswith("-"))
    if (ROOT / START_NOTEBOOK).exists() and not asked_for_a_path and not any(
            a.startswith(("--LabApp.default_url", "--ServerApp.default_url")) for a in args):
        # The default URL is what the browser opens and what --no-browser prints, so both land
        # on notebook 00; the file browser still starts at the root, one click from exercises/.
        args.append(f"--LabApp.default_url=/lab/tree/{START_NOTEBOOK}")
    if not any(a.startswith(("--ServerApp.root_dir", "--notebook-dir", "--ServerApp.notebook_dir"))
               for a in args):
        # Given a notebook alone, Jupyter would serve the notebook's own folder.
        args.append(f"--ServerApp.root_dir={ROOT}")
    if not any(a.startswith("--ContentsManager.hide_globs") for a in args):
        args += [f"--ContentsManager.hide_globs={glob}" for glob in HIDDEN_GLOBS]
    if not any(a.startswith("--ServerApp.jpserver_extensions") for a in args):
        args.append(f"--ServerApp.jpserver_extensions={server_extensions_off()!r}")
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in args:
        args.append("--allow-root")  # containers often run as root
    return [str(BIN / "jupyter"), "lab", *args]


def server_extensions_off() -> dict:
    """The value of ``--ServerApp.jpserver_extensions`` that switches the test tools' server
    extensions off (the other extensions keep what their own config says)."""
    return {name: False for name in TEST_ONLY_SERVER_EXTENSIONS}


def lab_environment(env) -> dict:
    """``env`` for the course's Jupyter server: the course's config folder first on
    JUPYTER_CONFIG_PATH, its page config disabling the test tools' JupyterLab extension.
    The folder is written (whole, then renamed) when its content differs."""
    page_config = COURSE_JUPYTER_CONFIG / "labconfig" / "page_config.json"
    text = json.dumps({"disabledExtensions": {name: True for name in TEST_ONLY_LAB_EXTENSIONS}},
                      indent=1) + "\n"
    if not (page_config.is_file() and page_config.read_text() == text):
        page_config.parent.mkdir(parents=True, exist_ok=True)
        partial = page_config.with_name(page_config.name + ".tmp")
        partial.write_text(text)
        os.replace(partial, page_config)
    given = env.get("JUPYTER_CONFIG_PATH", "")
    return dict(env, JUPYTER_CONFIG_PATH=os.pathsep.join(
        [str(COURSE_JUPYTER_CONFIG)] + ([given] if given else [])))


class _Stop(Exception):
    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def serve(command: list) -> int:
    """Run the Jupyter server ``command`` until it exits or this script is told to stop.

    The server runs in its own session, so Ctrl-C reaches this script alone (not Jupyter's
    "shut down? y/n" prompt), and SIGINT or SIGTERM here stops the server and its kernels
    instead of leaving them running without a parent.
    """
    process = subprocess.Popen(command, cwd=ROOT, env=lab_environment(os.environ),
                               start_new_session=os.name != "nt")

    def stop(signum, frame):
        raise _Stop(signum)

    handled = [signal.SIGINT] + ([signal.SIGTERM] if hasattr(signal, "SIGTERM") else [])
    previous = {s: signal.signal(s, stop) for s in handled}
    try:
        return process.wait()
    except _Stop as exc:
        say("stopping the Jupyter server")
        for s in handled:  # a second signal must not interrupt the shutdown below
            signal.signal(s, signal.SIG_IGN)
        process.terminate()  # Jupyter shuts its kernels down on SIGTERM
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        return 128 + exc.signum
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def open_lab(extra_args: list) -> int:
    check_environment(os.environ)
    ensure_env(EXTRAS["lab"])
    say(f"opening JupyterLab in {ROOT}")
    return serve(lab_command(extra_args))


def install() -> int:
    check_environment(os.environ)
    ensure_env(EXTRAS["lab"])
    say(f"installed; the roofline command is {BIN / 'roofline'}. To type plain `roofline ...`, "
        f"activate the environment first: source {BIN / 'activate'}")
    return 0


def main(argv: list) -> int:
    if argv and argv[0] in HELP:
        print(__doc__.strip())
        return 0
    if not argv or argv[0].startswith("-"):  # options alone go to JupyterLab
        argv = ["lab", *argv]
    command = argv[0]
    if command in ("lab", "open"):
        return open_lab(argv[1:])
    if command == "test":
        return run_tests(argv[1:])
    if command == "install" and len(argv) == 1:
        return install()
    print(f"course.py: unknown command {command!r}\n", file=sys.stderr)
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # `python3 course.py --help | head`: the reader left; stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
