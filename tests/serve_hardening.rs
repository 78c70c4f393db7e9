//! `indexer serve` against hostile crawls and hostile clients (issue 30): URLs of other
//! schemes than http(s) are never links, every answer carries the security headers, a
//! request for another host is refused, no absolute path of the machine is shown, a new
//! generation of an index is served without a restart, slow clients are cut off and do not
//! hold up a stop, and page views are taken in turns.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;
use common::server::{Reply, Server};
use common::{html_response_record, indexer, ok};

const JAVASCRIPT: &str = "javascript:alert(document.domain)//http://a.example/";
const DATA: &str = "data:text/html,<script>alert(document.domain)</script>";
const WEB: &str = "http://ok.example/zebra";

/// A page about `word`, numbered `n`.
fn page(word: &str, n: usize) -> String {
    format!(
        "<html><head><title>{word} {n}</title></head><body><h1>{word} {n}</h1>\
         <p>The {word} number {n} crosses the road with plenty of words to keep.</p></body></html>"
    )
}

/// `inputs/NAME.warc` in `dir`, of `pages` (URL, HTML).
fn warc(dir: &Path, name: &str, pages: &[(String, String)]) -> PathBuf {
    let inputs = dir.join("inputs");
    std::fs::create_dir_all(&inputs).unwrap();
    let path = inputs.join(format!("{name}.warc"));
    let mut file = std::fs::File::create(&path).unwrap();
    for (url, html) in pages {
        file.write_all(&html_response_record(url, None, html))
            .unwrap();
    }
    path
}

/// Builds `index` from `input`.
fn build(index: &Path, input: &Path) {
    ok(indexer(
        &[
            "build",
            "-q",
            "--detector",
            "none",
            "--index",
            index.to_str().unwrap(),
        ],
        &[input],
    ));
}

/// An index in `dir` of three pages about zebras: at a `javascript:` URL, at a `data:` URL
/// and at an http one.
fn hostile_index(dir: &Path) -> PathBuf {
    let pages: Vec<(String, String)> = [JAVASCRIPT, DATA, WEB]
        .iter()
        .enumerate()
        .map(|(n, url)| (url.to_string(), page("zebra", n)))
        .collect();
    let input = warc(dir, "hostile", &pages);
    let index = dir.join("index");
    build(&index, &input);
    index
}

fn encoded(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// The `href` values of `html`.
fn links(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].to_string())
        .collect()
}

#[test]
fn urls_of_other_schemes_than_http_are_shown_never_linked() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&[&hostile_index(dir.path())]);
    let results = server.get("/?q=zebra");
    assert_eq!(results.status, 200);
    assert_eq!(results.body.matches("<div class=hit>").count(), 3);
    let hrefs = links(&results.body);
    for href in &hrefs {
        assert!(
            href.starts_with('/') || href.starts_with("http://") || href.starts_with("https://"),
            "a link to {href}: {}",
            results.body
        );
    }
    // The http page is linked; the others are shown as text.
    assert!(hrefs.iter().any(|href| href == WEB), "{hrefs:?}");
    assert!(
        results
            .body
            .contains("javascript:alert(document.domain)//http://a.example/")
    );
    assert_eq!(results.body.matches("class=unlinked").count(), 2);
    for url in [JAVASCRIPT, DATA] {
        let view = server.get(&format!("/page?url={}", encoded(url)));
        assert_eq!(view.status, 200, "{}", view.body);
        for href in links(&view.body) {
            assert!(href.starts_with('/'), "a link to {href}: {}", view.body);
        }
        assert!(view.body.contains("class=unlinked"), "{}", view.body);
    }
    let view = server.get(&format!("/page?url={}", encoded(WEB)));
    assert!(links(&view.body).contains(&WEB.to_string()));
}

