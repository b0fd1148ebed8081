"""English and Chinese (`debugger/i18n`): the catalogs are complete, the lessons and the model's sentences
speak the chosen language, the CLI follows `--lang` and `LANG`, and the app follows `?lang=zh`, its
sidebar switch and the browser. The AppTest tests run the whole app (slow, like tests/test_app.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from debugger import cli, i18n
from debugger.i18n import _, build
from debugger.i18n.extract import js_lesson_texts, lesson_texts
from debugger.model.trace_view import Scope, TraceView
from debugger.sources import runs as sources
from sample_graphs.gallery import JS_LESSON_DIR, list_samples
from tests import stepper_shown

CHINESE = re.compile(r"[\u4e00-\u9fff]")
ROOT = Path(__file__).resolve().parents[1]


def test_every_message_has_both_languages_and_keeps_its_placeholders():
    """The test that fails when a sentence is added or reworded in English without its Chinese (or when
    `python -m debugger.i18n.build` was not run after writing it)."""
    assert build.problems() == []


def test_the_extractors_find_every_text_a_lesson_shows():
    for info in list_samples():
        found = {name for _line, name, _text in lesson_texts((ROOT / "sample_graphs" / f"{info.name}.py").read_text())}
        assert {"title", "summary", "lesson"} <= found, info.name
    for path in JS_LESSON_DIR.glob("[a-z]*.mjs"):
        found = {name for _line, name, _text in js_lesson_texts(path.read_text())}
        assert {"title", "lesson"} <= found, path.name


def test_an_exercises_texts_are_found_where_they_are_given():
    source = (
        'title = "A title"\n'
        '_LIST = [Exercise("subgraph_trap", task="Stop the subgraph re-appending `log`.", hint="Wrap it", '
        'expected="`log` holds each item once", gone=("subgraph_duplication",))]\n'
    )
    assert [(name, text) for _line, name, text in lesson_texts(source)] == [
        ("title", "A title"),
        ("task", "Stop the subgraph re-appending `log`."),
        ("hint", "Wrap it"),
        ("expected", "`log` holds each item once"),
    ]


def test_every_lesson_reads_in_chinese_and_english():
    for info in list_samples():
        with i18n.using("zh-CN"):
            texts = [_(info.title), _(info.summary), _(info.lesson)]
        assert all(CHINESE.search(text) for text in texts), info.name
        with i18n.using("en"):
            assert [_(info.title), _(info.summary), _(info.lesson)] == [info.title, info.summary, info.lesson]


def test_the_chinese_uses_the_seeds_terms():
    """归约函数 for reducer and 超级步 for superstep, as the lessons teach them."""
    with i18n.using("zh-CN"):
        assert "归约函数" in _("The lesson") or "归约函数" in _(list_samples()[0].lesson)
        assert "超级步" in _("Superstep {step}")


def test_samples_lists_every_lesson_with_its_chinese_title(capsys):
    assert cli.main(["samples", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    with i18n.using("zh-CN"):
        for info in list_samples():
            line = next(line for line in out.splitlines() if line.startswith(info.name + " "))
            assert _(info.title) in line and CHINESE.search(_(info.title)), info.name
    assert i18n.current() == "en", "the command's language ends with it"


def test_samples_follows_lang_and_an_explicit_lang_wins(capsys, monkeypatch):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    assert cli.main(["samples"]) == 0
    assert "子图把父图的列表又追加了一遍" in capsys.readouterr().out
    assert cli.main(["samples", "--lang", "en"]) == 0
    assert "A subgraph re-appends its parent's list" in capsys.readouterr().out


def test_an_unknown_language_is_one_line(capsys):
    assert cli.main(["samples", "--lang", "fr"]) == 2
    err = capsys.readouterr().err
    assert err == "error: unknown language 'fr': use --lang en or --lang zh\n"


@pytest.mark.parametrize(
    ("tag", "language"),
    [("zh", "zh-CN"), ("zh-CN", "zh-CN"), ("zh_CN.UTF-8", "zh-CN"), ("zh-Hans", "zh-CN"), ("en_US.UTF-8", "en")],
)
def test_language_tags(tag, language):
    assert i18n.parse(tag) == language


def test_unknown_tags_and_the_environment():
    assert i18n.parse("C") is None and i18n.parse("fr_FR") is None and i18n.parse("") is None
    assert i18n.from_environment({"LANG": "zh_CN.UTF-8"}) == "zh-CN"
    assert i18n.from_environment({"LANGUAGE": "fr:zh_CN", "LANG": "en_US.UTF-8"}) == "zh-CN"
    assert i18n.from_environment({"LC_ALL": "C.UTF-8"}) == "en"
    assert i18n.from_environment({}) == "en"


def test_accept_language_takes_the_most_wanted_language_spoken():
    assert i18n.from_accept_language("zh-CN,zh;q=0.9,en;q=0.8") == "zh-CN"
    assert i18n.from_accept_language("fr-FR,fr;q=0.9,en-US;q=0.8,zh;q=0.7") == "en"
    assert i18n.from_accept_language("en;q=0.5, zh;q=0.9") == "zh-CN"
    assert i18n.from_accept_language("zh;q=0, de") is None
    assert i18n.from_accept_language(None) is None


def test_the_subgraph_traps_merge_sentences_in_both_languages():
    view = TraceView(sources.open_sample("subgraph_trap", store=False).trace).view(Scope())
    step = next(s for s in view.steps if any(m.call.writer_name == "child" for m in view.merge(s)))
    with i18n.using("zh-CN"):
        chinese = [m.sentence for m in view.merge(step)]
    english = [m.sentence for m in view.merge(step)]
    assert english == ["operator.add appended ['parent', 'sub-1'] to ['parent'] (1 of them already there: duplicated)"]
    assert chinese == ["operator.add 把 ['parent', 'sub-1'] 追加到 ['parent'] 后面（其中 1 项原本就在：重复了）"]


def test_every_word_the_stepper_writes_itself_is_chinese_and_so_is_a_findings_severity():
    from debugger.model import stepper_data

    allowed = {"interrupt", "Ctrl", "Home", "End"}  # the function's name, and keys as their caps say
    with i18n.using("zh-CN"):
        labels = stepper_data.labels()
        model = stepper_data.stepper_model(
            TraceView(sources.open_sample("subgraph_trap", store=False).trace), Scope(), 2, drawing=("<svg/>", "d")
        )
    words = {name: set(re.findall(r"[A-Za-z]+", re.sub(r"\{\w+\}", "", text))) for name, text in labels.items()}
    english = {name: found - allowed for name, found in words.items() if found - allowed}
    assert not english, english
    assert labels["fit"] == "适应窗口" and labels["zoom_in"] == "放大"
    assert {f["severity"] for f in model["findings"]} <= {"错误", "警告", "提示"} and model["findings"]


# ---- the app --------------------------------------------------------------------------------------


def _app(**params: str):
    from streamlit.testing.v1 import AppTest  # imported by the app tests only: streamlit's test harness

    at = AppTest.from_file(str(ROOT / "debugger" / "app.py"), default_timeout=30)
    at.query_params.update(params)
    at.run()
    assert not at.exception, at.exception
    return at


def _page_text(at) -> str:
    parts = [e.value for e in [*at.markdown, *at.subheader, *at.header, *at.title, *at.caption, *at.info, *at.warning]]
    parts += [e.label for e in at.expander] + [t.label for t in at.tabs]
    if at.get("bidi_component"):  # the stepper's summary and lesson, on the Step-through page
        parts += [stepper_shown.summary_text(at), stepper_shown.aside_text(at)]
    return re.sub(r"\\(.)", r"\1", "\n".join(str(p) for p in parts))


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_store")
def test_the_app_at_lang_zh_shows_the_subgraph_trap_in_chinese():
    """The link a Chinese reader follows: the default lesson (the subgraph trap), its lesson text, the step
    summary and the Merge tab's sentences in Chinese, and the link keeps `lang=zh`."""
    at = _app(lang="zh", step="2")
    text = _page_text(at)
    assert "子图收到父图的状态" in text  # the lesson
    assert "超级步 2" in text and "课文" in text  # the step summary's heading, the lesson's expander
    assert "operator.add 把 ['parent', 'sub-1'] 追加到 ['parent'] 后面（其中 1 项原本就在：重复了）" in text
    assert "The lesson" not in text and "appended" not in text
    assert at.query_params["lang"] in ("zh", ["zh"])


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_store")
def test_the_sidebar_switches_the_language_and_the_link_keeps_it():
    at = _app()
    assert "The lesson" in _page_text(at) and "lang" not in at.query_params
    at.radio(key="ui_language").set_value("zh-CN").run()
    assert not at.exception, at.exception
    assert "课文" in _page_text(at)
    assert dict(at.query_params)["lang"] in ("zh", ["zh"])


