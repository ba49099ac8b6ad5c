"""The gateway serves the web table at /play by default, and only its own files."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from mazzo.service.handlers import EngineHandlers
from mazzo.service.metrics import Metrics
from mazzo.service.rest import PLAY_PAGE, create_app
from mazzo.service.state_token import StateSealer, generate_dev_key


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    handlers = EngineHandlers(StateSealer([generate_dev_key()]), Metrics())
    return create_app(handlers, Metrics()).test_client()


def test_play_serves_the_page_without_any_setting(client: FlaskClient) -> None:
    page = client.get("/play")
    assert page.status_code == 200
    assert page.mimetype == "text/html"
    assert b'<main id="board"' in page.data


def test_every_file_the_page_loads_is_served_with_its_type(client: FlaskClient) -> None:
    page = client.get("/play").get_data(as_text=True)
    loaded = re.findall(r'(?:src|href)="(/play/[^"]+)"', page)
    assert {"/play/play.js", "/play/play.css"} <= set(loaded)
    types = {".js": "text/javascript", ".css": "text/css"}
    for path in loaded:
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert answer.mimetype == types[path[path.rindex(".") :]], path


def test_a_file_outside_the_page_is_not_found_with_the_error_envelope(
    client: FlaskClient,
) -> None:
    for path in ("/play/missing.js", "/play/..%2Frest.py", "/play/index.htm"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert answer.json is not None
        assert answer.json["error"]["details"][0]["reason"] == "NOT_FOUND"


def test_the_page_loads_nothing_from_another_site() -> None:
    for path in PLAY_PAGE.iterdir():
        text = path.read_text()
        # Only the SVG namespace may name a URL; no image, font or script leaves the server.
        assert re.findall(r"https?://(?!www\.w3\.org/2000/svg)", text) == [], path.name