/// The headers every answer must carry.
fn assert_hardened(reply: &Reply, what: &str) {
    let policy = reply
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no Content-Security-Policy"));
    for part in [
        "default-src 'none'",
        "frame-ancestors 'none'",
        "style-src 'self'",
    ] {
        assert!(policy.contains(part), "{what}: {policy}");
    }
    assert!(!policy.contains("unsafe"), "{what}: {policy}");
    assert!(
        !policy.contains("script-src"),
        "{what}: no script at all: {policy}"
    );
    assert_eq!(
        reply.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(reply.header("x-frame-options"), Some("DENY"), "{what}");
    assert_eq!(
        reply.header("referrer-policy"),
        Some("no-referrer"),
        "{what}"
    );
}

#[test]
fn every_answer_carries_the_security_headers_and_pages_hold_no_inline_code() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&[&hostile_index(dir.path())]);
    let web = encoded(WEB);
    for (path, status) in [
        ("/".to_string(), 200),
        ("/?q=zebra".to_string(), 200),
        (format!("/page?url={web}"), 200),
        ("/stats".to_string(), 200),
        ("/style.css".to_string(), 200),
        ("/api/search?q=zebra".to_string(), 200),
        (format!("/api/page?url={web}"), 200),
        ("/api/stats".to_string(), 200),
        ("/api/search?q=".to_string(), 400),
        ("/page?url=http://nowhere.example/".to_string(), 404),
        ("/nothing".to_string(), 404),
    ] {
        let reply = server.get(&path);
        assert_eq!(reply.status, status, "{path}");
        assert_hardened(&reply, &path);
        if reply
            .header("content-type")
            .unwrap()
            .starts_with("text/html")
        {
            for inline in [
                "<script",
                "<style",
                " style=",
                "href=\"javascript:",
                "href=\"data:",
            ] {
                assert!(
                    !reply.body.contains(inline),
                    "{path}: {inline}: {}",
                    reply.body
                );
            }
            assert!(
                reply
                    .body
                    .contains("<link rel=stylesheet href=\"/style.css\">")
            );
        }
    }
    let css = server.get("/style.css");
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
    assert!(css.body.contains(".block{"));
    assert_hardened(&server.get_as("evil.example", "/"), "refused host");
}

#[test]
fn a_request_for_another_host_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let index = hostile_index(dir.path());
    let server = Server::start(&[&index]);
    let port = server.address.port();
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        "localhost".to_string(),
    ] {
        assert_eq!(server.get_as(&host, "/api/stats").status, 200, "{host}");
    }
    // A page of another site whose name now points at 127.0.0.1 (DNS rebinding).
    for host in [
        format!("rebind.evil.example:{port}"),
        "rebind.evil.example".to_string(),
        format!("127.0.0.2:{port}"),
        format!("localhost.evil.example:{port}"),
    ] {
        for path in ["/api/search?q=zebra", "/api/page?url=x", "/api/stats", "/"] {
            let reply = server.get_as(&host, path);
            assert_eq!(reply.status, 403, "{host} {path}: {}", reply.body);
            assert!(reply.body.contains("--allow-host"), "{}", reply.body);
            assert!(!reply.body.contains("zebra"));
        }
    }
    // No Host at all (HTTP/1.0).
    let bare = common::server::request(server.address, "GET /api/stats HTTP/1.0\r\n\r\n");
    assert_eq!(bare.status, 400);

    let allowed = Server::start_with(
        &[&index],
        &[
            "--allow-host",
            "search.lan",
            "--allow-host",
            "Other.Lan:443",
        ],
    );
    assert_eq!(allowed.get_as("search.lan:8080", "/api/stats").status, 200);
    assert_eq!(allowed.get_as("other.lan", "/api/stats").status, 200);
    assert_eq!(allowed.get_as("evil.lan", "/api/stats").status, 403);
}

#[test]
fn no_absolute_path_of_the_machine_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let index = hostile_index(dir.path());
    let server = Server::start(&[&index]);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let secrets = [dir.path().display().to_string(), root.display().to_string()];
    let web = encoded(WEB);
    let page = server.get(&format!("/api/page?url={web}"));
    let json = page.json();
    assert_eq!(json["source"]["path"], "../inputs/hostile.warc", "{json}");
    assert_eq!(json["index_name"], "index");
    let html = server.get(&format!("/page?url={web}"));
    assert!(
        html.body.contains("of ../inputs/hostile.warc"),
        "{}",
        html.body
    );
    let stats = server.get("/stats");
    let api_stats = server.get("/api/stats");
    assert_eq!(
        api_stats.json()[0]["build"]["inputs"][0],
        "../inputs/hostile.warc"
    );
    let search = server.get("/api/search?q=zebra");
    assert_eq!(
        search.json()["hits"][0]["warc_filename"],
        "../inputs/hostile.warc"
    );
    let search_html = server.get("/search?q=zebra");
    for reply in [&page, &html, &stats, &api_stats, &search, &search_html] {
        for secret in &secrets {
            assert!(
                !reply.body.contains(secret.as_str()),
                "{secret}: {}",
                reply.body
            );
        }
    }
    // Gone: the reason names the file as shown, not where it was.
    std::fs::remove_file(dir.path().join("inputs/hostile.warc")).unwrap();
    let gone = server.get(&format!("/api/page?url={web}"));
    let reason = gone.json()["unavailable"].as_str().unwrap().to_string();
    assert!(
        reason.contains("../inputs/hostile.warc is no longer there"),
        "{reason}"
    );
    for secret in &secrets {
        assert!(
            !gone.body.contains(secret.as_str()),
            "{secret}: {}",
            gone.body
        );
    }
}

