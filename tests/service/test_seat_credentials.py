"""Seat credentials: short, URL-safe, verified without storage, rotated with the keys."""

from __future__ import annotations

import re

import pytest

from mazzo.service.errors import ApiError
from mazzo.service.state_token import StateSealer
from mazzo.service.trust import CREDENTIAL_PURPOSE, SeatCredentials

OLD = ("old", bytes(range(32)))
NEW = ("new", bytes(range(50, 82)))
GAME = bytes(range(12))


def seats(*keys: tuple[str, bytes]) -> SeatCredentials:
    return SeatCredentials(StateSealer(list(keys)).derived_keys(CREDENTIAL_PURPOSE))


def test_a_credential_is_short_url_safe_and_names_its_key_and_seat() -> None:
    credential = seats(OLD).issue(GAME, 3)
    assert re.fullmatch(r"old\.3\.[A-Za-z0-9_-]{22}", credential)
    assert seats(OLD).seat_of(credential, GAME) == 3


def test_a_credential_is_tied_to_its_game_and_seat() -> None:
    issuer = seats(OLD)
    assert issuer.issue(GAME, 0) != issuer.issue(GAME, 1)
    assert issuer.issue(GAME, 0) != issuer.issue(bytes(12), 0)
    with pytest.raises(ApiError) as refused:
        issuer.seat_of(issuer.issue(GAME, 0), bytes(12))
    assert refused.value.reason == "SEAT_CREDENTIAL_INVALID"
    assert refused.value.http_status == 403


def test_credentials_rotate_with_the_state_keys() -> None:
    before = seats(OLD).issue(GAME, 1)
    rotated = seats(NEW, OLD)
    assert rotated.seat_of(before, GAME) == 1  # the old key still verifies
    assert rotated.issue(GAME, 1).startswith("new.1.")  # the new one issues
    with pytest.raises(ApiError) as refused:
        seats(NEW).seat_of(before, GAME)  # once the old key is gone, so are its credentials
    assert refused.value.reason == "SEAT_CREDENTIAL_INVALID"


@pytest.mark.parametrize(
    "credential", ["", ".", "old..", "old.1", "old.x.AAAA", "old.1.AAAA", "old.100.AAAA", "é.1.A"]
)
def test_a_malformed_credential_is_invalid_not_an_error(credential: str) -> None:
    with pytest.raises(ApiError) as refused:
        seats(OLD).seat_of(credential, GAME)
    assert refused.value.reason == "SEAT_CREDENTIAL_INVALID"
