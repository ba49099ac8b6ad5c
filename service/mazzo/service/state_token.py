"""Sealed state tokens: the game state a caller carries between calls.

Mazzo keeps no state, so every call brings the state back. The caller must be
able neither to read it (it holds the hidden cards) nor to forge or alter it,
and the server keys must be rotatable without invalidating the games under
way. A token is therefore encrypted and authenticated under a server key
named by a key id; every configured key opens, the first one seals.

Format 3 (all lengths in bytes; integers are big endian)::

    version             1   FORMAT_VERSION (3)
    key id length       1   1..16
    key id              n   ASCII [A-Za-z0-9_-]
    ciphertext length   2   length of "ciphertext + tag" below
    nonce              12   random (os.urandom, drawn in batches), fresh for every token
    ciphertext + tag    m   AES-256-GCM-SIV output; the tag is the last 16 bytes

The cipher is AES-256-GCM-SIV (RFC 8452) under a token key derived from the
state key (HKDF-SHA256, its own label), not AES-GCM under the state key: with
random 96-bit nonces AES-GCM is safe for about 2^32 seals per key (NIST SP
800-38D), which a fleet reaches in days, while AES-GCM-SIV derives a fresh key
for every nonce and stays safe for 2^50 seals per key, and a repeated nonce
only shows that two plaintexts were equal (docs/security.md gives the bound).

Format 2 (the same layout, AES-GCM under the state key itself) is still
opened, never sealed, so that games in progress survive the upgrade; format 1
and any other version byte below ``FIRST_BYTE_OF_NO_FORMAT`` are refused as
STATE_VERSION_UNSUPPORTED, and anything else as STATE_UNRECOGNIZED: it is not a
Mazzo state at all.

The plaintext is the time the token was sealed (8 bytes, whole seconds since
the epoch, from the sealer's clock) followed by the payload: a sealer given a
``max_age`` refuses older tokens (STATE_EXPIRED), so a key can be retired once
that long has passed since it last sealed, and tokens dated more than that
ahead of its clock (a replica's clock far ahead must not mint lasting tokens).

Everything before the nonce (the header) is passed to the cipher as associated
data, so no header byte can change undetected. The declared ciphertext length
is what lets a truncated token (STATE_TRUNCATED) be told apart from an altered
or extended one (STATE_TAMPERED). The overhead is 1 + 1 + len(key id) + 2 +
12 + 8 + 16 bytes, and a payload may be at most 65535 - 16 - 8 bytes long.

Refusals raise StateTokenError with a stable reason code that programs act on
(the REST and gRPC layers put it in google.rpc.ErrorInfo) and a message that a
person can read; messages never contain key material or payload bytes.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import secrets
import struct
import threading
import time
from collections.abc import Callable, Sequence

from cryptography.exceptions import InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESGCMSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from mazzo.engine.errors import N_, Listing, Text

#: The format new tokens are sealed in: AES-256-GCM-SIV under the token key.
FORMAT_VERSION = 3
#: The previous format, AES-GCM under the state key itself: opened, never sealed.
GCM_FORMAT_VERSION = 2
OPENED_FORMATS = (GCM_FORMAT_VERSION, FORMAT_VERSION)
#: Token format versions are the small numbers below this; a first byte at or
#: above it (or 0) is no Mazzo token of any version, past or future.
FIRST_BYTE_OF_NO_FORMAT = 32
#: The HKDF label of the format-3 token keys: never the state keys themselves.
TOKEN_KEY_PURPOSE = b"mazzo state token v3 AES-256-GCM-SIV"
NONCE_BYTES = 12
TAG_BYTES = 16
#: When the token was sealed: whole seconds since the epoch, the plaintext's start.
SEALED_AT = struct.Struct(">Q")
MAX_CIPHERTEXT_BYTES = 0xFFFF
MAX_PAYLOAD_BYTES = MAX_CIPHERTEXT_BYTES - TAG_BYTES - SEALED_AT.size
KEY_SIZES = (16, 24, 32)
#: A generated development key's id is this prefix and random hex digits, its own
#: in every server process; "dev" alone was the id of all of them before format 3.
DEV_KEY_PREFIX = "dev-"
LEGACY_DEV_KEY_ID = "dev"

STATE_MISSING = "STATE_MISSING"
STATE_UNRECOGNIZED = "STATE_UNRECOGNIZED"
STATE_TRUNCATED = "STATE_TRUNCATED"
STATE_VERSION_UNSUPPORTED = "STATE_VERSION_UNSUPPORTED"
STATE_KEY_UNKNOWN = "STATE_KEY_UNKNOWN"
STATE_TAMPERED = "STATE_TAMPERED"
STATE_EXPIRED = "STATE_EXPIRED"
REASONS = (
    STATE_MISSING,
    STATE_UNRECOGNIZED,
    STATE_TRUNCATED,
    STATE_VERSION_UNSUPPORTED,
    STATE_KEY_UNKNOWN,
    STATE_TAMPERED,
    STATE_EXPIRED,
)

_KEY_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,16}")
# version + key id length + shortest key id + ciphertext length + nonce + tag
MIN_TOKEN_BYTES = 1 + 1 + 1 + 2 + NONCE_BYTES + SEALED_AT.size + TAG_BYTES


class StateTokenError(Exception):
    """A state token was refused; `reason` is for programs, `message` for people
    (in English; ``text``, its template and parameters, for other languages)."""

    def __init__(self, reason: str, template: str, /, **params: object) -> None:
        self.text = Text(template, **params)
        self.message = self.text.render()
        super().__init__(self.message)
        self.reason = reason

    def __repr__(self) -> str:
        return f"StateTokenError({self.reason!r}, {self.message!r})"


def check_key_id(kid: str, where: str) -> None:
    """Refuse a key id that could not be written in a token's header."""
    if not isinstance(kid, str) or not _KEY_ID_RE.fullmatch(kid):
        raise ValueError(f"{where}: key id must be 1 to 16 characters of A-Z a-z 0-9 _ -")


