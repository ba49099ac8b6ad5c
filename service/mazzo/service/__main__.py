"""`python -m mazzo.service`: the server (mazzo.service.main).

The entry point to run it by: the search processes, spawned by
multiprocessing, import the main module of the process that spawns them, but
never a package's ``__main__``. So started this way they load only what a
search needs, not the whole server.
"""

import sys

from mazzo.service.main import main

sys.exit(main())
