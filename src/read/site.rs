//! The site of a URL: the unit whose pages share a template.

use std::borrow::Cow;

use url::Url;

/// Site of a URL: its host, lower-cased; for a URL without a host (`file:`), `"local"`.
///
/// A web archive's replay URL names the page it replays after a capture timestamp
/// (`https://web.archive.org/web/20120216182711/http://www.stol.it/...`, the shape the Wayback
/// Machine, pywb and OpenWayback share); its site is the replayed page's, since that page
/// carries its own site's template, not the archive's. A replay of a replay is followed
/// [`REPLAYS_FOLLOWED`] deep.
///
/// URLs the `url` crate rejects (a space in the host, say) are split by hand:
/// `scheme://[user@]host[:port]/...`.
pub fn site_of(url: &str) -> String {
    site_following_replays(url, REPLAYS_FOLLOWED)
}

/// [`site_of`] of a URL already parsed, borrowed from it unless a replay names another site
/// or the host needs lower-casing.
pub fn site_of_url(url: &Url) -> Cow<'_, str> {
    parsed_site(url, REPLAYS_FOLLOWED)
}

/// How many replay URLs nested in one another [`site_of`] follows (a hostile URL may nest
/// thousands).
const REPLAYS_FOLLOWED: usize = 4;

fn site_following_replays(url: &str, replays: usize) -> String {
    match Url::parse(url.trim()) {
        Ok(parsed) => parsed_site(&parsed, replays).into_owned(),
        Err(_) => manual_host(url).unwrap_or_else(|| LOCAL.to_string()),
    }
}

fn parsed_site(parsed: &Url, replays: usize) -> Cow<'_, str> {
    if replays > 0
        && let Some(replayed) = replayed_url(parsed.path())
    {
        let site = site_following_replays(&replayed, replays - 1);
        if site != LOCAL {
            return Cow::Owned(site);
        }
    }
    match parsed.host_str() {
        Some(host) if host.bytes().any(|b| b.is_ascii_uppercase()) => {
            Cow::Owned(host.to_ascii_lowercase())
        }
        Some(host) if !host.is_empty() => Cow::Borrowed(host),
        _ => Cow::Borrowed(LOCAL),
    }
}

/// The URL a replay path names, if it is one: a path segment of 8 to 14 digits (a capture
/// timestamp, `YYYYMMDD[hhmmss]`), optionally with a two-letter replay modifier (`id_`,
/// `im_`, …), followed by an absolute URL (`http://` or `https://`, or `http:/` as some
/// servers collapse it). A full 14-digit timestamp may also be followed by a URL without its
/// scheme (`/web/20130307194448/the-pain.net/...`) when it starts with a host (dotted, its
/// last label letters) and a `/`: `/posts/20160214120000/article.html` is not a replay.
/// The archive's own pages (`/web/*/...` calendars, searches) are not replays.
fn replayed_url(path: &str) -> Option<String> {
    let mut rest = path;
    while let Some(after_slash) = rest.strip_prefix('/') {
        let (segment, tail) = after_slash.split_once('/').unwrap_or((after_slash, ""));
        if let Some(digits) = timestamp_digits(segment) {
            return url_after_timestamp(tail, digits);
        }
        rest = &after_slash[segment.len()..];
    }
    None
}

/// How many digits `segment` has when it is a capture timestamp, with or without a replay
/// modifier.
fn timestamp_digits(segment: &str) -> Option<usize> {
    let digits = segment.bytes().take_while(u8::is_ascii_digit).count();
    let modifier = &segment.as_bytes()[digits..];
    let modifier_ok = match modifier {
        [] => true,
        [a, b, b'_'] => a.is_ascii_lowercase() && b.is_ascii_lowercase(),
        _ => false,
    };
    ((8..=14).contains(&digits) && modifier_ok).then_some(digits)
}

