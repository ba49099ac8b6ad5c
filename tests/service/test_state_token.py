"""Sealed state tokens: round trips, every refusal reason, rotation, key configuration."""

from __future__ import annotations

import base64
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mazzo.service.state_token import (
    MAX_PAYLOAD_BYTES,
    NONCE_BYTES,
    REASONS,
    SEALED_AT,
    STATE_EXPIRED,
    STATE_KEY_UNKNOWN,
    STATE_MISSING,
    STATE_TAMPERED,
    STATE_TRUNCATED,
    STATE_UNRECOGNIZED,
    STATE_VERSION_UNSUPPORTED,
    TAG_BYTES,
    StateSealer,
    StateTokenError,
    _NonceSource,
    generate_dev_key,
    parse_state_keys,
)
from tests.service.support import HandClock

KEY_A = bytes(range(32))
KEY_B = bytes(range(100, 132))
PAYLOAD = b"scopa state: four players, nobody has a settebello yet"


@pytest.fixture
def sealer() -> StateSealer:
    return StateSealer([("k1", KEY_A)])


def refusal(sealer: StateSealer, token: bytes) -> str:
    """Open a token that must be refused and return the reason."""
    with pytest.raises(StateTokenError) as caught:
        sealer.open(token)
    assert caught.value.message
    assert str(caught.value) == caught.value.message
    return caught.value.reason


def test_reasons_are_distinct_upper_snake() -> None:
    assert len(set(REASONS)) == 7
    assert all(reason.isupper() and reason.startswith("STATE_") for reason in REASONS)


@given(st.binary(max_size=2048))
def test_round_trip(payload: bytes) -> None:
    sealer = StateSealer([("k1", KEY_A)])
    assert sealer.open(sealer.seal(payload)) == payload


@pytest.mark.parametrize("size", [16, 24, 32])
def test_every_key_size_round_trips(size: int) -> None:
    sealer = StateSealer([("k", bytes(size))])
    assert sealer.open(sealer.seal(PAYLOAD)) == PAYLOAD


def test_largest_payload_round_trips_and_larger_is_refused(sealer: StateSealer) -> None:
    payload = bytes(MAX_PAYLOAD_BYTES)
    assert sealer.open(sealer.seal(payload)) == payload
    with pytest.raises(ValueError, match="exceeds"):
        sealer.seal(payload + b"x")


def test_same_payload_gives_different_tokens(sealer: StateSealer) -> None:
    tokens = {sealer.seal(PAYLOAD) for _ in range(50)}
    assert len(tokens) == 50


def nonce_of(token: bytes) -> bytes:
    header_end = 2 + token[1] + 2
    return token[header_end : header_end + NONCE_BYTES]


def test_nonces_are_distinct_across_batches(sealer: StateSealer) -> None:
    count = 3 * _NonceSource.BATCH + 5
    nonces = {nonce_of(sealer.seal(PAYLOAD)) for _ in range(count)}
    assert len(nonces) == count


def test_a_forked_child_never_seals_with_its_parents_nonces(sealer: StateSealer) -> None:
    sealer.seal(PAYLOAD)  # the parent now holds a batch with nonces left in it
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: seal once, report the nonce, leave without pytest's teardown
        try:
            os.write(write, nonce_of(sealer.seal(PAYLOAD)))
        finally:
            os._exit(0)
    os.close(write)
    child_nonce = os.read(read, NONCE_BYTES)
    os.close(read)
    os.waitpid(pid, 0)
    parent_nonces = {nonce_of(sealer.seal(PAYLOAD)) for _ in range(_NonceSource.BATCH)}
    assert len(child_nonce) == NONCE_BYTES
    assert child_nonce not in parent_nonces


def test_a_batch_read_by_another_process_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    source = _NonceSource()
    source.take()
    next_in_batch = source._batch[NONCE_BYTES : 2 * NONCE_BYTES]
    # As after a fork made without Python's fork hooks (by C code): only the pid tells.
    monkeypatch.setattr(os, "getpid", lambda: -1)
    assert source.take() != next_in_batch


