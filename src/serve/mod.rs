//! Serve: indexes in, an HTTP server out — a search page, a page view showing each block
//! with the verdict on it, an index view, and the JSON behind each (`/api/search`,
//! `/api/page`, `/api/stats`).
//!
//! axum's router on hyper's HTTP/1.1 connections, on tokio. The accept loop is ours (it is
//! what `axum::serve` does, plus what `axum::serve` has no setting for): a request's head
//! must arrive within [`HEADER_READ_TIMEOUT`] of the connection opening or of the previous
//! answer (so an idle keep-alive connection is closed after that long too), at most
//! [`MAX_CONNECTIONS`] connections are open at once (the next ones are answered 503 and
//! closed), and a connection is closed after [`CONNECTION_LIFETIME`]. The work on an index
//! (search, reading a page's record again) runs on tokio's blocking pool, so a slow client
//! or a slow page view does not hold up other requests; at most [`MAX_PAGE_VIEWS`] page
//! views are worked on at once.
//!
//! Every answer carries a Content-Security-Policy (no script, style from `/style.css` only,
//! no framing), `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` and
//! `Referrer-Policy: no-referrer`. A request whose `Host` is not a loopback name, the address
//! listened on or a name given with `--allow-host` is refused (403): a page of another site
//! whose name was made to point at 127.0.0.1 (DNS rebinding) cannot read the answers.
//!
//! Everything a request may read is an index ([`LiveCatalog`]: opened again when a build
//! makes a new generation live) or a file an index recorded as a page's source; no request
//! names a file.

mod catalog;
mod chart;
mod connections;
mod guard;
mod html;
mod page_view;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{RawQuery, Request, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::middleware::{Next, from_fn_with_state, map_response};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Serialize;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower::ServiceExt;

pub use catalog::{
    Catalog, CatalogHit, CatalogResults, LiveCatalog, ServedIndex, SiteCount, SiteText,
    shown_source,
};
pub use guard::AllowedHosts;
pub use html::is_web_url;
pub use page_view::{BlockView, PageView, SourceView};

use connections::{accept, count_signals, grace_over};
use guard::{check_host, security_headers};

use crate::index::IndexError;
use crate::search::{SearchError, SearchRequest};

/// Longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 2048;
/// Largest `offset` accepted.
pub const MAX_OFFSET: usize = 10_000;
/// Largest `limit` of `/api/search`.
pub const MAX_LIMIT: usize = 100;

/// How long a client has to send a request's head (its line and headers), from the moment
/// the connection opens or the previous answer was sent; past it the connection is closed.
/// It bounds idle keep-alive connections too.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections open at once, at most; the next ones are answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 512;
/// How long one connection may stay open; then it is closed after the answer in progress
/// (or [`LAST_ANSWER`] later at the latest).
pub const CONNECTION_LIFETIME: Duration = Duration::from_secs(300);
/// How long an answer in progress may take to finish once its connection is to close.
const LAST_ANSWER: Duration = Duration::from_secs(10);
/// Page views worked on at once, at most (each reads and segments a page again: up to tens
/// of MB for an 8 MiB page); the next ones wait [`PAGE_VIEW_WAIT`], then get 503.
pub const MAX_PAGE_VIEWS: usize = 4;
/// Text of a page whose view hands freed memory back to the system once made.
const BIG_PAGE_TEXT_BYTES: u64 = 1 << 20;
/// How long a page view waits for its turn.
pub const PAGE_VIEW_WAIT: Duration = Duration::from_secs(5);

/// The Content-Security-Policy of every answer: nothing but the style sheet and the pages'
/// own images (the chart is inline SVG) loads, no script runs, no page frames this one.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Why the server could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// No index was given.
    #[error("no index to serve")]
    NoIndex,
    /// An index could not be opened.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// An index could not be read.
    #[error("reading the index failed: {0}")]
    Search(tantivy::TantivyError),
    /// A search failed.
    #[error(transparent)]
    Query(#[from] crate::search::SearchError),
    /// The address could not be listened on.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        /// The address.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The server stopped on an error.
    #[error("the server failed: {0}")]
    Io(#[from] std::io::Error),
}

/// How long requests in progress when the server is told to stop may take to finish. Without
/// a bound, a client that sent half a request and waits would hold the server up for ever;
/// connections with no request in progress (idle, or halfway through sending one) are closed
/// at once, and with none in progress the server stops at once.
const STOP_GRACE: Duration = Duration::from_millis(800);

/// How the server is reached.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The address to listen on (port 0: any free port).
    pub listen: SocketAddr,
    /// Host names (or addresses) answered besides the loopback names and the address
    /// listened on; a port given with one is ignored.
    pub allow_hosts: Vec<String>,
}

/// Serves `catalog` as `options` say until Ctrl-C (or SIGTERM), calling `ready` with the
/// address listened on (the port chosen when `listen` asks for port 0) once requests are
/// accepted.
///
/// On the first signal the server stops accepting connections, closes the ones with no
/// request in progress and lets requests in progress finish, for [`STOP_GRACE`] at most; a
/// second signal stops it at once. Work left on the blocking pool is not waited for.
pub fn serve(
    catalog: LiveCatalog,
    options: &ServeOptions,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    // Searches and page views run on tokio's blocking pool, up to 512 threads; with glibc's
    // default of eight malloc arenas per core each keeps what a page view freed.
    crate::run::allocator::limit_malloc_arenas(cores);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let listen = options.listen;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|source| ServeError::Listen {
                address: listen,
                source,
            })?;
        let signals = count_signals()?;
        let address = listener.local_addr()?;
        let hosts = AllowedHosts::new(address, &options.allow_hosts);
        let app = router(Arc::new(Served::new(catalog)), hosts);
        ready(address);
        tokio::select! {
            () = accept(listener, app, signals.clone()) => {}
            () = grace_over(signals) => {}
        }
        Ok(())
    });
    runtime.shutdown_background();
    served
}

