"""``python -m paragen.cli`` (how torchrun starts one worker per GPU)."""

import sys

from paragen.cli import main

sys.exit(main())