def check_key(kid: str, key: bytes, where: str) -> None:
    """Refuse a malformed key id or key; `where` names it without echoing secrets."""
    check_key_id(kid, where)
    if not isinstance(key, bytes) or len(key) not in KEY_SIZES:
        size = len(key) if isinstance(key, bytes) else "not bytes"
        raise ValueError(f"{where} (key id {kid!r}): key must be 16, 24 or 32 bytes, got {size}")


def check_keys(keys: Sequence[tuple[str, bytes]]) -> None:
    """Refuse an empty key list, a malformed entry or a key id given twice."""
    if not keys:
        raise ValueError("at least one state key is needed")
    seen: set[str] = set()
    for index, (kid, key) in enumerate(keys, start=1):
        check_key(kid, key, f"state key {index}")
        if kid in seen:
            raise ValueError(f"state key {index}: key id {kid!r} is given twice")
        seen.add(kid)


class StateSealer:
    """Seals payloads under the first key and opens tokens sealed by any key.

    ``max_age`` (seconds; None: no limit) refuses tokens sealed longer ago than
    that, by ``clock`` (seconds since the epoch; tests pass their own).
    ``seal_format`` is for the benchmarks and tests that compare with format 2:
    a server always seals ``FORMAT_VERSION``.
    """

    def __init__(
        self,
        keys: Sequence[tuple[str, bytes]],
        *,
        max_age: float | None = None,
        clock: Callable[[], float] = time.time,
        seal_format: int = FORMAT_VERSION,
    ) -> None:
        check_keys(keys)
        if seal_format not in OPENED_FORMATS:
            raise ValueError(f"cannot seal format {seal_format}")
        self._keys = tuple(keys)
        self._seal_kid = keys[0][0]
        # By format, then key id: what opens a token of that format sealed by that key.
        self._openers: dict[int, dict[str, AESGCMSIV | AESGCM]] = {
            FORMAT_VERSION: {kid: _token_cipher(key) for kid, key in keys},
            GCM_FORMAT_VERSION: {kid: AESGCM(key) for kid, key in keys},
        }
        self.max_age = max_age
        self._clock = clock
        # What every seal repeats, made once: the sealing cipher and the header's start.
        self._seal_cipher = self._openers[seal_format][self._seal_kid]
        self._header_start = _header_start(seal_format, self._seal_kid)

    @property
    def sealing_key_id(self) -> str:
        """The key id new tokens carry (useful in logs: it is not secret)."""
        return self._seal_kid

    def now(self) -> int:
        """The sealer's clock, in whole seconds: what a token sealed now records."""
        return int(self._clock())

    def seal(self, payload: bytes) -> bytes:
        """Encrypt and authenticate `payload`, with the time, into a token."""
        return self.seal_dated(payload)[0]

    def seal_dated(self, payload: bytes) -> tuple[bytes, int]:
        """:meth:`seal`, and the time the token records."""
        if len(payload) > MAX_PAYLOAD_BYTES:
            raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD_BYTES}")
        sealed_at = self.now()
        plaintext = SEALED_AT.pack(sealed_at) + payload
        header = self._header_start + (len(plaintext) + TAG_BYTES).to_bytes(2, "big")
        nonce = _NONCES.take()
        sealed = self._seal_cipher.encrypt(nonce, plaintext, header)
        return header + nonce + sealed, sealed_at

    def open(self, token: bytes) -> bytes:
        """Check and decrypt `token`, or raise StateTokenError saying why not."""
        return self.open_dated(token)[0]

    def open_dated(self, token: bytes) -> tuple[bytes, int]:
        """:meth:`open`, and the time the token was sealed."""
        kid, header_end = _parse_header(token)
        cipher = self._openers[token[0]].get(kid)
        if cipher is None:
            raise _unknown_key(kid)
        nonce = token[header_end : header_end + NONCE_BYTES]
        try:
            plaintext = cipher.decrypt(nonce, token[header_end + NONCE_BYTES :], token[:header_end])
        except InvalidTag:
            raise StateTokenError(STATE_TAMPERED, "state failed authentication") from None
        (sealed_at,) = SEALED_AT.unpack_from(plaintext)
        self.check_age(sealed_at)
        return plaintext[SEALED_AT.size :], sealed_at

    def check_age(self, sealed_at: int) -> None:
        """Refuse (STATE_EXPIRED) a token sealed more than ``max_age`` seconds ago, or
        dated more than that ahead of this clock: a replica whose clock ran far
        ahead must not seal tokens that outlive the limit."""
        if self.max_age is None:
            return
        age = self._clock() - sealed_at
        if age > self.max_age:
            raise StateTokenError(
                STATE_EXPIRED,
                "state is older than the server's limit of {limit} s",
                limit=f"{self.max_age:g}",
            )
        if -age > self.max_age:
            raise StateTokenError(
                STATE_EXPIRED,
                "state is dated more than the server's limit of {limit} s ahead of its clock",
                limit=f"{self.max_age:g}",
            )

    def derived_keys(self, purpose: bytes) -> list[tuple[str, bytes]]:
        """A 32-byte key for ``purpose`` from each state key (HKDF-SHA256), by key id,
        the sealing key's first: other MACs ride on the same keys and rotation."""
        return [(kid, derive_key(key, purpose)) for kid, key in self._keys]


