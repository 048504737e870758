"""`python -m rooflinelib.cli` is the `roofline` command too."""
import sys

from . import main

sys.exit(main())
