"""The two ways a measurement can refuse to give a number."""


class VerificationError(RuntimeError):
    """A kernel's output was wrong: its time is not a measurement."""


class BackendUnavailable(RuntimeError):
    """The backend asked for cannot run here (no GPU, library missing)."""
