"""The messenger's HTML: what passes (escaped where a character starts no tag or entity) and
what is refused with a message naming the problem and where it is."""

from __future__ import annotations

import pytest

from subsvc.messenger_markup import MarkupError, clean, visible_text


@pytest.mark.parametrize(
    "text",
    [
        "<b>bold</b> <strong>s</strong> <i>i</i> <em>e</em> <u>u</u> <ins>n</ins>",
        "<s>s</s> <strike>k</strike> <del>d</del> <tg-spoiler>x</tg-spoiler>",
        '<span class="tg-spoiler">hidden</span>',
        '<a href="https://example.com/?a=1&amp;b=2">link</a> <a href="tg://user?id=1">me</a>',
        "<code>x = 1</code>",
        '<pre><code class="language-python">print(1)</code></pre>',
        "<pre>block</pre>",
        "<blockquote>q</blockquote> <blockquote expandable>long</blockquote>",
        '<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>',
        "<b>bold <i>and italic</i></b>",
        "&lt;tag&gt; &amp; &quot; &#9731; &#x1F600;",
        "<B>upper case</B>",
    ],
)
def test_allowed_markup_is_kept_as_it_is(text):
    assert clean(text) == text


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        ("a < b and c > d", "a &lt; b and c &gt; d"),
        ("Q&A", "Q&amp;A"),
        ("I <3 it", "I &lt;3 it"),
        ("<b>x</b> & <", "<b>x</b> &amp; &lt;"),
    ],
)
def test_stray_characters_are_escaped(text, sent):
    assert clean(text) == sent


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("<div>x</div>", "unsupported tag <div>; the messenger allows b, strong"),
        ("x<br/>y", "unsupported tag <br>"),
        ("<b>open", "<b> is not closed (at character 1)"),
        ("<b><i>x</b></i>", "</b> found where </i> was expected (at character 8)"),
        ("x</b>", "</b> closes a tag that was never opened (at character 2)"),
        ("<b/>", "<b/> cannot close itself"),
        ('<b class="x">y</b>', 'attribute "class" is not allowed in <b>'),
        ("<span>x</span>", '<span> is allowed only as <span class="tg-spoiler">'),
        ("<a>x</a>", "<a> needs an href attribute"),
        ('<a href="javascript:alert(1)">x</a>', "must start with http://, https://, tg:// or mailto:"),
        ('<a href="https://x" onclick="y">x</a>', 'attribute "onclick" is not allowed in <a>'),
        ('<a href="https://x" href="https://y">x</a>', 'attribute "href" is given twice in <a>'),
        ('<code class="language-py">x</code>', 'takes only class="language-..." and only inside <pre>'),
        ("<pre><b>x</b></pre>", "<pre> may contain only <code>, found <b>"),
        ("<code><b>x</b></code>", "<code> cannot contain tags, found <b>"),
        ("<blockquote><blockquote>x</blockquote></blockquote>", "block quotes cannot be nested"),
        ('<blockquote expandable="yes">x</blockquote>', "expandable takes no value"),
        ("<tg-emoji>x</tg-emoji>", "<tg-emoji> needs a numeric emoji-id attribute"),
        ("a&nbsp;b", "unsupported entity &nbsp;: the messenger knows"),
        ("&#0;", "the entity &#0; names no character"),
        ("&#x110000;", "the entity &#x110000; names no character"),
        ("</b >", "</b> closes a tag that was never opened"),
        ("<b>x</b foo>", "the closing tag </b> cannot have attributes"),
        ("<a href='https://x' =>x</a>", "malformed attributes in <a>"),
    ],
)
def test_refusals_name_the_problem(text, problem):
    with pytest.raises(MarkupError) as refused:
        clean(text)
    message = str(refused.value)
    assert message.startswith("Invalid HTML: ")
    assert problem in message


def test_visible_text_drops_the_tags():
    assert visible_text('<b>a</b> <a href="https://x">b</a>') == "a b"
    assert visible_text("<b></b>").strip() == ""