/// What the routes share: the catalog, and the turns of page views.
pub struct Served {
    catalog: LiveCatalog,
    page_views: Arc<Semaphore>,
}

impl Served {
    /// Serves `catalog`.
    pub fn new(catalog: LiveCatalog) -> Served {
        Served {
            catalog,
            page_views: Arc::new(Semaphore::new(MAX_PAGE_VIEWS)),
        }
    }
}

/// The routes over `served`, answering requests whose `Host` `hosts` allows.
pub fn router(served: Arc<Served>, hosts: AllowedHosts) -> Router {
    Router::new()
        .route("/", get(search_html))
        .route("/page", get(page_html))
        .route("/stats", get(stats_html))
        .route("/style.css", get(style_sheet))
        .route("/api/search", get(search_json))
        .route("/api/page", get(page_json))
        .route("/api/stats", get(stats_json))
        .fallback(not_found)
        .with_state(served)
        .layer(from_fn_with_state(Arc::new(hosts), check_host))
        .layer(map_response(security_headers))
}

async fn style_sheet() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=3600"),
        ],
        html::STYLE,
    )
        .into_response()
}

/// A request's query parameters, decoded (invalid UTF-8 replaced), the last of a name kept.
struct Params(Vec<(String, String)>);

impl Params {
    fn of(raw: Option<String>) -> Params {
        let raw = raw.unwrap_or_default();
        Params(
            url::form_urlencoded::parse(raw.as_bytes())
                .map(|(name, value)| (name.into_owned(), value.into_owned()))
                .collect(),
        )
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// A number parameter at most `max` (absent: `default`).
    fn number(&self, name: &str, default: usize, max: usize) -> Result<usize, Failure> {
        match self.get(name) {
            None | Some("") => Ok(default),
            Some(text) => match text.parse::<usize>() {
                Ok(value) if value <= max => Ok(value),
                _ => Err(Failure::bad(format!(
                    "{name} must be a whole number from 0 to {max}"
                ))),
            },
        }
    }
}

/// A request that cannot be answered, and how to say so.
#[derive(Debug)]
struct Failure {
    status: StatusCode,
    message: String,
}

impl Failure {
    fn bad(message: impl Into<String>) -> Failure {
        Failure {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    fn not_found(message: impl Into<String>) -> Failure {
        Failure {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    fn busy() -> Failure {
        Failure {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: format!(
                "{MAX_PAGE_VIEWS} page views are being worked on and this one waited {} s for its \
turn; try again soon",
                PAGE_VIEW_WAIT.as_secs()
            ),
        }
    }

    fn internal(error: impl std::fmt::Display) -> Failure {
        Failure {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: error.to_string(),
        }
    }

    fn html(self) -> Response {
        let status = self.status;
        let response = (status, html_response(html::error_page(&self.message))).into_response();
        retry_later(status, response)
    }

    fn json(self) -> Response {
        let status = self.status;
        let body = serde_json::json!({"error": self.message, "status": status.as_u16()});
        retry_later(status, (status, axum::Json(body)).into_response())
    }
}

/// `response` with `Retry-After: 1` when `status` is 503.
fn retry_later(status: StatusCode, mut response: Response) -> Response {
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

fn html_response(body: String) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body)
}

/// Runs `work` on the blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Failure> + Send + 'static,
) -> Result<T, Failure> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(Failure::internal)?
}

/// A search request from the parameters, or why it is not one (`None`: no query).
struct SearchParams {
    query: String,
    site: Option<String>,
    offset: usize,
    limit: usize,
}

impl SearchParams {
    fn of(params: &Params, default_limit: usize) -> Result<Option<SearchParams>, Failure> {
        let query = params.get("q").unwrap_or("").trim().to_string();
        if query.len() > MAX_QUERY_BYTES {
            return Err(Failure::bad(format!(
                "the query is {} bytes long; at most {MAX_QUERY_BYTES} are searched",
                query.len()
            )));
        }
        let offset = params.number("offset", 0, MAX_OFFSET)?;
        let limit = params.number("limit", default_limit, MAX_LIMIT)?;
        if query.is_empty() {
            return Ok(None);
        }
        let site = params
            .get("site")
            .filter(|site| !site.is_empty())
            .map(str::to_string);
        Ok(Some(SearchParams {
            query,
            site,
            offset,
            limit,
        }))
    }

