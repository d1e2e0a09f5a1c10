"""How generated source is shown: HTML in Jupyter, ANSI colours on a terminal, plain text elsewhere.

Pygments highlights when it is installed; without it everything still works,
only in fewer colours.

>>> print(html_source("x = 1 < 2"))  # doctest: +ELLIPSIS
<div class="highlight" ...>...x...
>>> print(paint("ok", "green", enabled=False))
ok
>>> paint("ok", "green", enabled=True) == "\\x1b[32mok\\x1b[0m"
True
"""

from __future__ import annotations

import difflib
import html
import os
import re

# ANSI styles used by the command line
_ANSI = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}

# Code is shown in a monospace font wherever the HTML lands: a page's own styles (a rendered
# notebook's, a documentation site's) may otherwise set <pre> in the text's font.
_MONOSPACE = ("font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', "
              "'Liberation Mono', monospace")
_PRE_STYLE = f"margin: 0; line-height: 125%; white-space: pre; overflow-x: auto; {_MONOSPACE}"


def use_color(stream) -> bool:
    """Whether to colour what goes to ``stream``: only a terminal, and only without ``NO_COLOR``.

    ``NO_COLOR`` set to anything but the empty string turns colour off (https://no-color.org).
    """
    if os.environ.get("NO_COLOR", ""):
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def paint(text: str, style: str, enabled: bool = True) -> str:
    """``text`` in an ANSI ``style`` (``"bold"``, ``"red"``, ``"bold red"``...) when ``enabled``."""
    if not enabled or not text:
        return text
    codes = ";".join(_ANSI[word] for word in style.split())
    return f"\x1b[{codes}m{text}\x1b[0m"


def ansi_source(text: str, language: str = "python") -> str:
    """Source highlighted for a terminal: Pygments' terminal colours, or dimmed comments."""
    try:
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import get_lexer_by_name
    except ImportError:
        return re.sub(r"(?m)^(\s*)(#.*)$", lambda m: m.group(1) + paint(m.group(2), "dim"), text)
    return highlight(text, get_lexer_by_name(language), TerminalFormatter())


def html_source(text: str, language: str = "python", title: str | None = None) -> str:
    """The source as an HTML block, highlighted with Pygments when it is installed.

    Args:
        text: the source code.
        language: a Pygments lexer name, ``"python"`` or ``"diff"``.
        title: an optional caption shown above the code.
    """
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
    except ImportError:
        block = f'<pre style="{_PRE_STYLE}">{html.escape(text)}</pre>'
    else:
        block = highlight(text, get_lexer_by_name(language),
                          HtmlFormatter(noclasses=True, prestyles=_PRE_STYLE))
    if title is None:
        return block
    return f'<div><div style="font-weight: bold; margin: 4px 0">{html.escape(title)}</div>' \
           f"{block}</div>"


def diff_source(before: str, after: str, before_name: str = "before",
                after_name: str = "after") -> str:
    """A unified diff of two sources (what one compiler pass changed); empty when equal.

    Every line of the diff ends with a line break, the last lines of sources that lack one too:

    >>> print(diff_source("a = 0\\nx = 1", "a = 0\\nx = 2"), end="")
    --- before
    +++ after
    @@ -1,2 +1,2 @@
     a = 0
    -x = 1
    +x = 2
    """
    return "".join(difflib.unified_diff(_lines(before), _lines(after), before_name, after_name,
                                        n=2))


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its line break (the last one given one)."""
    return [line if line.endswith("\n") else line + "\n"
            for line in text.splitlines(keepends=True)]


def side_by_side(*columns: tuple[str, str]) -> str:
    """HTML showing several ``(title, source)`` pairs next to each other, each highlighted.

    >>> page = side_by_side(("tape", "y = x * 2"), ("s2sad", "s_x = 2.0"))
    >>> page.count("<td"), "tape" in page and "s2sad" in page
    (2, True)
    """
    cells = "".join(f'<td style="vertical-align: top; text-align: left; padding: 0 8px">'
                    f"{html_source(text, title=title)}</td>" for title, text in columns)
    return f"<table><tr>{cells}</tr></table>"