/// The total of `/api/search?q=word` (None when the answer is not a 200).
fn total(server: &Server, word: &str) -> Option<u64> {
    let reply = server.get(&format!("/api/search?q={word}"));
    (reply.status == 200).then(|| reply.json()["total"].as_u64().unwrap())
}

#[test]
fn a_new_generation_of_an_index_is_served_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let index = hostile_index(dir.path());
    let server = Server::start(&[&index]);
    assert_eq!(total(&server, "zebra"), Some(3));
    assert_eq!(total(&server, "okapi"), Some(0));

    // Requests go on while builds replace the index: each is answered from one whole
    // generation or the next (3 zebras and no okapi, or the other way round).
    let okapis: Vec<(String, String)> = (0..40)
        .map(|n| (format!("http://b.example/{n}"), page("okapi", n)))
        .collect();
    let zebras: Vec<(String, String)> = (0..3)
        .map(|n| (format!("http://a.example/{n}"), page("zebra", n)))
        .collect();
    let okapi_input = warc(dir.path(), "okapi", &okapis);
    let zebra_input = warc(dir.path(), "zebra", &zebras);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let answers = std::thread::scope(|scope| {
        let asking = scope.spawn(|| {
            let mut answers = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let reply = server.get("/api/search?q=zebra+OR+okapi");
                assert_eq!(reply.status, 200, "{}", reply.body);
                let json = reply.json();
                let zebra = json["hits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|hit| hit["title"].as_str().unwrap().starts_with("zebra"))
                    .count();
                answers.push((json["total"].as_u64().unwrap(), zebra));
            }
            answers
        });
        for _ in 0..3 {
            build(&index, &okapi_input);
            build(&index, &zebra_input);
        }
        build(&index, &okapi_input);
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        asking.join().unwrap()
    });
    assert!(answers.len() > 3, "{answers:?}");
    for (total, zebras) in &answers {
        assert!(
            (*total == 3 && *zebras == 3) || (*total == 40 && *zebras == 0),
            "half of a generation: {answers:?}"
        );
    }
    assert_eq!(total(&server, "okapi"), Some(40));
    assert_eq!(total(&server, "zebra"), Some(0));
    let view = server.get(&format!("/api/page?url={}", encoded("http://b.example/7")));
    assert_eq!(view.status, 200);
    assert_eq!(view.json()["title"], "okapi 7");
    assert!(server.get("/stats").body.contains("b.example"));
}

/// A connection that sent the first part of a request and waits.
fn halfway(server: &Server) -> TcpStream {
    let mut stream = TcpStream::connect(server.address).unwrap();
    stream.write_all(b"GET /?q=zeb").unwrap();
    stream
}

