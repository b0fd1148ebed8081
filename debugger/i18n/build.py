"""`python -m debugger.i18n.build`: extracts every message, updates both catalogs and compiles them.
`python -m debugger.i18n.build --check` changes nothing and lists what is wrong (exit 1): a message
without its Chinese (new, or its English changed since: Babel marks those fuzzy), a translation whose
`{placeholders}` are not all in the English, a compiled `.mo` older than its `.po`.

Needs Babel (the `test` extra); the app and the CLI only read the compiled `.mo` files, with gettext.
English is the code's own text, so the English catalog is filled in by this command (a message's English
can be reworded there without touching the code); the Chinese is written by a person in the `.po` file. A
Chinese translation whose message the code no longer has (or not yet: written ahead for another branch) is
kept as an obsolete `#~` entry, and comes back when its message does, as with GNU msgmerge.
"""

from __future__ import annotations

import argparse
import datetime
import gettext
import io
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from debugger.i18n import DOMAIN, LANGUAGES, LOCALE_DIR

ROOT = LOCALE_DIR.parents[2]
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
SOURCES: tuple[tuple[str, str], ...] = (
    ("debugger/**/*.py", "python"),
    ("debugger/*.py", "python"),
    ("sample_graphs/*.py", "debugger.i18n.extract:extract_lessons"),
    ("sample_graphs/js/*.mjs", "debugger.i18n.extract:extract_js_lessons"),
)
"""Which files hold messages, and how Babel reads each kind."""
FIXED_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
"""The catalogs' header dates stay put, so rebuilding changes only what changed (git shows the messages)."""
_PLACEHOLDER = re.compile(r"\{(\w*)(?:[:!][^}]*)?\}")


def po_path(language: str) -> Path:
    """The `.po` catalog of `language`."""
    return LOCALE_DIR / language.replace("-", "_") / "LC_MESSAGES" / f"{DOMAIN}.po"


def template() -> Catalog:
    """Every message in the code and the lessons, with the files it comes from."""
    catalog = Catalog(domain=DOMAIN, project="StepScope", creation_date=FIXED_DATE, revision_date=FIXED_DATE)
    for pattern, method in SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            relative = path.relative_to(ROOT).as_posix()
            for line, message, comments, _context in extract_from_file(method, str(path), keywords=KEYWORDS):
                catalog.add(message, locations=[(relative, None)], auto_comments=comments)
    return catalog


def updated(language: str, source: Catalog) -> Catalog:
    """`language`'s catalog brought up to `source`: new messages added, removed ones dropped, changed
    ones fuzzy (their old translation kept as a draft); English filled in from the code."""
    path = po_path(language)
    if path.exists():
        with path.open("rb") as file:
            catalog = read_po(file, locale=language.replace("-", "_"), domain=DOMAIN)
    else:
        catalog = Catalog(locale=language.replace("-", "_"), domain=DOMAIN, project="StepScope")
    drafts = dict(catalog.obsolete)  # translations of messages the code does not have (yet, or any more)
    catalog.update(source, update_header_comment=False)
    drafts.update(catalog.obsolete)
    for message in catalog:  # as GNU msgmerge does: a message that comes back gets its translation back
        draft = drafts.get(message.id) if message.id else None
        if draft is not None and all(_forms(draft.string)) and (message.fuzzy or not all(_forms(message.string))):
            message.string = draft.string
            message.flags.discard("fuzzy")
            message.previous_id = []
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    catalog.fuzzy = False  # a fuzzy header is left out of the .mo, and gettext would then not read UTF-8
    catalog.obsolete.clear()
    if language != "en":  # kept as `#~` entries: a branch that brings the message back finds it translated
        catalog.obsolete.update(
            (key, draft) for key, draft in drafts.items() if key not in catalog and all(_forms(draft.string))
        )
    if language == "en":
        for message in catalog:
            if message.id:
                message.string = message.id
                message.flags.discard("fuzzy")
                message.previous_id = []
    return catalog


def write(catalog: Catalog, language: str) -> None:
    """Writes the `.po` and the compiled `.mo` of `language`."""
    path = po_path(language)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, catalog, width=120, include_lineno=False, ignore_obsolete=False, include_previous=True)
    with path.with_suffix(".mo").open("wb") as file:
        write_mo(file, catalog, use_fuzzy=False)


def _forms(value: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value or "",)


def problems() -> list[str]:
    """What is wrong with the committed catalogs, one line each; empty when every message has both
    languages, every translation keeps its placeholders and the `.mo` files match their `.po`."""
    source = template()
    found = []
    for language in LANGUAGES:
        path = po_path(language)
        if not path.exists():
            return [f"{path.relative_to(ROOT)} is missing: run `python -m debugger.i18n.build`"]
        with path.open("rb") as file:
            catalog = read_po(file, locale=language.replace("-", "_"), domain=DOMAIN)
        found += _message_problems(language, source, catalog)
        found += _compiled_problems(language, catalog)
    return found


def _message_problems(language: str, source: Catalog, catalog: Catalog) -> list[str]:
    found = []
    for wanted in source:
        if not wanted.id:
            continue
        message: Message | None = catalog.get(wanted.id)
        english = _forms(wanted.id)[0]
        where = f"{language}: {english[:70]!r} ({wanted.locations[0][0]})"
        if message is None:
            found.append(f"{where} is not in the catalog: run `python -m debugger.i18n.build`")
        elif message.fuzzy or not all(_forms(message.string)):
            found.append(f"{where} has no translation (or its English changed since)")
        elif not _is_lesson(wanted) and any(
            not set(_PLACEHOLDER.findall(form)) <= set(_PLACEHOLDER.findall(english)) for form in _forms(message.string)
        ):  # a translation may leave a value out (Chinese needs no "both"), never name one the code does not give
            found.append(f"{where}: the translation has {{placeholders}} the English does not")
    return found


def _is_lesson(message: Message) -> bool:
    """A lesson's text is shown as it is, never `.format`ted: its braces are JSON, not placeholders."""
    return any(comment.startswith("lesson ") for comment in message.auto_comments)


def _compiled_problems(language: str, catalog: Catalog) -> list[str]:
    mo = po_path(language).with_suffix(".mo")
    if not mo.exists():
        return [f"{mo.relative_to(ROOT)} is missing: run `python -m debugger.i18n.build`"]
    compiled = gettext.GNUTranslations(io.BytesIO(mo.read_bytes()))
    for message in catalog:
        if not message.id or message.fuzzy or not all(_forms(message.string)):
            continue  # untranslated: gettext shows the English, as it should
        singular = _forms(message.id)[0]
        wanted = _forms(message.string)[0]
        if compiled.gettext(singular) != wanted:
            return [f"{mo.relative_to(ROOT)} is older than its .po: run `python -m debugger.i18n.build`"]
    return []


def main(argv: list[str] | None = None) -> int:
    """Updates and compiles the catalogs, or with `--check` only reports what is wrong."""
    parser = argparse.ArgumentParser(prog="python -m debugger.i18n.build", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; list what is wrong (exit 1)")
    args = parser.parse_args(argv)
    if not args.check:
        for language in LANGUAGES:  # a template each: a catalog takes over the template's messages
            write(updated(language, template()), language)
    found = problems()
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} message(s) to fix in {LOCALE_DIR.relative_to(ROOT)}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
