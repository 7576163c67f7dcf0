"""Settings for the whole suite.

Hypothesis fails an example that runs past its deadline (200 ms by default). Whether one does
depends on the machine's load, not on the code, and the suite must not depend on timing: no
deadline anywhere (speed is measured by ``arena bench``).
"""

from hypothesis import settings

settings.register_profile("arena", deadline=None)
settings.load_profile("arena")