    fn run(self, catalog: &Catalog) -> Result<CatalogResults, Failure> {
        catalog
            .search(&SearchRequest {
                query: &self.query,
                limit: self.limit,
                offset: self.offset,
                site: self.site.as_deref(),
                count_sites: true,
            })
            .map_err(|error| match error {
                // A query search refuses (own*ship, site: without a host) is the asker's to
                // mend.
                ServeError::Query(SearchError::Syntax(_)) => Failure::bad(error.to_string()),
                error => Failure::internal(error),
            })
    }
}

async fn search_html(State(served): State<Arc<Served>>, RawQuery(raw): RawQuery) -> Response {
    let params = Params::of(raw);
    let request = match SearchParams::of(&params, html::HITS_PER_PAGE) {
        Ok(Some(request)) => request,
        Ok(None) => return html_response(html::search_page(None, None)).into_response(),
        Err(failure) => return failure.html(),
    };
    let site = request.site.clone();
    match blocking(move || request.run(&served.catalog.current())).await {
        Ok(results) => {
            html_response(html::search_page(Some(&results), site.as_deref())).into_response()
        }
        Err(failure) => failure.html(),
    }
}

async fn search_json(State(served): State<Arc<Served>>, RawQuery(raw): RawQuery) -> Response {
    let params = Params::of(raw);
    let request = match SearchParams::of(&params, html::HITS_PER_PAGE) {
        Ok(Some(request)) => request,
        Ok(None) => return Failure::bad("no query: give one as ?q=").json(),
        Err(failure) => return failure.json(),
    };
    match blocking(move || request.run(&served.catalog.current())).await {
        Ok(results) => axum::Json(results).into_response(),
        Err(failure) => failure.json(),
    }
}

/// The page view the parameters name.
fn find_page(catalog: &Catalog, params: &Params) -> Result<PageView, Failure> {
    let url = params
        .get("url")
        .filter(|url| !url.is_empty())
        .ok_or_else(|| Failure::bad("no page: give its URL as ?url="))?;
    if url.len() > MAX_QUERY_BYTES {
        return Err(Failure::bad("the URL is too long"));
    }
    let only = match params.get("index") {
        None | Some("") => None,
        Some(_) => Some(params.number("index", 0, catalog.indexes.len().saturating_sub(1))?),
    };
    let page = catalog
        .page(url, only)
        .map_err(Failure::internal)?
        .ok_or_else(|| Failure::not_found(format!("no page with the URL {url} in the index")))?;
    Ok(PageView::of(catalog, page))
}

/// A turn to work on a page view: at most [`MAX_PAGE_VIEWS`] at once, waiting
/// [`PAGE_VIEW_WAIT`] at most.
async fn page_view_turn(served: &Served) -> Result<OwnedSemaphorePermit, Failure> {
    let turn = Arc::clone(&served.page_views).acquire_owned();
    match tokio::time::timeout(PAGE_VIEW_WAIT, turn).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(Failure::busy()),
    }
}

/// The page view the parameters name, made (and `render`ed) on the blocking pool in turn.
async fn page_view<T: Send + 'static>(
    served: Arc<Served>,
    params: Params,
    render: impl FnOnce(PageView) -> T + Send + 'static,
) -> Result<T, Failure> {
    let turn = page_view_turn(&served).await?;
    blocking(move || {
        let view = find_page(&served.catalog.current(), &params);
        let big = view
            .as_ref()
            .is_ok_and(|view| view.kept_text_bytes + view.dropped_text_bytes > BIG_PAGE_TEXT_BYTES);
        let rendered = view.map(render);
        if big {
            // The page's record, its segmentation and its blocks are freed: give the memory
            // back rather than keep it resident (glibc keeps it per arena otherwise).
            crate::run::allocator::release_freed_memory();
        }
        drop(turn);
        rendered
    })
    .await
}

