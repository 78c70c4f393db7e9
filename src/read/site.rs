//! The site of a URL: the unit whose pages share a template.

/// Site of a URL: its host, lower-cased; for a URL without a host (`file:`), `"local"`.
///
/// URLs the `url` crate rejects (a space in the host, say) are split by hand:
/// `scheme://[user@]host[:port]/...`.
pub fn site_of(url: &str) -> String {
    if let Ok(parsed) = url::Url::parse(url.trim()) {
        return match parsed.host_str() {
            Some(host) if !host.is_empty() => host.to_ascii_lowercase(),
            _ => LOCAL.to_string(),
        };
    }
    manual_host(url).unwrap_or_else(|| LOCAL.to_string())
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
    fn unparsable_urls_are_split_by_hand() {
        assert_eq!(site_of("http://bad host.Example/x y"), "bad host.example");
        assert_eq!(site_of("http://a%zz.example:99/"), "a%zz.example");
        assert_eq!(site_of("http://[::1]:80/"), "[::1]");
        assert_eq!(site_of("http://:8080/"), "local");
    }
}
