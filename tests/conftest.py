"""Shared test set-up.  Kept small on purpose: fixtures belong with the tests that use them."""
import os

from hypothesis import settings

# Same examples on every run, so a CI failure reproduces locally.  Export
# HYPOTHESIS_PROFILE=explore to let hypothesis search afresh (and with more examples).
settings.register_profile("course", derandomize=True, print_blob=True)
settings.register_profile("explore", max_examples=1000, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "course"))

# `roofline measure` and `sweep` store their results by default, and the notebooks load what is
# stored: the tests (and the notebooks nbval runs) use a folder of their own, never a
# student's results/, so that a stored measurement neither changes a checked output nor is
# overwritten by a test.
if not os.environ.get("ROOFLINE_RESULTS_DIR"):
    import tempfile
    os.environ["ROOFLINE_RESULTS_DIR"] = tempfile.mkdtemp(prefix="roofline-test-results-")