async fn page_html(State(served): State<Arc<Served>>, RawQuery(raw): RawQuery) -> Response {
    let params = Params::of(raw);
    let hide = params.get("hide").is_some_and(|value| value == "1");
    match page_view(served, params, move |view| html::page_view(&view, hide)).await {
        Ok(page) => html_response(page).into_response(),
        Err(failure) => failure.html(),
    }
}

async fn page_json(State(served): State<Arc<Served>>, RawQuery(raw): RawQuery) -> Response {
    let params = Params::of(raw);
    match page_view(served, params, |view| axum::Json(view).into_response()).await {
        Ok(response) => response,
        Err(failure) => failure.json(),
    }
}

async fn stats_html(State(served): State<Arc<Served>>) -> Response {
    match blocking(move || Ok(html::stats_page(&served.catalog.current()))).await {
        Ok(page) => html_response(page).into_response(),
        Err(failure) => failure.html(),
    }
}

/// One index in `/api/stats`.
#[derive(Serialize)]
struct IndexFigures<'a> {
    index: &'a str,
    build: crate::report::BuildSummary,
    stats: &'a crate::index::IndexStats,
    sites: &'a [SiteText],
}

async fn stats_json(State(served): State<Arc<Served>>) -> Response {
    let answer = blocking(move || {
        let catalog = served.catalog.current();
        let figures: Vec<IndexFigures<'_>> = catalog
            .indexes
            .iter()
            .map(|served| IndexFigures {
                index: &served.name,
                build: shown_summary(&served.summary, &served.root),
                stats: &served.stats,
                sites: &served.sites,
            })
            .collect();
        Ok(axum::Json(figures).into_response())
    })
    .await;
    answer.unwrap_or_else(Failure::json)
}

/// `summary` with every path of the machine it names (the command line's, the inputs', the
/// skipped records', the history's runs') shown as [`shown_source`] shows a source: no absolute path.
fn shown_summary(
    summary: &crate::report::BuildSummary,
    root: &std::path::Path,
) -> crate::report::BuildSummary {
    let shown = |text: &str| {
        let path = std::path::Path::new(text);
        if path.is_absolute() {
            shown_source(path, root)
        } else {
            text.to_string()
        }
    };
    let mut summary = summary.clone();
    let absolute: Vec<(String, String)> = summary
        .inputs
        .iter()
        .chain(&summary.command_line)
        .filter(|text| std::path::Path::new(text).is_absolute())
        .map(|text| (text.clone(), shown(text)))
        .collect();
    for text in summary
        .inputs
        .iter_mut()
        .chain(summary.command_line.iter_mut())
    {
        *text = shown(text);
    }
    for skipped in summary
        .skipped_records
        .iter_mut()
        .chain(summary.first_skipped.iter_mut())
    {
        skipped.input = shown(&skipped.input);
    }
    for input in summary
        .history
        .iter_mut()
        .flat_map(|run| run.inputs.iter_mut())
    {
        *input = shown(input);
    }
    for warning in &mut summary.warnings {
        for (path, shown) in &absolute {
            *warning = warning.replace(path.as_str(), shown);
        }
    }
    summary
}

async fn not_found(uri: Uri) -> Response {
    let failure = Failure::not_found(format!("nothing at {}", uri.path()));
    if uri.path().starts_with("/api/") {
        failure.json()
    } else {
        failure.html()
    }
}

/// An index of hand-made pages, for the tests of the catalog, the page view and the HTML.
#[cfg(test)]
pub(crate) mod test_support {
    use std::path::{Path, PathBuf};

    use crate::detect::DetectorKind;
    use crate::lifecycle::build_index;
    use crate::run::test_support::write_warc;
    use crate::run::{BuildOptions, NoProgress};

