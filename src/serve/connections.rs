//! At most `--max-connections` connections open at once: the server bounds the work of every
//! request, and this bounds how many clients it holds (each with its buffers and its task),
//! whatever they do with their connections. The next connection waits in the system's queue
//! until one closes, and is then accepted.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

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

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, Bounded>> for ClientAddr {
    fn connect_info(stream: axum::serve::IncomingStream<'_, Bounded>) -> ClientAddr {
        ClientAddr(*stream.remote_addr())
    }
}
