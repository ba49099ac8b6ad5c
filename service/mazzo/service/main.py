"""`make serve`: the gRPC server, the REST gateway and the metrics port.

With MAZZO_WORKERS=1, all in this one process (mazzo.service.process); with
more, this process supervises that many server processes sharing the ports
(mazzo.service.workers), each made the same way. Stops gracefully on SIGTERM
or SIGINT (mazzo.service.process.stop_gracefully), then exits 0.
"""

from __future__ import annotations

import logging
import sys

from mazzo.service import i18n
from mazzo.service.config import Config, ConfigError
from mazzo.service.http_server import raise_file_limit
from mazzo.service.process import serve_one_process

log = logging.getLogger("mazzo")


def main() -> int:
    try:
        config = Config.from_env()
    except ConfigError as error:
        print(f"mazzo: configuration error: {error}", file=sys.stderr)
        return 2
    try:
        i18n.load_catalogs()  # before the workers fork: they share them
    except i18n.CatalogError as error:
        print(f"mazzo: installation error: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if config.dev_key:
        log.warning(
            "MAZZO_STATE_KEYS is not set: using a random development key (id %s); "
            "state tokens will not survive a restart",
            config.state_keys[0][0],
        )
    raise_file_limit()  # inherited by the workers
    if config.workers > 1:
        from mazzo.service import workers  # gunicorn is needed only here

        return workers.serve(config)
    return serve_one_process(config)


if __name__ == "__main__":
    sys.exit(main())
