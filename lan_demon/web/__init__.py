"""The table in a browser: an HTTP server on the host beside the arbiter, a
WebSocket gateway that runs one :class:`~lan_demon.net.client.Client` per browser seat, and the
page's static files.

A browser never speaks the ZeroMQ protocol: the page speaks JSON to the gateway on the host
(``docs/page-protocol.md``), and the gateway sits at the table as a seat of the same arbiter,
through the same client and local engine a terminal uses. Everything a seat is told comes from
the seat layer's face; nothing here decides a rule.

Rooms: :mod:`.frames` (what a page may send, read and bounded), :mod:`.browser_seat` (one
browser's seat: its client, its pump, the faces it is sent), :mod:`.gateway` (one WebSocket:
join, intents, refusals), :mod:`.server` (the aiohttp app on a thread of its own, the port and
the bind), :mod:`.qr` (the address as a QR code, for a terminal and for the lobby).
"""
