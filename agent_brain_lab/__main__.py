"""``python -m agent_brain_lab``: the ``agent-brain-lab`` command, for an environment whose scripts
folder is not on ``PATH`` (a venv not activated, ``pip install --user``)."""

import sys

from .cli import main

sys.exit(main())
