"""`python -m rooflinelib.cli` is the `roofline` command too."""
import sys

from rooflinelib.cli import main

sys.exit(main())
