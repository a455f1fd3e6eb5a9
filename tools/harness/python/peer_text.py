"""One-line descriptions of what went wrong, for problem texts and stderr."""

MAX_TEXT = 400


def one_line(text):
    """The first line of `text`, cut to a length a table or JSON field can carry."""
    first = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return first if len(first) <= MAX_TEXT else first[:MAX_TEXT - 3] + "..."


def describe_exception(error):
    """'<ExceptionType>: <first line of the message>'."""
    message = one_line(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__
