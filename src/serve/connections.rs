//! At most `--max-connections` connections open at once: the server bounds the work of every
//! request, and this bounds how many clients it holds (each with its buffers and its task),
//! whatever they do with their connections. The next connection waits in the system's queue
//! until one closes, and is then accepted.
//!
//! And each connection is served here, with hyper's HTTP/1 and a timer, rather than by
//! `axum::serve`, which gives hyper no timer and so no deadline for a request's head: a client
//! that opens connections and sends their headers a byte at a time (slowloris) would hold its
//! places for ever. Here a request's head must arrive within `HEADER_TIMEOUT`, as its body must
//! within `Limits::BODY_TIMEOUT`; a WebSocket, once upgraded, is the socket's own business.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

/// A listener that accepts while fewer than its limit of connections are open.
pub struct Bounded {
    listener: TcpListener,
    open: Arc<Semaphore>,
}

impl Bounded {
    pub fn new(listener: TcpListener, limit: usize) -> Bounded {
        Bounded { listener, open: Arc::new(Semaphore::new(limit.max(1))) }
    }
}

/// A connection, holding its place among the open ones until it is dropped.
pub struct Connection {
    stream: TcpStream,
    _place: Option<OwnedSemaphorePermit>,
}

impl axum::serve::Listener for Bounded {
    type Io = Connection;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Connection, SocketAddr) {
        // The semaphore is never closed, so a place always comes.
        let place = Arc::clone(&self.open).acquire_owned().await.ok();
        loop {
            match self.listener.accept().await {
                Ok((stream, address)) => {
                    let _ = stream.set_nodelay(true);
                    return (Connection { stream, _place: place }, address);
                }
                // Out of file descriptors and the like: wait a little rather than spin.
                Err(e) => {
                    log::warn!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

impl AsyncRead for Connection {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// The address of the client a request came from, for limits kept per client (sign-in
/// attempts): the peer of the TCP connection, never a header a client could write.
#[derive(Clone, Copy, Debug)]
pub struct ClientAddr(pub SocketAddr);

/// How long a client may take to send a request's head (the request line and the headers),
/// counted from when the server starts waiting for it, an idle kept-alive connection included.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `app` on `listener` until `stop` turns true, then lets the connections finish their
/// requests for up to `grace` (an open WebSocket would hold it up for ever).
pub async fn serve(mut listener: Bounded, app: axum::Router, mut stop: watch::Receiver<bool>, grace: Duration) {
    // Every connection's task holds a clone; the count says how many are still open.
    let open = Arc::new(());
    loop {
        let (connection, client) = tokio::select! {
            accepted = axum::serve::Listener::accept(&mut listener) => accepted,
            () = stopped(&mut stop) => break,
        };
        let (app, open, mut stop) = (app.clone(), Arc::clone(&open), stop.clone());
        tokio::spawn(async move {
            let _open = open;
            let service = hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let mut request = request.map(axum::body::Body::new);
                request.extensions_mut().insert(axum::extract::ConnectInfo(ClientAddr(client)));
                // A router is always ready, and its errors are `Infallible`.
                let mut app = app.clone();
                tower_service::Service::call(&mut app, request)
            });
            let served = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(connection), service)
                .with_upgrades();
            tokio::pin!(served);
            tokio::select! {
                result = served.as_mut() => log_end(result),
                () = stopped(&mut stop) => {
                    served.as_mut().graceful_shutdown();
                    log_end(served.await);
                }
            }
        });
    }
    let deadline = tokio::time::Instant::now() + grace;
    while Arc::strong_count(&open) > 1 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Once `stop` turns true (or its sender is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stopping| *stopping).await;
}

/// A connection's end: a client that went away or timed out is ordinary, and only logged.
fn log_end(result: Result<(), hyper::Error>) {
    if let Err(e) = result {
        log::debug!("connection closed: {e}");
    }
}
