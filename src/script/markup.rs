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

#[cfg(test)]
mod tests {
    use super::loads;

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
}
