"""``python -m lan_demon`` is the same as the ``lan-demon`` command."""

import sys

from lan_demon.cli import main

sys.exit(main())
