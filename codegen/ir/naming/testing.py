"""The names of a package's ``testing`` module: its pytest fixtures (the runtime's
``testing/fixtures.py`` defines them by these roles)."""

from __future__ import annotations

#: The roles of a package's pytest fixtures (``testing.py``; the runtime's ``testing/fixtures.py``).
FIXTURE_ROLES = ("client", "sync_client", "mock_client", "mock_sync_client", "implementation", "mock_scenario")


def fixture_names(package: str) -> tuple[tuple[str, str], ...]:
    """The pytest fixtures of a package's ``testing`` module, (role, name) in :data:`FIXTURE_ROLES`
    order: ``<package>_<role>`` (``weather_client``, ``weather_sync_client`` ...); the package
    name keeps them apart from other packages' fixtures in the same test session."""
    return tuple((role, f"{package}_{role}") for role in FIXTURE_ROLES)
