"""mazzo-client's transport: TLS and mutual TLS, metadata, deadlines, sync and asyncio.

A stand-in Engine servicer on 127.0.0.1 answers GetCatalog with what the call
brought (its metadata, the client certificate's name) and NewGame with the
request it received, so each option is seen arriving on the server;
LegalMoves never answers before the test releases it.
"""

from __future__ import annotations

import asyncio
import datetime
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from mazzo.v1 import engine_pb2 as pb
from mazzo.v1 import engine_pb2_grpc
from mazzo_client import TLS, AsyncMazzoClient, MazzoClient, MazzoError

SERVER_NAME = "mazzo.test"
RELEASE_TIMEOUT = 60.0


@dataclass(frozen=True)
class Pem:
    key: bytes
    certificate: bytes


def issue(name: str, issuer: Pem | None = None) -> Pem:
    """A certificate for ``name``, signed by ``issuer`` (self-signed when None: a CA)."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    signer_key, signer_name = key, subject
    if issuer is not None:
        signer_key = serialization.load_pem_private_key(issuer.key, None)  # type: ignore[assignment]
        signer_name = x509.load_pem_x509_certificate(issuer.certificate).subject
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(signer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
    )
    if issuer is not None:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), False)
    certificate = builder.sign(signer_key, hashes.SHA256())
    return Pem(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
        certificate.public_bytes(serialization.Encoding.PEM),
    )


class EchoEngine(engine_pb2_grpc.EngineServicer):
    def __init__(self) -> None:
        self.release = threading.Event()

    def GetCatalog(
        self, request: pb.GetCatalogRequest, context: grpc.ServicerContext
    ) -> pb.GetCatalogResponse:  # noqa: N802, E501
        sent = [f"{k}={v}" for k, v in context.invocation_metadata() if k.startswith("x-")]
        peer = [name.decode() for name in context.auth_context().get("x509_common_name", [])]
        return pb.GetCatalogResponse(
            games=[pb.GameInfo(name="echo", title=" ".join(peer), description=" ".join(sent))]
        )

    def NewGame(
        self, request: pb.NewGameRequest, context: grpc.ServicerContext
    ) -> pb.NewGameResponse:  # noqa: N802, E501
        return pb.NewGameResponse(state=request.SerializeToString())  # the request as received

    def LegalMoves(
        self, request: pb.LegalMovesRequest, context: grpc.ServicerContext
    ) -> pb.LegalMovesResponse:  # noqa: N802, E501
        self.release.wait(RELEASE_TIMEOUT)
        return pb.LegalMovesResponse()


@dataclass
class Served:
    port: int
    engine: EchoEngine


@pytest.fixture(scope="module")
def ca() -> Pem:
    return issue("mazzo test CA")


@pytest.fixture(scope="module")
def client_certificate(ca: Pem) -> Pem:
    return issue("seat-service", ca)


def serve(credentials: grpc.ServerCredentials | None) -> Iterator[Served]:
    engine = EchoEngine()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    engine_pb2_grpc.add_EngineServicer_to_server(engine, server)
    if credentials is None:
        port = server.add_insecure_port("127.0.0.1:0")
    else:
        port = server.add_secure_port("127.0.0.1:0", credentials)
    server.start()
    try:
        yield Served(port, engine)
    finally:
        engine.release.set()
        server.stop(0)


@pytest.fixture(scope="module")
def plain() -> Iterator[Served]:
    yield from serve(None)


@pytest.fixture(scope="module")
def mutual_tls(ca: Pem) -> Iterator[Served]:
    """A server that asks every client for a certificate signed by ``ca``."""
    server = issue(SERVER_NAME, ca)
    credentials = grpc.ssl_server_credentials(
        [(server.key, server.certificate)],
        root_certificates=ca.certificate,
        require_client_auth=True,
    )
    yield from serve(credentials)


def test_tls_client_presents_its_certificate_and_checks_the_servers(
    mutual_tls: Served, ca: Pem, client_certificate: Pem
) -> None:
    tls = TLS(
        root_certificates=ca.certificate,
        private_key=client_certificate.key,
        certificate_chain=client_certificate.certificate,
        server_name=SERVER_NAME,
    )
    with MazzoClient(f"127.0.0.1:{mutual_tls.port}", tls=tls) as mazzo:
        assert mazzo.catalog().games[0].title == "seat-service"


def test_tls_client_refuses_a_server_its_roots_do_not_vouch_for(
    mutual_tls: Served, client_certificate: Pem
) -> None:
    stranger = issue("another CA")
    tls = TLS(
        root_certificates=stranger.certificate,
        private_key=client_certificate.key,
        certificate_chain=client_certificate.certificate,
        server_name=SERVER_NAME,
    )
    target = f"127.0.0.1:{mutual_tls.port}"
    with MazzoClient(target, tls=tls, timeout=30) as mazzo, pytest.raises(MazzoError) as refused:
        mazzo.catalog()
    assert refused.value.code == grpc.StatusCode.UNAVAILABLE
    assert refused.value.reason == ""


def test_asyncio_client_speaks_tls_too(
    mutual_tls: Served, ca: Pem, client_certificate: Pem
) -> None:
    tls = TLS(ca.certificate, client_certificate.key, client_certificate.certificate, SERVER_NAME)

    async def catalog() -> pb.GetCatalogResponse:
        async with AsyncMazzoClient(f"127.0.0.1:{mutual_tls.port}", tls=tls) as mazzo:
            return await mazzo.catalog()

    assert asyncio.run(catalog()).games[0].title == "seat-service"


def test_metadata_of_the_client_and_of_the_call_both_reach_the_server(plain: Served) -> None:
    with MazzoClient(f"127.0.0.1:{plain.port}", metadata=[("x-tenant", "osteria")]) as mazzo:
        echoed = mazzo.catalog(metadata=[("x-request-id", "r1")]).games[0].description
    assert echoed == "x-tenant=osteria x-request-id=r1"


def test_asyncio_metadata_of_the_client_and_of_the_call_both_reach_the_server(
    plain: Served,
) -> None:
    async def catalog() -> pb.GetCatalogResponse:
        target = f"127.0.0.1:{plain.port}"
        async with AsyncMazzoClient(target, metadata=[("x-tenant", "osteria")]) as mazzo:
            return await mazzo.catalog(metadata=[("x-request-id", "r2")])

    assert asyncio.run(catalog()).games[0].description == "x-tenant=osteria x-request-id=r2"


def test_a_call_past_its_timeout_is_a_deadline_error_without_reason(plain: Served) -> None:
    target = f"127.0.0.1:{plain.port}"
    with MazzoClient(target, timeout=60) as mazzo, pytest.raises(MazzoError) as refused:
        mazzo.legal_moves(b"", timeout=0.2)  # the server holds it until released
    assert refused.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert (refused.value.reason, refused.value.metadata) == ("", {})


def test_asyncio_call_past_its_timeout_is_a_deadline_error(plain: Served) -> None:
    async def legal_moves() -> None:
        async with AsyncMazzoClient(f"127.0.0.1:{plain.port}", timeout=0.2) as mazzo:
            await mazzo.legal_moves(b"")

    with pytest.raises(MazzoError) as refused:
        asyncio.run(legal_moves())
    assert refused.value.code == grpc.StatusCode.DEADLINE_EXCEEDED


def test_new_game_sends_every_option_it_is_given(plain: Served) -> None:
    tressette = pb.TressetteOptions(napoletana=True)
    with MazzoClient(f"127.0.0.1:{plain.port}") as mazzo:
        echoed = mazzo.new_game(4, tressette=tressette, seed=9, first_dealer=2, decks=[["1D"]])
    received = pb.NewGameRequest.FromString(echoed.state)
    assert received.players == 4 and received.seed == 9 and received.first_dealer == 2
    assert received.WhichOneof("game") == "tressette" and received.tressette.napoletana
    assert list(received.decks[0].cards) == ["1D"]


def test_new_game_passes_other_fields_to_the_request_by_their_proto_names(plain: Served) -> None:
    with MazzoClient(f"127.0.0.1:{plain.port}") as mazzo:
        echoed = mazzo.new_game(2, events_seat=1)
    assert pb.NewGameRequest.FromString(echoed.state).events_seat == 1


#: Every game's keyword of new_game(): the fields of NewGameRequest's oneof ``game``.
GAME_KEYWORDS = [field.name for field in pb.NewGameRequest.DESCRIPTOR.oneofs_by_name["game"].fields]


def _options_of(game: str) -> object:
    """A default options message of ``game``, made from the proto, not named here."""
    field = pb.NewGameRequest.DESCRIPTOR.fields_by_name[game]
    return getattr(pb, field.message_type.name)()


@pytest.mark.parametrize("game", GAME_KEYWORDS)
def test_a_games_keyword_starts_that_game_in_the_sync_client(plain: Served, game: str) -> None:
    with MazzoClient(f"127.0.0.1:{plain.port}") as mazzo:
        echoed = mazzo.new_game(2, **{game: _options_of(game)})
    assert pb.NewGameRequest.FromString(echoed.state).WhichOneof("game") == game


@pytest.mark.parametrize("game", GAME_KEYWORDS)
def test_a_games_keyword_starts_that_game_in_the_asyncio_client(plain: Served, game: str) -> None:
    async def new_game() -> pb.NewGameResponse:
        async with AsyncMazzoClient(f"127.0.0.1:{plain.port}") as mazzo:
            return await mazzo.new_game(2, **{game: _options_of(game)})

    echoed = asyncio.run(new_game())
    assert pb.NewGameRequest.FromString(echoed.state).WhichOneof("game") == game


def test_every_game_of_the_proto_has_its_keyword() -> None:
    assert {"scopa", "tressette", "briscola"} <= set(GAME_KEYWORDS)


@pytest.mark.parametrize(
    ("keywords", "refusal"),
    [
        ({"hand": ["1D"]}, "hand"),  # NewGameRequest has no field `hand`
        ({"briscola": pb.ScopaOptions()}, "briscola= takes a mazzo.v1.BriscolaOptions"),
        ({"briscola": pb.BriscolaOptions(), "options": pb.ScopaOptions()}, "one game"),
        ({"briscola": pb.BriscolaOptions(), "tressette": pb.TressetteOptions()}, "one game"),
        ({"options": pb.Clock()}, "no game's options"),
    ],
)
def test_new_game_refuses_keywords_that_name_no_game_or_two_before_sending(
    plain: Served, keywords: dict[str, object], refusal: str
) -> None:
    async def new_game() -> None:
        async with AsyncMazzoClient(f"127.0.0.1:{plain.port}") as mazzo:
            await mazzo.new_game(2, **keywords)  # type: ignore[arg-type]

    with MazzoClient(f"127.0.0.1:{plain.port}") as mazzo, pytest.raises(TypeError, match=refusal):
        mazzo.new_game(2, **keywords)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=refusal):
        asyncio.run(new_game())