/// Slow clients are cut off after the header-read timeout (10 s); past the bound of 512 open
/// connections a new one closes the oldest that has no request in progress, so a client with
/// a whole request is answered at once however many slow ones are open; and a signal stops
/// the server within a second with slow connections open.
#[test]
fn slow_clients_are_cut_off_and_do_not_hold_up_a_stop() {
    let dir = tempfile::tempdir().unwrap();
    let index = hostile_index(dir.path());

    let server = Server::start(&[&index]);
    let started = Instant::now();
    let mut slow: Vec<TcpStream> = (0..600).map(|_| halfway(&server)).collect();
    // Answered at once, slow connections or not.
    for _ in 0..20 {
        let asked = Instant::now();
        assert_eq!(total(&server, "zebra"), Some(3));
        assert!(
            asked.elapsed() < Duration::from_secs(2),
            "{:?}",
            asked.elapsed()
        );
    }
    // The oldest slow ones were closed to make room; every one is closed once it has waited
    // 10 s for the rest of its request.
    let (mut early, mut closed) = (0, 0);
    let deadline = started + Duration::from_secs(20);
    for stream in &mut slow {
        let left = deadline.saturating_duration_since(Instant::now());
        stream
            .set_read_timeout(Some(left.max(Duration::from_millis(10))))
            .unwrap();
        let mut rest = Vec::new();
        // Closed: the end of the stream, or a reset; still open: the read timed out.
        match stream.read_to_end(&mut rest) {
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            _ => closed += 1,
        }
        if started.elapsed() < Duration::from_secs(8) {
            early += 1;
        }
    }
    assert_eq!(closed, slow.len(), "slow connections still open after 20 s");
    assert!(early >= 88, "{early} closed to make room");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(9) && waited < Duration::from_secs(16),
        "{waited:?}"
    );
    assert_eq!(total(&server, "zebra"), Some(3), "answering again");

    // An idle keep-alive connection is closed after the same 10 s.
    let mut idle = TcpStream::connect(server.address).unwrap();
    write!(idle, "GET /api/stats HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let opened = Instant::now();
    let mut answer = Vec::new();
    let _ = idle.read_to_end(&mut answer);
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"));
    let idled = opened.elapsed();
    assert!(
        idled >= Duration::from_secs(9) && idled < Duration::from_secs(16),
        "{idled:?}"
    );

    for signal in ["TERM", "INT"] {
        let mut server = Server::start(&[&index]);
        let _slow: Vec<TcpStream> = (0..300).map(|_| halfway(&server)).collect();
        let mut keep_alive = TcpStream::connect(server.address).unwrap();
        write!(
            keep_alive,
            "GET /api/stats HTTP/1.1\r\nHost: localhost\r\n\r\n"
        )
        .unwrap();
        let mut first = [0; 12];
        keep_alive.read_exact(&mut first).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let signalled = Instant::now();
        let status = server.stop(signal, Duration::from_secs(5));
        let took = signalled.elapsed();
        assert!(
            status.is_some_and(|status| status.success()),
            "{signal}: {status:?}"
        );
        assert!(
            took < Duration::from_secs(1),
            "{signal}: stopped after {took:?}"
        );
    }
}

/// A page view holds the first MiB of a page's text at most, says how many blocks it left
/// out, and views are taken in turns: ten at once of a 2 MiB page are all answered.
#[test]
fn page_views_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let paragraphs: String = (0..8000)
        .map(|n| {
            let words: Vec<String> = (0..40)
                .map(|k| format!("word{}", (n * 7 + k) % 5000))
                .collect();
            format!("<p>Paragraph {n}: {}</p>", words.join(" "))
        })
        .collect();
    let huge = format!("<html><head><title>huge</title></head><body>{paragraphs}</body></html>");
    assert!(huge.len() > 2 << 20);
    let mut pages: Vec<(String, String)> = (0..3)
        .map(|n| (format!("http://big.example/{n}"), page("zebra", n)))
        .collect();
    pages.push(("http://big.example/huge".to_string(), huge));
    let input = warc(dir.path(), "big", &pages);
    let index = dir.path().join("index");
    build(&index, &input);
    let server = Server::start(&[&index]);
    let url = encoded("http://big.example/huge");

    let view = server.get(&format!("/api/page?url={url}")).json();
    let blocks = view["blocks"].as_array().unwrap();
    let shown: usize = blocks
        .iter()
        .map(|block| block["text"].as_str().unwrap().len())
        .sum();
    assert!(shown <= 1 << 20 && shown > 900_000, "{shown}");
    let not_shown = view["blocks_not_shown"].as_u64().unwrap();
    assert_eq!(
        blocks.len() as u64 + not_shown,
        view["kept_blocks"].as_u64().unwrap() + view["dropped_blocks"].as_u64().unwrap()
    );
    assert!(not_shown > 2000, "{not_shown}");
    assert!(view["kept_text"].as_str().unwrap().len() <= 1 << 20);
    assert_eq!(view["kept_text_cut"], true);
    let html = server.get(&format!("/page?url={url}"));
    assert!(html.body.len() < 2 << 20, "{}", html.body.len());
    assert!(
        html.body.contains(&format!("{not_shown} blocks not shown")),
        "{}",
        &html.body[html.body.len() - 500..]
    );

    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let asking: Vec<_> = (0..10)
            .map(|n| {
                let path = if n % 2 == 0 { "/page" } else { "/api/page" };
                let server = &server;
                let url = &url;
                scope.spawn(move || server.get(&format!("{path}?url={url}")).status)
            })
            .collect();
        asking
            .into_iter()
            .map(|thread| thread.join().unwrap())
            .collect()
    });
    // Taken four at a time; one that waits 5 s for its turn is told 503.
    assert!(
        statuses
            .iter()
            .all(|status| *status == 200 || *status == 503),
        "{statuses:?}"
    );
    assert!(
        statuses.iter().filter(|status| **status == 200).count() >= 4,
        "{statuses:?}"
    );
    assert_eq!(total(&server, "zebra"), Some(3));
}
