"""State keys and audiences of signed tokens (``server.signing``): key format, sources, rotation.

* a key is hex of at least 32 bytes: shorter, non-hex and placeholder keys are refused with
  a message naming the source and the command that makes a key, never the key itself;
* ``MCP_CODEGEN_STATE_KEY`` (commas or whitespace between keys), a key file (one key per line,
  ``#`` comments, blank lines; missing / keyless / oversized files refused; a file others may
  read accepted with a warning), both at once refused, neither: a random key per call;
* rotation: the first key signs, every key verifies; a removed key no longer verifies;
* audience: a token verifies only under the audience it was signed for (same key and purpose).
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest
from common_support import state_key
from mcp_codegen_runtime.server.signing import (
    MIN_KEY_BYTES,
    STATE_AUDIENCE_ENV,
    STATE_KEY_ENV,
    STATE_KEY_FILE_ENV,
    Signer,
    StateKeyError,
    keys_configured,
    load_keys,
    read_key_file,
    resolve_audience,
)
from mcp_codegen_runtime.wire.errors import InvalidParamsError

K1, K2, K3 = state_key("k1"), state_key("k2"), state_key("k3")
MAKE = "secrets.token_hex(32)"


def _refused(environ: dict[str, str], *needles: str, key_file: str | None = None) -> str:
    with pytest.raises(StateKeyError) as info:
        load_keys(key_file, environ)
    message = str(info.value)
    for needle in needles:
        assert needle in message, (needle, message)
    return message


# ------------------------------------------------------------------ the variable
def test_keys_from_the_variable_in_order() -> None:
    assert load_keys(None, {STATE_KEY_ENV: K1.hex()}) == [K1]
    assert load_keys(None, {STATE_KEY_ENV: f"{K2.hex()},{K1.hex()}"}) == [K2, K1]
    assert load_keys(None, {STATE_KEY_ENV: f" {K2.hex().upper()} ,\n {K1.hex()} ,"}) == [K2, K1]


@pytest.mark.parametrize("value, needle", [
    ("k1", "not hexadecimal"),
    ("correct horse battery staple correct horse battery staple", "not hexadecimal"),
    (state_key("x")[:31].hex(), "has 31 bytes, at least 32"),
    ("ab", "has 1 bytes, at least 32"),
    ("abc" * 31, "not hexadecimal"),  # odd number of digits
    ("00" * 32, "not random"),
    ("0102" * 32, "not random"),
])
def test_bad_keys_are_refused_with_a_clear_message(value: str, needle: str) -> None:
    message = _refused({STATE_KEY_ENV: value}, STATE_KEY_ENV, needle, MAKE)
    assert value not in message  # the secret is never echoed


def test_every_key_of_the_list_is_checked() -> None:
    message = _refused({STATE_KEY_ENV: f"{K1.hex()},{K2.hex()[:40]}"}, "key 2 of 2", "has 20 bytes")
    assert K1.hex() not in message


def test_set_but_empty_variable_is_refused() -> None:
    _refused({STATE_KEY_ENV: ""}, "holds no key")
    _refused({STATE_KEY_ENV: " , "}, "holds no key")


def test_no_key_draws_a_random_one_per_call() -> None:
    first, second = load_keys(None, {}), load_keys(None, {})
    assert len(first) == len(second) == 1 and len(first[0]) == MIN_KEY_BYTES and first != second
    assert not keys_configured(None, {})
    assert keys_configured(None, {STATE_KEY_ENV: K1.hex()})
    assert keys_configured(None, {STATE_KEY_FILE_ENV: "/some/file"})
    assert keys_configured("/some/file", {})


# ------------------------------------------------------------------ key files
def _key_file(tmp_path: Path, text: str, mode: int = 0o600) -> str:
    path = tmp_path / "state-keys"
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return str(path)


def test_key_file_comments_blank_lines_and_order(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = _key_file(tmp_path, f"# state keys, first signs\n\n{K2.hex()}\n   \n{K1.hex()}  # previous key\n#{K3.hex()}\n")
    with caplog.at_level(logging.WARNING):
        assert load_keys(path, {}) == [K2, K1]
        assert load_keys(None, {STATE_KEY_FILE_ENV: path}) == [K2, K1]  # the variable names the file
    assert caplog.records == []  # 0600: no warning


def test_key_file_errors(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope")
    _refused({}, missing, "cannot be read", STATE_KEY_FILE_ENV, key_file=missing)
    _refused({STATE_KEY_FILE_ENV: missing}, missing, "cannot be read")
    _refused({}, "holds no key", MAKE, key_file=_key_file(tmp_path, "# nothing yet\n\n"))
    message = _refused({}, "line 3", "has 16 bytes", MAKE, key_file=_key_file(tmp_path, f"{K1.hex()}\n\n{K2.hex()[:32]}\n"))
    assert K1.hex() not in message and K2.hex()[:32] not in message
    _refused({}, "larger than", key_file=_key_file(tmp_path, K1.hex() * 2000))
    binary = tmp_path / "binary"
    binary.write_bytes(b"\xff\xfe" + K1)
    _refused({}, "not text", key_file=str(binary))
    _refused({}, "cannot be read", key_file=str(tmp_path))  # a directory


def test_variable_and_file_together_are_refused(tmp_path: Path) -> None:
    path = _key_file(tmp_path, K1.hex())
    _refused({STATE_KEY_ENV: K1.hex()}, "both", STATE_KEY_ENV, key_file=path)
    _refused({STATE_KEY_ENV: K1.hex(), STATE_KEY_FILE_ENV: path}, "both")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o444])
def test_key_file_others_may_read_is_accepted_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture, mode: int) -> None:
    path = _key_file(tmp_path, K1.hex(), mode)
    with caplog.at_level(logging.WARNING, logger="mcp_codegen.server"):
        assert read_key_file(path) == [K1]
    assert len(caplog.records) == 1 and path in caplog.text and f"{stat.S_IMODE(mode):03o}" in caplog.text
    assert K1.hex() not in caplog.text


# ------------------------------------------------------------------ rotation and audience
def test_rotation_first_signs_all_verify_removed_key_refused() -> None:
    old = Signer("mrtr requestState", [K1], "weather").sign({"x": 1}, ttl=60)
    rolled_out = Signer("mrtr requestState", [K1, K2], "weather")  # step 1: new key second
    rolled_in = Signer("mrtr requestState", [K2, K1], "weather")  # step 2: new key first
    assert rolled_out.verify(old, "requestState")["x"] == 1
    assert rolled_in.verify(old, "requestState")["x"] == 1
    new = rolled_in.sign({"x": 2}, ttl=60)
    assert rolled_out.verify(new, "requestState")["x"] == 2  # a step-1 replica accepts step-2 tokens
    with pytest.raises(InvalidParamsError, match="Invalid requestState"):
        Signer("mrtr requestState", [K1], "weather").verify(new, "requestState")  # why step 1 comes first
    done = Signer("mrtr requestState", [K2], "weather")  # step 3: old key removed
    assert done.verify(new, "requestState")["x"] == 2
    with pytest.raises(InvalidParamsError, match="Invalid requestState"):
        done.verify(old, "requestState")


def test_audience_and_purpose_are_bound() -> None:
    token = Signer("tools/list cursor", [K1], "weather").sign({"o": 5})
    assert Signer("tools/list cursor", [K1], "weather").verify(token, "cursor") == {"o": 5, "aud": "weather"}
    with pytest.raises(InvalidParamsError, match="another server"):
        Signer("tools/list cursor", [K1], "weather-staging").verify(token, "cursor")
    with pytest.raises(InvalidParamsError, match="Invalid cursor"):
        Signer("mrtr requestState", [K1], "weather").verify(token, "cursor")
    # an audience cannot be smuggled in the payload: the signer sets it last
    forged = Signer("tools/list cursor", [K1], "other").sign({"o": 5, "aud": "weather"})
    with pytest.raises(InvalidParamsError, match="another server"):
        Signer("tools/list cursor", [K1], "weather").verify(forged, "cursor")


def test_signer_refuses_short_keys() -> None:
    for keys in ([b"k1"], [K1, K2[:31]], []):
        with pytest.raises(StateKeyError, match="at least 32"):
            Signer("tools/list cursor", keys)


def test_audience_resolution() -> None:
    assert resolve_audience(None, "weather", {}) == "weather"
    assert resolve_audience(None, "weather", {STATE_AUDIENCE_ENV: "prod-eu"}) == "prod-eu"
    assert resolve_audience("explicit", "weather", {STATE_AUDIENCE_ENV: "prod-eu"}) == "explicit"
    assert resolve_audience(None, "weather", {STATE_AUDIENCE_ENV: "  "}) == "weather"
