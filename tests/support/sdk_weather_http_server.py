"""The SDK weather server of ``sdk_weather_server.py`` served over Streamable HTTP (interop tests).

Run: ``python tests/support/sdk_weather_http_server.py --port N [--page-size N]``; serves
``http://127.0.0.1:N/mcp`` with the official SDK's own HTTP stack (both eras on one
endpoint: a request with the 2026 ``_meta`` envelope is stateless, ``initialize`` opens a
legacy session).  Binds 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sdk_weather_server import build


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--page-size", type=int, default=1)
    opts = ap.parse_args()
    app = build(opts.page_size).streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=opts.port, log_level="warning")


if __name__ == "__main__":
    main()
