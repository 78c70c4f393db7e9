//! Connections: a listening socket in, hyper connections answered by the router out. A
//! request's head must arrive within [`HEADER_READ_TIMEOUT`], at
//! most [`MAX_CONNECTIONS`] are open at once, a connection lives
//! [`CONNECTION_LIFETIME`] at most, and a signal (Ctrl-C,
//! SIGTERM) stops accepting and closes what has no request in progress.

use super::*;

/// Accepts connections on `listener` and answers them with `app` until the first signal,
/// then waits until every connection is closed.
pub(super) async fn accept(
    listener: tokio::net::TcpListener,
    app: Router,
    signals: tokio::sync::watch::Receiver<u32>,
) {
    let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let open: Arc<OpenConnections> = Arc::default();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors, or a connection reset before it was accepted.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = signalled(signals.clone(), 1) => break,
        };
        let permit = match Arc::clone(&connections).try_acquire_owned() {
            Ok(permit) => permit,
            // As many connections as allowed are open: the one open longest with no request
            // in progress (idle, or still sending its request's head: a slow client) is
            // closed for this one. When every one has a request in progress, this one is
            // told so, if its socket takes it at once, and closed.
            Err(_) if open.close_oldest_waiting() => {
                let turn = Arc::clone(&connections).acquire_owned();
                match tokio::time::timeout(Duration::from_millis(100), turn).await {
                    Ok(Ok(permit)) => permit,
                    _ => {
                        let _ = stream.try_write(BUSY_ANSWER.as_bytes());
                        continue;
                    }
                }
            }
            Err(_) => {
                let _ = stream.try_write(BUSY_ANSWER.as_bytes());
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let state = open.add();
        tokio::spawn(connection(
            stream,
            app.clone(),
            http.clone(),
            signals.clone(),
            (permit, state, Arc::clone(&open)),
        ));
    }
    drop(listener);
    let _ = connections.acquire_many(MAX_CONNECTIONS as u32).await;
}

/// The answer to a connection over [`MAX_CONNECTIONS`].
const BUSY_ANSWER: &str = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n\
Content-Length: 36\r\nRetry-After: 1\r\nConnection: close\r\n\r\ntoo many connections; try again soon\n";

/// Answers the requests of one connection, until the client closes it, a timeout, the end
/// of its lifetime or the first signal.
async fn connection(
    stream: tokio::net::TcpStream,
    app: Router,
    http: hyper::server::conn::http1::Builder,
    signals: tokio::sync::watch::Receiver<u32>,
    (permit, state, open): (
        OwnedSemaphorePermit,
        Arc<ConnectionState>,
        Arc<OpenConnections>,
    ),
) {
    // Counted out before the permit is given back.
    let _open = Registered {
        state: Arc::clone(&state),
        open,
        _permit: permit,
    };
    let busy = &state.busy;
    let counted = Arc::clone(&state);
    let service = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
        let app = app.clone();
        let busy = InProgress::new(&counted);
        async move {
            let answer = app.oneshot(request.map(axum::body::Body::new)).await;
            drop(busy);
            answer
        }
    });
    let served = http.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(served);
    tokio::select! {
        _ = served.as_mut() => return,
        () = signalled(signals, 1) => {
            if busy.load(Ordering::SeqCst) == 0 {
                return;
            }
        }
        () = state.close.notified() => {
            if busy.load(Ordering::SeqCst) == 0 {
                return;
            }
        }
        () = tokio::time::sleep(CONNECTION_LIFETIME) => {}
    }
    served.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(LAST_ANSWER, served).await;
}

/// The connections open, oldest first.
#[derive(Default)]
struct OpenConnections {
    connections: std::sync::Mutex<std::collections::BTreeMap<u64, Arc<ConnectionState>>>,
    next: AtomicUsize,
}

/// One open connection: its requests in progress, and a way to tell it to close.
struct ConnectionState {
    id: u64,
    busy: AtomicUsize,
    close: tokio::sync::Notify,
}

impl OpenConnections {
    fn add(&self) -> Arc<ConnectionState> {
        let id = self.next.fetch_add(1, Ordering::SeqCst) as u64;
        let state = Arc::new(ConnectionState {
            id,
            busy: AtomicUsize::new(0),
            close: tokio::sync::Notify::new(),
        });
        self.lock().insert(id, Arc::clone(&state));
        state
    }

    /// Tells the connection open longest with no request in progress to close; whether
    /// there was one.
    fn close_oldest_waiting(&self) -> bool {
        let mut connections = self.lock();
        let oldest = connections
            .values()
            .find(|state| state.busy.load(Ordering::SeqCst) == 0)
            .map(Arc::clone);
        match oldest {
            Some(state) => {
                // Out of the list at once, so that the next connection picks another.
                connections.remove(&state.id);
                state.close.notify_one();
                true
            }
            None => false,
        }
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::BTreeMap<u64, Arc<ConnectionState>>> {
        self.connections
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

/// A connection counted open while it lives (its permit given back after).
struct Registered {
    state: Arc<ConnectionState>,
    open: Arc<OpenConnections>,
    _permit: OwnedSemaphorePermit,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.open.lock().remove(&self.state.id);
    }
}

/// A request in progress on a connection, counted while it lives.
struct InProgress(Arc<ConnectionState>);

impl InProgress {
    fn new(state: &Arc<ConnectionState>) -> InProgress {
        state.busy.fetch_add(1, Ordering::SeqCst);
        InProgress(Arc::clone(state))
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How many times Ctrl-C or SIGTERM has come since it was called (the handlers are in place
/// when it returns).
pub(super) fn count_signals() -> Result<tokio::sync::watch::Receiver<u32>, ServeError> {
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
pub(super) async fn grace_over(signals: tokio::sync::watch::Receiver<u32>) {
    signalled(signals.clone(), 1).await;
    tokio::select! {
        () = tokio::time::sleep(STOP_GRACE) => {}
        () = signalled(signals, 2) => {}
    }
}
