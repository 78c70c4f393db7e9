//! Guard: a request in, answered only when its `Host` is one this server answers to (DNS
//! rebinding); an answer in, out with the security headers every answer carries.

use super::*;

/// The host names a server answers to.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    names: Vec<String>,
}

impl AllowedHosts {
    /// The loopback names, the address `listening` (unless it is 0.0.0.0 or ::) and `more`.
    pub fn new(listening: SocketAddr, more: &[String]) -> AllowedHosts {
        let mut names: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
            .iter()
            .map(|name| name.to_string())
            .collect();
        if !listening.ip().is_unspecified() {
            names.push(host_name(listening.ip()));
        }
        for name in more {
            let name = name.trim().to_ascii_lowercase();
            let name = match name.parse::<IpAddr>() {
                Ok(ip) => host_name(ip),
                Err(_) => split_port(&name).map_or(name.clone(), |(name, _)| name.to_string()),
            };
            if !name.is_empty() {
                names.push(name);
            }
        }
        AllowedHosts { names }
    }

    /// Whether a request whose `Host` is `host` is answered.
    pub fn allows(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let Some((name, _)) = split_port(&host) else {
            return false;
        };
        let name = name.strip_suffix('.').unwrap_or(name);
        self.names.iter().any(|allowed| allowed == name)
    }
}

/// An address as a `Host` header names it (`[::1]` for IPv6).
fn host_name(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    }
}

/// `host` as name and port (`None`: not a host and port).
fn split_port(host: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let (name, rest) = host.split_at(end + 1);
        match rest {
            "" => (name, None),
            rest => (name, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let port = match port {
        None => None,
        Some(port) => Some(port.parse::<u16>().ok()?),
    };
    (!name.is_empty()).then_some((name, port))
}

/// Refuses a request whose `Host` (or the authority of its target) is not allowed.
pub(super) async fn check_host(
    State(hosts): State<Arc<AllowedHosts>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .uri()
        .authority()
        .map(|authority| authority.as_str().to_string())
        .or_else(|| {
            request
                .headers()
                .get(header::HOST)
                .map(|host| String::from_utf8_lossy(host.as_bytes()).into_owned())
        });
    match host {
        Some(host) if hosts.allows(&host) => next.run(request).await,
        Some(host) => {
            let shown: String = host.chars().filter(|c| !c.is_control()).take(100).collect();
            (
                StatusCode::FORBIDDEN,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                format!(
                    "this server does not answer to the host {shown:?}; start it with \
--allow-host NAME to answer to another name\n"
                ),
            )
                .into_response()
        }
        None => (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "a Host header is needed\n",
        )
            .into_response(),
    }
}

/// The headers every answer carries.
pub(super) async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}
