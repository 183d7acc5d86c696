"""``python -m neardup`` runs the command line."""

import sys

from neardup.cli import main

sys.exit(main())
