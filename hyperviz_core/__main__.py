"""``python -m hyperviz_core`` runs the ``vizrag`` CLI."""

import sys

from .cli import main

sys.exit(main())
