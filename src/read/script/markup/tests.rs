use super::{Into, Read, read};

fn page(html: &str) -> Read {
    read(html, Into::Page)
}

fn loads(html: &str) -> usize {
    page(html).loads.len()
}

fn code(html: &str) -> Vec<String> {
    page(html).code.into_iter().map(|c| c.text).collect()
}

#[test]
fn script_markup_counts_each_element_that_loads() {
    assert_eq!(loads("<img src=a><img src=b>"), 2);
    assert_eq!(loads("<IMG SRC=a>"), 1);
    assert_eq!(loads("<script src=x></script>"), 1);
    assert_eq!(loads("<p>hi</p><b>there</b>"), 0);
    assert_eq!(loads(""), 0);
    assert_eq!(loads("<img>"), 0);
    assert_eq!(loads("<img src=''>"), 0);
    assert_eq!(loads("<img src=a srcset='a 1x, b 2x'>"), 1);
    assert_eq!(loads("<video src=a poster=b></video>"), 2);
    assert_eq!(loads("<picture><source srcset=a><img src=b></picture>"), 1);
    assert_eq!(loads("<input type=text src=x><input type=IMAGE src=x>"), 1);
    assert_eq!(loads("<meta http-equiv=refresh content='0;url=x'>"), 1);
    assert_eq!(loads("<a href=x ping=y>x</a><form action=z></form>"), 0);
    assert_eq!(
        loads("<link rel=canonical href=x><link rel=stylesheet href=y>"),
        1
    );
    assert_eq!(loads("<link rel='alternate stylesheet' href=y>"), 1);
    assert_eq!(loads("<iframe srcdoc='<p>x' src=a></iframe>"), 0);
    assert_eq!(
        loads("<svg><image href=a /><use href='#x'/><use href='s.svg#x'/></svg>"),
        2
    );
}

#[test]
fn script_markup_decodes_character_references_as_the_browser_does() {
    assert_eq!(
        code("<a href='javascript&colon;fetch(a)'>x</a>"),
        ["fetch(a)"]
    );
    assert_eq!(
        code("<a href='java&#9;script:fetch(a)'>x</a>"),
        ["fetch(a)"]
    );
    assert_eq!(code("<a href='&#106;avascript:go()'>x</a>"), ["go()"]);
    assert_eq!(
        loads("<iframe srcdoc='&lt;img src=a&gt;&lt;img src=b&gt;'></iframe>"),
        2
    );
    // Text is text: a reference never makes a tag.
    assert_eq!(loads("&lt;img src=a&gt;"), 0);
}

#[test]
fn script_markup_comments_and_text_elements_hide_tags() {
    assert_eq!(loads("<!-- <img src=a> --><img src=b>"), 1);
    assert_eq!(loads("<textarea><img src=a></textarea>"), 0);
    assert_eq!(loads("<title><img src=a></title>"), 0);
    assert_eq!(loads("<noscript><img src=a></noscript>"), 0);
    assert_eq!(
        read("<noscript><img src=a></noscript>", Into::Parsed)
            .loads
            .len(),
        1
    );
    assert_eq!(loads("<style>a{}</style><img src=a>"), 1);
    assert_eq!(loads("<xmp><img src=a></xmp>"), 0);
    // `<![CDATA[` is a comment in HTML, text in SVG.
    assert_eq!(loads("<![CDATA[<img src=a>]]>"), 0);
    assert_eq!(loads("<svg><![CDATA[<img src=a>]]></svg>"), 0);
}

#[test]
fn script_markup_foreign_content_follows_the_tree_builder() {
    // In SVG a `<style>` holds markup, and `<img>` breaks out into HTML.
    assert_eq!(loads("<svg><style><img src=a></style></svg>"), 1);
    assert_eq!(loads("<svg><style>*{background:url(a)}</style></svg>"), 1);
    assert_eq!(code("<svg><script>fetch(a)</script></svg>"), ["fetch(a)"]);
    assert_eq!(
        code("<svg><script><![CDATA[ if (a > b) fetch(a) ]]></script></svg>"),
        [" if (a > b) fetch(a) "]
    );
    // Back in HTML inside an integration point, `<style>` is raw text again.
    assert_eq!(
        loads("<svg><foreignObject><style><img src=a></style></foreignObject></svg>"),
        0
    );
    assert_eq!(
        loads("<math><mi><textarea><img src=a></textarea></mi></math>"),
        0
    );
}

