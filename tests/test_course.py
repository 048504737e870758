"""course.py as a newcomer meets it: its own help, the URL it prints, what the file browser
lists, and a server that stops with the script."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from support.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


def load_course():
    return load_script("course.py")


@pytest.mark.parametrize("flag", ["--help", "-h", "help"])
def test_help_is_the_courses_own_and_installs_nothing(flag, monkeypatch, capsys):
    course = load_course()

    def no_install(extras):
        raise AssertionError(f"--help started an install of [{extras}]")

    monkeypatch.setattr(course, "ensure_env", no_install)
    monkeypatch.setattr(course, "serve", lambda command: pytest.fail(f"--help ran {command}"))
    assert course.main([flag]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Set up and open the course") and "python3 course.py test" in out
    assert "JupyterLab's own options" in out


def test_unknown_command_prints_usage_and_exits_2(monkeypatch, capsys):
    course = load_course()
    monkeypatch.setattr(course, "ensure_env", lambda extras: pytest.fail("installed"))
    assert course.main(["tset"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'tset'" in err and "usage:" in err


@pytest.mark.parametrize("extra, n_cores, workers", [
    ([], 2, 3), ([], 16, 4), ([], 3, 4), ([], 1, 0),
    (["-k", "grading", "-rs"], 2, 3),
    (["-n", "3"], 2, 0), (["-p", "no:xdist"], 8, 0), (["-pno:xdist"], 8, 0), (["--dist=load"], 8, 0),
    (["-p", "no:cacheprovider"], 2, 3),
    (["--pdb"], 2, 0), (["-s"], 2, 0), (["--capture=no"], 4, 0)])
def test_the_test_run_takes_a_worker_per_core_unless_told_otherwise(extra, n_cores, workers):
    course = load_course()
    assert course.test_workers(extra, n_cores) == workers
    args = course.test_command(extra, n_cores)
    assert args[1:4] == ["-m", "pytest", "tests"]
    assert args[len(args) - len(extra):] == extra  # the user's options come last, and win
    assert "--nbval-lax" in args and {"notebooks", "solutions", "exercises"} <= set(args)
    if workers:
        at = args.index("-n")
        # a notebook stays on one worker, and files go out in the order conftest.py gives them
        assert args[at + 1:at + 5] == [str(workers), "--dist", "loadfile", "--no-loadscope-reorder"]
    else:
        assert "loadfile" not in args and args.count("-n") == extra.count("-n")


@pytest.mark.parametrize("variable, default", [("ROOFLINE_CPU_WINDOW_S", "0.1"), ("ROOFLINE_CPU_REPEATS", "3"),
                                               ("NUMPY_MADVISE_HUGEPAGE", "0")])
@pytest.mark.parametrize("given", [None, "", "2"])
def test_the_test_run_uses_its_settings_unless_the_variable_is_given(variable, default, given, monkeypatch):
    course = load_course()
    ran = {}
    monkeypatch.setattr(course, "ensure_env", lambda extras: ran.update(extras=extras))
    monkeypatch.setattr(course.subprocess, "run",
                        lambda args, cwd, env: ran.update(args=args, env=env) or subprocess.CompletedProcess(args, 0))
    for name in course.TEST_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    if given is not None:
        monkeypatch.setenv(variable, given)
    assert course.run_tests(["-k", "x"]) == 0
    expected = default if not given else given
    assert ran["extras"] == "course,test" and ran["env"][variable] == expected
    assert ran["args"][-2:] == ["-k", "x"]


def test_a_hugepage_setting_numpy_cannot_read_is_one_line_before_any_install(monkeypatch, capsys):
    course = load_course()
    monkeypatch.setattr(course, "ensure_env", lambda extras: pytest.fail("installed before the check"))
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "yes")
    with pytest.raises(SystemExit) as stop:
        course.run_tests([])
    assert str(stop.value) == "[course] NUMPY_MADVISE_HUGEPAGE: must be an integer (0 or 1), got 'yes'"


def test_lab_command_opens_notebook_00_and_hides_artefacts():
    course = load_course()
    args = course.lab_command(["--no-browser"])
    assert args[1:3] == ["lab", "--no-browser"]
    assert f"--LabApp.default_url=/lab/tree/{course.START_NOTEBOOK}" in args
    assert f"--ServerApp.root_dir={course.ROOT}" in args
    hidden = [a.split("=", 1)[1] for a in args if a.startswith("--ContentsManager.hide_globs=")]
    assert {"*.egg-info", "test-artifacts", "__pycache__"} <= set(hidden)
    # a notebook the user names, or their own default URL, wins over notebook 00
    assert not any("default_url" in a for a in course.lab_command(["notebooks/03_ceilings.ipynb"]))
    assert [a for a in course.lab_command(["--LabApp.default_url=/lab"]) if "default_url" in a] \
        == ["--LabApp.default_url=/lab"]


def _start(tmp_path, port):
    """course.py's own serve(lab_command(...)) in a child process, without ensure_env (which
    would install the 'course' extra on a test-only environment)."""
    runtime = tmp_path / "runtime"
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(runtime),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import course; "
            "sys.exit(course.serve(course.lab_command(sys.argv[2:])))")
    log = tmp_path / "course.log"
    handle = open(log, "w")
    process = subprocess.Popen(
        [sys.executable, "-c", code, str(ROOT), "--no-browser", "--ip=127.0.0.1",
         f"--port={port}", "--ServerApp.port_retries=0"],
        cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        text = log.read_text()
        match = re.search(r"(http://127\.0\.0\.1:\d+/\S*\?token=\w+)", text)
        servers = list(runtime.glob("jpserver-*.json"))
        if match and servers:
            info = json.loads(servers[0].read_text())
            return process, match.group(1), info, log
        if process.poll() is not None:
            break
        time.sleep(0.3)
    process.kill()
    pytest.fail(f"JupyterLab did not start:\n{log.read_text()[-3000:]}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_server_prints_notebook_00_url_hides_artefacts_and_stops_with_the_script(tmp_path, signum):
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process, url, info, log = _start(tmp_path, port)
    server_pid = info["pid"]
    try:
        parts = urllib.parse.urlparse(url)
        assert parts.path == "/lab/tree/notebooks/00_start_here.ipynb", url
        with urllib.request.urlopen(url, timeout=20) as response:
            assert response.status == 200
        token = urllib.parse.parse_qs(parts.query)["token"][0]
        listing = f"http://127.0.0.1:{port}/api/contents?token={token}"
        with urllib.request.urlopen(listing, timeout=20) as response:
            names = {item["name"] for item in json.load(response)["content"]}
        assert {"notebooks", "exercises", "labs", "README.md"} <= names, names
        assert not any(n.endswith(".egg-info") or n in ("test-artifacts", "__pycache__")
                       for n in names), names
        assert _alive(server_pid)
        process.send_signal(signum)
        assert process.wait(timeout=60) == 128 + signum
        deadline = time.monotonic() + 10
        while _alive(server_pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(server_pid), f"Jupyter (pid {server_pid}) outlived course.py"
        assert "stopping the Jupyter server" in log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
        if _alive(server_pid):
            os.kill(server_pid, signal.SIGKILL)


def test_install_installs_the_course_extra_and_says_how_to_reach_roofline(monkeypatch, capsys):
    course = load_course()
    installed = []
    monkeypatch.setattr(course, "ensure_env", installed.append)
    monkeypatch.setattr(course, "serve", lambda command: pytest.fail(f"install ran {command}"))
    assert course.main(["install"]) == 0
    assert installed == [course.EXTRAS["lab"]]
    out = capsys.readouterr().out
    assert str(course.BIN / "roofline") in out and f"source {course.BIN / 'activate'}" in out


def test_long_files_go_out_first_and_keep_their_order_inside():
    conftest = load_script("tests/conftest.py", "tests_conftest")

    class Item:
        def __init__(self, path, slow=False):
            self.path, self.slow = Path(path), slow

        def get_closest_marker(self, name):
            return object() if name == "slow" and self.slow else None

    items = [Item("tests/test_a.py"), Item("tests/test_b.py"), Item("tests/test_b.py", slow=True),
             Item("notebooks/04.ipynb"), Item("notebooks/04.ipynb"), Item("tests/test_c.py")]
    order = list(items)
    conftest.pytest_collection_modifyitems(None, items)
    # test_b.py holds a slow test, so all of it goes first, then the notebook's cells in order
    assert items == [order[1], order[2], order[3], order[4], order[0], order[5]]


@pytest.fixture()
def fake_venv(tmp_path, monkeypatch):
    """course.py pointed at a .venv in tmp_path whose python exists, with every command it
    runs recorded (and answered by ``exits``: (the module run, the last argument) to an exit code)."""
    course = load_course()
    venv = tmp_path / ".venv"
    py = venv / "bin" / "python"
    py.parent.mkdir(parents=True)
    py.write_text("")
    monkeypatch.setattr(course, "VENV", venv)
    monkeypatch.setattr(course, "PY", py)
    ran, exits = [], {}

    def run(args, env=None, check=False, **kwargs):
        ran.append((list(args), env))
        code = exits.get((args[2], args[-1]), 0)
        if check and code:
            raise subprocess.CalledProcessError(code, args)
        return subprocess.CompletedProcess(args, code)

    monkeypatch.setattr(course.subprocess, "run", run)
    # pip in .venv installs uv (as on a python3 without pip of its own); a test wanting the
    # system's pip says so
    monkeypatch.setattr(course, "system_pip_installs_into_venv", lambda: False)
    for name in (course.INSTALLER_ENV, "PIP_INDEX_URL", "UV_INDEX_URL", "UV_DEFAULT_INDEX"):
        monkeypatch.delenv(name, raising=False)
    return course, ran, exits


def _tools(ran):
    """Each command as its tool and action: ("pip", "install", "uv"), ("uv", "pip", ...)."""
    return [tuple(args[2:5]) for args, _ in ran]


def test_the_install_uses_uv_and_stamps_the_environment(fake_venv, capsys):
    course, ran, _ = fake_venv
    course.ensure_env("course,test")
    assert _tools(ran) == [("pip", "--version"), ("pip", "install", "--quiet"), ("uv", "pip", "install"),
                           ("rooflinelib.measure.warm",), ("compileall", "-qq", "-j")]
    assert ran[1][0][-1] == "uv"
    uv = ran[2][0]
    assert uv[uv.index("--python") + 1] == str(course.PY) and "--compile-bytecode" in uv
    # pip beside the course, for docs/install.md's .venv/bin/pip lines (the venv is made without it)
    assert uv[-3:] == ["-e", f"{course.ROOT}[course,test]", "pip"]
    assert "with uv" in capsys.readouterr().out
    # stamped: the next call installs nothing (it only brings the bytecode up to date), until
    # the extras change
    course.ensure_env("course,test")
    assert _tools(ran)[5:] == [("compileall", "-qq", "-j")]
    course.ensure_env("course")
    assert len(ran) == 11


def test_the_systems_pip_installs_uv_into_a_venv_without_pip(fake_venv, monkeypatch):
    course, ran, exits = fake_venv
    monkeypatch.setattr(course, "system_pip_installs_into_venv", lambda: True)
    course.ensure_env("course")
    assert ran[0][0] == [sys.executable, "-m", "pip", "--python", str(course.PY), "install", "--quiet", "uv"]
    assert _tools(ran)[1:] == [("uv", "pip", "install"), ("rooflinelib.measure.warm",), ("compileall", "-qq", "-j")]


def test_a_venv_without_pip_gets_pip_from_ensurepip_when_pip_must_install_uv(fake_venv):
    course, ran, exits = fake_venv
    exits[("pip", "--version")] = 1  # .venv made without pip
    course.ensure_env("course")
    assert _tools(ran)[:3] == [("pip", "--version"), ("ensurepip", "--upgrade", "--default-pip"),
                               ("pip", "install", "--quiet")]


def test_a_venv_is_made_without_pip(tmp_path, monkeypatch):
    course = load_course()
    made = {}

    class Builder:
        def __init__(self, **options):
            made.update(options)

        def create(self, path):
            made["path"] = path

    monkeypatch.setattr(course, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(course, "PY", tmp_path / ".venv" / "bin" / "python")
    monkeypatch.setattr(course.venv, "EnvBuilder", Builder)
    monkeypatch.setattr(course, "install_into_venv", lambda *args: None)
    monkeypatch.setattr(course, "compile_bytecode", lambda: None)
    course.ensure_env("course")
    assert made == {"with_pip": False, "path": tmp_path / ".venv"}


@pytest.mark.parametrize("failing", ["pip", "uv"])
def test_pip_installs_when_uv_cannot_and_says_why(failing, fake_venv, capsys):
    course, ran, exits = fake_venv
    exits[(failing, "uv" if failing == "pip" else "pip")] = 3
    course.ensure_env("course")
    tools = _tools(ran)
    assert tools[-4:-1] == [("pip", "install", "--quiet"), ("pip", "install", "--quiet"), ("rooflinelib.measure.warm",)]
    assert ran[-4][0][-2:] == ["--upgrade", "pip"] and ran[-3][0][-2:] == ["-e", f"{course.ROOT}[course]"]
    assert tools[-5] == ("pip", "--version")  # pip is in .venv before pip installs
    assert len(tools) == (7 if failing == "pip" else 8)  # uv itself not installed: nothing to run
    said = [line for line in capsys.readouterr().out.splitlines() if "uv could not install" in line]
    step = "pip install uv" if failing == "pip" else "uv pip install"
    assert said == [f"[course] uv could not install ({step}: exit 3); installing with pip instead"]


def test_the_installer_variable_picks_pip_and_refuses_others(fake_venv, monkeypatch, capsys):
    course, ran, _ = fake_venv
    monkeypatch.setenv(course.INSTALLER_ENV, "pip")
    course.ensure_env("course")
    assert [args[-1] for args, _ in ran][:4] == ["--version", "pip", f"{course.ROOT}[course]",
                                                 "rooflinelib.measure.warm"]
    assert "with pip" in capsys.readouterr().out
    monkeypatch.setenv(course.INSTALLER_ENV, "conda")
    with pytest.raises(SystemExit) as stopped:
        course.ensure_env("course,test")
    assert str(stopped.value) == "[course] ROOFLINE_INSTALLER: must be uv or pip, got 'conda'"


def test_a_failed_pip_install_is_one_line(fake_venv, monkeypatch):
    course, ran, exits = fake_venv
    monkeypatch.setenv(course.INSTALLER_ENV, "pip")
    exits[("pip", f"{course.ROOT}[course]")] = 1
    with pytest.raises(SystemExit) as stopped:
        course.ensure_env("course")
    assert str(stopped.value) == "[course] the install failed (pip install: exit 1); what it said is above"


def test_an_index_given_to_pip_goes_to_uv(fake_venv, monkeypatch):
    course, ran, _ = fake_venv
    monkeypatch.setenv("PIP_INDEX_URL", "https://mirror.example/simple")
    course.ensure_env("course")
    assert _tools(ran)[2] == ("uv", "pip", "install") and ran[2][1]["UV_INDEX_URL"] == "https://mirror.example/simple"


def test_kernels_not_compiled_ahead_are_said_and_the_install_still_stands(fake_venv, capsys):
    course, ran, exits = fake_venv
    exits[("rooflinelib.measure.warm", "rooflinelib.measure.warm")] = 1
    course.ensure_env("course")
    assert "some CPU kernels were not compiled ahead" in capsys.readouterr().out
    course.ensure_env("course")  # stamped all the same: nothing but the bytecode check runs again
    assert _tools(ran)[5:] == [("compileall", "-qq", "-j")]


def test_the_courses_python_is_compiled_once_and_a_broken_file_stops_nothing(tmp_path, monkeypatch):
    course = load_course()
    monkeypatch.setattr(course, "ROOT", tmp_path)
    monkeypatch.setattr(course, "PY", Path(sys.executable))
    for folder in course.COMPILED_DIRS:
        (tmp_path / folder).mkdir()
    (tmp_path / "labs" / "good.py").write_text("X = 1\n")
    (tmp_path / "labs" / "broken.py").write_text("def (:\n")  # a lab being edited
    (tmp_path / "rooflinelib" / "model.py").write_text("Y = 2\n")
    course.compile_bytecode()
    tag = sys.implementation.cache_tag
    assert (tmp_path / "labs" / "__pycache__" / f"good.{tag}.pyc").is_file()
    assert (tmp_path / "rooflinelib" / "__pycache__" / f"model.{tag}.pyc").is_file()
    assert not (tmp_path / "labs" / "__pycache__" / f"broken.{tag}.pyc").exists()


# --- every variable checked before anything is created or installed ----------------------------

@pytest.mark.parametrize("variable, value, message", [
    ("NUMPY_MADVISE_HUGEPAGE", "abc", "NUMPY_MADVISE_HUGEPAGE: must be an integer (0 or 1), got 'abc'"),
    ("ROOFLINE_INSTALLER", "conda", "ROOFLINE_INSTALLER: must be uv or pip, got 'conda'"),
    ("ROOFLINE_CPU_WINDOW_S", "nan", "ROOFLINE_CPU_WINDOW_S: must be from 0 to 600 seconds, got 'nan'"),
    ("ROOFLINE_CPU_WINDOW_S", "fast", "ROOFLINE_CPU_WINDOW_S: must be a number of seconds, got 'fast'"),
    ("ROOFLINE_CPU_REPEATS", "0", "ROOFLINE_CPU_REPEATS: must be from 1 to 1000 trials, got '0'"),
    ("ROOFLINE_CPU_REPEATS", "9" * 5000, "ROOFLINE_CPU_REPEATS: must be a whole number of trials, got '"),
])
@pytest.mark.parametrize("argv", [[], ["--no-browser"], ["lab"], ["install"], ["test", "-k", "x"]])
def test_a_bad_variable_stops_every_command_before_a_venv_is_made(variable, value, message, argv, tmp_path,
                                                                  monkeypatch):
    # was: `NUMPY_MADVISE_HUGEPAGE=abc python3 course.py` installed, and numpy then refused the
    # value in every kernel; a bad ROOFLINE_INSTALLER was refused after an empty .venv was made
    course = load_course()
    monkeypatch.setattr(course, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(course, "PY", tmp_path / ".venv" / "bin" / "python")

    class Builder:
        def __init__(self, **options):
            pass

        def create(self, path):
            pytest.fail(f"{path} created before {variable} was checked")

    monkeypatch.setattr(course.venv, "EnvBuilder", Builder)
    monkeypatch.setattr(course.subprocess, "run", lambda *a, **k: pytest.fail(f"ran {a[0]}"))
    monkeypatch.setattr(course, "serve", lambda command: pytest.fail(f"served {command}"))
    for name in ("NUMPY_MADVISE_HUGEPAGE", "ROOFLINE_INSTALLER", "ROOFLINE_CPU_WINDOW_S", "ROOFLINE_CPU_REPEATS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as stop:
        course.main(argv)
    assert str(stop.value).startswith(f"[course] {message}") and "\n" not in str(stop.value)
    assert len(str(stop.value)) < 200
    assert not (tmp_path / ".venv").exists()


def test_course_py_checks_the_variables_with_the_librarys_own_check(monkeypatch):
    # one check for each variable: course.py loads rooflinelib/core/envvars.py, which the CPU lane reads too
    from rooflinelib.core import envvars
    from rooflinelib.measure import cpu
    course = load_course()
    assert course._envvars().CHECKS.__len__() == len(envvars.CHECKS) == 4
    monkeypatch.setenv(envvars.REPEATS_ENV, "7")
    monkeypatch.setenv(envvars.WINDOW_ENV, "0.5")
    assert cpu.repeats_from_env() == 7 and cpu.window_from_env() == 0.5
    course.check_environment(os.environ)
    monkeypatch.setenv(envvars.WINDOW_ENV, "1e9")
    with pytest.raises(ValueError, match="^ROOFLINE_CPU_WINDOW_S: must be from 0 to 600 seconds"):
        cpu.window_from_env()


def test_the_courses_jupyterlab_starts_without_the_test_tools(tmp_path, monkeypatch):
    # nbgrader comes with `course.py test` into the same .venv; a student's JupyterLab showed its
    # Nbgrader menu, Validate button and Create Assignment panel (the browser test checks the page)
    course = load_course()
    args = course.lab_command(["--no-browser"])
    off = [a for a in args if a.startswith("--ServerApp.jpserver_extensions=")]
    assert off == [f"--ServerApp.jpserver_extensions={course.server_extensions_off()!r}"]
    assert not any(course.server_extensions_off().values())
    mine = "--ServerApp.jpserver_extensions={'x': True}"
    assert [a for a in course.lab_command([mine]) if "jpserver_extensions" in a] == [mine]
    monkeypatch.setattr(course, "COURSE_JUPYTER_CONFIG", tmp_path / "config")
    env = course.lab_environment({"JUPYTER_CONFIG_PATH": "/elsewhere", "HOME": "/home/x"})
    assert env["JUPYTER_CONFIG_PATH"] == f"{tmp_path / 'config'}{os.pathsep}/elsewhere" and env["HOME"] == "/home/x"
    page = json.loads((tmp_path / "config" / "labconfig" / "page_config.json").read_text())
    assert page == {"disabledExtensions": {"@jupyter/nbgrader": True}}
    assert course.lab_environment({})["JUPYTER_CONFIG_PATH"] == str(tmp_path / "config")
    assert sorted(p.name for p in (tmp_path / "config" / "labconfig").iterdir()) == ["page_config.json"]
    # every server extension the installed nbgrader enables for itself
    pytest.importorskip("nbgrader")
    enabled = Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.d" / "nbgrader.json"
    assert set(course.server_extensions_off()) == set(json.loads(enabled.read_text())["ServerApp"]["jpserver_extensions"])
    assert (Path(sys.prefix) / "share" / "jupyter" / "labextensions" / course.TEST_ONLY_LAB_EXTENSIONS[0]).is_dir()


def test_the_test_run_says_once_why_its_gpu_tests_were_skipped():
    # was: the GPU tests showed as "s" and nothing said why, unless -rs was given
    import types
    import conftest

    def skipped(reason, *markers, as_list=False):  # pytest-xdist hands the location on as a list
        where = ["tests/test_x.py", 3, f"Skipped: {reason}"]
        return types.SimpleNamespace(keywords={m: 1 for m in markers},
                                     longrepr=where if as_list else tuple(where))

    said = []
    reporter = types.SimpleNamespace(write_line=lambda line, **markup: said.append(line), stats={"skipped": [
        *(skipped("no CUDA GPU is available to Numba", "gpu", as_list=n % 2) for n in range(3)),
        skipped("cupy is not installed", "gpu"), skipped("no Chromium at /x", "browser"),
        skipped("cannot resolve against PyPI")]})
    conftest.pytest_terminal_summary(reporter)
    assert said == ["GPU tests (run them on a CUDA GPU: python -m pytest -m gpu): 4 skipped: "
                    "no CUDA GPU is available to Numba; 1 other reason(s)",
                    "real-browser tests: 1 skipped: no Chromium at /x"]
    reporter.stats = {"passed": [1]}
    conftest.pytest_terminal_summary(reporter)
    assert len(said) == 2  # nothing skipped, nothing said
