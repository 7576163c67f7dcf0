"""Fixtures of the sandbox tests (defined in sandbox_support, which tests import directly)."""

from sandbox_support import report, reports, run_hostile  # noqa: F401  (pytest fixtures)