def key_id_of(token: bytes) -> str:
    """The id of the key that sealed ``token``, read from its header (the token is
    not opened: a caller that needs it authentic opens it first)."""
    return _parse_header(token)[0]


def derive_key(key: bytes, purpose: bytes) -> bytes:
    """The 32-byte key for ``purpose`` (an HKDF-SHA256 label) derived from a state key."""
    return HKDF(hashes.SHA256(), 32, salt=None, info=purpose).derive(key)


def _token_cipher(key: bytes) -> AESGCMSIV:
    """AES-256-GCM-SIV under the format-3 token key of the state key ``key``."""
    try:
        return AESGCMSIV(derive_key(key, TOKEN_KEY_PURPOSE))
    except UnsupportedAlgorithm:
        # cryptography's wheels carry an OpenSSL that has it; a build against an
        # older system OpenSSL (before 3.2) does not.
        raise RuntimeError(
            "AES-GCM-SIV is not available: the installed cryptography is linked to an"
            " OpenSSL older than 3.2 (install the pinned wheel, requirements/runtime.lock)"
        ) from None


def is_dev_key_id(kid: str) -> bool:
    """Whether ``kid`` names a generated development key, of this process or another."""
    return kid == LEGACY_DEV_KEY_ID or kid.startswith(DEV_KEY_PREFIX)


def _unknown_key(kid: str) -> StateTokenError:
    if is_dev_key_id(kid):
        return StateTokenError(
            STATE_KEY_UNKNOWN,
            "state sealed by development key {kid}, which this process does not hold:"
            " each server process makes its own (set MAZZO_STATE_KEYS to share keys)",
            kid=repr(kid),
        )
    return StateTokenError(STATE_KEY_UNKNOWN, "state sealed by unknown key {kid}", kid=repr(kid))


class _NonceSource:
    """Random 96-bit nonces (or ``size`` bytes), read from os.urandom a batch at a time.

    Why batches: os.urandom is a system call that lets go of the GIL, and in a
    busy gRPC server the sealing thread then waits for other threads to hand it
    back (measured: 30 us of wall time per seal for 3 us of CPU). Each nonce is
    as random as with one call per nonce. A batch belongs to the process that
    read it: a forked child starts afresh (two processes sealing under one key
    with the same nonces would spend the random nonces' margin, and under the
    AES-GCM of format 2 break the key), which the fork hook below and the pid
    check both ensure.
    """

    BATCH = 256

    def __init__(self, size: int = NONCE_BYTES) -> None:
        self.size = size
        self.forget()

    def forget(self) -> None:
        """Drop the batch and the lock (in a forked child, another thread may have held it)."""
        self._lock = threading.Lock()
        self._batch = b""
        self._next = 0
        self._pid = os.getpid()

    def take(self) -> bytes:
        with self._lock:
            start = self._next
            if start >= len(self._batch) or self._pid != os.getpid():
                self._batch = os.urandom(self.size * self.BATCH)
                self._pid = os.getpid()
                start = 0
            self._next = start + self.size
            return self._batch[start : start + self.size]


