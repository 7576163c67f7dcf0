"""Settings for the whole suite.

Hypothesis fails an example that runs past its deadline (200 ms by default). Whether one does
depends on the machine's load, not on the code, and the suite must not depend on timing: no
deadline anywhere (speed is measured by ``arena bench``).
"""

import atexit
import os
import shutil
import tempfile

from hypothesis import settings

settings.register_profile("arena", deadline=None)
settings.load_profile("arena")

# The default bots directory is the user's data directory: the tests' submits, wherever they
# do not choose a bots directory, go to a temporary one, never to the real one.
_DATA_HOME = tempfile.mkdtemp(prefix="arena-test-data-")
atexit.register(shutil.rmtree, _DATA_HOME, ignore_errors=True)
os.environ["XDG_DATA_HOME"] = _DATA_HOME
os.environ.pop("ARENA_HOME", None)