    /// The index `name` in `dir`, built by `detector` from `records` (written to
    /// `<name>.warc` beside it); returns the index and the input.
    pub(crate) fn built_index(
        dir: &Path,
        name: &str,
        records: &[Vec<u8>],
        detector: DetectorKind,
    ) -> (PathBuf, PathBuf) {
        let input = write_warc(dir, &format!("{name}.warc"), records);
        let index = dir.join(name);
        let options = BuildOptions {
            detector,
            threads: 2,
            ..BuildOptions::default()
        };
        build_index(std::slice::from_ref(&input), &index, &options, &NoProgress)
            .expect("the test index builds");
        (index, input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(raw: &str) -> Params {
        Params::of(Some(raw.to_string()))
    }

    #[test]
    fn parameters_are_decoded_and_the_last_of_a_name_counts() {
        let given = params("q=first&q=%C3%A9t%C3%A9+d%27hiver&site=&bad=%FF");
        assert_eq!(given.get("q"), Some("été d'hiver"));
        assert_eq!(given.get("site"), Some(""));
        assert_eq!(given.get("bad"), Some("\u{fffd}"));
        assert_eq!(given.get("offset"), None);
        assert_eq!(Params::of(None).get("q"), None);
    }

    #[test]
    fn hosts_are_loopback_names_the_address_listened_on_and_those_allowed() {
        let on = |address: &str, more: &[&str]| {
            let more: Vec<String> = more.iter().map(|name| name.to_string()).collect();
            AllowedHosts::new(address.parse().unwrap(), &more)
        };
        let loopback = on("127.0.0.1:8080", &[]);
        for host in [
            "localhost:8080",
            "LOCALHOST",
            "127.0.0.1:8080",
            "[::1]:8080",
            "localhost.:1",
        ] {
            assert!(loopback.allows(host), "{host}");
        }
        for host in [
            "evil.example:8080",
            "evil.example",
            "127.0.0.2:8080",
            "localhost:x",
            "localhost:99999",
            "",
            ":8080",
            "[::1",
            "localhost.evil.example",
            "0.0.0.0:8080",
        ] {
            assert!(!loopback.allows(host), "{host}");
        }
        let lan = on(
            "192.168.1.5:8080",
            &["Search.Example", "10.0.0.1:443", "::2"],
        );
        for host in [
            "192.168.1.5:8080",
            "search.example",
            "search.example:443",
            "10.0.0.1",
            "[::2]:80",
        ] {
            assert!(lan.allows(host), "{host}");
        }
        assert!(!lan.allows("evil.example"));
        let any = on("[::]:8080", &[]);
        assert!(!any.allows("[::]:8080") && any.allows("[::1]:8080"));
    }

    #[test]
    fn numbers_are_whole_and_bounded() {
        let given = params("a=7&b=&c=11&d=-1&e=x");
        assert_eq!(given.number("a", 3, 10).unwrap(), 7);
        assert_eq!(given.number("b", 3, 10).unwrap(), 3);
        assert_eq!(given.number("absent", 3, 10).unwrap(), 3);
        for name in ["c", "d", "e"] {
            let failure = given.number(name, 3, 10).unwrap_err();
            assert_eq!(failure.status, StatusCode::BAD_REQUEST);
            assert_eq!(
                failure.message,
                format!("{name} must be a whole number from 0 to 10")
            );
        }
    }

    #[test]
    fn a_search_needs_a_query_of_bounded_length() {
        let none = SearchParams::of(&params("q=++&site=x"), 10).unwrap();
        assert!(none.is_none(), "blank: no search");
        let asked = SearchParams::of(&params("q=+rust+book+&site=&offset=20"), 10)
            .unwrap()
            .unwrap();
        assert_eq!(asked.query, "rust book");
        assert_eq!((asked.site, asked.offset, asked.limit), (None, 20, 10));
        let limited = SearchParams::of(&params("q=a&site=docs.rs&limit=100"), 10)
            .unwrap()
            .unwrap();
        assert_eq!(
            (limited.site.as_deref(), limited.limit),
            (Some("docs.rs"), 100)
        );

        let longest = "a".repeat(MAX_QUERY_BYTES);
        assert!(SearchParams::of(&params(&format!("q={longest}")), 10).is_ok());
        let too_long = SearchParams::of(&params(&format!("q={longest}a")), 10);
        let failure = too_long.err().expect("refused");
        assert_eq!(failure.status, StatusCode::BAD_REQUEST);
        assert!(
            failure.message.contains("2049 bytes"),
            "{}",
            failure.message
        );
        for bad in ["q=a&limit=101", "q=a&offset=10001"] {
            assert!(SearchParams::of(&params(bad), 10).is_err(), "{bad}");
        }
    }
}
