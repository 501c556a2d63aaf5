"""A real ``redis-server`` for the tests of shared state (Debian's package, installed on first use).

:func:`redis_server` starts one on 127.0.0.1 and a free port, without persistence, yields its URL
and stops it by its PID.  When the binary is missing it is installed with ``apt-get`` (as root,
or through ``sudo``); a failure to install is an error, not a skip.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator

from common_support import free_port, stop_pid, wait_port


def redis_binary() -> str:
    """The path of ``redis-server``, installing Debian's package when it is missing."""
    found = shutil.which("redis-server")
    if found:
        return found
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = [*sudo, "apt-get", "install", "-y", "-q", "--no-install-recommends", "redis-server"]
    if subprocess.run(install, env=env, capture_output=True).returncode != 0:
        subprocess.run([*sudo, "apt-get", "update", "-q"], env=env, capture_output=True, check=True)
        subprocess.run(install, env=env, capture_output=True, check=True)
    found = shutil.which("redis-server") or ("/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None)
    if not found:
        raise RuntimeError("redis-server is not installed and apt-get could not install it")
    return found


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A fresh redis-server on 127.0.0.1 (no persistence); yields ``redis://127.0.0.1:PORT/0``."""
    port = free_port()
    proc = subprocess.Popen(
        [redis_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--daemonize", "no", "--protected-mode", "yes"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port, proc=proc)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_pid(proc)
