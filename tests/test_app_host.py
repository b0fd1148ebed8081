"""`stepscope app --host H` beyond this machine: one warning line, and the pages that run typed code (the
playground, an exercise's check) are off there unless `--allow-code` (issue 38, item 3)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from debugger.cli import build_parser
from debugger.code_access import CODE_ENV, code_allowed, is_loopback
from debugger.commands import app_server
from tests.test_app import APP, plain, tab
from tests.test_playground import _playground_page

LOOPBACK = ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LocalHost.", "::ffff:127.0.0.1", " 127.0.0.1 "]
BEYOND = [
    "0.0.0.0",
    "::",
    "192.168.1.20",
    "10.0.0.5",
    "fe80::1",
    "example.com",
    "localhost.evil.example",
    "127.0.0.1.nip.io",
    "",
]


@pytest.mark.parametrize("host", LOOPBACK)
def test_loopback_hosts_are_this_machine(host):
    assert is_loopback(host)


@pytest.mark.parametrize("host", BEYOND)
def test_every_other_host_is_beyond_it(host):
    assert not is_loopback(host)


def _started(argv: list[str], monkeypatch, capsys) -> tuple[str, dict[str, str]]:
    """What `stepscope app ARGV` prints on stderr and the environment it gives its server (not started)."""
    given: dict[str, dict[str, str]] = {}

    def record(command, env):
        assert command[command.index("--server.address") + 1] == argv[argv.index("--host") + 1]
        given["env"] = env
        return 0

    monkeypatch.setattr(app_server, "serve", record)
    monkeypatch.setattr("debugger.commands.app.port_refusal", lambda host, port: "")  # no port is bound here
    args = build_parser("app").parse_args(argv)
    assert args.handler(args) == 0
    return capsys.readouterr().err, given["env"]


def test_a_host_beyond_this_machine_warns_in_one_line_and_turns_typed_code_off(monkeypatch, capsys):
    monkeypatch.setenv(CODE_ENV, "1")  # inherited: never decides
    err, env = _started(["app", "--host", "0.0.0.0", "--port", "8777"], monkeypatch, capsys)
    assert len(err.splitlines()) == 1, err
    assert err.startswith("warning: --host 0.0.0.0 listens beyond this machine")
    assert "anyone who can reach port 8777 can read every stored run" in err
    assert "typed code are off (--allow-code turns them on)" in err
    assert env[CODE_ENV] == "0" and not code_allowed(env)


def test_allow_code_keeps_typed_code_on_and_the_warning_says_so(monkeypatch, capsys):
    err, env = _started(["app", "--host", "::", "--allow-code"], monkeypatch, capsys)
    assert len(err.splitlines()) == 1 and "can read every stored run" in err
    assert "typed code are ON (--allow-code)" in err
    assert code_allowed(env)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_a_loopback_host_says_nothing_and_runs_typed_code(host, monkeypatch, capsys):
    monkeypatch.setenv(CODE_ENV, "0")
    err, env = _started(["app", "--host", host], monkeypatch, capsys)
    assert err == ""
    assert env[CODE_ENV] == "1"


def _server_env(monkeypatch, capsys, *argv: str) -> None:
    """This process's environment becomes the one `stepscope app ARGV` gives its server, as a page reads it."""
    _err, env = _started(["app", *argv], monkeypatch, capsys)
    monkeypatch.setenv(CODE_ENV, env[CODE_ENV])


OFF_SENTENCE = "Running typed code is off"


def test_the_playground_is_off_beyond_this_machine(monkeypatch, capsys, fresh_store, drawing_without_graphviz):
    _server_env(monkeypatch, capsys, "--host", "0.0.0.0")
    at = _playground_page(AppTest.from_file(APP, default_timeout=30), {"reducer": "custom", "custom": "lambda a, b: b"})
    at.run()
    assert not at.exception, at.exception
    notices = [plain(i.value) for i in at.info if OFF_SENTENCE in i.value]
    assert len(notices) == 1 and "--allow-code" in notices[0] and "--host 127.0.0.1" in notices[0], notices
    widgets = [*at.selectbox, *at.text_input, *at.slider, *at.button]
    assert not [w.key for w in widgets if str(w.key).startswith("playground-")]  # nothing to type or press
    assert not at.success and not at.error  # nothing was folded


