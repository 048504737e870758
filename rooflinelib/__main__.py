"""`python -m rooflinelib` is the `roofline` command."""
import sys

from rooflinelib.cli import main

sys.exit(main())
