import os

import pytest
from hypothesis import HealthCheck, settings

# CI runs the same examples every time, so a red build is reproducible; locally they vary.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def local_ray(tmp_path_factory):
    """A local 2-CPU Ray for the whole session (tests/test_ray*.py), with the fault hook's
    marker armed (a test that deletes it gets one signing worker killed)."""
    import ray

    from neardup.ray._engine import FAULT_ENV

    marker = tmp_path_factory.mktemp("fault") / "killed"
    marker.write_text("armed by a test that deletes this file")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(
        num_cpus=2,
        object_store_memory=300 * 1024 * 1024,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {FAULT_ENV: str(marker)}},
    )
    try:
        yield marker
    finally:
        ray.shutdown()


@pytest.fixture
def spills(monkeypatch):
    """Every ``neardup.spill.SetSpill`` made while the test runs, in order: a run's spill is
    made and closed inside ``engine.run``, so its write counter (``_writes``, the crate's) and
    ``active`` are looked at afterwards. Faults are injected with ``spill._FAIL_WRITE_AT``."""
    from neardup import spill

    made = []
    real = spill.SetSpill.__init__

    def init(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(spill.SetSpill, "__init__", init)
    return made
