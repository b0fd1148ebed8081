"""The language StepScope speaks: English (`en`) or Chinese (`zh-CN`), from gettext message catalogs.

Every sentence a person reads is written in English in the code, wrapped where it stands: `_("...")`
for one sentence (with `.format(name=...)` for its values), `ngettext(singular, plural, n)` for a count,
`N_("...")` for a text that is only marked here and translated where it is shown (a table of
constants). A lesson's texts (`title`, `summary`, `lesson`, `learn_prompt`, ... of a sample module) need
no marking: `debugger/i18n/extract.py` finds them, and the code that shows one passes it through `_()`.

The catalogs are `debugger/i18n/locale/<language>/LC_MESSAGES/stepscope.po`, compiled to the `.mo` files
beside them (committed, so a clean clone runs without Babel). After changing or adding a sentence, run
`python -m debugger.i18n.build` (needs Babel, in the `test` extra): it extracts, updates both catalogs
and compiles them; write the Chinese of each new or changed message, then run it again.
tests/test_i18n.py fails while a message lacks either language.

The language is per thread of execution (a `ContextVar`): the CLI sets it once from `--lang` or `LANG`,
the app at the start of every run of its script from the sidebar, the URL (`?lang=zh`) or the browser;
where a thread set none (a widget's callback runs before the script), `follow`'s source answers.
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import os
from contextvars import ContextVar
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping

DOMAIN = "stepscope"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT = "en"
LANGUAGES: dict[str, str] = {"en": "English", "zh-CN": "中文"}
"""Every language, by its tag, with its own name for itself (what the language switch shows)."""
URL_CODES: dict[str, str] = {"en": "en", "zh-CN": "zh"}
"""How a link names each language (`?lang=zh`)."""

_language: ContextVar[str | None] = ContextVar("stepscope_language", default=None)
_fallback: Callable[[], str | None] | None = None
"""Where the language comes from when this thread set none: the app's session (see `follow`)."""


@functools.cache
def _translations(language: str) -> gettext.NullTranslations:
    """The compiled catalog of `language`; English falls back to the code's own text where its catalog
    (or a message in it) is missing, so English always reads."""
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language.replace("-", "_")], fallback=language == DEFAULT)


def _(message: str) -> str:
    """`message` in the current language."""
    if not message:  # gettext answers "" with the catalog's header
        return message
    return _translations(current()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural form for `count`, in the current language (Chinese has one form)."""
    return _translations(current()).ngettext(singular, plural, count)


def join_names(names: Iterable[str]) -> str:
    """Names listed in a sentence: "a, b, c" in English, "a、b、c" in Chinese (its enumeration comma)."""
    # TRANSLATORS: the separator between names in a list ("a, b"); Chinese writes the enumeration comma
    return _(", ").join(names)


def join_sentences(sentences: Iterable[str]) -> str:
    """Clauses listed in a sentence: "a; b" in English, "a；b" in Chinese (its full-width semicolon)."""
    # TRANSLATORS: the separator between sentences in a list ("a; b"); Chinese writes its full-width semicolon
    return _("; ").join(sentences)


def translator() -> Callable[[str], str]:
    """`_` bound to the current language, for a widget's `format_func`: Streamlit may call it outside the
    script's thread (AppTest does), where the page's language is not set."""
    catalog = _translations(current())
    return lambda message: catalog.gettext(message) if message else message


def N_(message: str) -> str:
    """Marks `message` for the catalogs without translating it (it is translated where it is shown)."""
    return message


class Later(str):
    """A sentence made where no page's language is known (a live run's own thread): the string itself is its
    English (logs, tests and the CLI read it), `say` gives it in the current language. Its values are said
    too: a `Later` in that language, a tuple of names listed with `join_names`, a list of sentences joined
    with the language's semicolon; anything else as it is.

        reason = Later(N_("breakpoint before {node}"), node="review")  # == "breakpoint before review"
        say(reason)  # "review 之前的断点" on a Chinese page
    """

    message: str
    values: dict[str, object]

    def __new__(cls, message: str, /, **values: object) -> "Later":
        said = super().__new__(cls, message.format(**{k: _in_english(v) for k, v in values.items()}))
        said.message, said.values = message, values
        return said


def _in_english(value: object) -> str:
    if isinstance(value, tuple):
        return ", ".join(_in_english(v) for v in value)
    if isinstance(value, list):
        return "; ".join(_in_english(v) for v in value)
    return str(value)


def say(text: object) -> str:
    """`text` in the current language where it is a `Later` (or a tuple or list of them, as `Later` joins
    its values); any other text as it is."""
    if isinstance(text, Later):
        return _(text.message).format(**{k: say(v) for k, v in text.values.items()})
    if isinstance(text, tuple):
        return join_names(say(v) for v in text)
    if isinstance(text, list):
        return join_sentences(say(v) for v in text)
    return str(text)


def current() -> str:
    """The current language's tag (`en`, `zh-CN`)."""
    language = _language.get()
    if language is None and _fallback is not None:
        language = _fallback()
    return language if language in LANGUAGES else DEFAULT


def follow(source: Callable[[], str | None]) -> None:
    """Takes the language from `source()` wherever none was set in this thread: the app's widget callbacks
    run before its script sets the page's language, and their sentences (a learner's verdict) must speak it."""
    global _fallback
    _fallback = source


def set_language(language: str) -> None:
    """Makes `language` (a tag of `LANGUAGES`) the current one for this thread of execution."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; StepScope speaks {', '.join(LANGUAGES)}")
    _language.set(language)


@contextlib.contextmanager
def using(language: str) -> Iterator[None]:
    """Speaks `language` inside the `with` block, then the language it spoke before."""
    token = _language.set(language)
    try:
        yield
    finally:
        _language.reset(token)


def parse(text: str | None) -> str | None:
    """The language a tag names (`zh`, `zh-CN`, `zh_CN.UTF-8`, `zh-Hans`, `en-US`, `C`), or None for one
    StepScope does not speak. Every Chinese tag reads the simplified Chinese catalog."""
    tag = (text or "").strip().split(".")[0].split("@")[0].replace("_", "-").lower()
    if tag == "zh" or tag.startswith("zh-"):
        return "zh-CN"
    if tag == "en" or tag.startswith("en-"):
        return "en"
    return None


def from_accept_language(header: str | None) -> str | None:
    """The browser's most wanted language StepScope speaks, from an `Accept-Language` header
    (`zh-CN,zh;q=0.9,en;q=0.8`), or None."""
    wanted = []
    for position, part in enumerate((header or "").split(",")):
        tag, _sep, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        wanted.append((-weight, position, tag))
    for weight, _position, tag in sorted(wanted):
        if weight < 0 and parse(tag):
            return parse(tag)
    return None


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language of the terminal, as gettext reads it: `LANGUAGE` (a colon list), `LC_ALL`,
    `LC_MESSAGES`, `LANG`; English when none names a language StepScope speaks."""
    environ = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for tag in environ.get(name, "").split(":"):
            if parse(tag):
                return parse(tag) or DEFAULT
    return DEFAULT
