"""`python -m mazzo_client.play ...`: the same as `mazzo play ...`."""

import sys

from mazzo_client.play.cli import main

sys.exit(main(["play", *sys.argv[1:]]))
