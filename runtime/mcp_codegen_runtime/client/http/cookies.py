"""Cookies for the lean HTTP pool (``client/http/pool.py``): :class:`CookieJar`.

A server's ``Set-Cookie`` (a load balancer's affinity cookie, say) is sent back on later
requests, as httpx's client would, so cookie-based affinity keeps working without httpx.
"""

from __future__ import annotations

from typing import Any


class CookieJar:
    """The cookies servers set (a load balancer's affinity cookie, say), sent back as httpx's
    client would: the stdlib's ``http.cookiejar`` rules (domain, path, expiry, ``Secure``).
    Created on the first ``Set-Cookie``, so a server that sets none costs nothing."""

    def __init__(self) -> None:
        import http.cookiejar

        self.jar = http.cookiejar.CookieJar()

    def extract(self, url: str, raw_headers: Any) -> None:
        import email.message
        import urllib.request

        message = email.message.Message()
        for name, value in raw_headers:
            message[name.decode("latin-1")] = value.decode("latin-1")

        class _Answer:
            def info(self) -> email.message.Message:
                return message

        self.jar.extract_cookies(_Answer(), urllib.request.Request(url))  # type: ignore[arg-type]

    def header_for(self, url: str) -> list[tuple[str, str]]:
        import urllib.request

        request = urllib.request.Request(url)
        self.jar.add_cookie_header(request)
        cookie = request.get_header("Cookie")
        return [("cookie", cookie)] if cookie else []


__all__ = ["CookieJar"]