@pytest.mark.parametrize("kid", ["k", "key-2024_01", "x" * 16])
def test_overhead_bound(kid: str) -> None:
    sealer = StateSealer([(kid, KEY_A)])
    overhead = len(sealer.seal(PAYLOAD)) - len(PAYLOAD)
    assert overhead <= 1 + 1 + len(kid) + 2 + NONCE_BYTES + SEALED_AT.size + TAG_BYTES


def test_payload_is_not_visible_in_token(sealer: StateSealer) -> None:
    assert b"settebello" not in sealer.seal(PAYLOAD)


def test_empty_token_is_missing(sealer: StateSealer) -> None:
    assert refusal(sealer, b"") == STATE_MISSING


def test_every_prefix_is_truncated(sealer: StateSealer) -> None:
    token = sealer.seal(PAYLOAD)
    for length in range(1, len(token)):
        assert refusal(sealer, token[:length]) == STATE_TRUNCATED, length


def test_truncated_empty_payload_token(sealer: StateSealer) -> None:
    token = sealer.seal(b"")
    assert refusal(sealer, token[:-1]) == STATE_TRUNCATED


@pytest.mark.parametrize("extra", [b"\x00", b"garbage", bytes(100)])
def test_appended_bytes_are_tampering(sealer: StateSealer, extra: bytes) -> None:
    assert refusal(sealer, sealer.seal(PAYLOAD) + extra) == STATE_TAMPERED


@pytest.mark.parametrize(
    ("version", "said"),
    [(1, "no longer supported"), (4, "from a newer server"), (31, "from a newer server")],
)
def test_a_past_or_future_format_is_unsupported(
    sealer: StateSealer, version: int, said: str
) -> None:
    token = sealer.seal(PAYLOAD)
    with pytest.raises(StateTokenError) as caught:
        sealer.open(bytes([version]) + token[1:])
    assert caught.value.reason == STATE_VERSION_UNSUPPORTED
    assert f"format version {version} is {said}" in caught.value.message
    assert "this server opens formats 2 and 3" in caught.value.message


def test_short_token_with_other_version_is_unsupported(sealer: StateSealer) -> None:
    assert refusal(sealer, b"\x01") == STATE_VERSION_UNSUPPORTED


@pytest.mark.parametrize("first", [0, 32, ord("n"), 0xFF])
def test_a_token_starting_with_no_format_byte_is_not_a_mazzo_state(
    sealer: StateSealer, first: int
) -> None:
    token = sealer.seal(PAYLOAD)
    assert refusal(sealer, bytes([first]) + token[1:]) == STATE_UNRECOGNIZED


@pytest.mark.parametrize("text", ["bm90IGEgdG9rZW4=", "aGVsbG8=", "e30="])
def test_a_string_that_is_no_token_at_all_is_said_to_be_no_mazzo_state(
    sealer: StateSealer, text: str
) -> None:
    with pytest.raises(StateTokenError) as caught:
        sealer.open(base64.b64decode(text))  # "not a token", "hello", "{}"
    assert caught.value.reason == STATE_UNRECOGNIZED
    assert caught.value.message == "state is not a Mazzo state token"


def test_unknown_key_id(sealer: StateSealer) -> None:
    token = StateSealer([("k2", KEY_A)]).seal(PAYLOAD)
    assert refusal(sealer, token) == STATE_KEY_UNKNOWN


def test_same_key_id_other_secret_is_tampering(sealer: StateSealer) -> None:
    token = StateSealer([("k1", KEY_B)]).seal(PAYLOAD)
    assert refusal(sealer, token) == STATE_TAMPERED


def expected_reasons(position: int, kid_len: int, old: int, new: int) -> set[str]:
    """Which reasons a changed byte at `position` may legitimately produce."""
    if position == 0:  # another format (2 fails authentication), or none
        return {STATE_TAMPERED, STATE_VERSION_UNSUPPORTED, STATE_UNRECOGNIZED}
    if position == 1:  # the key id length: the framing moves
        return {STATE_TRUNCATED, STATE_TAMPERED, STATE_KEY_UNKNOWN}
    if position < 2 + kid_len:
        return {STATE_KEY_UNKNOWN}
    if position < 2 + kid_len + 2:  # declared length: longer is truncated, shorter extended
        return {STATE_TRUNCATED} if new > old else {STATE_TAMPERED}
    return {STATE_TAMPERED}