fn url_after_timestamp(tail: &str, digits: usize) -> Option<String> {
    for scheme in ["http:", "https:"] {
        let Some(after_scheme) = strip_prefix_ignore_case(tail, scheme) else {
            continue;
        };
        let after_slashes = after_scheme.trim_start_matches('/');
        if after_slashes.len() == after_scheme.len() {
            return None;
        }
        return Some(format!("{scheme}//{after_slashes}"));
    }
    let (host, _) = tail.split_once('/')?;
    let top_label = host.rsplit_once('.').map_or("", |(_, top)| top);
    let dotted_host = !host.starts_with('.')
        && top_label.len() >= 2
        && top_label.bytes().all(|b| b.is_ascii_alphabetic())
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'));
    (digits == 14 && dotted_host).then(|| format!("http://{tail}"))
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// The site of URLs without a host.
const LOCAL: &str = "local";

/// The host of `scheme://[user@]host[:port]/...`, found without validating anything.
fn manual_host(url: &str) -> Option<String> {
    let (_, after_scheme) = url.trim().split_once("://")?;
    let authority = after_scheme
        .split(['/', '?', '#', '\\'])
        .next()
        .unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host_port.starts_with('[') {
        // IPv6 literal: keep the brackets, drop the port.
        host_port
            .find(']')
            .map_or(host_port, |end| &host_port[..=end])
    } else {
        host_port.split(':').next().unwrap_or_default()
    };
    let host = host.trim().trim_end_matches('.').to_lowercase();
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_is_lower_cased() {
        assert_eq!(
            site_of("http://WWW.Example.COM:8080/a/b?c#d"),
            "www.example.com"
        );
        assert_eq!(site_of("https://user:pw@docs.rs/"), "docs.rs");
    }

    #[test]
    fn urls_without_host_are_local() {
        assert_eq!(site_of("file:///home/me/page.html"), "local");
        assert_eq!(site_of("file:///example with spaces.png"), "local");
        assert_eq!(site_of("not a url"), "local");
        assert_eq!(site_of(""), "local");
    }

    #[test]
    fn spaces_in_path_keep_the_host() {
        assert_eq!(site_of("http://example.com/a page.html"), "example.com");
    }

    #[test]
    fn a_replay_url_is_the_replayed_page_s_site() {
        let cases = [
            (
                "https://web.archive.org/web/20120216182711/http://www.stol.it/Artikel/x",
                "www.stol.it",
            ),
            (
                "https://web.archive.org/web/20181206101316/https://Swap-Stop.org/de/a?b=c",
                "swap-stop.org",
            ),
            (
                "https://web.archive.org/web/20130307194448/the-pain.net/2008/05/x.html",
                "the-pain.net",
            ),
            (
                "https://web.archive.org/web/20120216182711im_/http://images.example.it/a.gif",
                "images.example.it",
            ),
            (
                "http://localhost:8080/my-collection/20190101000000/http:/example.org/",
                "example.org",
            ),
            (
                "https://wayback.archive-it.org/1234/20190101/https://www.example.edu/news",
                "www.example.edu",
            ),
            (
                "https://web.archive.org/web/20200101000000/https://web.archive.org/web/20100101000000/http://inner.example/",
                "inner.example",
            ),
        ];
        for (url, site) in cases {
            assert_eq!(site_of(url), site, "{url}");
        }
    }

    #[test]
    fn a_parsed_url_has_the_site_of_its_text() {
        for url in [
            "http://WWW.Example.COM:8080/a/b?c#d",
            "https://docs.rs/",
            "https://web.archive.org/web/20120216182711/http://WWW.stol.it/Artikel/x",
            "https://web.archive.org/web/*/http://www.stol.it/*",
            "https://web.archive.org/web/20120216182711/file:///x",
        ] {
            let parsed = Url::parse(url).unwrap();
            assert_eq!(site_of_url(&parsed), site_of(url), "{url}");
        }
    }

    #[test]
    fn replays_are_followed_a_bounded_depth() {
        let mut url = "http://deep.example/".to_string();
        for _ in 0..5_000 {
            url = format!("https://web.archive.org/web/20200101000000/{url}");
        }
        assert_eq!(site_of(&url), "web.archive.org");
    }

    #[test]
    fn paths_that_only_look_like_replays_keep_their_host() {
        let cases = [
            // The archive's own pages: calendars, searches, the front page.
            "https://web.archive.org/web/*/http://www.stol.it/*",
            "https://web.archive.org/web/",
            "https://web.archive.org/",
            // A dated path without a URL after it.
            "https://web.archive.org/web/20120216182711/",
            "https://web.archive.org/web/20120216182711/about",
            // A short timestamp needs a scheme before a bare host.
            "https://web.archive.org/web/20120216/example.org/",
            // Dates and numbers in ordinary paths.
            "https://web.archive.org/2012/05/example.org/",
            "https://web.archive.org/orders/123456789012345/http://example.org/",
            "https://web.archive.org/files/20120216182711abc/http://example.org/",
            "https://web.archive.org/web/20120216182711/http:example.org/",
            // A 14-digit id followed by a file name, or by a dotted name that is no host.
            "https://web.archive.org/posts/20160214120000/article.html",
            "https://web.archive.org/posts/20160214120000/v1.2/notes",
        ];
        for url in cases {
            assert_eq!(site_of(url), "web.archive.org", "{url}");
        }
        assert_eq!(
            site_of("https://web.archive.org/web/20120216182711/file:///x"),
            "web.archive.org"
        );
    }

    #[test]
    fn unparsable_urls_are_split_by_hand() {
        assert_eq!(site_of("http://bad host.Example/x y"), "bad host.example");
        assert_eq!(site_of("http://a%zz.example:99/"), "a%zz.example");
        assert_eq!(site_of("http://[::1]:80/"), "[::1]");
        assert_eq!(site_of("http://:8080/"), "local");
    }
}
