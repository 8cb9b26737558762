//! Markup a script writes into the page (`innerHTML`, `document.write`,
//! `insertAdjacentHTML`, `srcdoc`): how many loads it can start. This reads
//! only markup whose text the analysis knows; markup built at run time is
//! opaque to it, and the caller blocks it.
//!
//! The count errs high: every tag that can load something counts once, with
//! or without its URL attribute (an `<img>` without `src` loads nothing, but
//! telling would need an HTML parser for little gain), and so does every CSS
//! `url(`, `@import` and `background=` attribute.

/// Tags that load a resource, open a frame or can navigate when inserted.
const LOADING_TAGS: &[&str] = &[
    "img", "image", "script", "iframe", "frame", "link", "video", "audio", "source", "track",
    "object", "embed", "form", "portal", "use", "picture",
];

/// How many loads `html` can start once inserted into the page.
pub(super) fn loads(html: &str) -> usize {
    let lower = html.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while let Some(off) = lower[i..].find('<') {
        let start = i + off + 1;
        let mut end = start;
        while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'-') {
            end += 1;
        }
        let name = &lower[start..end];
        let tag_end = lower[end..].find('>').map_or(lower.len(), |e| end + e);
        let attrs = &lower[end..tag_end];
        if LOADING_TAGS.contains(&name)
            || (name == "input" && attrs.contains("src"))
            || (name == "meta" && attrs.contains("refresh"))
        {
            count += 1;
        }
        i = end.max(start);
    }
    count
        + lower.matches("url(").count()
        + lower.matches("@import").count()
        + lower.matches("background=").count()
}

/// True if `html` runs code once inserted: an inline event handler
/// (`onerror=`), a `javascript:` URL, or an inline `<script>` (which runs
/// when written by `document.write`). The caller treats such markup as
/// opaque.
pub(super) fn runs_code(html: &str) -> bool {
    let lower = html.to_ascii_lowercase();
    if lower.contains("javascript:") {
        return true;
    }
    let b = lower.as_bytes();
    for (i, _) in lower.match_indices("on") {
        let before = i.checked_sub(1).map(|j| b[j]);
        let starts_attribute = matches!(before, Some(c) if c.is_ascii_whitespace() || c == b'/' || c == b'"' || c == b'\'');
        let mut end = i + 2;
        while end < b.len() && b[end].is_ascii_alphabetic() {
            end += 1;
        }
        while end < b.len() && b[end].is_ascii_whitespace() {
            end += 1;
        }
        if starts_attribute && end > i + 2 && b.get(end) == Some(&b'=') {
            return true;
        }
    }
    let mut rest = lower.as_str();
    while let Some(open) = rest.find("<script") {
        let after = &rest[open..];
        let Some(gt) = after.find('>') else {
            return true;
        };
        let body = &after[gt + 1..];
        let end = body.find("</script").unwrap_or(body.len());
        if !body[..end].trim().is_empty() {
            return true;
        }
        rest = &body[end..];
    }
    false
}

/// How many loads `css` (a style, a rule, a sheet) can start: one per
/// `url(` and `@import`.
pub(super) fn css_loads(css: &str) -> usize {
    // Neither word overlaps itself, so counting every place either starts,
    // ignoring ASCII case, counts the matches in the lowercased text without
    // making it (this runs on every argument of a call the analysis does
    // not model).
    let count = |word: &[u8]| {
        css.as_bytes()
            .windows(word.len())
            .filter(|w| w.eq_ignore_ascii_case(word))
            .count()
    };
    count(b"url(") + count(b"@import")
}

#[cfg(test)]
mod tests {
    use super::{loads, runs_code};

    #[test]
    fn script_markup_counts_each_loading_tag() {
        assert_eq!(loads("<img src=a><img src=b>"), 2);
        assert_eq!(loads("<IMG SRC=a>"), 1);
        assert_eq!(loads("<script src=x></script>"), 1);
        assert_eq!(loads("<p>hi</p><b>there</b>"), 0);
        assert_eq!(loads(""), 0);
    }

    #[test]
    fn script_markup_tags_are_matched_by_whole_name() {
        assert_eq!(loads("<imgx><images><a href=x>"), 0);
        assert_eq!(loads("<input type=text><input type=image src=x>"), 1);
        assert_eq!(loads("<meta http-equiv=refresh content='0;url=x'>"), 1);
    }

    #[test]
    fn script_markup_counts_css_loads() {
        assert_eq!(loads("<div style=\"background:url(x)\"></div>"), 1);
        assert_eq!(loads("<style>@import 'a.css';</style>"), 1);
    }

    #[test]
    fn script_markup_inline_handlers_urls_and_scripts_run_code() {
        assert!(runs_code("<img src=x onerror=fetch(a)>"));
        assert!(runs_code("<img src=x ONLOAD = \"f()\">"));
        assert!(runs_code("<a href='javascript:fetch(a)'>x</a>"));
        assert!(runs_code("<script>fetch(a)</script>"));
        assert!(!runs_code("<script src=x></script><p>only one</p>"));
        assert!(!runs_code("<img src=icon.png alt=\"on=off\"><b>done</b>"));
    }
}
