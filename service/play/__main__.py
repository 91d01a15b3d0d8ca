"""``python -m service.play``: play whole games against a server (see service.play)."""

import sys

from service.play.cli import main

sys.exit(main())