@pytest.mark.slow
@pytest.mark.usefixtures("fresh_store")
def test_learn_modes_verdict_speaks_chinese_though_a_callback_makes_it():
    """A guess is checked in the form's callback, which runs before the script sets the page's language:
    the verdict still follows the session's language."""
    at = _app(lang="zh", step="2")
    at.toggle(key="learn_mode").set_value(True).run()
    [question] = at.text_input
    assert question.label == "第 #0 次调用之后，`log` 会是什么？"
    question.input("['parent', 'sub-1']")
    next(b for b in at.button if b.label == "检查").click().run()
    assert not at.exception, at.exception
    verdicts = [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]
    assert any(v.startswith("不太对：第 #0 次调用之后 'log' 是 ['parent', 'parent', 'sub-1']。") for v in verdicts), (
        verdicts
    )


def test_a_translation_written_ahead_comes_back_with_its_message(tmp_path, monkeypatch):
    """The Chinese of messages another branch brings (the exercises' tasks) waits as an obsolete `#~` entry
    and is back in the catalog once the code has the message, as GNU msgmerge does."""
    from babel.messages.catalog import Catalog, Message

    monkeypatch.setattr(build, "po_path", lambda language: tmp_path / language / "stepscope.po")
    written = Catalog(locale="zh_CN", domain=i18n.DOMAIN)
    written.add("Open", "打开")
    written.obsolete["Stop the subgraph re-appending `log`."] = Message(
        "Stop the subgraph re-appending `log`.", "别再追加"
    )
    build.write(written, "zh-CN")
    source = Catalog(domain=i18n.DOMAIN)
    source.add("Open")
    assert "Stop the subgraph re-appending `log`." in build.updated("zh-CN", source).obsolete, "kept while away"
    source.add("Stop the subgraph re-appending `log`.")
    catalog = build.updated("zh-CN", source)
    assert catalog.get("Stop the subgraph re-appending `log`.").string == "别再追加"
    assert catalog.get("Open").string == "打开" and not catalog.obsolete