_NONCES = _NonceSource()
os.register_at_fork(after_in_child=_NONCES.forget)
_ENTROPY = _NonceSource(8)
os.register_at_fork(after_in_child=_ENTROPY.forget)


def random_u64() -> int:
    """64 fresh random bits (os.urandom, read in batches like the nonces): the
    entropy of a deal or draw in a game without a seed."""
    return int.from_bytes(_ENTROPY.take(), "big")


def _header_start(version: int, kid: str) -> bytes:
    """The authenticated header that precedes the nonce, but for the ciphertext length."""
    kid_bytes = kid.encode("ascii")
    return bytes((version, len(kid_bytes))) + kid_bytes


def _parse_header(token: bytes) -> tuple[str, int]:
    """Check the framing and return (key id, header length); decrypting comes next."""
    if not token:
        raise StateTokenError(STATE_MISSING, "state is missing")
    if token[0] not in OPENED_FORMATS:
        raise _not_opened(token[0])
    if len(token) < MIN_TOKEN_BYTES:
        raise _truncated(len(token), MIN_TOKEN_BYTES)
    header_end = 2 + token[1] + 2
    declared = int.from_bytes(token[header_end - 2 : header_end], "big")
    _check_length(len(token), header_end + NONCE_BYTES + max(declared, SEALED_AT.size + TAG_BYTES))
    return _decode_kid(token[2 : header_end - 2]), header_end


def _not_opened(version: int) -> StateTokenError:
    """The refusal of a token whose first byte is no format this server opens."""
    if not 0 < version < FIRST_BYTE_OF_NO_FORMAT:
        return StateTokenError(STATE_UNRECOGNIZED, "state is not a Mazzo state token")
    opened = Listing(OPENED_FORMATS, N_(" and "))
    template = (
        N_(
            "state format version {version} is from a newer server"
            " (this server opens formats {opened})"
        )
        if version > FORMAT_VERSION
        else N_(
            "state format version {version} is no longer supported"
            " (this server opens formats {opened})"
        )
    )
    return StateTokenError(STATE_VERSION_UNSUPPORTED, template, version=version, opened=opened)


def _check_length(actual: int, expected: int) -> None:
    """Shorter than declared is truncation; longer means bytes were appended."""
    if actual < expected:
        raise _truncated(actual, expected)
    if actual > expected:
        raise StateTokenError(STATE_TAMPERED, "state has bytes beyond its declared length")


def _truncated(actual: int, expected: int) -> StateTokenError:
    return StateTokenError(
        STATE_TRUNCATED,
        "state is truncated: {actual} bytes, at least {expected} expected",
        actual=actual,
        expected=expected,
    )


def _decode_kid(raw: bytes) -> str:
    """Key ids are ASCII; anything else cannot name a configured key."""
    kid = raw.decode("ascii", errors="replace")
    if not _KEY_ID_RE.fullmatch(kid):
        raise StateTokenError(STATE_KEY_UNKNOWN, "state names a malformed key id")
    return kid


def parse_state_keys(spec: str) -> list[tuple[str, bytes]]:
    """Parse MAZZO_STATE_KEYS: `kid=BASE64KEY[,kid2=BASE64KEY...]`, first one seals.

    Entries are named by position (and key id once it is valid), never by their
    text, because a malformed entry may be key material. Empty entries (a
    trailing comma) are skipped.
    """
    entries = [entry.strip() for entry in spec.split(",")]
    keys = [_parse_entry(entry, index) for index, entry in enumerate(entries, 1) if entry]
    if not keys:
        raise ValueError("no state keys given (expected kid=BASE64KEY[,kid2=BASE64KEY...])")
    check_keys(keys)
    return keys


def _parse_entry(entry: str, index: int) -> tuple[str, bytes]:
    kid, sep, encoded = (part.strip() for part in entry.partition("="))
    where = f"state key entry {index}"
    if not sep:
        raise ValueError(f"{where}: expected kid=BASE64KEY")
    check_key_id(kid, where)
    key = _decode_base64(encoded, f"{where} (key id {kid!r})")
    check_key(kid, key, where)
    return kid, key


def _decode_base64(text: str, where: str) -> bytes:
    """Accept standard or URL-safe base64, with or without padding."""
    normalized = text.replace("-", "+").replace("_", "/").rstrip("=")
    padded = normalized + "=" * (-len(normalized) % 4)
    try:
        return base64.b64decode(padded.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError(f"{where}: key is not valid base64") from None


def generate_dev_key() -> tuple[str, bytes]:
    """A fresh random key for laptops and tests, with an id of its own
    (``dev-`` and 12 hex digits): tokens die with the process, and another
    process refuses them as sealed by a development key it does not hold."""
    return DEV_KEY_PREFIX + secrets.token_hex(6), secrets.token_bytes(32)