@pytest.mark.parametrize("argv", [("--host", "0.0.0.0", "--allow-code"), ("--host", "127.0.0.1")])
def test_the_playground_runs_with_allow_code_or_on_loopback(
    argv, monkeypatch, capsys, fresh_store, drawing_without_graphviz
):
    _server_env(monkeypatch, capsys, *argv)
    at = _playground_page(AppTest.from_file(APP, default_timeout=30))
    at.run()
    assert not at.exception, at.exception
    assert not [i for i in at.info if OFF_SENTENCE in i.value]
    assert at.selectbox(key="playground-reducer").value == "operator.add"
    assert any("['x', 'y']" in plain(s.value) for s in at.success)


def _exercise_tab(monkeypatch, capsys, *argv: str):
    _server_env(monkeypatch, capsys, *argv)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"sample": "subgraph_trap", "step": "0"})
    at.run()
    assert not at.exception, at.exception
    return at, tab(at, "Exercise")


def test_an_exercise_is_not_checked_beyond_this_machine(monkeypatch, capsys, fresh_store, drawing_without_graphviz):
    at, panel = _exercise_tab(monkeypatch, capsys, "--host", "192.168.1.20")
    assert [b.key for b in at.button if b.key == "exercise-check"] == []
    notices = [plain(i.value) for i in panel.info if OFF_SENTENCE in i.value]
    assert len(notices) == 1 and "--allow-code" in notices[0], notices
    assert any("Stop the subgraph re-appending" in plain(m.value) for m in panel.markdown)  # the task still shows


@pytest.mark.slow  # the learner's code runs in a child process
def test_an_exercise_is_checked_with_allow_code(monkeypatch, capsys, fresh_store, drawing_without_graphviz):
    at, panel = _exercise_tab(monkeypatch, capsys, "--host", "192.168.1.20", "--allow-code")
    assert not [i for i in panel.info if OFF_SENTENCE in i.value]
    at.button(key="exercise-check").click().run()
    assert not at.exception, at.exception
    assert any("Not solved yet (try 1)" in plain(w.value) for w in at.warning)


def test_beyond_this_machine_only_stepscopes_own_lessons_are_loaded(monkeypatch, tmp_path):
    from debugger.runtimes.targets import TargetError, load_target
    from sample_graphs.gallery import js_lesson_path

    graph_file = tmp_path / "mine.py"
    graph_file.write_text("raise SystemExit('this module must never be imported')\n")
    monkeypatch.setenv(CODE_ENV, "0")
    for target in (str(graph_file), f"{graph_file}:graph", "os.path", str(tmp_path / "app.mjs")):
        with pytest.raises(TargetError) as refused:
            load_target(target)
        message = str(refused.value)
        assert "runs its code" in message and "--allow-code" in message and "\n" not in message
    assert load_target("subgraph_trap").name == "subgraph_trap"
    assert load_target("sample_graphs.endless_loop:fixed_graph").graph is not None
    from debugger.runtimes.targets import is_own_lesson

    assert is_own_lesson(str(js_lesson_path("parallel_append_race")))
    assert not is_own_lesson(str(tmp_path / ".." / "sample_graphs.py"))
    monkeypatch.setenv(CODE_ENV, "1")
    with pytest.raises(TargetError, match="called sys.exit"):  # with code allowed, the file is imported as always
        load_target(str(graph_file))


def test_the_graph_file_and_thread_forms_are_off_beyond_this_machine(
    monkeypatch, capsys, fresh_store, drawing_without_graphviz
):
    _server_env(monkeypatch, capsys, "--host", "0.0.0.0")
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"sample": "subgraph_trap"})
    at.run()
    for kind in ("Graph file", "Checkpointer thread"):
        at.sidebar.radio(key="open_kind").set_value(kind).run()
        assert not at.exception, at.exception
        notices = [plain(i.value) for i in at.sidebar.info if OFF_SENTENCE in i.value]
        assert len(notices) == 1 and "--allow-code" in notices[0], (kind, notices)
        assert not [t for t in at.sidebar.text_input if t.key in ("file_target", "thread_graph")]
        assert not [b for b in at.sidebar.button if b.key in ("open_file",)]
