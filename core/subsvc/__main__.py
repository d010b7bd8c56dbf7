"""`python -m subsvc ...` is the `subsvc` command."""

import sys

from subsvc.cli import main

sys.exit(main())
