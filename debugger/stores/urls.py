"""Database URLs: telling a PostgreSQL URL from a file path, checking one before it is used, and the
one masking function for every URL that is printed, logged or shown (`masked`).

A URL may carry secrets in two places: the userinfo (`postgresql://user:secret@host/db`) and the
query (`?password=secret`, `sslpassword=`, a token). Every message, label and page that names a
database goes through `masked`, which never raises: a URL too broken to parse is masked by pattern,
so even the error about it shows no secret.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
MASK = "***"
SECRET_KEYS = re.compile(r"pass|secret|token|key", re.IGNORECASE)
"""Query parameters whose values are secrets (password, sslpassword, passfile's contents, tokens, keys)."""
_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^\s'\"]*", re.IGNORECASE)
"""A URL, also inside a longer text (an error message that quotes it)."""
_QUERY_SECRET = re.compile(r"(?P<key>[?&;][^=&;#]*(?:pass|secret|token|key)[^=&;#]*=)(?P<value>[^&;#]*)", re.IGNORECASE)


class BadURL(ValueError):
    """A database URL that cannot be used; the message (one line, secrets masked) says how to fix it."""


def is_postgres_url(value: object) -> bool:
    """True for a `postgresql://` or `postgres://` URL (anything else names a file)."""
    return isinstance(value, str) and value.startswith(POSTGRES_SCHEMES)


def masked(text: str) -> str:
    """`text` (a URL, or a message that quotes URLs) with every secret replaced by `***`: the
    password in each URL's userinfo and the value of every secret-looking query parameter. Works on
    URLs too broken to parse (by pattern, never by parsing)."""
    return _QUERY_SECRET.sub(lambda m: f"{m['key']}{MASK}", _URL.sub(lambda m: _userinfo_masked(m.group(0)), str(text)))


def _userinfo_masked(url: str) -> str:
    scheme, _, rest = url.partition("://")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    userinfo, at, host = authority.rpartition("@")  # a password may hold an unescaped "@"
    if not at or ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:{MASK}@{host}{rest[len(authority) :]}"


def checked_postgres_url(url: str, what: str = "the database URL") -> str:
    """`url` if it parses as a PostgreSQL URL (host, port, query); else `BadURL` saying what is wrong.
    The URL is not connected to here: a server that is down is found when it is used."""
    shown = masked(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - reading it validates it (a port that is not a number raises)
        parse_qsl(parts.query, strict_parsing=bool(parts.query))
    except ValueError as exc:
        raise BadURL(
            f"{what} {shown} is not a valid PostgreSQL URL ({_plain(exc)}); write it as "
            "postgresql://USER:PASSWORD@HOST:PORT/DATABASE (an IPv6 host in brackets: [::1])."
        ) from None
    return url


def _plain(exc: ValueError) -> str:
    text = str(exc) or type(exc).__name__
    return masked(text[0].lower() + text[1:]) if text else text
