"""`python -m rooflinelib` is the `roofline` command."""
import sys

from .cli import main

sys.exit(main())
