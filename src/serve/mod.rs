//! Serve: indexes in, an HTTP server out — a search page, a page view showing each block
//! with the verdict on it, an index view, and the JSON behind each (`/api/search`,
//! `/api/page`, `/api/stats`).
//!
//! axum on tokio: a request is parsed and answered on the runtime's threads, and the work
//! on an index (search, reading a page's record again) runs on tokio's blocking pool, so a
//! slow client or a slow page view does not hold up other requests. Everything a request may
//! read is an index opened at start ([`Catalog`]) or a file an index recorded as a page's
//! source; no request names a file.

mod catalog;
mod chart;
mod html;
mod page_view;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;

pub use catalog::{Catalog, CatalogHit, CatalogResults, ServedIndex, SiteCount, SiteText};
pub use page_view::{BlockView, PageView, SourceView};

use crate::index::IndexError;
use crate::search::{SearchError, SearchRequest};

/// Longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 2048;
/// Largest `offset` accepted.
pub const MAX_OFFSET: usize = 10_000;
/// Largest `limit` of `/api/search`.
pub const MAX_LIMIT: usize = 100;

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
/// with no request in progress the server stops at once, without waiting for this.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// Serves `catalog` on `listen` until Ctrl-C (or SIGTERM), calling `ready` with the address
/// listened on (the port chosen when `listen` asks for port 0) once requests are accepted.
///
/// On the first signal the server stops accepting connections, closes the idle ones and lets
/// requests in progress finish, for [`STOP_GRACE`] at most; a second signal stops it at once.
/// Work left on the blocking pool is not waited for.
pub fn serve(
    catalog: Catalog,
    listen: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|source| ServeError::Listen {
                address: listen,
                source,
            })?;
        let signals = count_signals()?;
        ready(listener.local_addr()?);
        let server = axum::serve(listener, router(Arc::new(catalog)))
            .with_graceful_shutdown(signalled(signals.clone(), 1));
        tokio::select! {
            result = server => result?,
            () = grace_over(signals) => {}
        }
        Ok(())
    });
    runtime.shutdown_background();
    served
}

/// How many times Ctrl-C or SIGTERM has come since it was called (the handlers are in place
/// when it returns).
fn count_signals() -> Result<tokio::sync::watch::Receiver<u32>, ServeError> {
    let (count, counted) = tokio::sync::watch::channel(0);
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
                count.send_modify(|signals| *signals += 1);
            }
        });
    }
    #[cfg(not(unix))]
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            count.send_modify(|signals| *signals += 1);
        }
    });
    Ok(counted)
}

/// Resolves once `count` signals have come.
async fn signalled(mut signals: tokio::sync::watch::Receiver<u32>, count: u32) {
    let _ = signals.wait_for(|&signals| signals >= count).await;
}

/// Resolves [`STOP_GRACE`] after the first signal, or at the second.
async fn grace_over(signals: tokio::sync::watch::Receiver<u32>) {
    signalled(signals.clone(), 1).await;
    tokio::select! {
        () = tokio::time::sleep(STOP_GRACE) => {}
        () = signalled(signals, 2) => {}
    }
}

/// The routes over `catalog`.
pub fn router(catalog: Arc<Catalog>) -> Router {
    Router::new()
        .route("/", get(search_html))
        .route("/page", get(page_html))
        .route("/stats", get(stats_html))
        .route("/api/search", get(search_json))
        .route("/api/page", get(page_json))
        .route("/api/stats", get(stats_json))
        .fallback(not_found)
        .with_state(catalog)
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

    fn internal(error: impl std::fmt::Display) -> Failure {
        Failure {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: error.to_string(),
        }
    }

    fn html(self) -> Response {
        (self.status, html_response(html::error_page(&self.message))).into_response()
    }

    fn json(self) -> Response {
        let body = serde_json::json!({"error": self.message, "status": self.status.as_u16()});
        (self.status, axum::Json(body)).into_response()
    }
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

async fn search_html(State(catalog): State<Arc<Catalog>>, RawQuery(raw): RawQuery) -> Response {
    let params = Params::of(raw);
    let request = match SearchParams::of(&params, html::HITS_PER_PAGE) {
        Ok(Some(request)) => request,
        Ok(None) => return html_response(html::search_page(None, None)).into_response(),
        Err(failure) => return failure.html(),
    };
    let site = request.site.clone();
    match blocking(move || request.run(&catalog)).await {
        Ok(results) => {
            html_response(html::search_page(Some(&results), site.as_deref())).into_response()
        }
        Err(failure) => failure.html(),
    }
}

async fn search_json(State(catalog): State<Arc<Catalog>>, RawQuery(raw): RawQuery) -> Response {
    let params = Params::of(raw);
    let request = match SearchParams::of(&params, html::HITS_PER_PAGE) {
        Ok(Some(request)) => request,
        Ok(None) => return Failure::bad("no query: give one as ?q=").json(),
        Err(failure) => return failure.json(),
    };
    match blocking(move || request.run(&catalog)).await {
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

async fn page_html(State(catalog): State<Arc<Catalog>>, RawQuery(raw): RawQuery) -> Response {
    let params = Params::of(raw);
    let hide = params.get("hide").is_some_and(|value| value == "1");
    match blocking(move || find_page(&catalog, &params)).await {
        Ok(view) => html_response(html::page_view(&view, hide)).into_response(),
        Err(failure) => failure.html(),
    }
}

async fn page_json(State(catalog): State<Arc<Catalog>>, RawQuery(raw): RawQuery) -> Response {
    let params = Params::of(raw);
    match blocking(move || find_page(&catalog, &params)).await {
        Ok(view) => axum::Json(view).into_response(),
        Err(failure) => failure.json(),
    }
}

async fn stats_html(State(catalog): State<Arc<Catalog>>) -> Response {
    match blocking(move || Ok(html::stats_page(&catalog))).await {
        Ok(page) => html_response(page).into_response(),
        Err(failure) => failure.html(),
    }
}

/// One index in `/api/stats`.
#[derive(Serialize)]
struct IndexFigures<'a> {
    index: &'a str,
    build: &'a crate::run::BuildSummary,
    stats: &'a crate::index::IndexStats,
    sites: &'a [SiteText],
}

async fn stats_json(State(catalog): State<Arc<Catalog>>) -> Response {
    let figures: Vec<IndexFigures<'_>> = catalog
        .indexes
        .iter()
        .map(|served| IndexFigures {
            index: &served.name,
            build: &served.summary,
            stats: &served.stats,
            sites: &served.sites,
        })
        .collect();
    axum::Json(figures).into_response()
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
    use crate::run::test_support::write_warc;
    use crate::run::{BuildOptions, NoProgress, build_index};

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