#[test]
fn script_markup_template_content_is_inert() {
    assert_eq!(loads("<template><img src=a><img src=b></template>"), 0);
    assert_eq!(
        loads("<template><template></template><img src=a></template><img src=b>"),
        1
    );
    assert_eq!(
        code("<template><script>fetch(a)</script></template>"),
        Vec::<String>::new()
    );
    // A declarative shadow root is live.
    assert_eq!(
        loads("<template shadowrootmode=open><img src=a></template>"),
        1
    );
    // An SVG `template` is an unknown SVG element, not HTML's.
    assert_eq!(loads("<svg><template><image href=a /></template></svg>"), 1);
}

#[test]
fn script_markup_scripts_handlers_and_styles_are_read() {
    assert_eq!(code("<script>fetch(a)</script>"), ["fetch(a)"]);
    assert_eq!(code("<script type=module>fetch(a)</script>"), ["fetch(a)"]);
    assert!(code("<script type=application/json>{\"a\":1}</script>").is_empty());
    assert!(code("<script src=x>fetch(a)</script>").is_empty());
    assert_eq!(code("<img src=x onerror=fetch(a)>"), ["fetch(a)"]);
    let handlers = page("<img src=x ONLOAD = \"f()\"><b onclick=g()>x</b>").code;
    assert_eq!(handlers.len(), 2);
    assert!(!handlers[0].repeats && handlers[1].repeats);
    assert!(code("<img src=icon.png alt=\"on=off\"><b>done</b>").is_empty());
    assert_eq!(loads("<div style=\"background:url(x)\"></div>"), 1);
    assert_eq!(
        loads("<style>@import 'a.css'; b { background: u\\72 l(b) }</style>"),
        2
    );
    assert!(
        !page("<script type=speculationrules>{}</script>")
            .opaque
            .is_empty()
    );
}

#[test]
fn script_markup_data_documents_and_scripts_are_read() {
    assert_eq!(loads("<img src='data:image/png;base64,AAAA'>"), 0);
    assert_eq!(
        loads(
            "<iframe src='data:text/html,<img src=https://a.example/><img src=https://b.example/>'></iframe>"
        ),
        2
    );
    assert_eq!(
        loads(
            "<iframe src='data:text/html;base64,PGltZyBzcmM9aHR0cHM6Ly9hLmV4YW1wbGUvPjxpbWcgc3JjPWh0dHBzOi8vYi5leGFtcGxlLz4='></iframe>"
        ),
        2
    );
    assert_eq!(code("<script src='data:,fetch(a)'></script>"), ["fetch(a)"]);
    // A `data:` document's relative URLs resolve to nothing, until a
    // `<base>` names an absolute one.
    assert_eq!(
        loads("<iframe src='data:text/html,<img src=/a><img src=/b>'></iframe>"),
        0
    );
    assert_eq!(
        super::read_data_document("<img src=/a><img src=https://b.example/>")
            .loads
            .len(),
        1
    );
    assert_eq!(
        super::read_data_document("<base href=https://b.example/><img src=/a><img src=/b>")
            .loads
            .len(),
        2
    );
    assert_eq!(loads("<iframe src=about:blank></iframe>"), 0);
    assert!(
        !page("<script src='blob:https://a.example/x'></script>")
            .opaque
            .is_empty()
    );
    // Documents inside documents, to a bound.
    let mut html = "<img src=a><img src=b>".to_owned();
    for _ in 0..6 {
        html = format!(
            "<iframe srcdoc=\"{}\"></iframe>",
            html.replace('&', "&amp;").replace('"', "&quot;")
        );
    }
    assert!(!page(&html).opaque.is_empty());
}

#[test]
fn script_markup_names_the_sites_it_loads_from() {
    let r = page(
        "<base href=https://base.example/><img src=https://img.example/a><a href=https://link.example/>x</a>",
    );
    assert_eq!(r.urls, ["https://base.example/", "https://img.example/a"]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any text, markup-like or not, is read without a panic, alone and
    /// inside markup.
    #[test]
    fn script_markup_any_input_is_read(s in "[<>/=\"'&#;a-z! \\[\\]-]{0,60}") {
        let _ = read(&s, Into::Page);
        let _ = read(&s, Into::Parsed);
        let _ = super::css::read(&s);
        let closed = format!("<p>{s}<!-- -->\"'></script></style></textarea></title></template></svg></math>--><img src=/x>");
        let _ = read(&closed, Into::Page);
    }
}
