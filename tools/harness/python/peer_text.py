"""One-line descriptions of what went wrong, for problem texts and stderr."""

import re

MAX_TEXT = 400
# Terminal colour codes (the CuTe DSL colours its errors): noise in a table, JSON or CSV.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def one_line(text):
    """The first line of `text` without colour codes, cut to a length a table or JSON field
    can carry."""
    plain = ANSI_ESCAPE.sub("", str(text)).strip()
    first = plain.splitlines()[0].strip() if plain else ""
    return first if len(first) <= MAX_TEXT else first[:MAX_TEXT - 3] + "..."


def describe_exception(error):
    """'<ExceptionType>: <first line of the message>'."""
    message = one_line(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__
