"""A minimal HTTP/3 client (aioquic): one GET over QUIC, for the live HTTP/3 test."""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

from aioquic.asyncio import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, H3Event, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import QuicEvent


class _Client(QuicConnectionProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._http = H3Connection(self._quic)
        self._done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.headers: dict[str, str] = {}
        self.body = b""

    def quic_event_received(self, event: QuicEvent) -> None:
        for received in self._http.handle_event(event):
            self._h3_event(received)

    def _h3_event(self, event: H3Event) -> None:
        if isinstance(event, HeadersReceived):
            self.headers.update((k.decode(), v.decode()) for k, v in event.headers)
        elif isinstance(event, DataReceived):
            self.body += event.data
        else:
            return
        if event.stream_ended and not self._done.done():
            self._done.set_result(None)

    async def get(self, authority: str, path: str, timeout: float) -> None:
        stream = self._quic.get_next_available_stream_id()
        request = [
            (b":method", b"GET"),
            (b":scheme", b"https"),
            (b":authority", authority.encode()),
            (b":path", path.encode()),
        ]
        self._http.send_headers(stream, request, end_stream=True)
        self.transmit()
        await asyncio.wait_for(self._done, timeout)


async def _get(host: str, port: int, path: str, timeout: float) -> tuple[dict[str, str], bytes]:
    config = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    config.verify_mode = ssl.CERT_NONE  # the server's throwaway certificate
    async with connect(host, port, configuration=config, create_protocol=_Client) as client:
        assert isinstance(client, _Client)
        await client.get(f"{host}:{port}", path, timeout)
        return client.headers, client.body


def h3_get(host: str, port: int, path: str, timeout: float = 10.0) -> tuple[dict[str, str], bytes]:
    """The response headers (":status" among them) and body of GET ``path`` over HTTP/3."""
    return asyncio.run(_get(host, port, path, timeout))
