"""Shared test set-up.  Kept small on purpose: fixtures belong with the tests that use them."""
import os

from hypothesis import settings

# Same examples on every run, so a CI failure reproduces locally.  Export
# HYPOTHESIS_PROFILE=explore to let hypothesis search afresh (and with more examples).
settings.register_profile("course", derandomize=True, print_blob=True)
settings.register_profile("explore", max_examples=1000, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "course"))
