"""How generated source is shown: plain text, or HTML with syntax highlighting in Jupyter."""

from __future__ import annotations

import html


def html_source(text: str) -> str:
    """The source as an HTML block, highlighted with Pygments when it is installed."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return f"<pre>{html.escape(text)}</pre>"
    return highlight(text, PythonLexer(), HtmlFormatter(noclasses=True))