@pytest.mark.parametrize("seal_format", [3, 2])
@pytest.mark.parametrize("mask", [0x01, 0x80, 0xFF])
def test_every_flipped_byte_is_refused(mask: int, seal_format: int) -> None:
    sealer = StateSealer([("k1", KEY_A)], seal_format=seal_format)
    token = sealer.seal(PAYLOAD)
    for position in range(len(token)):
        altered = bytearray(token)
        altered[position] ^= mask
        reason = refusal(sealer, bytes(altered))
        allowed = expected_reasons(position, 2, token[position], altered[position])
        assert reason in allowed, (position, reason)


def test_key_id_changed_to_another_configured_key_is_tampering() -> None:
    sealer = StateSealer([("k1", KEY_A), ("k2", KEY_B)])
    token = bytearray(sealer.seal(PAYLOAD))
    token[3] = ord("2")
    assert refusal(sealer, bytes(token)) == STATE_TAMPERED


def test_rotation_old_tokens_still_open() -> None:
    old = StateSealer([("old", KEY_A)])
    old_token = old.seal(PAYLOAD)
    rotated = StateSealer([("new", KEY_B), ("old", KEY_A)])
    assert rotated.open(old_token) == PAYLOAD
    assert rotated.sealing_key_id == "new"
    new_token = rotated.seal(PAYLOAD)
    assert refusal(old, new_token) == STATE_KEY_UNKNOWN
    assert StateSealer([("new", KEY_B)]).open(new_token) == PAYLOAD


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ([], "at least one"),
        ([("k", bytes(15))], "16, 24 or 32 bytes"),
        ([("k", bytes(33))], "16, 24 or 32 bytes"),
        ([("k", "a" * 32)], "16, 24 or 32 bytes"),
        ([("", KEY_A)], "key id"),
        (([("x" * 17, KEY_A)]), "key id"),
        ([("bad id", KEY_A)], "key id"),
        ([("caffè", KEY_A)], "key id"),
        ([("k", KEY_A), ("k", KEY_B)], "given twice"),
    ],
)
def test_bad_key_configuration(keys: list[tuple[str, bytes]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        StateSealer(keys)


def b64(key: bytes, urlsafe: bool = False, pad: bool = True) -> str:
    text = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(key).decode()
    return text if pad else text.rstrip("=")


def test_parse_state_keys_forms() -> None:
    key_c = bytes([0xFB, 0xFF]) * 8  # encodes with + and / (or - and _)
    spec = f" k1={b64(KEY_A)} , k2 = {b64(KEY_B, urlsafe=True, pad=False)},k3={b64(key_c, True)},"
    assert parse_state_keys(spec) == [("k1", KEY_A), ("k2", KEY_B), ("k3", key_c)]


def test_parsed_keys_work_for_sealing() -> None:
    keys = parse_state_keys(f"new={b64(KEY_B)},old={b64(KEY_A)}")
    sealer = StateSealer(keys)
    assert sealer.sealing_key_id == "new"
    assert sealer.open(StateSealer([("old", KEY_A)]).seal(PAYLOAD)) == PAYLOAD


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "no state keys"),
        (" , ", "no state keys"),
        (b64(KEY_A, pad=False), "entry 1: expected kid=BASE64KEY"),
        (b64(KEY_A), "entry 1: key id"),  # the padding '=' looks like a separator
        (f"k1={b64(KEY_A)},{b64(KEY_B)}", "entry 2"),
        (f"={b64(KEY_A)}", "entry 1: key id"),
        (f"bad id={b64(KEY_A)}", "entry 1: key id"),
        ("k1=not*base64!", "entry 1 \\(key id 'k1'\\): key is not valid base64"),
        ("k1=", "entry 1 \\(key id 'k1'\\): key must be"),
        (f"k1={b64(bytes(20))}", "key must be 16, 24 or 32 bytes, got 20"),
        (f"k1={b64(KEY_A)},k1={b64(KEY_B)}", "given twice"),
    ],
)
def test_parse_state_keys_refusals(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        parse_state_keys(spec)
    for secret in (b64(KEY_A), b64(KEY_B), b64(KEY_A, pad=False)):
        assert secret not in str(caught.value)


def test_generate_dev_key() -> None:
    kid, key = generate_dev_key()
    assert kid.startswith("dev-") and len(kid) == 16
    assert len(key) == 32
    other_kid, other_key = generate_dev_key()
    assert (other_kid, other_key) != (kid, key) and other_kid != kid
    sealer = StateSealer([(kid, key)])
    assert sealer.open(sealer.seal(PAYLOAD)) == PAYLOAD


@pytest.mark.parametrize("earlier_kid", ["dev", "dev-0123456789ab"])
def test_a_token_of_another_development_server_names_its_development_key(
    earlier_kid: str,
) -> None:
    """Before ids of their own every development key had the id "dev": a token of
    another development process is refused by its key, not as failing authentication."""
    token = StateSealer([(earlier_kid, KEY_A)]).seal(PAYLOAD)
    with pytest.raises(StateTokenError) as caught:
        StateSealer([generate_dev_key()]).open(token)
    assert caught.value.reason == STATE_KEY_UNKNOWN
    message = caught.value.message
    assert f"development key {earlier_kid!r}, which this process does not hold" in message


def test_an_unknown_key_that_is_no_development_key_is_named_as_unknown(
    sealer: StateSealer,
) -> None:
    with pytest.raises(StateTokenError) as caught:
        sealer.open(StateSealer([("k9", KEY_A)]).seal(PAYLOAD))
    assert caught.value.message == "state sealed by unknown key 'k9'"


# ---------------------------------------------------------------- token age


def test_a_token_records_when_it_was_sealed() -> None:
    clock = HandClock(1_800_000_000.7)
    sealer = StateSealer([("k1", KEY_A)], clock=clock)
    token, sealed_at = sealer.seal_dated(PAYLOAD)
    clock.now += 1000
    assert sealed_at == 1_800_000_000
    assert sealer.open_dated(token) == (PAYLOAD, 1_800_000_000)


def test_a_token_older_than_the_max_age_is_expired() -> None:
    clock = HandClock(1_800_000_000)
    sealer = StateSealer([("k1", KEY_A)], max_age=3600, clock=clock)
    token = sealer.seal(PAYLOAD)
    clock.now += 3600
    assert sealer.open(token) == PAYLOAD  # exactly the limit still opens
    clock.now += 1
    assert refusal(sealer, token) == STATE_EXPIRED


def test_a_token_dated_further_ahead_than_the_max_age_is_expired() -> None:
    # Sealed by a replica whose clock runs ahead: up to the limit is skew and
    # opens; further would let the token outlive the limit.
    clock = HandClock(1_800_000_000)
    sealer = StateSealer([("k1", KEY_A)], max_age=3600, clock=clock)
    clock.now += 3600
    at_the_limit = sealer.seal(PAYLOAD)
    clock.now += 1
    past_it = sealer.seal(PAYLOAD)
    clock.now -= 3601
    assert sealer.open(at_the_limit) == PAYLOAD
    assert refusal(sealer, past_it) == STATE_EXPIRED


def test_without_a_max_age_tokens_never_expire() -> None:
    clock = HandClock(1_800_000_000)
    sealer = StateSealer([("k1", KEY_A)], clock=clock)
    token = sealer.seal(PAYLOAD)
    clock.now += 10 * 365 * 86400
    assert sealer.open(token) == PAYLOAD


def test_derived_keys_differ_by_purpose_and_follow_the_key_order() -> None:
    sealer = StateSealer([("new", KEY_B), ("old", KEY_A)])
    seats = sealer.derived_keys(b"seats")
    assert [kid for kid, _ in seats] == ["new", "old"]
    assert seats != sealer.derived_keys(b"other")
    assert all(len(key) == 32 and key not in (KEY_A, KEY_B) for _, key in seats)
    assert StateSealer([("old", KEY_A)]).derived_keys(b"seats") == seats[1:]