@pytest.mark.slow  # runs every sample (about 4 s); build.problems() already holds each placeholder to the English
def test_every_samples_sentences_format_in_chinese():
    """Every merge sentence, step summary line and finding of every sample, made in Chinese: a translation
    that named a value the code does not give would raise here (KeyError in `.format`)."""
    from debugger.model import step_summary
    from debugger.model.trace_view import Cursor

    with i18n.using("zh-CN"):
        for info in list_samples():
            traces = TraceView(sources.open_sample(info.name, store=False).trace)
            view = traces.view(Scope())
            for step in view.steps:
                lines = step_summary.summary(view, Cursor(Scope(), step, None))
                assert CHINESE.search(lines[1].text), (info.name, step, lines[1].text)
                for merge in view.merge(step):
                    assert CHINESE.search(merge.sentence) or merge.call.error, (info.name, merge.sentence)
            for finding in traces.findings:
                assert finding.where() and finding.title, info.name


SPACING = re.compile(r"[\u4e00-\u9fff][A-Za-z0-9_'`]|[A-Za-z0-9_'`][\u4e00-\u9fff]|[：，。；）] |; | —")
"""Chinese beside a name with no space ('因为p1'), a space after full-width punctuation ('接下来： 没有了'),
an English semicolon or a spaced dash between Chinese clauses."""


@pytest.mark.slow  # runs every sample (about 4 s)
def test_every_samples_step_summary_is_spaced_as_chinese_is_written():
    from debugger.model import step_summary
    from debugger.model.trace_view import Cursor

    flawed = []
    with i18n.using("zh-CN"):
        for info in list_samples():
            view = TraceView(sources.open_sample(info.name, store=False).trace).view(Scope())
            for step in view.steps:
                for line in step_summary.summary(view, Cursor(Scope(), step, None)):
                    text = line.text.replace("\\", "").replace("**", "")  # Markdown's escapes and bold
                    text = re.sub(r"运行失败了：.*", "", text)  # the run's own error message, as it raised it
                    flawed += [(info.name, step, found, line.text) for found in SPACING.findall(text)]
    assert not flawed, flawed[:5]
